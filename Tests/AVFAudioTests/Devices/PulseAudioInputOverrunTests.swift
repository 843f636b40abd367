// A capture overrun end to end, against a private PulseAudio server with a null sink (started and
// stopped by the test; skipped, visibly, without pulseaudio). The engine plays the counter signal
// into the sink and records the sink's monitor through `engine.inputNode` (duplex: captured frames
// wait in the device's InputClockBridge for the next playback request). Once, 2 s in, the output's
// source node sleeps for 1.5 s inside its render: on purpose it breaks the real-time rules, as a
// page fault storm or a priority inversion would. PulseAudio's mainloop thread is the device
// thread, so nothing is read or played meanwhile: the server keeps the captured audio (the record
// stream's buffer holds seconds) and hands it over in one burst when the render returns, 1.5 s,
// far more than the bridge's ring (24 periods, 0.5 s); the ring overflows, its oldest frames are
// dropped, and the playback stream underruns as well. Checked: the engine's xrun count rises, the
// input resumes (the counter arrives again, unbroken, for the rest of the run), and the round
// trip (what is rendered now minus what comes back now: the ring's fill plus the server's buffers)
// returns to about what it was before the stall, instead of staying a full ring higher.
import Testing
import Foundation
import AVFoundation
import AudioDevices

@Suite(.serialized)
struct PulseAudioInputOverrunTests {
    /// What the sink node saw, per render cycle, in storage allocated before the engine starts.
    final class Log: @unchecked Sendable {
        let capacity = 4_096
        /// The output's counter position when the cycle rendered, and the counter index of the
        /// first input frame of that cycle (-1: silence).
        let rendered: UnsafeMutablePointer<Int>, captured: UnsafeMutablePointer<Int>
        /// Breaks in the input counter since the previous cycle (a frame that does not follow the one before).
        let breaks: UnsafeMutablePointer<Int>
        var cycles = 0
        var position = 0
        var slept = false
        var last = -1
        init() {
            rendered = .allocate(capacity: capacity); captured = .allocate(capacity: capacity); breaks = .allocate(capacity: capacity)
        }
        deinit { rendered.deallocate(); captured.deallocate(); breaks.deallocate() }
    }

    @Test("A render that stalls once overruns the input ring: the xrun count rises, input resumes, the round trip returns to normal",
          .enabled(if: DeviceComponents.pulse, "pulseaudio or libpulse.so.0 is not installed"))
    func stalledRenderOverrunsTheInput() throws {
        InputMuteTestLock.lock.lock()
        defer { InputMuteTestLock.lock.unlock() }
        let server = try PrivatePulseServer()
        defer { server.stop() }
        let rate = 48_000.0, period = 1_024
        let stallAt = Int(2 * rate), stall: UInt32 = 1_500_000
        let engine = AVAudioEngine()
        try engine._setAudioDevice("pulse:nullsink:nullsink.monitor@\(server.server)", periodFrames: period)
        let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2)!
        let log = Log()
        let source = AVAudioSourceNode(format: format) { _, _, frameCount, list in
            let buffers = UnsafeMutableAudioBufferListPointer(list)
            let l = buffers[0].mData!.assumingMemoryBound(to: Float.self), r = buffers[1].mData!.assumingMemoryBound(to: Float.self)
            for k in 0..<Int(frameCount) {
                l[k] = CounterSignal.left(log.position + k)
                r[k] = -l[k]
            }
            log.position += Int(frameCount)
            if !log.slept && log.position >= stallAt {
                log.slept = true
                usleep(stall)
            }
            return noErr
        }
        let sink = AVAudioSinkNode { _, frames, list in
            let buffers = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: list))
            guard log.cycles < log.capacity, buffers.count == 2 else { return noErr }
            let l = buffers[0].mData!.assumingMemoryBound(to: Float.self)
            var breaks = 0
            for k in 0..<Int(frames) {
                // (0 is silence: the counter reaches that value only after 43 s)
                let index = l[k] == 0 ? -1 : CounterSignal.index(of: l[k])
                if index >= 0 && log.last >= 0 && index != log.last + 1 { breaks += 1 }
                log.last = index
            }
            log.rendered[log.cycles] = log.position
            log.captured[log.cycles] = l[0] == 0 ? -1 : CounterSignal.index(of: l[0])
            log.breaks[log.cycles] = breaks
            log.cycles += 1
            return noErr
        }
        engine.attach(source)
        engine.attach(sink)
        engine.connect(source, to: engine.outputNode, format: format)
        engine.connect(engine.inputNode, to: sink, format: nil)
        try engine.start()
        // (the null sink may take up to 2 s to start asking: see AwakeNullSink; every wait has a deadline)
        func wait(until condition: () -> Bool, seconds: Double) {
            let deadline = Date().addingTimeInterval(seconds)
            while !condition() && Date() < deadline { usleep(10_000) }
        }
        wait(until: { log.position >= stallAt - Int(0.2 * rate) }, seconds: 10)
        let xrunsBefore = engine._audioDeviceXrunCount
        wait(until: { log.slept && log.position > stallAt + 4 * period }, seconds: 10)
        usleep(3_000_000)
        let xrunsAfter = engine._audioDeviceXrunCount
        engine.stop()

        // The round trip in frames, per cycle with input, where the output was in `range`.
        func roundTrips(_ range: Range<Int>) -> [Int] {
            (0..<log.cycles).filter { range.contains(log.rendered[$0]) && log.captured[$0] >= 0 }
                .map { log.rendered[$0] - log.captured[$0] }.sorted()
        }
        let before = roundTrips(Int(1 * rate)..<stallAt)
        let end = log.rendered[log.cycles - 1]
        let after = roundTrips((end - Int(1 * rate))..<end)
        let medianBefore = before.isEmpty ? -1 : before[before.count / 2], medianAfter = after.isEmpty ? -1 : after[after.count / 2]
        // The input after the stall: the cycles from 1 s after it to the end.
        let settled = (0..<log.cycles).filter { log.rendered[$0] > stallAt + Int(1 * rate) }
        let breaksAfter = settled.reduce(0) { $0 + log.breaks[$1] }
        let silentAfter = settled.filter { log.captured[$0] < 0 }.count
        print("PulseAudio input overrun: \(log.cycles) cycles, rendered to \(end); xruns \(xrunsBefore) before the stall, \(xrunsAfter) after; round trip \(before.first ?? -1)...\(before.last ?? -1) frames before (median \(medianBefore)), \(after.first ?? -1)...\(after.last ?? -1) in the last second (median \(medianAfter)); \(settled.count) cycles after settling, \(breaksAfter) breaks, \(silentAfter) silent")
        #expect(log.slept)
        #expect(xrunsAfter > xrunsBefore, "the stall was not counted: \(xrunsBefore) xruns before, \(xrunsAfter) after")
        #expect(!before.isEmpty && !after.isEmpty, "no input before (\(before.count) cycles) or after (\(after.count)) the stall")
        // Input resumes: from 1 s after the stall the counter comes back in every cycle, unbroken.
        #expect(settled.count > 40 && breaksAfter == 0 && silentAfter == 0)
        // The round trip returns to its level before the stall, give or take the bridge's adaptive
        // priming (it may settle up to two periods higher after an underrun) and a period of
        // scheduling: within 4 periods (a ring left full would be 20 periods above).
        #expect(abs(medianAfter - medianBefore) < 4 * period, "round trip \(medianBefore) frames before the stall, \(medianAfter) after")
    }
}

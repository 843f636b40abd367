import Testing
import AVFoundation

@Suite struct AVAudioEngineGraphTests {
    /// A 44.1 kHz player into a 48 kHz mixer: the mixer converts the rate; a 1 kHz tone stays 1 kHz
    /// and keeps its level (less the −3 dB a centred mono input gets on each side), and the output
    /// starts aligned.
    @Test func mixerConvertsSampleRatePerInput() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        let inRate = 44_100.0
        let tone = (0..<44_100).map { Float(0.5 * sin(2 * Double.pi * 1000 * Double($0) / inRate)) }
        let buffer = Offline.buffer([tone], rate: inRate)
        engine.connect(player, to: engine.mainMixerNode, format: buffer.format)
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(48_000, 2), maximumFrameCount: 480)
        try engine.start()
        player.scheduleBuffer(buffer)
        player.play()
        let out = try Offline.render(engine, total: 24_000, chunk: 480)
        // Compare with the ideal 48 kHz tone away from the edges (the converter is zero-delay).
        var worst: Float = 0
        for i in 2000..<22_000 {
            worst = max(worst, abs(out[0][i] - Offline.centre * Float(0.5 * sin(2 * Double.pi * 1000 * Double(i) / 48_000))))
        }
        #expect(worst < 1e-4, "max deviation from the ideal 48 kHz tone: \(worst)")
        #expect(out[1] == out[0])
    }

    @Test func connectionQueriesAndSplitting() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        let mixerA = AVAudioMixerNode(), mixerB = AVAudioMixerNode()
        [player, mixerA, mixerB].forEach(engine.attach)
        // The mixers run at the player's rate: split paths may not change rate before they meet.
        engine.connect(mixerA, to: engine.mainMixerNode, format: Offline.standard())
        engine.connect(mixerB, to: engine.mainMixerNode, format: Offline.standard())
        let points = [AVAudioConnectionPoint(node: mixerA, bus: 0), AVAudioConnectionPoint(node: mixerB, bus: 1)]
        engine.connect(player, to: points, fromBus: 0, format: Offline.standard())
        #expect(Set(engine.outputConnectionPoints(for: player, outputBus: 0)) == Set(points))
        #expect(engine.inputConnectionPoint(for: mixerB, inputBus: 1)?.node === player)
        #expect(engine.inputConnectionPoint(for: mixerB, inputBus: 0) == nil)
        #expect(engine.mainMixerNode.nextAvailableInputBus == 2)
        #expect(engine.attachedNodes.count == 5)   // output, main mixer, player, two mixers
        // Per-connection volume overrides: one path at 0.5, the other inherits the player's volume.
        player.destination(forMixer: mixerA, bus: 0)!.volume = 0.5
        #expect(player.destination(forMixer: mixerA, bus: 1) == nil)
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(), maximumFrameCount: 256)
        try engine.start()
        player.scheduleBuffer(Offline.buffer([[0.4], [0.4]]))
        player.play()
        let out = try Offline.render(engine, total: 256, chunk: 256)
        // Fan-out renders the player once; both paths sum: 0.4 × 0.5 + 0.4 × 1.
        #expect(abs(out[0][0] - 0.6) < 1e-6)
        engine.disconnectNodeOutput(player)
        #expect(engine.outputConnectionPoints(for: player, outputBus: 0).isEmpty)
        engine.detach(mixerB)
        #expect(!engine.attachedNodes.contains(mixerB))
    }

    /// Editing the graph between render calls takes effect at the next cycle, with no gap.
    @Test func connectAndDisconnectWhileRendering() throws {
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(48_000, 1), maximumFrameCount: 100)
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Offline.standard(48_000, 1))
        try engine.start()
        player.scheduleBuffer(Offline.buffer([Array(repeating: 0.5, count: 1000)]))
        player.play()
        var out = try Offline.render(engine, total: 100, chunk: 100)
        #expect(out[0].allSatisfy { $0 == 0.5 })
        let second = AVAudioPlayerNode()
        engine.attach(second)
        engine.connect(second, to: engine.mainMixerNode, format: Offline.standard(48_000, 1))
        second.scheduleBuffer(Offline.buffer([Array(repeating: 0.25, count: 1000)]))
        second.play()
        out = try Offline.render(engine, total: 100, chunk: 100)
        #expect(out[0].allSatisfy { $0 == 0.75 })
        engine.disconnectNodeOutput(player)
        out = try Offline.render(engine, total: 100, chunk: 100)
        #expect(out[0].allSatisfy { $0 == 0.25 })
        engine.detach(second)
        out = try Offline.render(engine, total: 100, chunk: 100)
        #expect(out[0].allSatisfy { $0 == 0 })
    }

    @Test func playerTimesAndPause() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Offline.standard(48_000, 1))
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(48_000, 1), maximumFrameCount: 100)
        try engine.start()
        let ramp = (0..<1000).map { Float($0) / 1000 }
        player.scheduleBuffer(Offline.buffer([ramp]))
        _ = try Offline.render(engine, total: 200, chunk: 100)   // not playing yet: silence, no progress
        player.play()
        var out = try Offline.render(engine, total: 100, chunk: 100)
        #expect(out[0][0] == 0 && out[0][99] == ramp[99])
        let nodeTime = try #require(player.lastRenderTime)
        let playerTime = try #require(player.playerTime(forNodeTime: nodeTime))
        #expect(playerTime.sampleTime == 100 - 100 + nodeTime.sampleTime - 200)
        #expect(player.nodeTime(forPlayerTime: playerTime)?.sampleTime == nodeTime.sampleTime)
        player.pause()
        out = try Offline.render(engine, total: 100, chunk: 100)
        #expect(out[0].allSatisfy { $0 == 0 })
        player.play()
        out = try Offline.render(engine, total: 100, chunk: 100)
        #expect(out[0][0] == ramp[100])   // resumes where it paused
    }

    @Test func scheduleFileWithRateConversionAndSegments() throws {
        let url = temporaryURL("player-file.wav")
        let rate = 44_100.0
        let tone = (0..<22_050).map { Float(0.5 * sin(2 * Double.pi * 441 * Double($0) / rate)) }
        do {
            let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: rate,
                                                                    AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true])
            try file.write(from: Offline.buffer([tone], rate: rate))
        }
        let file = try AVAudioFile(forReading: url)
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Offline.standard(48_000, 2))
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(48_000, 2), maximumFrameCount: 1024)
        try engine.start()
        var done = false
        player.scheduleFile(file, at: nil) { done = true }
        player.play()
        let out = try Offline.render(engine, total: 30_000, chunk: 1024)
        #expect(done)
        // 0.5 s at 44.1 kHz → 24 000 frames at 48 kHz of a 441 Hz tone in both channels.
        var worst: Float = 0
        for i in 1000..<23_000 { worst = max(worst, abs(out[0][i] - Float(0.5 * sin(2 * Double.pi * 441 * Double(i) / 48_000)))) }
        #expect(worst < 1e-4)
        #expect(out[1][5000] == out[0][5000])
        #expect(out[0][24_100...].allSatisfy { abs($0) < 1e-6 })
        // A segment, resampled: frames 11 025 ..< 22 050 of the file.
        let engine2 = AVAudioEngine()
        let p2 = AVAudioPlayerNode()
        engine2.attach(p2)
        engine2.connect(p2, to: engine2.mainMixerNode, format: Offline.standard(44_100, 1))
        try engine2.enableManualRenderingMode(.offline, format: Offline.standard(44_100, 1), maximumFrameCount: 512)
        try engine2.start()
        p2.scheduleSegment(file, startingFrame: 11_025, frameCount: 100, at: nil)
        p2.play()
        let seg = try Offline.render(engine2, total: 512, chunk: 512)
        #expect(Array(seg[0][0..<100]) == Array(tone[11_025..<11_125]))
        #expect(seg[0][100...].allSatisfy { $0 == 0 })
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func add(_ n: Int) { lock.lock(); count += n; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return count }
}

/// Device start-up, serialized: the "no device" case changes the process environment.
@Suite(.serialized) struct AVAudioEngineDeviceTests {
    /// start() on a device: the null device renders in real time, so taps and completion
    /// handlers fire without a sound card.
    @Test func realTimeStartOnTheNullDevice() async throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        let format = engine.outputNode.outputFormat(forBus: 0)
        engine.connect(player, to: engine.mainMixerNode, format: format)
        let tapped = Counter()
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 1024, format: nil) { buffer, _ in
            tapped.add(Int(buffer.frameLength))
        }
        let completed = Counter()
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 2400)!
        buffer.frameLength = 2400
        player.scheduleBuffer(buffer) { completed.add(1) }
        try engine.start()
        #expect(engine.isRunning)
        player.play()
        try await Task.sleep(nanoseconds: 300_000_000)
        engine.stop()
        #expect(!engine.isRunning)
        #expect(completed.value == 1)
        #expect(tapped.value >= 4096, "tap frames after 0.3 s: \(tapped.value)")
        #expect(tapped.value % 1024 == 0)
    }

    /// The output device changes format underneath a running engine: the engine stops, posts
    /// `.AVAudioEngineConfigurationChange` (object: the engine), the output node and the main
    /// mixer take the device's new format, and start() renders again at the new rate.
    @Test func deviceConfigurationChangeStopsTheEngineAndNotifies() async throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1))
        try engine.start()
        #expect(engine.outputNode.outputFormat(forBus: 0).sampleRate == 48_000)
        let notified = Counter()
        let observer = NotificationCenter.default.addObserver(forName: .AVAudioEngineConfigurationChange, object: engine, queue: nil) { note in
            if note.object as? AVAudioEngine === engine { notified.add(1) }
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try engine._simulateOutputDeviceConfigurationChange(sampleRate: 44_100, channelCount: 2)
        var waited = 0
        while notified.value == 0 && waited < 200 {
            try await Task.sleep(nanoseconds: 10_000_000)
            waited += 1
        }
        #expect(notified.value == 1)
        #expect(!engine.isRunning)
        #expect(engine.outputNode.outputFormat(forBus: 0).sampleRate == 44_100)
        #expect(engine.mainMixerNode.outputFormat(forBus: 0).sampleRate == 44_100)
        // the client restarts; the mixer converts the 48 kHz player to the new rate
        let tapped = Counter()
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 441, format: nil) { buffer, _ in
            if buffer.format.sampleRate == 44_100 { tapped.add(Int(buffer.frameLength)) }
        }
        try engine.start()
        #expect(engine.isRunning)
        try await Task.sleep(nanoseconds: 150_000_000)
        engine.stop()
        #expect(tapped.value >= 441 * 4, "frames tapped at 44.1 kHz after the restart: \(tapped.value)")
    }

    /// A tap block that stalls the dispatcher makes the tap's ring overflow: whole cycles are
    /// dropped, and every buffer delivered afterwards still carries the sample time of its own
    /// first frame (the source writes each frame's sample time as its value).
    @Test func tapTimestampsStayTrueAcrossDroppedCycles() async throws {
        let engine = AVAudioEngine()
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
        let source = AVAudioSourceNode(format: format) { _, timestamp, frameCount, audioBufferList in
            let start = Int64(timestamp.pointee.mSampleTime)
            for buffer in UnsafeMutableAudioBufferListPointer(audioBufferList) {
                let p = buffer.mData!.assumingMemoryBound(to: Float.self)
                for i in 0..<Int(frameCount) { p[i] = Float((start + Int64(i)) % (1 << 20)) }
            }
            return noErr
        }
        engine.attach(source)
        engine.connect(source, to: engine.mainMixerNode, format: format)
        let lock = NSLock()
        var stamps: [(Int64, Float, Float)] = []
        var stalled = false
        source.installTap(onBus: 0, bufferSize: 1024, format: nil) { buffer, when in
            let first = buffer.floatChannelData![0][0], last = buffer.floatChannelData![0][1023]
            lock.lock()
            stamps.append((when.sampleTime, first, last))
            let stall = !stalled
            stalled = true
            lock.unlock()
            if stall { Thread.sleep(forTimeInterval: 0.5) }   // the ring holds 12 288 frames (256 ms)
        }
        try engine.start()
        try await Task.sleep(nanoseconds: 1_000_000_000)
        engine.stop()
        let got = lock.withLock { stamps }
        #expect(got.count >= 8)
        var gaps = 0
        for (i, (time, first, last)) in got.enumerated() {
            #expect(first == Float(time % (1 << 20)), "buffer \(i) stamped \(time) starts with frame \(first)")
            #expect(last == Float((time + 1023) % (1 << 20)), "buffer \(i) is not contiguous")
            if i > 0 && time != got[i - 1].0 + 1024 { gaps += 1 }
        }
        #expect(gaps >= 1, "the stall should have dropped cycles")
    }

    @Test func startWithoutADeviceThrowsADescriptiveError() throws {
        setenv("OPENAVFAUDIO_DEVICE", "none", 1)
        defer { unsetenv("OPENAVFAUDIO_DEVICE") }
        let engine = AVAudioEngine()
        engine.connect(AVAudioPlayerNode().attached(to: engine), to: engine.mainMixerNode, format: nil)
        do {
            try engine.start()
            Issue.record("start() should have thrown")
        } catch let error as NSError {
            #expect(error.domain == "com.apple.coreaudio.avfaudio")  // as Apple reports it (AudioKit/AudioKit#857)
            #expect(error.code == -10851)                            // kAudioUnitErr_InvalidPropertyValue
            #expect(error.localizedDescription.contains("no audio output device"))
        }
        #expect(!engine.isRunning)
    }
}

extension AVAudioNode {
    func attached(to engine: AVAudioEngine) -> Self {
        engine.attach(self)
        return self
    }
}

/// Programmer errors trap, with a message that names the node, the bus and the formats involved
/// (each case runs in a child process: Swift Testing's exit tests).
@Suite struct AVAudioEngineProgrammerErrorTests {
    static func message(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }

    @Test func connectingToAMissingBusTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let engine = AVAudioEngine()
            let player = AVAudioPlayerNode(), eq = AVAudioUnitEQ(numberOfBands: 1)
            engine.attach(player)
            engine.attach(eq)
            engine.connect(player, to: eq, fromBus: 0, toBus: 3, format: nil)
        }
        let text = Self.message(result)
        #expect(text.contains("bus 3 does not exist"), "\(text)")
        #expect(text.contains("AVAudioUnitEQ") || text.contains("AUNBandEQ"), "\(text)")
    }

    @Test func connectingANodeThatIsNotAttachedTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let engine = AVAudioEngine()
            engine.connect(AVAudioPlayerNode(), to: engine.mainMixerNode, format: nil)
        }
        #expect(Self.message(result).contains("is not attached to this engine"), "\(Self.message(result))")
    }

    @Test func anEffectCannotOutputAnotherRateThanItsInput() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let engine = AVAudioEngine()
            let player = AVAudioPlayerNode(), delay = AVAudioUnitDelay()
            engine.attach(player)
            engine.attach(delay)
            engine.connect(player, to: delay, format: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1))
            engine.connect(delay, to: engine.mainMixerNode, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        }
        let text = Self.message(result)
        #expect(text.contains("output bus 0"), "\(text)")
        #expect(text.contains("44100") && text.contains("48000"), "both formats named: \(text)")
    }
}

// The async scheduling forms of AVAudioPlayerNode, awaited while the engine renders offline.
import Foundation
import Testing
import AVFoundation

@Suite struct AVAudioPlayerNodeAsyncTests {
    /// Set when a task's awaited call has returned.
    final class Finished: @unchecked Sendable {
        private let lock = NSLock()
        private var _value = false
        var value: Bool { lock.lock(); defer { lock.unlock() }; return _value }
        func set() { lock.lock(); _value = true; lock.unlock() }
    }

    /// An offline engine with a mono player into the main mixer, started and playing.
    func rig() throws -> (AVAudioEngine, AVAudioPlayerNode) {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Offline.standard(48_000, 1))
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(48_000, 1), maximumFrameCount: 256)
        try engine.start()
        player.play()
        return (engine, player)
    }

    /// Renders 256-frame chunks on a thread of its own (not the cooperative pool, which the rest
    /// of the suite may keep busy) until `finished` is set and at least `minimum` frames are out.
    /// Watchdog: after 60 s it stops the player and renders once more, which delivers any pending
    /// completion, so an awaiting test fails instead of hanging.
    final class Renderer: @unchecked Sendable {
        private let lock = NSLock()
        private var _samples: [Float] = []
        private var _timedOut = false
        let done = DispatchSemaphore(value: 0)
        var samples: [Float] { lock.lock(); defer { lock.unlock() }; return _samples }
        var timedOut: Bool { lock.lock(); defer { lock.unlock() }; return _timedOut }

        init(_ engine: AVAudioEngine, _ player: AVAudioPlayerNode, until finished: Finished, atLeast minimum: Int = 0) {
            let thread = Thread { [self] in
                let out = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 256)!
                let deadline = Date().addingTimeInterval(60)
                while !(finished.value && self.samples.count >= minimum) {
                    if Date() > deadline {
                        self.lock.lock(); self._timedOut = true; self.lock.unlock()
                        player.stop()
                        _ = try? engine.renderOffline(256, to: out)
                        break
                    }
                    guard (try? engine.renderOffline(256, to: out)) != nil else { break }
                    let chunk = (0..<256).map { out.floatChannelData![0][$0] }
                    self.lock.lock(); self._samples += chunk; self.lock.unlock()
                    usleep(100)
                }
                self.done.signal()
            }
            thread.start()
        }

        /// Waits (off the cooperative pool) for the rendering thread to finish.
        func finish() async {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                DispatchQueue.global().async { self.done.wait(); c.resume() }
            }
        }
    }

    /// The rendered samples contain `signal` once, contiguous, after leading silence.
    func expectContains(_ samples: [Float], _ signal: [Float], sourceLocation: SourceLocation = #_sourceLocation) {
        guard let first = samples.firstIndex(where: { $0 != 0 }) else {
            Issue.record("nothing was rendered", sourceLocation: sourceLocation)
            return
        }
        let firstNonZero = signal.firstIndex(where: { $0 != 0 })!
        let start = first - firstNonZero
        #expect(start >= 0, sourceLocation: sourceLocation)
        #expect(samples.count >= start + signal.count, sourceLocation: sourceLocation)
        guard start >= 0, samples.count >= start + signal.count else { return }
        #expect(Array(samples[start ..< start + signal.count]) == signal, sourceLocation: sourceLocation)
        #expect(samples[(start + signal.count)...].allSatisfy { $0 == 0 }, sourceLocation: sourceLocation)
    }

    @Test func scheduleBufferReturnsOnceConsumed() async throws {
        let (engine, player) = try rig()
        let signal = Offline.ramp(1000, scale: 0.5)
        let finished = Finished()
        let renderer = Renderer(engine, player, until: finished, atLeast: 2048)
        await player.scheduleBuffer(Offline.buffer([signal]))
        finished.set()
        await renderer.finish()
        #expect(!renderer.timedOut)
        expectContains(renderer.samples, signal)
    }

    @Test func scheduleBufferWithCallbackTypeReturnsTheType() async throws {
        let (engine, player) = try rig()
        let signal = Offline.ramp(700)
        let finished = Finished()
        let renderer = Renderer(engine, player, until: finished, atLeast: 1024)
        let type = await player.scheduleBuffer(Offline.buffer([signal]), at: nil, options: [], completionCallbackType: .dataRendered)
        finished.set()
        await renderer.finish()
        #expect(!renderer.timedOut)
        #expect(type == .dataRendered)
        expectContains(renderer.samples, signal)

        let second = Finished()
        let renderer2 = Renderer(engine, player, until: second)
        let type2 = await player.scheduleBuffer(Offline.buffer([signal]), completionCallbackType: .dataConsumed)
        second.set()
        await renderer2.finish()
        #expect(!renderer2.timedOut)
        #expect(type2 == .dataConsumed)
    }

    @Test func scheduleFileAndSegmentReturnOnceConsumed() async throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("async-\(getpid())-\(UInt32.random(in: 0 ... .max)).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        let signal = Offline.ramp(900, scale: 0.25)
        do {
            let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000,
                                                                  AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 32,
                                                                  AVLinearPCMIsFloatKey: true])
            try file.write(from: Offline.buffer([signal]))
        }
        let (engine, player) = try rig()
        let file = try AVAudioFile(forReading: url)
        let finished = Finished()
        let renderer = Renderer(engine, player, until: finished, atLeast: 2048)
        await player.scheduleFile(file, at: nil)
        finished.set()
        await renderer.finish()
        #expect(!renderer.timedOut)
        expectContains(renderer.samples, signal)

        let segment = Finished()
        let renderer2 = Renderer(engine, player, until: segment, atLeast: 1024)
        let type = await player.scheduleSegment(file, startingFrame: 100, frameCount: 200, at: nil, completionCallbackType: .dataRendered)
        segment.set()
        await renderer2.finish()
        #expect(!renderer2.timedOut)
        #expect(type == .dataRendered)
        expectContains(renderer2.samples, Array(signal[100 ..< 300]))

        let whole = Finished()
        let renderer3 = Renderer(engine, player, until: whole)
        let type3 = await player.scheduleFile(file, at: nil, completionCallbackType: .dataConsumed)
        whole.set()
        await renderer3.finish()
        #expect(!renderer3.timedOut)
        #expect(type3 == .dataConsumed)

        let plain = Finished()
        let renderer4 = Renderer(engine, player, until: plain)
        await player.scheduleSegment(file, startingFrame: 0, frameCount: 50, at: nil)
        plain.set()
        await renderer4.finish()
        #expect(!renderer4.timedOut)
    }

    /// A looping buffer is never consumed: the await returns when the player stops, as the
    /// completion handler does on Apple platforms.
    @Test func loopingBufferReturnsWhenThePlayerStops() async throws {
        let (engine, player) = try rig()
        // The renderer runs until the await has returned; a helper thread stops the player once 20
        // chunks are out (offline, the player learns of stop() at the next render cycle, which
        // delivers the handler). The renderer's watchdog stops the player after 60 s otherwise.
        let finished = Finished()
        let renderer = Renderer(engine, player, until: finished, atLeast: 20 * 256)
        let early = Finished()
        let stopper = Thread {
            while renderer.samples.count < 20 * 256 { usleep(1000) }
            if finished.value { early.set() }
            player.stop()
        }
        stopper.start()
        await player.scheduleBuffer(Offline.buffer([Offline.ramp(300)]), at: nil, options: .loops)
        finished.set()
        await renderer.finish()
        #expect(!early.value, "the looping buffer's await returned before stop()")
        #expect(!renderer.timedOut)
    }

    /// Outside `await`, the completion-handler form is chosen and returns at once.
    @Test func synchronousContextsKeepTheCompletionHandlerForms() throws {
        let (_, player) = try rig()
        func schedule() { player.scheduleBuffer(Offline.buffer([Offline.ramp(10)])) }  // no await: the sync overload
        schedule()
        #expect(player.isPlaying)
    }
}

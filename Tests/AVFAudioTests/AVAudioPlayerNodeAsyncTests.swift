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

    /// Renders 256-frame chunks until `finished` (watchdog: 4000 chunks), returning the rendered
    /// samples. Yields between chunks so the awaiting task can start and resume. The watchdog
    /// counts chunks, not seconds: while the whole suite runs, Swift Testing's cooperative pool
    /// (one thread per core) is shared by every test, and a resumed task can wait behind many
    /// others; a wall-clock limit then fails a correct test. The awaiting task's resumption is
    /// queued when the completion runs (inside renderOffline), before this loop's next turn, so a
    /// call that returns does so within a few chunks whatever the load.
    func render(_ engine: AVAudioEngine, until finished: Finished, atLeast minimum: Int = 0) async throws -> [Float] {
        let out = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 256)!
        var samples: [Float] = []
        var chunks = 0
        while !(finished.value && samples.count >= minimum) {
            try #require(chunks < 4000, "the awaited call never returned")
            try await Task.sleep(nanoseconds: 200_000)
            _ = try engine.renderOffline(256, to: out)
            samples += (0..<256).map { out.floatChannelData![0][$0] }
            chunks += 1
        }
        return samples
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
        let task = Task {
            await player.scheduleBuffer(Offline.buffer([signal]))
            finished.set()
        }
        let samples = try await render(engine, until: finished, atLeast: 2048)
        await task.value
        expectContains(samples, signal)
    }

    @Test func scheduleBufferWithCallbackTypeReturnsTheType() async throws {
        let (engine, player) = try rig()
        let signal = Offline.ramp(700)
        let finished = Finished()
        let task = Task { () -> AVAudioPlayerNodeCompletionCallbackType in
            let type = await player.scheduleBuffer(Offline.buffer([signal]), at: nil, options: [], completionCallbackType: .dataRendered)
            finished.set()
            return type
        }
        let samples = try await render(engine, until: finished, atLeast: 1024)
        #expect(await task.value == .dataRendered)
        expectContains(samples, signal)

        let second = Finished()
        let task2 = Task { () -> AVAudioPlayerNodeCompletionCallbackType in
            let type = await player.scheduleBuffer(Offline.buffer([signal]), completionCallbackType: .dataConsumed)
            second.set()
            return type
        }
        _ = try await render(engine, until: second)
        #expect(await task2.value == .dataConsumed)
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
        let task = Task {
            await player.scheduleFile(file, at: nil)
            finished.set()
        }
        let samples = try await render(engine, until: finished, atLeast: 2048)
        await task.value
        expectContains(samples, signal)

        let segment = Finished()
        let task2 = Task { () -> AVAudioPlayerNodeCompletionCallbackType in
            let type = await player.scheduleSegment(file, startingFrame: 100, frameCount: 200, at: nil, completionCallbackType: .dataRendered)
            segment.set()
            return type
        }
        let segmentSamples = try await render(engine, until: segment, atLeast: 1024)
        #expect(await task2.value == .dataRendered)
        expectContains(segmentSamples, Array(signal[100 ..< 300]))

        let whole = Finished()
        let task3 = Task { () -> AVAudioPlayerNodeCompletionCallbackType in
            let type = await player.scheduleFile(file, at: nil, completionCallbackType: .dataConsumed)
            whole.set()
            return type
        }
        _ = try await render(engine, until: whole)
        #expect(await task3.value == .dataConsumed)

        let plain = Finished()
        let task4 = Task {
            await player.scheduleSegment(file, startingFrame: 0, frameCount: 50, at: nil)
            plain.set()
        }
        _ = try await render(engine, until: plain)
        await task4.value
    }

    /// A looping buffer is never consumed: the await returns when the player stops, as the
    /// completion handler does on Apple platforms.
    @Test func loopingBufferReturnsWhenThePlayerStops() async throws {
        let (engine, player) = try rig()
        let finished = Finished()
        let task = Task {
            await player.scheduleBuffer(Offline.buffer([Offline.ramp(300)]), at: nil, options: .loops)
            finished.set()
        }
        let out = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 256)!
        for _ in 0..<20 {
            try await Task.sleep(nanoseconds: 200_000)
            _ = try engine.renderOffline(256, to: out)
        }
        #expect(!finished.value)
        player.stop()
        // Offline, the player learns of stop() at the next render cycle, which delivers the
        // handlers (the task is awaited only after that, so a missing delivery fails the
        // watchdog instead of hanging).
        _ = try await render(engine, until: finished)
        await task.value
    }

    /// Outside `await`, the completion-handler form is chosen and returns at once.
    @Test func synchronousContextsKeepTheCompletionHandlerForms() throws {
        let (_, player) = try rig()
        func schedule() { player.scheduleBuffer(Offline.buffer([Offline.ramp(10)])) }  // no await: the sync overload
        schedule()
        #expect(player.isPlaying)
    }
}

// The engine's threading contracts, tested the way clients use the engine: completion handlers
// that schedule the next buffer (streaming), stop()/pause() called from a completion handler or a
// tap block, a player stopped from its own completion handler, graph edits from callbacks, and a
// client's real-time thread calling `manualRenderingBlock` while another thread stops the engine.
//
// Every scenario runs under a watchdog: it runs on its own thread, and the test fails (instead of
// hanging the suite) when it has not finished within 10 s. A deadlocked scenario leaks its thread
// and engine; the suite goes on.
//
// The engine renders in real time on the null output device (48 kHz, 512-frame cycles, clocked
// like a sound card), so the suite is serialized to keep the machine's two cores for one engine.
import Foundation
import Testing
import AVFoundation

/// A thread-safe counter (handlers and taps run on the dispatcher thread).
final class KeyedCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var counts: [Int: Int] = [:]
    private var total = 0
    func add(_ key: Int = 0) { lock.lock(); counts[key, default: 0] += 1; total += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return total }
    func count(_ key: Int) -> Int { lock.lock(); defer { lock.unlock() }; return counts[key] ?? 0 }
    var snapshot: [Int: Int] { lock.lock(); defer { lock.unlock() }; return counts }
}

/// A flag set once from any thread.
final class OnceFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var _value = false
    var value: Bool { lock.lock(); defer { lock.unlock() }; return _value }
    func set() { lock.lock(); _value = true; lock.unlock() }
    /// Whether this call set it (the first caller).
    func setFirst() -> Bool { lock.lock(); defer { lock.unlock() }; let was = _value; _value = true; return !was }
}

/// Runs `body` on its own thread; records an issue (never hangs) when it has not returned within
/// `seconds`. Returns whether it finished.
@discardableResult
func withWatchdog(_ what: String, seconds: Double = 10, _ body: @escaping @Sendable () -> Void) -> Bool {
    let done = DispatchSemaphore(value: 0)
    let thread = Thread { body(); done.signal() }
    thread.start()
    if done.wait(timeout: .now() + seconds) == .timedOut {
        Issue.record("\(what): did not finish within \(seconds) s (deadlock)")
        return false
    }
    return true
}

/// Polls `condition` (every millisecond) for up to `seconds`; returns whether it became true.
func eventually(seconds: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        usleep(1000)
    }
    return condition()
}

@Suite(.serialized) struct EngineThreadingTests {
    static let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!

    static func buffer(frames: Int = 256, value: Float = 0.25) -> AVAudioPCMBuffer {
        let b = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
        b.frameLength = AVAudioFrameCount(frames)
        for c in 0..<2 { for i in 0..<frames { b.floatChannelData![c][i] = value } }
        return b
    }

    /// An engine with a player on the main mixer.
    static func rig() -> (AVAudioEngine, AVAudioPlayerNode) {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: format)
        return (engine, player)
    }

    // MARK: (a) streaming while another thread starts, pauses and stops

    /// The streaming pattern: each completion handler schedules the next buffer. Meanwhile another
    /// thread stops, pauses and restarts the engine 60 times. Nothing may deadlock, and every
    /// scheduled buffer's handler runs exactly once.
    @Test func streamingWhileAnotherThreadStartsAndStops() throws {
        let (engine, player) = Self.rig()
        let buffer = Self.buffer()
        let completions = KeyedCounter()
        let scheduled = KeyedCounter()
        let keepStreaming = OnceFlag()   // set = stop streaming
        let scheduleNext = UncheckedBox<(Int) -> Void>()
        scheduleNext.value = { [player] n in
            scheduled.add(n)
            player.scheduleBuffer(buffer) {
                completions.add(n)
                if !keepStreaming.value { scheduleNext.value?(n + 1) }
            }
        }
        try engine.start()
        player.play()
        for k in 0..<4 { scheduleNext.value?(k * 1_000_000) }
        // (30 s: 60 stop/start round trips each wait for two threads to wake; on a loaded CI
        // machine that takes seconds. A deadlock never finishes.)
        let finished = withWatchdog("start/pause/stop while streaming", seconds: 30) {
            for i in 0..<60 {
                switch i % 3 {
                case 0: engine.stop()
                case 1: engine.pause()
                default: break
                }
                try? engine.start()
                player.play()
                usleep(2000)
            }
            keepStreaming.set()
            engine.stop()
        }
        guard finished else { return }
        // After stop() every scheduled buffer has completed, each exactly once.
        #expect(eventually { completions.value == scheduled.value })
        #expect(completions.snapshot == scheduled.snapshot)
        #expect(completions.value > 4)
        scheduleNext.value = nil
    }

    // MARK: (b) engine.stop()/pause() from inside a completion handler or a tap block

    @Test(arguments: ["stop", "pause"]) func engineStopFromCompletionHandler(_ call: String) throws {
        let (engine, player) = Self.rig()
        let ran = OnceFlag()
        try engine.start()
        player.scheduleBuffer(Self.buffer()) {
            if call == "stop" { engine.stop() } else { engine.pause() }
            ran.set()
        }
        player.play()
        let stoppedEngine = OnceFlag()
        guard withWatchdog("engine.\(call)() from a completion handler", {
            if eventually({ ran.value }) && !engine.isRunning { stoppedEngine.set() }
        }) else { return }
        #expect(ran.value)
        #expect(stoppedEngine.value)
        // The engine starts again and renders.
        let again = OnceFlag()
        withWatchdog("restart after \(call) from a handler") {
            try? engine.start()
            player.scheduleBuffer(Self.buffer()) { again.set() }
            player.play()
            _ = eventually { again.value }
            engine.stop()
        }
        #expect(again.value)
    }

    @Test(arguments: ["stop", "pause"]) func engineStopFromTapBlock(_ call: String) throws {
        let (engine, player) = Self.rig()
        let taps = KeyedCounter()
        let stopped = OnceFlag()
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 512, format: nil) { _, _ in
            taps.add()
            if stopped.setFirst() { if call == "stop" { engine.stop() } else { engine.pause() } }
        }
        try engine.start()
        player.scheduleBuffer(Self.buffer(frames: 48_000), at: nil, options: .loops)
        player.play()
        let stoppedEngine = OnceFlag()
        guard withWatchdog("engine.\(call)() from a tap block", {
            if eventually({ stopped.value && !engine.isRunning }) { stoppedEngine.set() }
        }) else { return }
        #expect(stoppedEngine.value)
        // No tap buffer is delivered long after the stop (the dispatcher may finish the cycles
        // already captured; it never keeps going).
        usleep(50_000)
        let after = taps.value
        usleep(100_000)
        #expect(taps.value == after)
        withWatchdog("stop() after \(call) from a tap") { engine.stop() }
    }

    // MARK: (c) player.stop() from its own completion handler

    /// The first buffer's handler stops the player: every other scheduled buffer completes (the
    /// stop flushes them), each handler exactly once, and nothing deadlocks.
    @Test func playerStopFromItsOwnCompletionHandler() throws {
        let (engine, player) = Self.rig()
        let completions = KeyedCounter()
        try engine.start()
        player.scheduleBuffer(Self.buffer()) {
            completions.add(0)
            player.stop()
        }
        for k in 1...20 { player.scheduleBuffer(Self.buffer(frames: 48_000)) { completions.add(k) } }
        player.play()
        guard withWatchdog("player.stop() from its completion handler", {
            _ = eventually { completions.value == 21 }
        }) else { return }
        #expect(completions.value == 21)
        #expect((0...20).allSatisfy { completions.count($0) == 1 })
        withWatchdog("engine.stop()") { engine.stop() }
        #expect(completions.value == 21)
    }

    // MARK: (d) graph edits from a completion handler or a tap block

    static func editGraph(_ engine: AVAudioEngine) {
        let extra = AVAudioPlayerNode()
        engine.attach(extra)
        engine.connect(extra, to: engine.mainMixerNode, format: format)
        extra.installTap(onBus: 0, bufferSize: 256, format: nil) { _, _ in }
        extra.removeTap(onBus: 0)
        engine.disconnectNodeOutput(extra)
        engine.detach(extra)
    }

    @Test func graphEditsFromCompletionHandlers() throws {
        let (engine, player) = Self.rig()
        let edits = KeyedCounter()
        try engine.start()
        for _ in 0..<10 {
            player.scheduleBuffer(Self.buffer()) {
                Self.editGraph(engine)
                edits.add()
            }
        }
        player.play()
        guard withWatchdog("graph edits from completion handlers", { _ = eventually { edits.value == 10 } }) else { return }
        #expect(edits.value == 10)
        withWatchdog("engine.stop()") { engine.stop() }
    }

    /// A tap block edits the graph, and finally removes its own tap.
    @Test func graphEditsFromTapBlock() throws {
        let (engine, player) = Self.rig()
        let edits = KeyedCounter()
        let mixer = engine.mainMixerNode
        mixer.installTap(onBus: 0, bufferSize: 512, format: nil) { _, _ in
            edits.add()
            if edits.value <= 10 { Self.editGraph(engine) }
            if edits.value == 10 { mixer.removeTap(onBus: 0) }
        }
        try engine.start()
        player.scheduleBuffer(Self.buffer(frames: 48_000), at: nil, options: .loops)
        player.play()
        guard withWatchdog("graph edits from a tap block", { _ = eventually { edits.value >= 10 } }) else { return }
        #expect(edits.value >= 10)
        usleep(100_000)
        let after = edits.value
        usleep(100_000)
        #expect(edits.value == after, "the tap removed itself: no more deliveries")
        withWatchdog("engine.stop()") { engine.stop() }
    }

    // MARK: (e) manual rendering block vs. stop/disable/enable on another thread

    /// A client's real-time thread calls `manualRenderingBlock` in a tight loop while another
    /// thread stops, restarts, disables and re-enables manual rendering. The block must never
    /// touch freed memory: it renders, or returns `.error` (not running) or
    /// `.cannotDoInCurrentContext` (the engine is busy changing state), as Apple documents.
    @Test(arguments: [AVAudioEngineManualRenderingMode.realtime, .offline])
    func manualRenderingBlockWhileStopping(_ mode: AVAudioEngineManualRenderingMode) throws {
        let (engine, player) = Self.rig()
        try engine.enableManualRenderingMode(mode, format: Self.format, maximumFrameCount: 512)
        try engine.start()
        player.scheduleBuffer(Self.buffer(frames: 48_000), at: nil, options: .loops)
        player.play()
        let block = engine.manualRenderingBlock
        let done = OnceFlag()
        let statuses = KeyedCounter()
        let renderer = Thread {
            let output = AVAudioPCMBuffer(pcmFormat: Self.format, frameCapacity: 512)!
            while !done.value {
                var error: OSStatus = 0
                let status = block(512, output.mutableAudioBufferList, &error)
                statuses.add(status.rawValue)
                if status == .error { #expect(error != 0) }
            }
        }
        renderer.start()
        let finished = withWatchdog("stop/disable/enable while rendering (\(mode))") {
            for i in 0..<200 {
                switch i % 4 {
                case 0: engine.stop()
                case 1: engine.pause()
                case 2: engine.disableManualRenderingMode()
                default: break
                }
                if !engine.isInManualRenderingMode {
                    try? engine.enableManualRenderingMode(mode, format: Self.format, maximumFrameCount: 512)
                }
                try? engine.start()
                player.scheduleBuffer(Self.buffer(frames: 256))
                player.play()
                usleep(200)
            }
        }
        done.set()
        guard finished else { return }
        #expect(eventually { renderer.isFinished })
        #expect(statuses.count(AVAudioEngineManualRenderingStatus.success.rawValue) > 0)
        #expect(statuses.count(AVAudioEngineManualRenderingStatus.error.rawValue) > 0)
        engine.stop()
    }

    // MARK: Nothing lost: floods, a full event queue, a slow tap

    /// 4 threads × 25 000 one-frame buffers scheduled on one player (any thread may schedule:
    /// the command queue has many producers and a control-side overflow).
    static func flood(_ player: AVAudioPlayerNode, completions: KeyedCounter, threads: Int = 4, perThread: Int = 25_000) -> [Thread] {
        let tiny = Self.buffer(frames: 1)
        return (0..<threads).map { t in
            let thread = Thread {
                for i in 0..<perThread {
                    let key = t * perThread + i
                    player.scheduleBuffer(tiny) { completions.add(key) }
                }
            }
            thread.start()
            return thread
        }
    }

    @Test func floodOfTinyBuffersFromFourThreadsOffline() throws {
        let (engine, player) = Self.rig()
        try engine.enableManualRenderingMode(.offline, format: Self.format, maximumFrameCount: 4096)
        try engine.start()
        player.play()
        let completions = KeyedCounter()
        let schedulers = Self.flood(player, completions: completions)
        let output = AVAudioPCMBuffer(pcmFormat: Self.format, frameCapacity: 4096)!
        guard withWatchdog("offline rendering while 4 threads schedule 100 000 buffers", seconds: 60, {
            while completions.value < 100_000 || !schedulers.allSatisfy(\.isFinished) {
                _ = try? engine.renderOffline(4096, to: output)
            }
        }) else { return }
        let counts = completions.snapshot
        #expect(counts.count == 100_000)
        #expect(counts.values.allSatisfy { $0 == 1 }, "every completion exactly once")
        engine.stop()
        #expect(completions.value == 100_000)
    }

    @Test func floodOfTinyBuffersFromFourThreadsInRealTime() throws {
        let (engine, player) = Self.rig()
        try engine.start()
        player.play()
        let completions = KeyedCounter()
        let schedulers = Self.flood(player, completions: completions)
        guard withWatchdog("real-time rendering while 4 threads schedule 100 000 buffers", seconds: 60, {
            while !schedulers.allSatisfy(\.isFinished) { usleep(1000) }
            _ = eventually(seconds: 1) { completions.value == 100_000 }
            // Whatever is still queued (in the command queue or its overflow) completes on stop.
            engine.stop()
        }) else { return }
        let counts = completions.snapshot
        #expect(counts.count == 100_000)
        #expect(counts.values.allSatisfy { $0 == 1 }, "every completion exactly once")
    }

    /// 20 players × 300 one-frame buffers, 255 of each reaching the render side before the first
    /// 4096-frame cycle (the command queue holds 256, `play` included): 5100 completions in one
    /// cycle overflow the 4096-slot event queue. The excess waits on the render side and is
    /// delivered at the next cycle; the overflow is counted; nothing runs twice.
    @Test func fullEventQueueDefersCompletionsToTheNextCycle() throws {
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: Self.format, maximumFrameCount: 4096)
        let completions = KeyedCounter()
        let tiny = Self.buffer(frames: 1)
        var players: [AVAudioPlayerNode] = []
        for p in 0..<20 {
            let player = AVAudioPlayerNode()
            engine.attach(player)
            engine.connect(player, to: engine.mainMixerNode, format: Self.format)
            players.append(player)
            _ = p
        }
        try engine.start()
        for (p, player) in players.enumerated() {
            player.play()
            for i in 0..<300 { player.scheduleBuffer(tiny) { completions.add(p * 300 + i) } }
        }
        let before = engine._renderEventOverflowCount
        let output = AVAudioPCMBuffer(pcmFormat: Self.format, frameCapacity: 4096)!
        _ = try engine.renderOffline(4096, to: output)
        let afterFirst = completions.value
        #expect(afterFirst < 6000, "the first cycle delivers what fits (\(afterFirst))")
        #expect(engine._renderEventOverflowCount > before, "the overflow is counted")
        for _ in 0..<4 where completions.value < 6000 { _ = try engine.renderOffline(4096, to: output) }
        let counts = completions.snapshot
        #expect(counts.count == 6000)
        #expect(counts.values.allSatisfy { $0 == 1 })
        engine.stop()
    }

    /// A tap whose block takes 40 ms per 512-frame buffer (4 × real time) never slows the
    /// render thread: the engine's clock keeps pace with the wall clock, the tap falls behind and
    /// drops whole cycles, and stop() still returns.
    @Test func slowTapNeverStallsRendering() throws {
        let (engine, player) = Self.rig()
        let delivered = KeyedCounter()
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 512, format: nil) { _, _ in
            delivered.add()
            usleep(40_000)
        }
        try engine.start()
        player.scheduleBuffer(Self.buffer(frames: 48_000), at: nil, options: .loops)
        player.play()
        guard withWatchdog("slow tap", seconds: 20, {
            usleep(100_000)
            let start = player.lastRenderTime?.sampleTime ?? 0
            let wallStart = Date()
            usleep(1_000_000)
            let end = player.lastRenderTime?.sampleTime ?? 0
            let seconds = Date().timeIntervalSince(wallStart)
            let rendered = Double(end - start) / 48_000
            #expect(rendered > 0.8 * seconds, "rendered \(rendered) s of audio in \(seconds) s")
            engine.stop()
        }) else { return }
        // In 1.1 s about 100 cycles were rendered; the tap could take at most ~28 of them.
        #expect(delivered.value > 0 && delivered.value < 60, "\(delivered.value) tap buffers")
    }
}

/// A mutable reference shared with handlers (tests only).
final class UncheckedBox<T>: @unchecked Sendable {
    var value: T?
}

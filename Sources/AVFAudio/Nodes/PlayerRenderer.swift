// The player's render object: a queue of scheduled items played on the player timeline.
// See AVAudioPlayerNode.swift for the timeline and completion rules.
import Foundation
import Synchronization
import AudioKernels

/// One scheduled buffer or file segment. Retained by the control side when scheduled, referenced
/// unmanaged on the render thread, released (after its handler ran) by the event dispatcher.
final class ScheduledItem: PendingCompletion {
    enum Content {
        case buffer(AVAudioPCMBuffer)
        case file(FileSegmentSource)
    }
    let content: Content
    /// Player time at which the item starts (nil: after the previous item).
    let start: Int64?
    let options: AVAudioPlayerNodeBufferOptions
    let callbackType: AVAudioPlayerNodeCompletionCallbackType
    let length: Int
    // Render-thread state.
    var position = 0
    var begun = false
    var stopLooping = false
    /// Render-thread link: the next item in the player's queue, then in its played-back list.
    var next: Unmanaged<ScheduledItem>?
    /// For `.dataPlayedBack`: the node time at which the item's last frame reaches the listener.
    var due: Int64 = 0

    init(content: Content, start: Int64?, options: AVAudioPlayerNodeBufferOptions,
         callbackType: AVAudioPlayerNodeCompletionCallbackType, handler: AVAudioPlayerNodeCompletionHandler?) {
        self.content = content
        self.start = start
        self.options = options
        self.callbackType = callbackType
        switch content {
        case .buffer(let b): length = Int(b.frameLength)
        case .file(let f): length = f.outputLength
        }
        super.init { handler?(callbackType) }
        if case .buffer(let b) = content {
            if b.format.commonFormat == .pcmFormatFloat32, !b.format.isInterleaved || b.format.channelCount == 1 {
                floatChannels = b.floatChannelData
            } else {
                convertSource = b.processingBufferPointer
            }
        }
    }

    var loops: Bool {
        // (not `&&`: its autoclosure would retain self on the render thread)
        if stopLooping { return false }
        return options.contains(.loops)
    }

    /// Float32 deinterleaved buffers: the channel pointers, cached on the control side.
    var floatChannels: UnsafePointer<UnsafeMutablePointer<Float>>? = nil
    /// Buffers in other sample formats or interleaved: their samples, cached on the control side
    /// (the item keeps the buffer alive), converted on the render thread through KernelCall.
    var convertSource: ProcessingBufferPointer? = nil

    /// File segments (decoded from a ring the render thread tops up from the file in offline
    /// rendering, a prefetch thread in real time), and — only if a buffer item's samples could not
    /// be cached — other sample formats. Not proved by the compiler's real-time check
    /// (`no_performance_analysis`): reading a file offline may block by design, and the content's
    /// class payloads are reference counted here.
    @_semantics("no_performance_analysis") @inline(never)
    func copyConverted(into unmanagedOutput: Unmanaged<RenderBuffer>, at offset: Int, frames: Int, offline: Bool) {
        let output = unmanagedOutput.takeUnretainedValue()
        switch content {
        case .buffer(let buffer):
            let raw = UnsafeRawPointer(output.channels).assumingMemoryBound(to: UnsafeMutableRawPointer.self)
            SampleConversion.convert(frameCount: frames, from: buffer.processingBufferPointer, atFrame: position,
                                     to: .deinterleaved(UnsafeBufferPointer(start: raw, count: output.channelCount), sampleType: .float32),
                                     atFrame: offset)
        case .file(let source):
            source.read(into: output, at: offset, frames: frames, fromPosition: position, offline: offline)
        }
    }
}

/// Where applying a command sends the completions it causes: the render thread's event queue,
/// or (control side) a list run after the locks are released. Generic so that the render
/// thread's specialisation contains no array append.
protocol PlayerCompletionSink {
    mutating func complete(_ completion: Unmanaged<PendingCompletion>)
}

extension Array: PlayerCompletionSink where Element == Unmanaged<PendingCompletion> {
    mutating func complete(_ completion: Unmanaged<PendingCompletion>) { append(completion) }
}

/// The render thread's sink: the engine's event queue.
struct RenderEventSink: PlayerCompletionSink {
    let events: Unmanaged<RenderEventQueue>
    @inline(__always)
    func complete(_ completion: Unmanaged<PendingCompletion>) {
        events._withUnsafeGuaranteedRef { $0.postCompletion(completion) }
    }
}

// Memory per player is proportional to use. The scheduled items form an intrusive list (linked
// through the items themselves, which the control side allocates when scheduling), so the
// render side has no item capacity at all; the same goes for items waiting for `.dataPlayedBack`.
// Commands (schedule, play, pause, stop) travel through a small many-producer queue (any thread
// may schedule: a UI thread, completion handlers on the dispatcher, a render block) of 256 slots,
// about 6 KB. Commands that do not fit wait, in order, in a control-side overflow list; when the
// render thread has drained the queue and sees the overflow flag, it posts one `refillCommands`
// event and the dispatcher (or `renderOffline`) moves the overflow into the queue. Nothing is
// dropped and a flood of schedules from many threads costs only the items themselves.
final class PlayerRenderer: NodeRenderer {
    enum Command {
        case schedule(Unmanaged<ScheduledItem>)
        case play(Int64?)
        case pause
        case stop
    }

    weak var node: AVAudioPlayerNode?
    static let commandCapacity = 256
    private let commands = PlayerCommandQueue(capacity: PlayerRenderer.commandCapacity)
    /// The same queue, for the render thread's emptiness check without a retain.
    private let commandsRef: Unmanaged<PlayerCommandQueue>
    /// Control side: commands that did not fit, oldest first from `overflowStart`.
    private let overflowLock = NSLock()
    private var overflow: [Command] = []
    private var overflowStart = 0
    private let hasOverflow = Atomic<Bool>(false)
    private let refillRequested = Atomic<Bool>(false)

    // Render-thread state (touched by the control side only while nothing renders).
    private var itemHead: Unmanaged<ScheduledItem>?
    private var itemTail: Unmanaged<ScheduledItem>?
    private var itemCount = 0
    private var playing = false
    private var pendingPlay: Int64?? = nil
    private var origin: Int64?
    private var pausedPlayerTime: Int64 = 0
    /// Items waiting for `.dataPlayedBack`, in order of their due time.
    private var playedBackHead: Unmanaged<ScheduledItem>?
    private var playedBackTail: Unmanaged<ScheduledItem>?
    private var latencyFrames: Int64 = 0
    /// Control-side view of the timeline origin (node time of player time 0).
    private let originAtomic = Atomic<Int64>(Int64.min)

    override init() {
        commandsRef = .passUnretained(commands)
        super.init()
    }

    deinit {
        // Items still queued (the engine went away while they were scheduled): release them.
        while let item = itemHead { itemHead = item.takeUnretainedValue().next; item.release() }
        while let item = playedBackHead { playedBackHead = item.takeUnretainedValue().next; item.release() }
        while let command = commands.pop() { if case .schedule(let item) = command { item.release() } }
        for command in overflow[overflowStart...] { if case .schedule(let item) = command { item.release() } }
    }

    var timelineOrigin: Int64? {
        let o = originAtomic.load(ordering: .acquiring)
        return o == Int64.min ? nil : o
    }

    // MARK: Control side

    /// Sends a command: queued for the render thread while the engine renders (or a cycle is
    /// still in flight); applied at once otherwise. Completion handlers this causes run on the
    /// calling thread after every lock is released.
    func send(_ command: Command, engine: AVAudioEngine?) {
        var pending: [Unmanaged<PendingCompletion>] = []
        if let engine {
            engine.lock.lock()
            if engine.isRunningUnlocked || engine.gate.isBusy {
                enqueue(command)
                engine.lock.unlock()
                return
            }
            // Not rendering (and, under the lock, no start can begin): apply directly, after
            // anything queued earlier, to keep the order.
            applyQueued(completing: &pending)
            apply(command, sink: &pending)
            engine.lock.unlock()
        } else {
            apply(command, sink: &pending)
        }
        for c in pending { c.takeRetainedValue().handler() }
    }

    /// The engine stopped: every item completes now.
    func stopWhileNotRendering(engine: AVAudioEngine?) {
        send(.stop, engine: engine)
    }

    /// Any thread: queue `command` for the render thread, or behind the overflow.
    private func enqueue(_ command: Command) {
        overflowLock.lock(); defer { overflowLock.unlock() }
        moveOverflowLocked()
        if overflowStart == overflow.count && commands.push(command) { return }
        overflow.append(command)
        hasOverflow.store(true, ordering: .releasing)
    }

    /// Control side (the dispatcher, or `renderOffline`'s drain): the render thread made room.
    func refillCommands() {
        refillRequested.store(false, ordering: .releasing)
        overflowLock.lock(); defer { overflowLock.unlock() }
        moveOverflowLocked()
    }

    private func moveOverflowLocked() {
        while overflowStart < overflow.count, commands.push(overflow[overflowStart]) { overflowStart += 1 }
        if overflowStart == overflow.count {
            overflow.removeAll(keepingCapacity: overflow.count <= 1024)
            overflowStart = 0
            hasOverflow.store(false, ordering: .releasing)
        } else if overflowStart > 4096 && overflowStart * 2 > overflow.count {
            overflow.removeFirst(overflowStart)
            overflowStart = 0
        }
    }

    /// Control side, nothing rendering: apply the queue and the overflow.
    private func applyQueued(completing pending: inout [Unmanaged<PendingCompletion>]) {
        overflowLock.lock(); defer { overflowLock.unlock() }
        while true {
            while let command = commands.pop() { apply(command, sink: &pending) }
            guard overflowStart < overflow.count else { break }
            moveOverflowLocked()
        }
    }

    // MARK: Command handling (render thread, or control side while not rendering)
    //
    // (Render-thread code below reaches objects only as `Unmanaged`, through
    // `_withUnsafeGuaranteedRef` closures that capture no reference: a closure capturing one
    // retains it. Proved by `RenderPathProof.player`.)

    /// Applies `command`; completions it causes go to `sink`.
    private func apply<Sink: PlayerCompletionSink>(_ command: Command, sink: inout Sink) {
        switch command {
        case .schedule(let unmanaged):
            let options = unmanaged._withUnsafeGuaranteedRef { $0.options }
            if options.contains(.interrupts) {
                flushAll(sink: &sink)
            } else if options.contains(.interruptsAtLoop), let head = itemHead {
                head._withUnsafeGuaranteedRef { $0.stopLooping = true }
            }
            unmanaged._withUnsafeGuaranteedRef { $0.next = nil }
            if let tail = itemTail { tail._withUnsafeGuaranteedRef { $0.next = unmanaged } } else { itemHead = unmanaged }
            itemTail = unmanaged
            itemCount += 1
        case .play(let start):
            if !playing { pendingPlay = .some(start) }
        case .pause:
            if playing, let origin {
                playing = false
                pausedPlayerTime = max(0, lastNodeTime - origin)
            }
            pendingPlay = nil
        case .stop:
            flushAll(sink: &sink)
            while let item = playedBackHead {
                playedBackHead = item._withUnsafeGuaranteedRef { $0.next }
                sink.complete(Unmanaged<PendingCompletion>.fromOpaque(item.toOpaque()))
            }
            playedBackTail = nil
            playing = false
            pendingPlay = nil
            origin = nil
            pausedPlayerTime = 0
            originAtomic.store(Int64.min, ordering: .releasing)
        }
    }

    private var lastNodeTime: Int64 = 0

    private func flushAll<Sink: PlayerCompletionSink>(sink: inout Sink) {
        while let item = itemHead {
            itemHead = item._withUnsafeGuaranteedRef { $0.next }
            itemCount -= 1
            sink.complete(Unmanaged<PendingCompletion>.fromOpaque(item.toOpaque()))
        }
        itemTail = nil
    }

    // MARK: Rendering

    /// The player's part of one plan (see the design note in NodeRenderer.swift).
    final class State: RenderStep {
        override var kind: StepKind { .player(.passUnretained(self)) }
        private let owner: Unmanaged<PlayerRenderer>
        let latencyFrames: Int64
        init(renderer: PlayerRenderer, latencyFrames: Int64) {
            owner = .passUnretained(renderer)
            self.latencyFrames = latencyFrames
            super.init(renderer: renderer)
        }
        override func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>) {
            let latency = latencyFrames
            let output = outputs.unmanaged(0)
            owner._withUnsafeGuaranteedRef { $0.render(&cycle, output: output, latencyFrames: latency) }
        }
    }

    override func makeStepState(inputFormats: [AVAudioFormat?], outputFormats: [AVAudioFormat], maximumFrames: Int) -> RenderStep? {
        let latency = node?.outputPresentationLatency ?? 0
        return State(renderer: self, latencyFrames: Int64((latency * outputFormats[0].sampleRate).rounded()))
    }

    /// Render thread: one cycle. Proved free of locks, allocation and reference counting
    /// (`RenderPathProof.player`), except `ScheduledItem.copyConverted` (file segments).
    @inline(__always)
    func render(_ cycle: inout RenderCycle, output: Unmanaged<RenderBuffer>, latencyFrames: Int64) {
        // Commands: completions they cause go to the event queue.
        // (nested ifs, not `||`: its autoclosure would retain self)
        if !commandsRef._withUnsafeGuaranteedRef({ $0.isEmpty }) {
            applyCommands(events: cycle.events)
        } else if hasOverflow.load(ordering: .relaxed) {
            applyCommands(events: cycle.events)
        }
        self.latencyFrames = latencyFrames
        renderItems(into: output, cycle: &cycle)
    }

    @inline(__always)
    private func applyCommands(events: Unmanaged<RenderEventQueue>) {
        var sink = RenderEventSink(events: events)
        while let command = commandsRef._withUnsafeGuaranteedRef({ $0.pop() }) { apply(command, sink: &sink) }
        // Room again: ask the control side to move its overflow in (one request at a time).
        if hasOverflow.load(ordering: .acquiring) {
            if !refillRequested.exchange(true, ordering: .acquiringAndReleasing) {
                let me = Unmanaged.passUnretained(self)
                if !events._withUnsafeGuaranteedRef({ $0.post(.refillCommands(me)) }) {
                    refillRequested.store(false, ordering: .releasing)   // (retried next cycle)
                }
            }
        }
    }

    @inline(__always)
    private func renderItems(into output: Unmanaged<RenderBuffer>, cycle: inout RenderCycle) {
        let frames = cycle.frames
        let now = cycle.sampleTime
        let events = cycle.events
        lastNodeTime = now + Int64(frames)

        // Played-back completions that are due (the list is in due order).
        while let item = playedBackHead, item._withUnsafeGuaranteedRef({ $0.due }) <= now + Int64(frames) {
            playedBackHead = item._withUnsafeGuaranteedRef { $0.next }
            if playedBackHead == nil { playedBackTail = nil }
            let completion = Unmanaged<PendingCompletion>.fromOpaque(item.toOpaque())
            events._withUnsafeGuaranteedRef { $0.postCompletion(completion) }
        }

        if let start = pendingPlay {
            let startNode = start ?? now
            let newOrigin = startNode - pausedPlayerTime
            origin = newOrigin
            originAtomic.store(newOrigin, ordering: .releasing)
            playing = true
            pendingPlay = nil
        }
        guard playing, let origin else {
            output._withUnsafeGuaranteedRef { $0.clear(frames: frames) }
            return
        }
        let (channels, channelCount) = output._withUnsafeGuaranteedRef { ($0.channels, $0.channelCount) }

        var offset = 0
        if origin + pausedPlayerTime > now {
            // Playback starts later in (or after) this cycle (into our own memory, never into
            // an item's memory lent last cycle).
            output._withUnsafeGuaranteedRef { $0.restoreChannels() }
            offset = Int(min(Int64(frames), origin + pausedPlayerTime - now))
            var c = 0
            while c < channelCount { channels[c].update(repeating: 0, count: offset); c += 1 }
        }
        var playerTime = now + Int64(offset) - origin
        // Zero copy — the whole cycle lies inside one Float32 deinterleaved item: lend its memory.
        if offset == 0, let head = itemHead {
            let lent = head._withUnsafeGuaranteedRef { item -> Bool in
                guard item.begun, let src = item.floatChannels, item.position + frames < item.length else { return false }
                var c = 0
                while c < channelCount { channels[c] = src[c] + item.position; c += 1 }
                item.position += frames
                return true
            }
            if lent {
                output._withUnsafeGuaranteedRef { $0.isSilent = false; $0.frames = frames }
                return
            }
        }
        output._withUnsafeGuaranteedRef { $0.restoreChannels() }
        var wrote = false
        let offline = cycle.isOffline
        while offset < frames, let head = itemHead {
            // true: the item played to its end.
            let ended = head._withUnsafeGuaranteedRef { item -> Bool in
                if !item.begun {
                    if let start = item.start {
                        if start > playerTime {
                            let gap = Int(min(start - playerTime, Int64(frames - offset)))
                            var c = 0
                            while c < channelCount { (channels[c] + offset).update(repeating: 0, count: gap); c += 1 }
                            offset += gap
                            playerTime += Int64(gap)
                            return false
                        }
                        // Late: skip what should already have played, keeping the timeline.
                        item.position = Int(min(Int64(item.length), playerTime - start))
                    }
                    item.begun = true
                }
                let n = min(frames - offset, item.length - item.position)
                if n > 0 {
                    if let src = item.floatChannels {
                        let from = item.position, at = offset
                        var c = 0
                        while c < channelCount {
                            UnsafeMutableRawPointer(channels[c] + at).copyMemory(from: src[c] + from, byteCount: n * MemoryLayout<Float>.size)
                            c += 1
                        }
                    } else if let source = item.convertSource {
                        let raw = UnsafeRawPointer(channels).assumingMemoryBound(to: UnsafeMutableRawPointer.self)
                        KernelCall.convert(frameCount: n, from: source, atFrame: item.position,
                                           to: .deinterleaved(UnsafeBufferPointer(start: raw, count: channelCount), sampleType: .float32),
                                           atFrame: offset)
                    } else {
                        item.copyConverted(into: output, at: offset, frames: n, offline: offline)
                    }
                    wrote = true
                }
                offset += n
                playerTime += Int64(n)
                item.position += n
                if item.position >= item.length {
                    if item.length > 0, item.loops {
                        item.position = 0
                        return false
                    }
                    return true
                }
                return false
            }
            if ended { finish(head, endNodeTime: now + Int64(offset), events: events) }
        }
        if offset < frames {
            var c = 0
            while c < channelCount { (channels[c] + offset).update(repeating: 0, count: frames - offset); c += 1 }
        }
        let silent = !wrote
        output._withUnsafeGuaranteedRef { $0.isSilent = silent; $0.frames = frames }
    }

    private func finish(_ item: Unmanaged<ScheduledItem>, endNodeTime: Int64, events: Unmanaged<RenderEventQueue>) {
        let (next, playedBack) = item._withUnsafeGuaranteedRef { i -> (Unmanaged<ScheduledItem>?, Bool) in
            let next = i.next
            i.next = nil
            // (a pattern, not `==`: the enum's `==` is a generic call)
            if case .dataPlayedBack = i.callbackType { return (next, true) }
            return (next, false)
        }
        itemHead = next
        if itemHead == nil { itemTail = nil }
        itemCount -= 1
        if playedBack, latencyFrames > 0 {
            let due = endNodeTime + latencyFrames
            item._withUnsafeGuaranteedRef { $0.due = due }
            if let tail = playedBackTail { tail._withUnsafeGuaranteedRef { $0.next = item } } else { playedBackHead = item }
            playedBackTail = item
        } else {
            let completion = Unmanaged<PendingCompletion>.fromOpaque(item.toOpaque())
            events._withUnsafeGuaranteedRef { $0.postCompletion(completion) }
        }
    }

    override func resetState() {}
}

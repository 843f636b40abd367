// The player's render object: a queue of scheduled items played on the player timeline.
// See AVAudioPlayerNode.swift for the timeline and completion rules.
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
        if case .buffer(let b) = content, b.format.commonFormat == .pcmFormatFloat32, !b.format.isInterleaved || b.format.channelCount == 1 {
            floatChannels = b.floatChannelData
        }
    }

    var loops: Bool { options.contains(.loops) && !stopLooping }

    /// Float32 deinterleaved buffers: the channel pointers, cached on the control side.
    var floatChannels: UnsafePointer<UnsafeMutablePointer<Float>>? = nil

    /// Writes `frames` frames from `position` into `output` at `offset`.
    @inline(__always)
    func copy(into output: RenderBuffer, at offset: Int, frames: Int, offline: Bool) {
        if let src = floatChannels {
            for c in 0 ..< output.channelCount { (output.channels[c] + offset).update(from: src[c] + position, count: frames) }
            return
        }
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

final class PlayerRenderer: NodeRenderer {
    enum Command {
        case schedule(Unmanaged<ScheduledItem>)
        case play(Int64?)
        case pause
        case stop
    }

    weak var node: AVAudioPlayerNode?
    private let commands = SPSCQueue<Command>(capacity: 1 << 16)
    /// The same queue, for the render thread's emptiness check without a retain.
    private let commandsRef: Unmanaged<SPSCQueue<Command>>

    // Render-thread state (touched by the control side only while nothing renders).
    private let itemCapacity = 1 << 16
    private let items: UnsafeMutablePointer<Unmanaged<ScheduledItem>?>
    private var itemHead = 0
    private var itemCount = 0
    private var playing = false
    private var pendingPlay: Int64?? = nil
    private var origin: Int64?
    private var pausedPlayerTime: Int64 = 0
    /// Items waiting for `.dataPlayedBack` (node time when they reach the listener).
    /// Raw storage (not an Array: reading an array property on the render thread retains its buffer).
    private let playedBackCapacity = 4096
    private let playedBack: UnsafeMutablePointer<(item: Unmanaged<ScheduledItem>, due: Int64)>
    private var playedBackCount = 0
    private var latencyFrames: Int64 = 0
    /// Control-side view of the timeline origin (node time of player time 0).
    private let originAtomic = Atomic<Int64>(Int64.min)

    override init() {
        commandsRef = .passUnretained(commands)
        items = .allocate(capacity: itemCapacity)
        items.initialize(repeating: nil, count: itemCapacity)
        playedBack = .allocate(capacity: playedBackCapacity)
        super.init()
    }

    deinit {
        items.deinitialize(count: itemCapacity)
        items.deallocate()
        playedBack.deallocate()
    }

    var timelineOrigin: Int64? {
        let o = originAtomic.load(ordering: .acquiring)
        return o == Int64.min ? nil : o
    }

    // MARK: Control side

    /// Sends a command: queued for the render thread while the engine renders; applied at once
    /// (completing items on this thread) otherwise.
    func send(_ command: Command, engine: AVAudioEngine?) {
        if let engine {
            engine.lock.lock()
            defer { engine.lock.unlock() }
            if engine.isRunningUnlocked {
                if !commands.push(command) {
                    preconditionFailure("AVAudioPlayerNode: more than \(itemCapacity) commands queued before the engine rendered any")
                }
                return
            }
            // Not rendering: apply directly (after anything queued earlier, to keep the order).
            var pending: [Unmanaged<PendingCompletion>] = []
            applyQueued(completing: &pending)
            apply(command, completing: &pending)
            runNow(pending)
            return
        }
        var pending: [Unmanaged<PendingCompletion>] = []
        apply(command, completing: &pending)
        runNow(pending)
    }

    /// The engine stopped: every item completes now.
    func stopWhileNotRendering(engine: AVAudioEngine?) {
        send(.stop, engine: engine)
    }

    private func runNow(_ completions: [Unmanaged<PendingCompletion>]) {
        for c in completions { c.takeRetainedValue().handler() }
    }

    private func applyQueued(completing pending: inout [Unmanaged<PendingCompletion>]) {
        while let command = commands.pop() { apply(command, completing: &pending) }
    }

    // MARK: Command handling (render thread, or control side while not rendering)

    private func apply(_ command: Command, completing pending: inout [Unmanaged<PendingCompletion>]) {
        switch command {
        case .schedule(let unmanaged):
            let item = unmanaged.takeUnretainedValue()
            if item.options.contains(.interrupts) {
                flushAll(completing: &pending)
            } else if item.options.contains(.interruptsAtLoop), itemCount > 0 {
                let current = items[itemHead]!.takeUnretainedValue()
                current.stopLooping = true
            }
            guard itemCount < itemCapacity else {
                pending.append(Unmanaged.passUnretained(item as PendingCompletion))
                return
            }
            items[(itemHead + itemCount) % itemCapacity] = unmanaged
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
            flushAll(completing: &pending)
            var i = 0
            while i < playedBackCount {
                pending.append(Unmanaged.passUnretained(playedBack[i].item.takeUnretainedValue() as PendingCompletion))
                i += 1
            }
            playedBackCount = 0
            playing = false
            pendingPlay = nil
            origin = nil
            pausedPlayerTime = 0
            originAtomic.store(Int64.min, ordering: .releasing)
        }
    }

    private var lastNodeTime: Int64 = 0

    private func flushAll(completing pending: inout [Unmanaged<PendingCompletion>]) {
        while itemCount > 0 {
            let item = items[itemHead]!
            items[itemHead] = nil
            itemHead = (itemHead + 1) % itemCapacity
            itemCount -= 1
            pending.append(Unmanaged.passUnretained(item.takeUnretainedValue() as PendingCompletion))
        }
    }

    // MARK: Rendering

    final class State {
        let latencyFrames: Int64
        init(latencyFrames: Int64) { self.latencyFrames = latencyFrames }
    }

    override func makeStepState(inputFormats: [AVAudioFormat?], outputFormats: [AVAudioFormat], maximumFrames: Int) -> AnyObject? {
        let latency = node?.outputPresentationLatency ?? 0
        return State(latencyFrames: Int64((latency * outputFormats[0].sampleRate).rounded()))
    }

    override func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>, state: AnyObject?) {
        let events = cycle.events
        // Commands: completions they cause go to the event queue (no allocation: the array stays
        // empty unless a flush completes items, which reuses the reserved capacity).
        if !commandsRef._withUnsafeGuaranteedRef({ $0.isEmpty }) { applyCommands(events: events) }
        if let s = state { latencyFrames = unsafeDowncast(s, to: State.self).latencyFrames }
        Unmanaged.passUnretained(outputs[0])._withUnsafeGuaranteedRef { output in
            renderItems(into: output, cycle: &cycle, events: events)
        }
    }

    private func applyCommands(events: RenderEventQueue) {
        while let command = commands.pop() {
            switch command {
            default:
                // Swap the preallocated array out (an empty literal does not allocate), so
                // appending never copies: no allocation on the render thread.
                var pending: [Unmanaged<PendingCompletion>] = []
                swap(&pending, &renderPending)
                apply(command, completing: &pending)
                var i = 0
                while i < pending.count { events.post(.completion(pending[i])); i += 1 }
                pending.removeAll(keepingCapacity: true)
                swap(&pending, &renderPending)
            }
        }
    }

    @inline(__always)
    private func renderItems(into output: RenderBuffer, cycle: inout RenderCycle, events: RenderEventQueue) {
        let frames = cycle.frames
        let now = cycle.sampleTime
        lastNodeTime = now + Int64(frames)

        // Played-back completions that are due.
        if playedBackCount > 0 {
            var kept = 0
            var i = 0
            while i < playedBackCount {
                if playedBack[i].due <= now + Int64(frames) {
                    events.post(.completion(Unmanaged.passUnretained(playedBack[i].item.takeUnretainedValue() as PendingCompletion)))
                } else {
                    playedBack[kept] = playedBack[i]
                    kept += 1
                }
                i += 1
            }
            playedBackCount = kept
        }

        if let start = pendingPlay {
            let startNode = start ?? now
            origin = startNode - pausedPlayerTime
            originAtomic.store(origin!, ordering: .releasing)
            playing = true
            pendingPlay = nil
        }
        guard playing, let origin else { output.clear(frames: frames); return }

        var offset = 0
        if origin + pausedPlayerTime > now {
            // Playback starts later in (or after) this cycle.
            offset = Int(min(Int64(frames), origin + pausedPlayerTime - now))
            for c in 0 ..< output.channelCount { output.channels[c].update(repeating: 0, count: offset) }
        }
        var playerTime = now + Int64(offset) - origin
        // Zero copy — the whole cycle lies inside one Float32 deinterleaved item: lend its memory.
        if offset == 0 && itemCount > 0 {
            let lent = items[itemHead].unsafelyUnwrapped._withUnsafeGuaranteedRef { item -> Bool in
                guard item.begun, let src = item.floatChannels, item.position + frames < item.length else { return false }
                for c in 0 ..< output.channelCount { output.channels[c] = src[c] + item.position }
                item.position += frames
                return true
            }
            if lent {
                output.isSilent = false
                output.frames = frames
                return
            }
        }
        output.restoreChannels()
        var wrote = false
        while offset < frames && itemCount > 0 {
            unowned(unsafe) let item = items[itemHead]!.takeUnretainedValue()
            if !item.begun {
                if let start = item.start {
                    if start > playerTime {
                        let gap = Int(min(start - playerTime, Int64(frames - offset)))
                        for c in 0 ..< output.channelCount { (output.channels[c] + offset).update(repeating: 0, count: gap) }
                        offset += gap
                        playerTime += Int64(gap)
                        continue
                    }
                    // Late: skip what should already have played, keeping the timeline.
                    item.position = Int(min(Int64(item.length), playerTime - start))
                }
                item.begun = true
            }
            let n = min(frames - offset, item.length - item.position)
            if n > 0 {
                item.copy(into: output, at: offset, frames: n, offline: cycle.isOffline)
                wrote = true
            }
            offset += n
            playerTime += Int64(n)
            item.position += n
            if item.position >= item.length {
                if item.loops && item.length > 0 {
                    item.position = 0
                    continue
                }
                finish(item, endNodeTime: now + Int64(offset), events: events)
            }
        }
        if offset < frames {
            for c in 0 ..< output.channelCount { (output.channels[c] + offset).update(repeating: 0, count: frames - offset) }
        }
        output.isSilent = !wrote
        output.frames = frames
    }

    private var renderPending: [Unmanaged<PendingCompletion>] = {
        var a: [Unmanaged<PendingCompletion>] = []
        a.reserveCapacity(1 << 16)
        return a
    }()

    private func finish(_ item: ScheduledItem, endNodeTime: Int64, events: RenderEventQueue) {
        items[itemHead] = nil
        itemHead = (itemHead + 1) % itemCapacity
        itemCount -= 1
        let completion = Unmanaged.passUnretained(item as PendingCompletion)
        if item.callbackType == .dataPlayedBack && latencyFrames > 0 && playedBackCount < playedBackCapacity {
            (playedBack + playedBackCount).initialize(to: (item: Unmanaged.passUnretained(item), due: endNodeTime + latencyFrames))
            playedBackCount += 1
        } else {
            events.post(.completion(completion))
        }
    }

    override func resetState() {}
}

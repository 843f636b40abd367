// A tap: the render thread copies a bus's audio into a lock-free ring; the dispatcher cuts it into
// buffers of exactly `bufferSize` frames (allocating them off the render thread) and calls the
// client's block with consecutive sample times.
//
// Ring sizing: four tap buffers plus 8192 frames, so the dispatcher (polling every few
// milliseconds in real-time mode, draining after every `renderOffline`) never falls behind at
// any sane buffer size. If it does (a starved machine), the render thread drops whole cycles,
// counted in `overruns` — never blocks.
//
// Timestamps stay true across such gaps: whenever the audio written is not the continuation of
// what was written before (the first cycle, a dropped cycle, the engine restarting its clock),
// the render thread queues a mark (ring position, sample time, host time). The dispatcher dates
// every buffer from the latest mark at or before its first frame, and drops the frames of a
// buffer that a mark would split, so each delivered buffer is contiguous audio and its
// AVAudioTime is the time of its first frame.
import Synchronization

final class TapRenderer {
    unowned let node: AVAudioNode
    let bus: Int
    let bufferSize: Int
    let busChannels: Int
    let format: AVAudioFormat
    let block: AVAudioNodeTapBlock
    private let capacity: Int
    private let ring: UnsafeMutablePointer<Float>
    /// Total frames written (render thread) and read (dispatcher).
    private let written = Atomic<Int64>(0)
    private let read = Atomic<Int64>(0)
    private let signaled = Atomic<Bool>(false)
    /// Where the timeline restarts: (ring position, sample time, host time) (render → dispatcher).
    struct Mark { var position: Int64; var sampleTime: Int64; var hostTime: UInt64 }
    private let marks: MarkQueue
    /// `marks` for the render thread (a call through the stored reference would retain it).
    private let marksRef: Unmanaged<MarkQueue>
    /// Render thread: the sample time that would continue what was written last.
    private var nextSampleTime = Int64.min
    /// Dispatcher: the mark dating the frames being read, and the next one (popped, not yet reached).
    private var currentMark = Mark(position: 0, sampleTime: 0, hostTime: 0)
    private var upcomingMark: Mark?
    private var sampleRate: Double
    let overruns = Atomic<Int>(0)
    private lazy var converter: AVAudioConverter? = {
        let standard = AVAudioFormat(standardFormatWithSampleRate: format.sampleRate, channels: AVAudioChannelCount(busChannels))!
        return format == standard ? nil : AVAudioConverter(from: standard, to: format)
    }()
    private lazy var staging = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: format.sampleRate, channels: AVAudioChannelCount(busChannels))!,
                                                frameCapacity: AVAudioFrameCount(bufferSize))!

    init(node: AVAudioNode, bus: Int, bufferSize: Int, busChannels: Int, format: AVAudioFormat, block: @escaping AVAudioNodeTapBlock) {
        let marks = MarkQueue(capacity: 256)
        self.marks = marks
        marksRef = .passUnretained(marks)
        self.node = node
        self.bus = bus
        self.bufferSize = bufferSize
        self.busChannels = busChannels
        self.format = format
        self.block = block
        sampleRate = format.sampleRate
        capacity = bufferSize * 4 + 8192
        ring = .allocate(capacity: capacity * max(1, busChannels))
        ring.initialize(repeating: 0, count: capacity * max(1, busChannels))
    }

    deinit { ring.deallocate() }

    /// Render thread: append `frames` frames of `buffer`. Proved free of locks, allocation and
    /// reference counting (`RenderPathProof.tap`).
    func capture(_ buffer: Unmanaged<RenderBuffer>, frames: Int, cycle: RenderCycle) {
        let w = written.load(ordering: .relaxed)
        let free = capacity - Int(w - read.load(ordering: .acquiring))
        guard frames <= free else {
            // The dispatcher fell behind: drop this cycle whole (the next one starts a new mark).
            overruns.add(frames, ordering: .relaxed)
            nextSampleTime = Int64.min
            return
        }
        let n = frames
        guard n > 0 else { return }
        if cycle.sampleTime != nextSampleTime {
            let mark = Mark(position: w, sampleTime: cycle.sampleTime, hostTime: cycle.hostTime)
            if !marksRef._withUnsafeGuaranteedRef({ $0.push(mark) }) {
                overruns.add(frames, ordering: .relaxed)   // (256 gaps unread: drop rather than misdate)
                return
            }
        }
        nextSampleTime = cycle.sampleTime + Int64(n)
        let start = Int(w % Int64(capacity))
        let first = min(n, capacity - start)
        let (source, sourceCount) = (buffer.channels, buffer.channelCount)
        let channels = min(busChannels, sourceCount)
        var c = 0
        while c < channels {
            let dst = ring + c * capacity
            copyFloats(dst + start, source[c], first)
            if n > first { copyFloats(dst, source[c] + first, n - first) }
            c += 1
        }
        written.store(w + Int64(n), ordering: .releasing)
        if Int(w + Int64(n) - read.load(ordering: .relaxed)) >= bufferSize {
            if !signaled.load(ordering: .relaxed) {
                // Marked only once queued: a full event queue (counted by `post`) is retried next cycle.
                let me = Unmanaged.passUnretained(self)
                if cycle.events._withUnsafeGuaranteedRef({ $0.post(.tapDataAvailable(me)) }) { signaled.store(true, ordering: .relaxed) }
            }
        }
    }

    /// Dispatcher: deliver every complete buffer.
    func deliver() {
        signaled.store(false, ordering: .relaxed)
        while true {
            var r = read.load(ordering: .relaxed)
            let end = written.load(ordering: .acquiring)
            // Advance to the mark dating position r; skip frames a mark would split off.
            if upcomingMark == nil { upcomingMark = marks.pop() }
            if let next = upcomingMark, next.position < r + Int64(bufferSize), next.position <= end {
                if next.position > r {
                    r = next.position
                    read.store(r, ordering: .releasing)
                }
                currentMark = next
                upcomingMark = nil
                continue
            }
            let available = Int(end - r)
            guard available >= bufferSize else { return }
            let start = Int(r % Int64(capacity))
            let first = min(bufferSize, capacity - start)
            let staging = self.staging
            for c in 0..<busChannels {
                let src = ring + c * capacity
                let dst = staging.floatChannelData![c]
                dst.update(from: src + start, count: first)
                if bufferSize > first { (dst + first).update(from: src, count: bufferSize - first) }
            }
            staging.frameLength = AVAudioFrameCount(bufferSize)
            read.store(r + Int64(bufferSize), ordering: .releasing)
            let out = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(bufferSize))!
            if let converter {
                try? converter.convert(to: out, from: staging)
            } else {
                for c in 0..<busChannels { out.floatChannelData![c].update(from: staging.floatChannelData![c], count: bufferSize) }
                out.frameLength = AVAudioFrameCount(bufferSize)
            }
            let offset = r - currentMark.position
            let sample = currentMark.sampleTime + offset
            let host = currentMark.hostTime + AVAudioTime.hostTime(forSeconds: Double(offset) / sampleRate)
            block(out, AVAudioTime(hostTime: host, sampleTime: sample, atRate: sampleRate))
        }
    }
}

/// The tap's time marks, from the render thread to the dispatcher: a bounded single-producer
/// single-consumer ring (the producer writes the slot, then publishes `tail` with release
/// ordering; the consumer reads `tail` with acquire ordering, reads the slot, then publishes
/// `head`). Not generic: the real-time check sees a generic class's methods as unspecialised.
final class MarkQueue {
    typealias Element = TapRenderer.Mark
    private let storage: UnsafeMutablePointer<Element>
    private let capacity: Int
    private let head = Atomic<Int>(0)   // next slot to read (consumer-owned)
    private let tail = Atomic<Int>(0)   // next slot to write (producer-owned)

    init(capacity: Int) {
        self.capacity = capacity + 1
        storage = .allocate(capacity: capacity + 1)
        storage.initialize(repeating: Element(position: 0, sampleTime: 0, hostTime: 0), count: capacity + 1)
    }

    deinit { storage.deallocate() }

    /// Render thread: appends `value`; false when full.
    @inline(__always)
    func push(_ value: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        let next = t + 1 == capacity ? 0 : t + 1
        if next == head.load(ordering: .acquiring) { return false }
        storage[t] = value
        tail.store(next, ordering: .releasing)
        return true
    }

    /// Dispatcher: the oldest mark, or nil.
    func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        let value = storage[h]
        head.store(h + 1 == capacity ? 0 : h + 1, ordering: .releasing)
        return value
    }
}

// A tap: the render thread copies a bus's audio into a lock-free ring; the dispatcher cuts it into
// buffers of exactly `bufferSize` frames (allocating them off the render thread) and calls the
// client's block with consecutive sample times.
//
// Ring sizing: four tap buffers plus 8192 frames, so the dispatcher (polling every few
// milliseconds in real-time mode, draining after every `renderOffline`) never falls behind at
// any sane buffer size. If it does, frames are dropped and counted in `overruns` — never blocked on.
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
    /// Sample/host time of the first frame written.
    private let anchorSample = Atomic<Int64>(Int64.min)
    private let anchorHost = Atomic<UInt64>(0)
    private var sampleRate: Double
    let overruns = Atomic<Int>(0)
    private lazy var converter: AVAudioConverter? = {
        let standard = AVAudioFormat(standardFormatWithSampleRate: format.sampleRate, channels: AVAudioChannelCount(busChannels))!
        return format == standard ? nil : AVAudioConverter(from: standard, to: format)
    }()
    private lazy var staging = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: format.sampleRate, channels: AVAudioChannelCount(busChannels))!,
                                                frameCapacity: AVAudioFrameCount(bufferSize))!

    init(node: AVAudioNode, bus: Int, bufferSize: Int, busChannels: Int, format: AVAudioFormat, block: @escaping AVAudioNodeTapBlock) {
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

    /// Render thread: append `frames` frames of `buffer`.
    func capture(_ buffer: RenderBuffer, frames: Int, cycle: RenderCycle, events: RenderEventQueue) {
        if anchorSample.load(ordering: .relaxed) == Int64.min {
            anchorHost.store(cycle.hostTime, ordering: .relaxed)
            anchorSample.store(cycle.sampleTime, ordering: .releasing)
        }
        let w = written.load(ordering: .relaxed)
        let free = capacity - Int(w - read.load(ordering: .acquiring))
        let n = min(frames, free)
        if n < frames { overruns.add(frames - n, ordering: .relaxed) }
        guard n > 0 else { return }
        let start = Int(w % Int64(capacity))
        let first = min(n, capacity - start)
        let channels = min(busChannels, buffer.channelCount)
        for c in 0..<channels {
            let dst = ring + c * capacity
            (dst + start).update(from: buffer.channels[c], count: first)
            if n > first { dst.update(from: buffer.channels[c] + first, count: n - first) }
        }
        written.store(w + Int64(n), ordering: .releasing)
        if Int(w + Int64(n) - read.load(ordering: .relaxed)) >= bufferSize, !signaled.load(ordering: .relaxed) {
            signaled.store(true, ordering: .relaxed)
            events.post(.tapDataAvailable(Unmanaged.passUnretained(self)))
        }
    }

    /// Dispatcher: deliver every complete buffer.
    func deliver() {
        signaled.store(false, ordering: .relaxed)
        while true {
            let r = read.load(ordering: .relaxed)
            let available = Int(written.load(ordering: .acquiring) - r)
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
            let sample = anchorSample.load(ordering: .acquiring) + r
            let host = anchorHost.load(ordering: .relaxed) + AVAudioTime.hostTime(forSeconds: Double(r) / sampleRate)
            block(out, AVAudioTime(hostTime: host, sampleTime: sample, atRate: sampleRate))
        }
    }
}

// The render object of every effect: runs an EffectKernel on the node's input, applying
// parameter changes at the exact samples they were scheduled for.
//
// Kernels are created on the control side for a format (sample rate, channel count, maximum
// frames) and handed to the render thread through the plan; while the format stays the same, the
// same kernel (with its delay lines and filter state) carries over from plan to plan.
import Foundation
import Synchronization

/// Creates a kernel for (sample rate, channels, maximum frames) with the unit's current parameter values.
typealias EffectKernelFactory = (_ sampleRate: Double, _ channels: Int, _ maximumFrames: Int) -> EffectKernel

/// The DSP of an effect. `process` and `setParameter` run on the render thread: no allocation,
/// no locks, no I/O.
class EffectKernel {
    /// Applies a parameter change now, reaching `value` after `rampFrames` frames (0: at once).
    func setParameter(_ address: AUParameterAddress, _ value: AUValue, rampFrames: Int) {}

    /// Processes `frames` frames from `input` to `output` (planar Float32; they may be the same memory).
    func process(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                 channels: Int, frames: Int) {
        for c in 0..<channels where input[c] != output[c] { output[c].update(from: input[c], count: frames) }
    }

    /// Clears delay lines and filter memories.
    func reset() {}

    /// Frames by which the output lags the input.
    var latencyFrames: Int { 0 }

    /// Seconds of output after the input falls silent.
    var tailTime: TimeInterval { 0 }
}

extension EffectKernel {
    /// Processes one cycle of `frames` frames that starts at sample time `start`, applying each
    /// event of `events` (Apple's render-event list, in time order) at its frame: the cycle is
    /// processed in segments between events. This is the one split loop of every built-in
    /// effect, in the engine (EffectRenderer) and behind its AUAudioUnit's internal render block.
    /// `input`/`output` hold the channels' base pointers (they may be the same memory);
    /// `inputSegment`/`outputSegment` are scratch arrays of `channels` pointers. Render thread.
    @inline(__always)
    final func render(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                      channels: Int, frames: Int, start: Int64, events: UnsafePointer<AURenderEvent>?,
                      inputSegment: UnsafeMutablePointer<UnsafeMutablePointer<Float>>,
                      outputSegment: UnsafeMutablePointer<UnsafeMutablePointer<Float>>) {
        var event = events
        var done = 0
        while done < frames {
            // Apply every event due at or before this frame; the next one bounds the segment.
            while let e = event, e.pointee.head.eventSampleTime <= start + Int64(done) {
                apply(e)
                event = UnsafePointer(e.pointee.head.next)
            }
            let end = event.map { min(frames, Int($0.pointee.head.eventSampleTime - start)) } ?? frames
            for c in 0..<channels {
                inputSegment[c] = input[c] + done
                outputSegment[c] = output[c] + done
            }
            process(input: UnsafePointer(inputSegment), output: UnsafePointer(outputSegment), channels: channels, frames: end - done)
            done = end
        }
    }

    /// Applies one parameter event (other event types are not for effects).
    @inline(__always)
    final func apply(_ e: UnsafePointer<AURenderEvent>) {
        let type = e.pointee.head.eventType
        if type == .parameter || type == .parameterRamp {
            setParameter(e.pointee.parameter.parameterAddress, e.pointee.parameter.value, rampFrames: Int(e.pointee.parameter.rampDurationSampleFrames))
        }
    }

    /// Applies every event of a list at once (a bypassed cycle).
    @inline(__always)
    final func apply(_ events: UnsafePointer<AURenderEvent>?) {
        var event = events
        while let e = event {
            apply(e)
            event = UnsafePointer(e.pointee.head.next)
        }
    }
}

final class EffectRenderer: NodeRenderer {
    let makeKernel: EffectKernelFactory
    weak var unit: AVAudioUnit?
    /// Parameter events from any thread, in time order (shared with the node's AUAudioUnit).
    let scheduler = RenderEventScheduler()
    private let bypassFlag = Atomic<Bool>(false)
    /// The kernel of the current format (control side) and its format.
    private var kernel: EffectKernel?
    private var kernelKey: (rate: Double, channels: Int, frames: Int)?
    private let latency = Atomic<Int>(0)
    private let kernelLock = NSLock()

    init(makeKernel: @escaping EffectKernelFactory) {
        self.makeKernel = makeKernel
    }

    var isBypassed: Bool {
        get { bypassFlag.load(ordering: .relaxed) }
        set { bypassFlag.store(newValue, ordering: .relaxed) }
    }

    var latencyFrames: Int { latency.load(ordering: .relaxed) }
    var tailTime: TimeInterval { kernel?.tailTime ?? 0 }

    /// Any thread: queue a parameter change (dropped and counted, never blocking, when full).
    func schedule(address: AUParameterAddress, value: AUValue, at time: AUEventSampleTime, ramp: AUAudioFrameCount) {
        scheduler.schedule(address: address, value: value, at: time, ramp: ramp)
    }

    /// The kernel for a format (created with the unit's current parameter values, or reused).
    /// Control side: the engine's plan compiler and a host allocating the unit on its own share it.
    func kernel(sampleRate: Double, channels: Int, maximumFrames: Int) -> EffectKernel {
        kernelLock.lock(); defer { kernelLock.unlock() }
        if let kernel, let key = kernelKey, key.rate == sampleRate, key.channels == channels, key.frames >= maximumFrames {
            return kernel
        }
        let k = makeKernel(sampleRate, channels, maximumFrames)
        kernel = k
        kernelKey = (sampleRate, channels, maximumFrames)
        latency.store(k.latencyFrames, ordering: .relaxed)
        return k
    }

    final class State {
        let kernel: EffectKernel
        let channels: Int
        /// The node's sample rate (host-time events convert with it; `cycle.sampleRate` is the
        /// engine output's, which a node upstream of a mixer's rate conversion does not run at).
        let sampleRate: Double
        /// Channel pointers: the cycle's buffers, and the segments the kernel processes.
        let inputBase: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        let outputBase: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        let inputPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        let outputPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        init(kernel: EffectKernel, channels: Int, sampleRate: Double) {
            self.kernel = kernel
            self.channels = channels
            self.sampleRate = sampleRate
            inputBase = .allocate(capacity: max(1, channels))
            outputBase = .allocate(capacity: max(1, channels))
            inputPointers = .allocate(capacity: max(1, channels))
            outputPointers = .allocate(capacity: max(1, channels))
        }
        deinit {
            inputBase.deallocate()
            outputBase.deallocate()
            inputPointers.deallocate()
            outputPointers.deallocate()
        }
    }

    override func makeStepState(inputFormats: [AVAudioFormat?], outputFormats: [AVAudioFormat], maximumFrames: Int) -> AnyObject? {
        let format = outputFormats[0]
        let channels = Int(format.channelCount)
        return State(kernel: kernel(sampleRate: format.sampleRate, channels: channels, maximumFrames: maximumFrames), channels: channels,
                     sampleRate: format.sampleRate)
    }

    override func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>, state: AnyObject?) {
        let output = outputs[0]
        let frames = cycle.frames
        guard let state = state.map({ unsafeDowncast($0, to: State.self) }) else { output.clear(frames: frames); return }
        let kernel = state.kernel
        if resetRequested.load(ordering: .relaxed), resetRequested.exchange(false, ordering: .acquiringAndReleasing) { kernel.reset() }
        let start = cycle.sampleTime
        let channels = min(state.channels, output.channelCount)
        // The input (silence when unconnected: effects still ring out).
        let input = inputs.count > 0 ? inputs[0] : nil
        if input == nil {
            for c in 0..<output.channelCount { output.channels[c].update(repeating: 0, count: frames) }
        }
        let source = input ?? output
        scheduler.collect(cycleStart: start, hostTime: cycle.hostTime, sampleRate: state.sampleRate)
        let events = scheduler.eventList(before: start + Int64(frames), cycleStart: start)
        if isBypassed {
            if input != nil { output.copy(from: source, frames: frames) }
            kernel.apply(events)
            output.frames = frames
            return
        }
        for c in 0..<channels {
            state.inputBase[c] = source.channels[min(c, source.channelCount - 1)]
            state.outputBase[c] = output.channels[c]
        }
        kernel.render(input: UnsafePointer(state.inputBase), output: UnsafePointer(state.outputBase), channels: channels, frames: frames,
                      start: start, events: events, inputSegment: state.inputPointers, outputSegment: state.outputPointers)
        output.frames = frames
        output.isSilent = false
    }

    /// Control side: the kernel clears its state at the start of the next cycle (never while
    /// the render thread is inside it).
    override func resetState() {
        resetRequested.store(true, ordering: .releasing)
    }
    private let resetRequested = Atomic<Bool>(false)
}

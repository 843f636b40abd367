// The render object of every effect: runs an EffectKernel on the node's input, applying
// parameter changes at the exact samples they were scheduled for.
//
// Kernels are created on the control side for a format (sample rate, channel count, maximum
// frames) and handed to the render thread through the plan; while the format stays the same, the
// same kernel (with its delay lines and filter state) carries over from plan to plan.
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
    func kernel(sampleRate: Double, channels: Int, maximumFrames: Int) -> EffectKernel {
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
        let inputPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        let outputPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        init(kernel: EffectKernel, channels: Int, sampleRate: Double) {
            self.kernel = kernel
            self.channels = channels
            self.sampleRate = sampleRate
            inputPointers = .allocate(capacity: max(1, channels))
            outputPointers = .allocate(capacity: max(1, channels))
        }
        deinit {
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
        if isBypassed {
            if input != nil { output.copy(from: source, frames: frames) }
            applyDueEvents(before: start + Int64(frames), kernel: kernel)
            output.frames = frames
            return
        }
        var done = 0
        while done < frames {
            // Apply every event due at or before this position; find the next boundary.
            applyDueEvents(before: start + Int64(done) + 1, kernel: kernel)
            let n = min(frames - done, scheduler.nextTime.map { Int($0 - (start + Int64(done))) } ?? frames - done)
            for c in 0..<channels {
                state.inputPointers[c] = source.channels[min(c, source.channelCount - 1)] + done
                state.outputPointers[c] = output.channels[c] + done
            }
            kernel.process(input: UnsafePointer(state.inputPointers), output: UnsafePointer(state.outputPointers), channels: channels, frames: n)
            done += n
        }
        output.frames = frames
        output.isSilent = false
    }

    /// Applies the pending events due before `end` (the scheduler keeps them in time order).
    @inline(__always)
    private func applyDueEvents(before end: Int64, kernel: EffectKernel) {
        while let e = scheduler.popDue(before: end) {
            kernel.setParameter(e.request.address, e.request.value, rampFrames: Int(e.request.ramp))
        }
    }

    /// Control side: the kernel clears its state at the start of the next cycle (never while
    /// the render thread is inside it).
    override func resetState() {
        resetRequested.store(true, ordering: .releasing)
    }
    private let resetRequested = Atomic<Bool>(false)
}

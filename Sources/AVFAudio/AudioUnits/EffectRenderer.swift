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
        var c = 0
        while c < channels {
            if input[c] != output[c] { copyFloats(output[c], input[c], frames) }
            c += 1
        }
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
            var c = 0
            while c < channels {
                inputSegment[c] = input[c] + done
                outputSegment[c] = output[c] + done
                c += 1
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
    let scheduler: RenderEventScheduler
    /// The scheduler, for the render thread (`scheduler` keeps it alive).
    fileprivate let schedulerRef: Unmanaged<RenderEventScheduler>
    private let bypassFlag = Atomic<Bool>(false)
    /// The kernel of the current format (control side) and its format.
    private var kernel: EffectKernel?
    private var kernelKey: (rate: Double, channels: Int, frames: Int)?
    private let latency = Atomic<Int>(0)
    private let kernelLock = NSLock()

    init(makeKernel: @escaping EffectKernelFactory) {
        self.makeKernel = makeKernel
        let scheduler = RenderEventScheduler()
        self.scheduler = scheduler
        schedulerRef = .passUnretained(scheduler)
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

    /// The effect's part of one plan (see the design note in NodeRenderer.swift).
    final class State: RenderStep {
        override var kind: StepKind { .effect(.passUnretained(self)) }
        private let owner: Unmanaged<EffectRenderer>
        let kernel: EffectKernel
        /// The kernel, for the render thread (`kernel` keeps it alive).
        private let kernelRef: Unmanaged<EffectKernel>
        let channels: Int
        /// The node's sample rate (host-time events convert with it; `cycle.sampleRate` is the
        /// engine output's, which a node upstream of a mixer's rate conversion does not run at).
        let sampleRate: Double
        /// Channel pointers: the cycle's buffers, and the segments the kernel processes.
        let inputBase: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        let outputBase: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        let inputPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        let outputPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        init(renderer: EffectRenderer, kernel: EffectKernel, channels: Int, sampleRate: Double) {
            owner = .passUnretained(renderer)
            self.kernel = kernel
            kernelRef = .passUnretained(kernel)
            self.channels = channels
            self.sampleRate = sampleRate
            inputBase = .allocate(capacity: max(1, channels))
            outputBase = .allocate(capacity: max(1, channels))
            inputPointers = .allocate(capacity: max(1, channels))
            outputPointers = .allocate(capacity: max(1, channels))
            super.init(renderer: renderer)
        }
        /// Render thread: one cycle. Proved free of locks, allocation and reference counting
        /// (`RenderPathProof.effect`): the renderer, kernel, scheduler and buffers are reached as
        /// `Unmanaged`, through closures that capture only plain values.
        override func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>) {
            let output = outputs.unmanaged(0)
            let frames = cycle.frames
            let kernel = kernelRef
            let (scheduler, bypassed, reset) = owner._withUnsafeGuaranteedRef {
                ($0.schedulerRef, $0.isBypassed, $0.takeResetRequest())
            }
            if reset { kernel._withUnsafeGuaranteedRef { $0.reset() } }
            let start = cycle.sampleTime, hostTime = cycle.hostTime, rate = sampleRate
            let outputChannels = output.channelCount
            let channels = min(self.channels, outputChannels)
            // The input (silence when unconnected: effects still ring out).
            let input = inputs.count > 0 ? inputs.unmanaged(0) : nil
            if input == nil {
                let out = output.channels
                var c = 0
                while c < outputChannels { out[c].update(repeating: 0, count: frames); c += 1 }
            }
            let source = input ?? output
            let events = scheduler._withUnsafeGuaranteedRef { s -> UnsafePointer<AURenderEvent>? in
                s.collect(cycleStart: start, hostTime: hostTime, sampleRate: rate)
                return s.eventList(before: start + Int64(frames), cycleStart: start)
            }
            if bypassed {
                if let input { output.copy(from: input, frames: frames) }
                kernel._withUnsafeGuaranteedRef { $0.apply(events) }
                output.frames = frames
                return
            }
            let (sourceChannels, sourceCount) = (source.channels, source.channelCount)
            let outChannels = output.channels
            var c = 0
            while c < channels {
                inputBase[c] = sourceChannels[min(c, sourceCount - 1)]
                outputBase[c] = outChannels[c]
                c += 1
            }
            let (inBase, outBase, inSegment, outSegment) = (UnsafePointer(inputBase), UnsafePointer(outputBase), inputPointers, outputPointers)
            kernel._withUnsafeGuaranteedRef {
                $0.render(input: inBase, output: outBase, channels: channels, frames: frames,
                          start: start, events: events, inputSegment: inSegment, outputSegment: outSegment)
            }
            output.frames = frames
            output.isSilent = false
        }
        deinit {
            inputBase.deallocate()
            outputBase.deallocate()
            inputPointers.deallocate()
            outputPointers.deallocate()
        }
    }

    override func makeStepState(inputFormats: [AVAudioFormat?], outputFormats: [AVAudioFormat], maximumFrames: Int) -> RenderStep? {
        let format = outputFormats[0]
        let channels = Int(format.channelCount)
        return State(renderer: self, kernel: kernel(sampleRate: format.sampleRate, channels: channels, maximumFrames: maximumFrames), channels: channels,
                     sampleRate: format.sampleRate)
    }

    /// Render thread, at the start of a cycle: whether a reset was asked for (clears the request).
    @inline(__always)
    fileprivate func takeResetRequest() -> Bool {
        // (nested ifs, not `&&`: its autoclosure would capture self)
        if resetRequested.load(ordering: .relaxed) {
            if resetRequested.exchange(false, ordering: .acquiringAndReleasing) { return true }
        }
        return false
    }

    /// Control side: the kernel clears its state at the start of the next cycle (never while
    /// the render thread is inside it).
    override func resetState() {
        resetRequested.store(true, ordering: .releasing)
    }
    private let resetRequested = Atomic<Bool>(false)
}

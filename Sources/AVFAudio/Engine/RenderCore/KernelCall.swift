// The render path's calls into the DSP layer (the `AudioKernels` module), each isolated behind one
// function whose callee is proved in its own module.
//
// The compiler's real-time check (`@_noLocks`, RenderPathProof.swift) follows calls only inside
// the module it compiles: a call into another module's non-inlinable function is rejected as
// "not available in this module". The kernels' render-side entry points are proved where they
// are compiled, by their own `@_noLocks` proofs (AudioKernels/Effects/EffectsRealTimeSafety.swift,
// Resampler/ResamplerRealTimeSafety.swift, TimeStretch/TimeStretchRealTimeSafety.swift), so the
// proof of the render loop composes: each call below is marked `no_performance_analysis` (the
// check does not look into it) and `@inline(never)` (it stays one call), names the proof that
// covers its callee, and is that call and only that call. The processor is passed unmanaged (its
// owner keeps it alive): a reference loaded from a stored property would be retained.
import AudioKernels
import Foundation

enum KernelCall {
    typealias In = UnsafePointer<UnsafeMutablePointer<Float>>
    typealias Out = UnsafePointer<UnsafeMutablePointer<Float>>

    // MARK: effects — proved by EffectsRealTimeSafety.{reverb, distortion, equalizer, delay}

    @_semantics("no_performance_analysis") @inline(never)
    static func process(_ p: Unmanaged<ReverbProcessor>, _ i: In, _ o: Out, channels: Int, frames: Int) {
        p._withUnsafeGuaranteedRef { $0.process(input: i, output: o, channels: channels, frames: frames) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func setParameter(_ p: Unmanaged<ReverbProcessor>, _ address: AUParameterAddress, _ value: AUValue, rampFrames: Int) {
        p._withUnsafeGuaranteedRef { $0.setParameter(address, value, rampFrames: rampFrames) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func reset(_ p: Unmanaged<ReverbProcessor>) { p._withUnsafeGuaranteedRef { $0.reset() } }

    @_semantics("no_performance_analysis") @inline(never)
    static func process(_ p: Unmanaged<DistortionProcessor>, _ i: In, _ o: Out, channels: Int, frames: Int) {
        p._withUnsafeGuaranteedRef { $0.process(input: i, output: o, channels: channels, frames: frames) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func setParameter(_ p: Unmanaged<DistortionProcessor>, _ address: AUParameterAddress, _ value: AUValue, rampFrames: Int) {
        p._withUnsafeGuaranteedRef { $0.setParameter(address, value, rampFrames: rampFrames) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func reset(_ p: Unmanaged<DistortionProcessor>) { p._withUnsafeGuaranteedRef { $0.reset() } }

    @_semantics("no_performance_analysis") @inline(never)
    static func process(_ p: Unmanaged<EqualizerProcessor>, _ i: In, _ o: Out, channels: Int, frames: Int) {
        p._withUnsafeGuaranteedRef { $0.process(input: i, output: o, channels: channels, frames: frames) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func setParameter(_ p: Unmanaged<EqualizerProcessor>, _ address: AUParameterAddress, _ value: AUValue, rampFrames: Int) {
        p._withUnsafeGuaranteedRef { $0.setParameter(address, value, rampFrames: rampFrames) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func reset(_ p: Unmanaged<EqualizerProcessor>) { p._withUnsafeGuaranteedRef { $0.reset() } }

    @_semantics("no_performance_analysis") @inline(never)
    static func process(_ p: Unmanaged<FeedbackDelayProcessor>, _ i: In, _ o: Out, channels: Int, frames: Int) {
        p._withUnsafeGuaranteedRef { $0.process(input: i, output: o, channels: channels, frames: frames) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func setParameter(_ p: Unmanaged<FeedbackDelayProcessor>, _ address: AUParameterAddress, _ value: AUValue, rampFrames: Int) {
        p._withUnsafeGuaranteedRef { $0.setParameter(address, value, rampFrames: rampFrames) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func reset(_ p: Unmanaged<FeedbackDelayProcessor>) { p._withUnsafeGuaranteedRef { $0.reset() } }

    // MARK: sample-rate conversion — proved by ResamplerRealTimeSafety.{process, control}

    @_semantics("no_performance_analysis") @inline(never)
    static func process(_ c: Unmanaged<SampleRateConverter>, input: UnsafeBufferPointer<UnsafePointer<Float>>, offset inputOffset: Int,
                        inputFrames: Int, output: UnsafeBufferPointer<UnsafeMutablePointer<Float>>, offset outputOffset: Int,
                        outputCapacity: Int) -> (consumed: Int, produced: Int) {
        c._withUnsafeGuaranteedRef {
            $0.process(input: input, offset: inputOffset, inputFrames: inputFrames, output: output, offset: outputOffset,
                       outputCapacity: outputCapacity)
        }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func inputFramesNeeded(_ c: Unmanaged<SampleRateConverter>, forOutputFrames frames: Int) -> Int {
        c._withUnsafeGuaranteedRef { $0.inputFramesNeeded(forOutputFrames: frames) }
    }

    // MARK: channel matrices — proved by ChannelMatrixKernelRealTimeSafety.apply

    @_semantics("no_performance_analysis") @inline(never)
    static func apply(_ m: Unmanaged<ChannelMatrixKernel>, frames: Int, input: UnsafePointer<UnsafeMutablePointer<Float>>,
                      output: UnsafePointer<UnsafeMutablePointer<Float>>) {
        m._withUnsafeGuaranteedRef { $0.apply(frames: frames, input: input, output: output) }
    }

    // MARK: sample formats — proved by RealTimeSafety.convert

    @_semantics("no_performance_analysis") @inline(never)
    static func convert(frameCount: Int, from source: ProcessingBufferPointer, to destination: ProcessingBufferPointer) {
        SampleConversion.convert(frameCount: frameCount, from: source, to: destination)
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func convert(frameCount: Int, from source: ProcessingBufferPointer, atFrame sourceFrame: Int,
                        to destination: ProcessingBufferPointer, atFrame destinationFrame: Int) {
        SampleConversion.convert(frameCount: frameCount, from: source, atFrame: sourceFrame, to: destination, atFrame: destinationFrame)
    }

    @_semantics("no_performance_analysis") @inline(never)
    static func setRatio(_ c: Unmanaged<SampleRateConverter>, _ ratio: Double, rampFrames: Int) {
        c._withUnsafeGuaranteedRef { $0.setRatio(ratio, rampFrames: rampFrames) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func reset(_ c: Unmanaged<SampleRateConverter>) { c._withUnsafeGuaranteedRef { $0.reset() } }
    @_semantics("no_performance_analysis") @inline(never)
    static func trailingFrames(_ c: Unmanaged<SampleRateConverter>) -> Int { c._withUnsafeGuaranteedRef { $0.trailingFrames } }

    // MARK: time stretching — proved by TimeStretchRealTimeSafety.{render, control}

    @_semantics("no_performance_analysis") @inline(never)
    static func process(_ s: Unmanaged<TimeStretcher>, input: UnsafePointer<UnsafePointer<Float>>?, inputFrames: Int,
                        output: UnsafePointer<UnsafeMutablePointer<Float>>, outputFrames: Int) {
        s._withUnsafeGuaranteedRef { _ = $0.process(input: input, inputFrames: inputFrames, output: output, outputFrames: outputFrames) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func inputFramesNeeded(_ s: Unmanaged<TimeStretcher>, forOutputFrames frames: Int, margin: Int) -> Int {
        s._withUnsafeGuaranteedRef { $0.inputFramesNeeded(forOutputFrames: frames, margin: margin) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func setRate(_ s: Unmanaged<TimeStretcher>, _ value: Double) { s._withUnsafeGuaranteedRef { $0.setRate(value) } }
    @_semantics("no_performance_analysis") @inline(never)
    static func setPitchScale(_ s: Unmanaged<TimeStretcher>, _ value: Double) { s._withUnsafeGuaranteedRef { $0.setPitchScale(value) } }
    @_semantics("no_performance_analysis") @inline(never)
    static func setOverlap(_ s: Unmanaged<TimeStretcher>, _ value: Double) { s._withUnsafeGuaranteedRef { $0.setOverlap(value) } }
    @_semantics("no_performance_analysis") @inline(never)
    static func setPeakLocking(_ s: Unmanaged<TimeStretcher>, _ on: Bool) { s._withUnsafeGuaranteedRef { $0.peakLocking = on } }
    @_semantics("no_performance_analysis") @inline(never)
    static func setPreservesTransients(_ s: Unmanaged<TimeStretcher>, _ on: Bool) { s._withUnsafeGuaranteedRef { $0.preservesTransients = on } }
    @_semantics("no_performance_analysis") @inline(never)
    static func reset(_ s: Unmanaged<TimeStretcher>) { s._withUnsafeGuaranteedRef { $0.reset() } }

    // MARK: the C library — vouched for by hand, as AudioKernels/Effects/EffectMath.swift: `pow`
    // computes on its arguments and touches no heap and no lock (glibc's is pure; errno is
    // thread-local)

    @_semantics("no_performance_analysis") @inline(never)
    static func power(_ x: Double, _ y: Double) -> Double { Foundation.pow(x, y) }
}

// Compile-time proof that the effect processors' render-side entry points are real-time safe:
// the compiler rejects a `@_noLocks` function if anything it runs (transitively) might allocate,
// take a lock or instantiate metadata. Only in optimised builds (see RealTimeSafety.swift for
// why); the functions are never called. Parameter changes are applied on the render thread (at
// the sample they were scheduled for), so `setParameter` is proved as well as `process`; the
// libm calls inside are vouched for by hand in EffectMath.swift.

#if !DEBUG && !AVAUDIO_TESTABLE_RELEASE
enum EffectsRealTimeSafety {
    typealias In = UnsafePointer<UnsafeMutablePointer<Float>>
    typealias Out = UnsafePointer<UnsafeMutablePointer<Float>>

    @_noLocks
    static func reverb(_ p: ReverbProcessor, _ i: In, _ o: Out, _ channels: Int, _ n: Int) {
        p.setParameter(ReverbProcessor.decayTimeAt0Hz, 2.5, rampFrames: n)
        p.setParameter(ReverbProcessor.dryWetMix, 40, rampFrames: n)
        p.process(input: i, output: o, channels: channels, frames: n)
        p.reset()
    }

    @_noLocks
    static func chorus(_ p: ChorusProcessor, _ x: UnsafePointer<Float>, _ l: UnsafeMutablePointer<Float>, _ r: UnsafeMutablePointer<Float>, _ n: Int) {
        p.process(input: x, left: l, right: r, frames: n)
        p.reset()
    }

    @_noLocks
    static func distortion(_ p: DistortionProcessor, _ i: In, _ o: Out, _ channels: Int, _ n: Int) {
        p.setParameter(DistortionProcessor.ringModFreq1, 300, rampFrames: n)
        p.setParameter(DistortionProcessor.highCut, 5_000, rampFrames: n)
        p.process(input: i, output: o, channels: channels, frames: n)
        p.reset()
    }

    @_noLocks
    static func equalizer(_ p: EqualizerProcessor, _ i: In, _ o: Out, _ channels: Int, _ n: Int) {
        p.setParameter(EqualizerProcessor.frequencyAddress + 1, 2_000, rampFrames: n)
        p.setParameter(EqualizerProcessor.filterTypeAddress, 7, rampFrames: 0)
        p.process(input: i, output: o, channels: channels, frames: n)
        p.reset()
    }

    @_noLocks
    static func delay(_ p: FeedbackDelayProcessor, _ i: In, _ o: Out, _ channels: Int, _ n: Int) {
        p.setParameter(FeedbackDelayProcessor.delayTimeAddress, 0.25, rampFrames: n)
        p.setParameter(FeedbackDelayProcessor.lowPassCutoffAddress, 3_000, rampFrames: 0)
        p.process(input: i, output: o, channels: channels, frames: n)
        p.reset()
    }
}
#endif

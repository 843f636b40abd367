// Compile-time proof that the time stretcher's render-side entry points are real-time safe: the
// compiler rejects a `@_noLocks` function if anything it runs (transitively) might allocate,
// take a lock or instantiate metadata. Only in optimised builds (see RealTimeSafety.swift for
// why); the functions are never called.

#if !DEBUG && !AVAUDIO_TESTABLE_RELEASE
enum TimeStretchRealTimeSafety {
    @_noLocks
    static func render(_ s: TimeStretcher, _ input: UnsafePointer<UnsafePointer<Float>>,
                       _ output: UnsafePointer<UnsafeMutablePointer<Float>>, _ n: Int) -> Int {
        let need = s.inputFramesNeeded(forOutputFrames: n) + s.inputFramesNeeded(forOutputFrames: n, margin: n)
        return need + s.process(input: input, inputFrames: need, output: output, outputFrames: n)
            + s.process(input: nil, inputFrames: n, output: output, outputFrames: n)
    }

    @_noLocks
    static func control(_ s: TimeStretcher, _ n: Int) -> Int {
        s.setRate(1.5)
        s.setPitchScale(1.25)
        s.setOverlap(6)
        s.preservesTransients = false
        s.peakLocking = true
        s.reset()
        return s.latencyFrames + s.maximumInputFrames(forOutputFrames: n)
    }
}
#endif

// Compile-time proof that the converter's render-side entry points are real-time safe: the
// compiler rejects a `@_noLocks` function if anything it runs (transitively) might allocate,
// take a lock or instantiate metadata. Only in optimised builds (see RealTimeSafety.swift for
// why); the functions are never called. The calls into the C kernels are vouched for by hand in
// ResamplerCKernels.swift (the checker cannot see into C).

#if !DEBUG && !AVAUDIO_TESTABLE_RELEASE
enum ResamplerRealTimeSafety {
    @_noLocks
    static func process(_ c: SampleRateConverter,
                        _ i: UnsafeBufferPointer<UnsafePointer<Float>>, _ o: UnsafeBufferPointer<UnsafeMutablePointer<Float>>,
                        _ id: UnsafeBufferPointer<UnsafePointer<Double>>, _ od: UnsafeBufferPointer<UnsafeMutablePointer<Double>>,
                        _ n: Int) -> Int {
        let a = c.process(input: i, offset: 0, inputFrames: n, output: o, offset: 0, outputCapacity: n)
        let b = c.process(input: id, offset: 0, inputFrames: n, output: od, offset: 0, outputCapacity: n)
        let f = c.flush(output: o, offset: 0, outputCapacity: n) + c.flush(output: od, offset: 0, outputCapacity: n)
        return a.consumed + b.produced + f
    }

    @_noLocks
    static func control(_ c: SampleRateConverter, _ n: Int) -> Int {
        c.reset()
        c.setRatio(1.5, rampFrames: n)
        return c.inputFramesNeeded(forOutputFrames: n) + c.outputFrames(forInputFrames: n) + c.leadingFrames
            + c.trailingFrames + c.framesConsumed + c.framesProduced + Int(c.ratio + c.latency)
    }
}
#endif

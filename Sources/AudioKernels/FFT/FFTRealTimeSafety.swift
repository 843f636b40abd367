// Compile-time proof that the FFT plans' execute functions are real-time safe: the compiler
// rejects a `@_noLocks` function if anything it runs (transitively) might allocate, take a lock
// or instantiate metadata. Only in optimised builds (see RealTimeSafety.swift for why); the
// functions are never called. The permuted FFT's calls into its C body are vouched for by hand
// in PermutedFFT+CKernels.swift (the checker cannot see into C).

#if !DEBUG && !AVAUDIO_TESTABLE_RELEASE
enum FFTRealTimeSafety {
    @_noLocks
    static func float(_ c: ComplexFFT<Float>, _ r: RealFFT<Float>, _ k: BlockConvolver<Float>, _ d: MDCT<Float>, _ p: PermutedFFT<Float>,
                      _ a: UnsafeMutablePointer<Float>, _ b: UnsafeMutablePointer<Float>, _ n: Int) {
        c.forward(inRe: a, inIm: b, outRe: a, outIm: b)
        c.inverse(inRe: a, inIm: b, outRe: a, outIm: b)
        r.forward(a, re: a, im: b)
        r.forwardPacked(re: a, im: b)
        r.inverse(re: a, im: b, output: a)
        k.process(a, b, count: n)
        k.reset()
        d.forward(a, b)
        d.inverse(a, b)
        p.forward(a, b)
        p.forward(from: a, b, to: b, a)
        p.inverse(a, b)
    }

    @_noLocks
    static func double(_ c: ComplexFFT<Double>, _ r: RealFFT<Double>, _ k: BlockConvolver<Double>, _ d: MDCT<Double>, _ p: PermutedFFT<Double>,
                       _ a: UnsafeMutablePointer<Double>, _ b: UnsafeMutablePointer<Double>, _ n: Int) {
        c.forward(inRe: a, inIm: b, outRe: a, outIm: b)
        c.inverse(inRe: a, inIm: b, outRe: a, outIm: b)
        r.forward(a, re: a, im: b)
        r.forwardPacked(re: a, im: b)
        r.inverse(re: a, im: b, output: a)
        k.process(a, b, count: n)
        k.reset()
        d.forward(a, b)
        d.inverse(a, b)
        p.forward(a, b)
        p.forward(from: a, b, to: b, a)
        p.inverse(a, b)
    }
}
#endif

// AudioKernels/FFT's execute functions allocate nothing once their plans are built (counted at
// run time; `FFT/FFTRealTimeSafety.swift` also has the compiler check it in release builds).
import AudioKernels
import Testing

@Suite struct FFTAllocationTests {
    func check<T: FFTScalar>(_: T.Type) {
        let n = 1024
        let complex = ComplexFFT<T>(count: n), real = RealFFT<T>(count: n), mdct = MDCT<T>(count: n)
        let convolver = BlockConvolver<T>(filter: (0..<3000).map { T($0 % 7) / 7 }, blockSize: 128)
        let a = UnsafeMutablePointer<T>.allocate(capacity: n + 1), b = UnsafeMutablePointer<T>.allocate(capacity: n + 1)
        let c = UnsafeMutablePointer<T>.allocate(capacity: n)
        a.initialize(repeating: 0.25, count: n + 1); b.initialize(repeating: -0.5, count: n + 1)
        c.initialize(repeating: 0.125, count: n)
        defer { a.deallocate(); b.deallocate(); c.deallocate() }
        let counts = allocations(afterWarmUp: 2, iterations: 100) {
            complex.forward(inRe: a, inIm: b, outRe: a, outIm: b)
            complex.inverse(inRe: a, inIm: b, outRe: a, outIm: b)
            real.forward(c, re: a, im: b)
            real.inverse(re: a, im: b, output: c)
            mdct.forward(c, a)
            mdct.inverse(a, c)
            convolver.process(c, c, count: 333)
        }
        #expect(counts == .none, "\(T.self): \(counts)")
    }

    @Test func executeFunctionsAllocateNothing() {
        check(Float.self)
        check(Double.self)
    }
}

// The real FFT: power-of-two sizes n >= 2, Float32 or Float64, half spectrum in split arrays.
//
// The standard packing: the even samples go to the real part and the odd samples to the
// imaginary part of a complex sequence z of m = n/2 points; one complex FFT of z gives both
// half-size spectra E and O (E[k] = (Z[k] + conj Z[m-k]) / 2, O[k] = (Z[k] - conj Z[m-k]) / 2i),
// and X[k] = E[k] + e^(-2 pi i k/n) O[k]. The inverse runs the same steps backwards.
//
// Conventions: `forward` gives X[k] = sum_j x[j] e^(-2 pi i jk/n) for k = 0 ... n/2 (n/2 + 1
// bins; im[0] = im[n/2] = 0); `inverse` takes such a half spectrum (the imaginary parts of
// bins 0 and n/2 are ignored) and gives the unscaled inverse DFT of its Hermitian extension,
// so inverse(forward(x)) = n x.
//
// Callers that already hold the signal split into even and odd samples (the time stretcher
// windows straight into that layout) write to `packedEven`/`packedOdd` and call
// `forwardPacked`, and read `inversePacked`'s result the same way: no copies.
// Real-time safety as `ComplexFFT` (one plan per thread at a time; execute functions allocate
// nothing).

public final class RealFFT<T: FFTScalar> {
    /// Real size n.
    public let count: Int
    /// Complex size n/2.
    let m: Int
    /// The half-size complex plan, kept alive here and reached on the render path through
    /// `complexRef` (no reference counting), with its work buffers cached.
    let complex: ComplexFFT<T>
    private let complexRef: Unmanaged<ComplexFFT<T>>
    private let workRe: UnsafeMutablePointer<T>, workIm: UnsafeMutablePointer<T>
    /// e^(-2 pi i k/n), k <= m/2.
    private let rtwRe: UnsafeMutablePointer<T>
    private let rtwIm: UnsafeMutablePointer<T>

    /// A plan for real transforms of `count` samples (a power of two >= 2). Control side only.
    public init(count n: Int) {
        precondition(n >= 2 && n & (n - 1) == 0, "RealFFT: size \(n) must be a power of two >= 2")
        count = n
        m = n / 2
        complex = ComplexFFT(count: m)
        complexRef = Unmanaged.passUnretained(complex)
        workRe = complex.workRe
        workIm = complex.workIm
        rtwRe = .allocate(capacity: m / 2 + 1)
        rtwIm = .allocate(capacity: m / 2 + 1)
        for k in 0...(m / 2) {
            let w = FFTMath.sinCosPi(-2 * Double(k) / Double(n))
            rtwRe[k] = T(w.cos)
            rtwIm[k] = T(w.sin)
        }
    }

    deinit { rtwRe.deallocate(); rtwIm.deallocate() }

    /// Where `forwardPacked` reads the even samples x[0], x[2], ... (n/2 values).
    public var packedEven: UnsafeMutablePointer<T> { workRe }
    /// Where `forwardPacked` reads the odd samples x[1], x[3], ... (n/2 values).
    public var packedOdd: UnsafeMutablePointer<T> { workIm }

    /// Forward transform of `input` (n samples) into re[0 ... n/2], im[0 ... n/2]. Real-time safe.
    public func forward(_ input: UnsafePointer<T>, re: UnsafeMutablePointer<T>, im: UnsafeMutablePointer<T>) {
        let e = workRe, o = workIm
        for j in 0..<m {
            e[j] = input[2 * j]
            o[j] = input[2 * j + 1]
        }
        forwardPacked(re: re, im: im)
    }

    /// Forward transform of the samples in `packedEven`/`packedOdd` into re[0 ... n/2],
    /// im[0 ... n/2]. The packed buffers are overwritten. Real-time safe.
    public func forwardPacked(re: UnsafeMutablePointer<T>, im: UnsafeMutablePointer<T>) {
        let (zr, zi) = complexRef._withUnsafeGuaranteedRef { $0.transformWork() }
        re[0] = zr[0] + zi[0]
        im[0] = 0
        re[m] = zr[0] - zi[0]
        im[m] = 0
        let half = m / 2
        var k = 1
        while k <= half {
            let j = m - k
            let ar = zr[k], ai = zi[k], br = zr[j], bi = zi[j]
            let er: T = 0.5 * (ar + br), ei: T = 0.5 * (ai - bi)
            let or: T = 0.5 * (ai + bi), oi: T = -0.5 * (ar - br)
            let wr = rtwRe[k], wi = rtwIm[k]
            let tr = wr * or - wi * oi, ti = wr * oi + wi * or
            re[k] = er + tr; im[k] = ei + ti
            // E[m-k] = conj E[k], O[m-k] = conj O[k], w^(m-k) = -conj w^k
            re[j] = er - tr; im[j] = -ei + ti
            k += 1
        }
    }

    /// Unscaled inverse of re[0 ... n/2], im[0 ... n/2] into `output` (n samples: n x the
    /// signal whose forward transform that is). `re`/`im` are left intact. Real-time safe.
    public func inverse(re: UnsafePointer<T>, im: UnsafePointer<T>, output: UnsafeMutablePointer<T>) {
        let (even, odd) = inversePacked(re: re, im: im)
        for j in 0..<m {
            output[2 * j] = even[j]
            output[2 * j + 1] = odd[j]
        }
    }

    /// As `inverse`, leaving the even samples in `.even` and the odd samples in `.odd` (n/2
    /// each; internal buffers valid until the next call).
    public func inversePacked(re: UnsafePointer<T>, im: UnsafePointer<T>)
        -> (even: UnsafeMutablePointer<T>, odd: UnsafeMutablePointer<T>) {
        // Z[k] = E[k] + i O[k] with E[k] = X[k] + conj X[m-k], O[k] = (X[k] - conj X[m-k]) conj(w^k)
        // (twice the forward's E and O: the result is n x, not m x, the signal). Written swapped
        // (real part to workIm, imaginary part to workRe): a forward FFT then gives the inverse.
        let zr = workIm, zi = workRe
        zr[0] = re[0] + re[m]
        zi[0] = re[0] - re[m]
        let half = m / 2
        var k = 1
        while k <= half {
            let j = m - k
            let ar = re[k], ai = im[k], br = re[j], bi = im[j]
            let er = ar + br, ei = ai - bi
            let dr = ar - br, di = ai + bi
            let wr = rtwRe[k], wi = -rtwIm[k]
            let or = dr * wr - di * wi, oi = dr * wi + di * wr
            zr[k] = er - oi; zi[k] = ei + or
            // E[m-k] = conj E[k], O[m-k] = -conj O[k]
            zr[j] = er + oi; zi[j] = -ei + or
            k += 1
        }
        let (yr, yi) = complexRef._withUnsafeGuaranteedRef { $0.transformWork() }
        return (yi, yr)
    }
}

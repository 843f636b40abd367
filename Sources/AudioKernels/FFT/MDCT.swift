// The MDCT and its inverse (the lapped transform of AAC, Vorbis and Opus/CELT), window length N
// (a power of two >= 4), N/2 coefficients, via an N/4-point complex FFT.
//
// Definitions (unscaled, n0 = 1/2 + N/4):
//   forward   X[k] = sum_{n<N}   x[n] cos(2 pi/N (n + n0)(k + 1/2)),  k < N/2
//   inverse   y[n] = sum_{k<N/2} X[k] cos(2 pi/N (n + n0)(k + 1/2)),  n < N
// With a window w of length N satisfying Princen-Bradley (w[n]^2 + w[n + N/2]^2 = 1: sine,
// KBD), overlap-adding w . inverse(forward(w . x)) at hops of N/2 gives (N/4) x: time-domain
// aliasing cancels (TDAC; inverse(forward(.)) = (N/4) (a - b_r, b - a_r, c + d_r, d + c_r)
// for blocks a, b, c, d of N/4). So for perfect reconstruction scale the pair by 4/N in total
// (measured: FFTTests.mdctPerfectReconstruction).
// Codec conventions: AAC (ISO/IEC 14496-3, subpart 4, "filterbank and block switching") defines
// the decoder's IMDCT as x[n] = (2/N) sum_k spec[k] cos(2 pi/N (n + n0)(k + 1/2)), i.e. 2/N x
// our `inverse`, and its (informative) encoder MDCT as 2 x our `forward`: 2 x 2/N = 4/N, the
// perfect-reconstruction pair. Vorbis and Opus fix only their decoders; their scale factors are
// not restated here (not checked against their specifications), and Opus/CELT's sizes
// (N = 2 x 120 ... 2 x 960) are not powers of two, which this plan does not support.
//
// Algorithm (the standard one): fold the N inputs to N/2 values (blocks a, b, c, d of N/4:
// v = (-c_r - d, a - b_r), r = reversed), which turns the MDCT into a DCT-IV of size M = N/2;
// that DCT-IV is computed as an M/2-point complex FFT between two twiddles
// (z[p] = (v[2p] + i v[M-1-2p]) e^(-i pi (p + 1/8)/M), Y = e^(-i pi (q + 1/8)/M) FFT(z)[q],
// X[2q] = Re Y[q], X[M-1-2q] = -Im Y[q]). The inverse is the same DCT-IV (its own inverse up
// to M/2) followed by the unfolding y = (u2, -u2_r, -u1_r, -u1) of u = (u1, u2) = DCT-IV(X).
// Real-time safety as `ComplexFFT`.

public final class MDCT<T: FFTScalar> {
    /// Window length N (inputs of `forward`, outputs of `inverse`).
    public let count: Int
    /// N/2 coefficients.
    public var coefficientCount: Int { count / 2 }
    private let fft: ComplexFFT<T>
    /// `fft` reached without reference counting, and its work buffers.
    private let fftRef: Unmanaged<ComplexFFT<T>>
    private let workRe: UnsafeMutablePointer<T>, workIm: UnsafeMutablePointer<T>
    /// e^(-i pi (p + 1/8)/M), p < M/2.
    private let twRe: UnsafeMutablePointer<T>, twIm: UnsafeMutablePointer<T>
    /// Folded sequence / DCT-IV output (M).
    private let v: UnsafeMutablePointer<T>

    /// A plan for MDCTs of window length `count` (a power of two >= 4). Control side only.
    public init(count n: Int) {
        precondition(n >= 4 && n & (n - 1) == 0, "MDCT: size \(n) must be a power of two >= 4")
        count = n
        let m = n / 2
        fft = ComplexFFT(count: n / 4)
        fftRef = Unmanaged.passUnretained(fft)
        workRe = fft.workRe
        workIm = fft.workIm
        twRe = .allocate(capacity: m / 2); twIm = .allocate(capacity: m / 2)
        for p in 0..<(m / 2) {
            let w = FFTMath.sinCosPi(-(Double(p) + 0.125) / Double(m))
            twRe[p] = T(w.cos); twIm[p] = T(w.sin)
        }
        v = .allocate(capacity: m)
        v.initialize(repeating: 0, count: m)
    }

    deinit { twRe.deallocate(); twIm.deallocate(); v.deallocate() }

    /// X = MDCT(input): `input` has N samples, `output` N/2 coefficients. Real-time safe.
    public func forward(_ input: UnsafePointer<T>, _ output: UnsafeMutablePointer<T>) {
        let n4 = count / 4
        // v = (-c_r - d, a - b_r)
        for i in 0..<n4 {
            v[i] = -input[3 * n4 - 1 - i] - input[3 * n4 + i]
            v[n4 + i] = input[i] - input[n4 - 1 - i + n4]
        }
        dct4(output)
    }

    /// y = IMDCT(X): `input` has N/2 coefficients, `output` N samples (unscaled, see above).
    /// Real-time safe. Callers in other modules reach the Float body through `inverseFloat`.
    public func inverse(_ input: UnsafePointer<T>, _ output: UnsafeMutablePointer<T>) {
        let n = count, m = n / 2, n4 = n / 4
        FFTMath.copy(v, input, m)
        // u = DCT-IV(X) into output[0 ..< M], then unfold in place from the back
        dct4(output)
        // u1 = output[0 ..< n4], u2 = output[n4 ..< m]; y = (u2, -u2_r, -u1_r, -u1)
        for i in 0..<n4 {
            output[3 * n4 + i] = -output[i]              // -u1
            output[3 * n4 - 1 - i] = -output[i]          // -u1_r
        }
        for i in 0..<n4 {
            output[i] = output[n4 + i]                   // u2 (moves down first)
        }
        for i in 0..<n4 {
            output[2 * n4 - 1 - i] = -output[i]          // -u2_r
        }
    }

    /// DCT-IV of `v` (M values) into `out` (M values): out[k] = sum v[n] cos(pi/M (n+1/2)(k+1/2)).
    private func dct4(_ out: UnsafeMutablePointer<T>) {
        let m = count / 2, h = m / 2
        let zr = workRe, zi = workIm
        for p in 0..<h {
            let a = v[2 * p], b = v[m - 1 - 2 * p]
            let wr = twRe[p], wi = twIm[p]
            zr[p] = a * wr - b * wi
            zi[p] = a * wi + b * wr
        }
        let (yr, yi) = fftRef._withUnsafeGuaranteedRef { $0.transformWork() }
        for q in 0..<h {
            let a = yr[q], b = yi[q]
            let wr = twRe[q], wi = twIm[q]
            out[2 * q] = a * wr - b * wi
            out[m - 1 - 2 * q] = -(a * wi + b * wr)
        }
    }
}

extension MDCT where T == Float {
    /// `inverse` for Float, specialised here: a generic call from another module (the Vorbis
    /// decoder) would run the unspecialised body through witness tables, measured 10× slower.
    /// Real-time safe.
    public func inverseFloat(_ input: UnsafePointer<Float>, _ output: UnsafeMutablePointer<Float>) {
        inverse(input, output)
    }
}

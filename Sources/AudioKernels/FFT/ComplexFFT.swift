// The complex FFT: power-of-two sizes >= 1, Float32 or Float64, split real/imaginary arrays,
// natural order in and out.
//
// Algorithm: Stockham autosort radix 4 (one radix-2 pass last when log2(m) is odd), so no
// bit-reversal pass is needed: every pass reads one buffer and writes the other in the order the
// next pass wants. Vectorised with SIMD4<T>: the first pass over its butterflies (outputs stored
// transposed, 4 x 4), the later passes over the stride. Sizes below 16 use a direct DFT from the
// same twiddle table (at most 64 complex products). The inverse runs the forward code on swapped
// real and imaginary arrays: swap(FFT(swap(z))) = m x IDFT(z).
//
// Conventions: `forward` computes X[k] = sum_j x[j] e^(-2 pi i jk/m); `inverse` computes
// x[j] = sum_k X[k] e^(+2 pi i jk/m), unscaled, so inverse(forward(x)) = m x.
//
// Real-time safety: `init` (control side) builds the twiddle tables and two ping-pong work
// buffers; the execute functions allocate nothing, lock nothing and touch only those buffers,
// so one plan serves one thread at a time (give each concurrent user its own plan). A final
// class: owners keep it alive and may reach it through `Unmanaged` on the render path.
// Accuracy: rms error about 2 ulp x log2(m) relative to the signal (tested against a Float64
// direct DFT up to 2^16).

public final class ComplexFFT<T: FFTScalar> {
    typealias V = SIMD4<T>
    /// Complex size (a power of two >= 1).
    public let count: Int
    private let stages: Int
    private let hasRadix2: Bool
    /// Per radix-4 stage: w1r, w1i, w2r, w2i, w3r, w3i, each `len/4` long (len = stage length).
    private let twiddles: UnsafeMutablePointer<T>
    private let stageOffsets: UnsafeMutablePointer<Int>
    /// For sizes < 16: e^(-2 pi i j/m), j < m (re, then im).
    private let small: UnsafeMutablePointer<T>
    /// Ping-pong buffers (re, im) of m complex values each (+ 4 so vector tails stay inside).
    private let aRe: UnsafeMutablePointer<T>, aIm: UnsafeMutablePointer<T>
    private let bRe: UnsafeMutablePointer<T>, bIm: UnsafeMutablePointer<T>

    /// A plan for complex transforms of `count` points (a power of two >= 1). Control side only.
    public init(count m: Int) {
        precondition(m >= 1 && m & (m - 1) == 0, "ComplexFFT: size \(m) must be a power of two >= 1")
        count = m
        let log2m = m.trailingZeroBitCount
        let vectorised = m >= 16
        hasRadix2 = vectorised && log2m % 2 == 1
        stages = vectorised ? log2m / 2 : 0
        stageOffsets = .allocate(capacity: max(1, stages))
        var total = 0
        var len = m
        for s in 0..<stages {
            stageOffsets[s] = total
            total += 6 * (len / 4)
            len /= 4
        }
        twiddles = .allocate(capacity: max(1, total) + 8)
        twiddles.initialize(repeating: 0, count: max(1, total) + 8)
        len = m
        for s in 0..<stages {
            let q = len / 4
            let t = twiddles + stageOffsets[s]
            for p in 0..<q {
                for r in 1...3 {
                    let w = FFTMath.sinCosPi(-2 * Double(r * p) / Double(len))
                    t[(2 * r - 2) * q + p] = T(w.cos)
                    t[(2 * r - 1) * q + p] = T(w.sin)
                }
            }
            len /= 4
        }
        small = .allocate(capacity: 2 * m)
        for j in 0..<m {
            let w = FFTMath.sinCosPi(-2 * Double(j) / Double(m))
            small[j] = T(w.cos)
            small[m + j] = T(w.sin)
        }
        aRe = .allocate(capacity: m + 4); aIm = .allocate(capacity: m + 4)
        bRe = .allocate(capacity: m + 4); bIm = .allocate(capacity: m + 4)
        for p in [aRe, aIm, bRe, bIm] { p.initialize(repeating: 0, count: m + 4) }
    }

    deinit {
        twiddles.deallocate(); stageOffsets.deallocate(); small.deallocate()
        aRe.deallocate(); aIm.deallocate(); bRe.deallocate(); bIm.deallocate()
    }

    /// Forward transform of (inRe, inIm) into (outRe, outIm), m values each. The output may be
    /// the input (in place). Real-time safe.
    public func forward(inRe: UnsafePointer<T>, inIm: UnsafePointer<T>,
                        outRe: UnsafeMutablePointer<T>, outIm: UnsafeMutablePointer<T>) {
        FFTMath.copy(aRe, inRe, count)
        FFTMath.copy(aIm, inIm, count)
        let (yr, yi) = transformWork()
        FFTMath.copy(outRe, yr, count)
        FFTMath.copy(outIm, yi, count)
    }

    /// Unscaled inverse transform of (inRe, inIm) into (outRe, outIm): m x the inverse DFT.
    /// The output may be the input. Real-time safe.
    public func inverse(inRe: UnsafePointer<T>, inIm: UnsafePointer<T>,
                        outRe: UnsafeMutablePointer<T>, outIm: UnsafeMutablePointer<T>) {
        // swap(FFT(swap(z))) = m IDFT(z)
        FFTMath.copy(aRe, inIm, count)
        FFTMath.copy(aIm, inRe, count)
        let (yr, yi) = transformWork()
        FFTMath.copy(outRe, yi, count)
        FFTMath.copy(outIm, yr, count)
    }

    // MARK: work-buffer interface (the real FFT and the MDCT fill the input in place)

    /// Where the input of `transformWork` goes (m values each).
    var workRe: UnsafeMutablePointer<T> { aRe }
    var workIm: UnsafeMutablePointer<T> { aIm }

    /// Forward transform of (workRe, workIm); returns the buffers holding the result (one of
    /// the two ping-pong pairs, valid until the next call).
    @inline(__always)
    func transformWork() -> (re: UnsafeMutablePointer<T>, im: UnsafeMutablePointer<T>) {
        if stages == 0 { return directDFT() }
        var xr = aRe, xi = aIm, yr = bRe, yi = bIm
        var len = count
        var s = 1
        var stage = 0
        while stage < stages {
            let q = len / 4
            let t = twiddles + stageOffsets[stage]
            if s == 1 {
                ComplexFFT.firstRadix4(q, t, xr, xi, yr, yi)
            } else {
                ComplexFFT.radix4(q, s, t, xr, xi, yr, yi)
            }
            swap(&xr, &yr); swap(&xi, &yi)
            len = q
            s *= 4
            stage += 1
        }
        if hasRadix2 {
            // len == 2: y[j] = x[j] + x[j + s], y[j + s] = x[j] - x[j + s]
            var j = 0
            while j < s {
                let ar = V.load(xr + j), ai = V.load(xi + j), br = V.load(xr + j + s), bi = V.load(xi + j + s)
                (ar + br).store(to: yr + j); (ai + bi).store(to: yi + j)
                (ar - br).store(to: yr + j + s); (ai - bi).store(to: yi + j + s)
                j += 4
            }
            swap(&xr, &yr); swap(&xi, &yi)
        }
        return (xr, xi)
    }

    /// Sizes < 16: X[k] = sum_j x[j] w^(jk) from the table, into (bRe, bIm).
    private func directDFT() -> (re: UnsafeMutablePointer<T>, im: UnsafeMutablePointer<T>) {
        let m = count
        for k in 0..<m {
            var sr: T = 0, si: T = 0
            for j in 0..<m {
                let e = (j * k) & (m - 1)
                let wr = small[e], wi = small[m + e]
                sr += aRe[j] * wr - aIm[j] * wi
                si += aRe[j] * wi + aIm[j] * wr
            }
            bRe[k] = sr; bIm[k] = si
        }
        return (bRe, bIm)
    }

    /// First radix-4 pass (stride 1): vectorised over p, outputs transposed into place.
    @inline(__always)
    private static func firstRadix4(_ q: Int, _ t: UnsafeMutablePointer<T>,
                                    _ xr: UnsafeMutablePointer<T>, _ xi: UnsafeMutablePointer<T>,
                                    _ yr: UnsafeMutablePointer<T>, _ yi: UnsafeMutablePointer<T>) {
        var p = 0
        while p < q {
            let ar = V.load(xr + p), ai = V.load(xi + p)
            let br = V.load(xr + p + q), bi = V.load(xi + p + q)
            let cr = V.load(xr + p + 2 * q), ci = V.load(xi + p + 2 * q)
            let dr = V.load(xr + p + 3 * q), di = V.load(xi + p + 3 * q)
            let apcR = ar + cr, apcI = ai + ci, amcR = ar - cr, amcI = ai - ci
            let bpdR = br + dr, bpdI = bi + di
            // -i (b - d)
            let jR = bi - di, jI = dr - br
            let y0r = apcR + bpdR, y0i = apcI + bpdI
            let u1r = amcR + jR, u1i = amcI + jI
            let u2r = apcR - bpdR, u2i = apcI - bpdI
            let u3r = amcR - jR, u3i = amcI - jI
            let w1r = V.load(t + p), w1i = V.load(t + q + p)
            let w2r = V.load(t + 2 * q + p), w2i = V.load(t + 3 * q + p)
            let w3r = V.load(t + 4 * q + p), w3i = V.load(t + 5 * q + p)
            let y1r = u1r * w1r - u1i * w1i, y1i = u1r * w1i + u1i * w1r
            let y2r = u2r * w2r - u2i * w2i, y2i = u2r * w2i + u2i * w2r
            let y3r = u3r * w3r - u3i * w3i, y3i = u3r * w3i + u3i * w3r
            // y[4(p + l) + r] = y_r[l]: transpose the 4 x 4 block
            transposeStore(y0r, y1r, y2r, y3r, yr + 4 * p)
            transposeStore(y0i, y1i, y2i, y3i, yi + 4 * p)
            p += 4
        }
    }

    @inline(__always)
    private static func transposeStore(_ a: V, _ b: V, _ c: V, _ d: V, _ out: UnsafeMutablePointer<T>) {
        V(a[0], b[0], c[0], d[0]).store(to: out)
        V(a[1], b[1], c[1], d[1]).store(to: out + 4)
        V(a[2], b[2], c[2], d[2]).store(to: out + 8)
        V(a[3], b[3], c[3], d[3]).store(to: out + 12)
    }

    /// A radix-4 pass with stride s >= 4: vectorised over the stride.
    @inline(__always)
    private static func radix4(_ q: Int, _ s: Int, _ t: UnsafeMutablePointer<T>,
                               _ xr: UnsafeMutablePointer<T>, _ xi: UnsafeMutablePointer<T>,
                               _ yr: UnsafeMutablePointer<T>, _ yi: UnsafeMutablePointer<T>) {
        let sq = s * q
        var p = 0
        while p < q {
            let w1r = V(repeating: t[p]), w1i = V(repeating: t[q + p])
            let w2r = V(repeating: t[2 * q + p]), w2i = V(repeating: t[3 * q + p])
            let w3r = V(repeating: t[4 * q + p]), w3i = V(repeating: t[5 * q + p])
            let src = s * p, dst = 4 * s * p
            var j = 0
            while j < s {
                let a = src + j
                let ar = V.load(xr + a), ai = V.load(xi + a)
                let br = V.load(xr + a + sq), bi = V.load(xi + a + sq)
                let cr = V.load(xr + a + 2 * sq), ci = V.load(xi + a + 2 * sq)
                let dr = V.load(xr + a + 3 * sq), di = V.load(xi + a + 3 * sq)
                let apcR = ar + cr, apcI = ai + ci, amcR = ar - cr, amcI = ai - ci
                let bpdR = br + dr, bpdI = bi + di
                let jR = bi - di, jI = dr - br
                let u1r = amcR + jR, u1i = amcI + jI
                let u2r = apcR - bpdR, u2i = apcI - bpdI
                let u3r = amcR - jR, u3i = amcI - jI
                let o = dst + j
                (apcR + bpdR).store(to: yr + o); (apcI + bpdI).store(to: yi + o)
                (u1r * w1r - u1i * w1i).store(to: yr + o + s); (u1r * w1i + u1i * w1r).store(to: yi + o + s)
                (u2r * w2r - u2i * w2i).store(to: yr + o + 2 * s); (u2r * w2i + u2i * w2r).store(to: yi + o + 2 * s)
                (u3r * w3r - u3i * w3i).store(to: yr + o + 3 * s); (u3r * w3i + u3i * w3r).store(to: yi + o + 3 * s)
                j += 4
            }
            p += 1
        }
    }
}

// A real FFT for the time stretcher: power-of-two sizes >= 64, Float32, natural order in and out.
//
// The real transform of size n packs the even samples into the real part and the odd samples
// into the imaginary part of a complex sequence of size m = n/2, runs a Stockham (autosort)
// radix-4 complex FFT on it (one radix-2 pass last when log2(m) is odd), and untangles the two
// half-size spectra. Split real/imaginary arrays, vectorised with SIMD4 (one SSE register):
// the first pass over its butterflies, the later passes over the stride. The inverse runs the
// same forward code on swapped real and imaginary arrays (swap(FFT(swap(z))) = m x IFFT(z)).
//
// `forward` gives X[k] = sum x[j] e^(-2 pi i jk/n), k = 0 ... n/2; `inverse` of that gives
// n/2 x x (scale by 2/n yourself, or fold it into a window). No allocation after `init`:
// twiddle tables and ping-pong buffers are allocated there and freed by `deallocate()`
// (a final class, used only from one thread at a time).

final class StretchFFT {
    typealias V = SIMD4<Float>
    /// Real size.
    let n: Int
    /// Complex size n/2.
    let m: Int
    private let stages: Int
    private let hasRadix2: Bool
    /// Per radix-4 stage: w1r, w1i, w2r, w2i, w3r, w3i, each `len/4` long (len = stage length).
    private let twiddles: UnsafeMutablePointer<Float>
    private let stageOffsets: UnsafeMutablePointer<Int>
    /// Real-FFT untangling twiddles e^(-2 pi i k/n), k < m/2 + 1... m (re, im).
    private let rtwRe: UnsafeMutablePointer<Float>
    private let rtwIm: UnsafeMutablePointer<Float>
    /// Ping-pong buffers (re, im) of m complex values each.
    private let aRe: UnsafeMutablePointer<Float>, aIm: UnsafeMutablePointer<Float>
    private let bRe: UnsafeMutablePointer<Float>, bIm: UnsafeMutablePointer<Float>

    init(size: Int) {
        precondition(size >= 64 && size & (size - 1) == 0, "StretchFFT: size \(size) must be a power of two >= 64")
        n = size
        m = size / 2
        let log2m = m.trailingZeroBitCount
        hasRadix2 = log2m % 2 == 1
        stages = log2m / 2
        stageOffsets = .allocate(capacity: max(1, stages))
        var total = 0
        var len = m
        for s in 0..<stages {
            stageOffsets[s] = total
            total += 6 * (len / 4)
            len /= 4
        }
        twiddles = .allocate(capacity: max(1, total) + 8)
        len = m
        for s in 0..<stages {
            let q = len / 4
            let t = twiddles + stageOffsets[s]
            for p in 0..<q {
                for r in 1...3 {
                    let angle = -2.0 * Double.pi * Double(r * p) / Double(len)
                    let (sn, cs) = StretchMath.sincos(angle)
                    t[(2 * r - 2) * q + p] = Float(cs)
                    t[(2 * r - 1) * q + p] = Float(sn)
                }
            }
            len /= 4
        }
        rtwRe = .allocate(capacity: m + 8)
        rtwIm = .allocate(capacity: m + 8)
        for k in 0..<(m + 8) {
            let angle = -2.0 * Double.pi * Double(k) / Double(n)
            let (sn, cs) = StretchMath.sincos(angle)
            rtwRe[k] = Float(cs)
            rtwIm[k] = Float(sn)
        }
        aRe = .allocate(capacity: m + 8); aIm = .allocate(capacity: m + 8)
        bRe = .allocate(capacity: m + 8); bIm = .allocate(capacity: m + 8)
        for p in [aRe, aIm, bRe, bIm] { p.initialize(repeating: 0, count: m + 8) }
    }

    deinit {
        twiddles.deallocate(); stageOffsets.deallocate()
        rtwRe.deallocate(); rtwIm.deallocate()
        aRe.deallocate(); aIm.deallocate(); bRe.deallocate(); bIm.deallocate()
    }

    /// Where the caller writes the packed input of `forward`: even samples in `packedRe`,
    /// odd samples in `packedIm` (m values each).
    var packedRe: UnsafeMutablePointer<Float> { aRe }
    var packedIm: UnsafeMutablePointer<Float> { aIm }

    /// Forward real FFT of the packed input (see `packedRe`): writes X[0 ... m] to `re`, `im`
    /// (m + 1 values each; im[0] = im[m] = 0).
    func forward(re: UnsafeMutablePointer<Float>, im: UnsafeMutablePointer<Float>) {
        let (zr, zi) = complexForward(aRe, aIm)
        // X[k] = E[k] + w^k O[k]; E = (Z[k] + conj Z[m-k]) / 2, O = (Z[k] - conj Z[m-k]) / 2i
        re[0] = zr[0] + zi[0]
        im[0] = 0
        re[m] = zr[0] - zi[0]
        im[m] = 0
        let half = m / 2
        var k = 1
        while k <= half {
            let j = m - k
            let ar = zr[k], ai = zi[k], br = zr[j], bi = zi[j]
            let er = 0.5 * (ar + br), ei = 0.5 * (ai - bi)
            let or = 0.5 * (ai + bi), oi = -0.5 * (ar - br)
            let wr = rtwRe[k], wi = rtwIm[k]
            let tr = wr * or - wi * oi, ti = wr * oi + wi * or
            re[k] = er + tr; im[k] = ei + ti
            // X[m-k] = conj(E[k]) - conj(w^k O[k])... via symmetry: E[m-k] = conj E[k], O[m-k] = conj O[k], w^(m-k) = -conj w^k
            re[j] = er - tr; im[j] = -ei + ti
            k += 1
        }
    }

    /// Inverse of `forward`: takes X[0 ... m] from `re`, `im` and writes m x the real signal,
    /// even samples to `evenOut`, odd samples to `oddOut` (m values each). `re`/`im` are left intact.
    func inverse(re: UnsafePointer<Float>, im: UnsafePointer<Float>) -> (even: UnsafeMutablePointer<Float>, odd: UnsafeMutablePointer<Float>) {
        // Z[k] = E[k] + i O[k], E[k] = (X[k] + conj X[m-k]) / 2, O[k] = (X[k] - conj X[m-k]) conj(w^k) / 2
        let half = m / 2
        // packed into a (swapped: the real part goes to aIm, the imaginary part to aRe)
        let zr = aIm, zi = aRe
        do {
            let x0 = re[0], xm = re[m]
            // E[0] = (X0 + Xm)/2, O[0] = (X0 - Xm)/2
            zr[0] = 0.5 * (x0 + xm)
            zi[0] = 0.5 * (x0 - xm)
        }
        var k = 1
        while k <= half {
            let j = m - k
            let ar = re[k], ai = im[k], br = re[j], bi = im[j]
            let er = 0.5 * (ar + br), ei = 0.5 * (ai - bi)
            let dr = 0.5 * (ar - br), di = 0.5 * (ai + bi)
            let wr = rtwRe[k], wi = -rtwIm[k]
            let or = dr * wr - di * wi, oi = dr * wi + di * wr
            // Z[k] = E + i O
            zr[k] = er - oi; zi[k] = ei + or
            // Z[m-k] = conj(E) + i conj(O) * (-1)... : E[m-k] = conj E[k], O[m-k] = -conj O[k]
            zr[j] = er + oi; zi[j] = -ei + or
            k += 1
        }
        // swapped forward FFT = unscaled inverse
        let (yr, yi) = complexForward(aRe, aIm)
        // result swapped back: real part in yi, imaginary part in yr
        return (yi, yr)
    }

    /// Forward complex FFT of (re, im) = (aRe, aIm) or (bRe, bIm); returns the buffers holding the result.
    @inline(__always)
    private func complexForward(_ r0: UnsafeMutablePointer<Float>, _ i0: UnsafeMutablePointer<Float>)
        -> (UnsafeMutablePointer<Float>, UnsafeMutablePointer<Float>) {
        var xr = r0, xi = i0
        var yr = r0 == aRe ? bRe : aRe
        var yi = r0 == aRe ? bIm : aIm
        var len = m
        var s = 1
        var stage = 0
        while stage < stages {
            let q = len / 4
            let t = twiddles + stageOffsets[stage]
            if s == 1 {
                firstRadix4(q, t, xr, xi, yr, yi)
            } else {
                radix4(q, s, t, xr, xi, yr, yi)
            }
            swap(&xr, &yr); swap(&xi, &yi)
            len = q
            s *= 4
            stage += 1
        }
        if hasRadix2 {
            // len == 2: y[q] = x[q] + x[q + s], y[q + s] = x[q] - x[q + s]
            var j = 0
            while j < s {
                let ar = V(xr + j), ai = V(xi + j), br = V(xr + j + s), bi = V(xi + j + s)
                (ar + br).store(yr + j); (ai + bi).store(yi + j)
                (ar - br).store(yr + j + s); (ai - bi).store(yi + j + s)
                j += 4
            }
            swap(&xr, &yr); swap(&xi, &yi)
        }
        return (xr, xi)
    }

    /// First radix-4 pass (stride 1): vectorised over p, outputs transposed into place.
    @inline(__always)
    private func firstRadix4(_ q: Int, _ t: UnsafeMutablePointer<Float>, _ xr: UnsafeMutablePointer<Float>, _ xi: UnsafeMutablePointer<Float>,
                             _ yr: UnsafeMutablePointer<Float>, _ yi: UnsafeMutablePointer<Float>) {
        var p = 0
        while p < q {
            let ar = V(xr + p), ai = V(xi + p)
            let br = V(xr + p + q), bi = V(xi + p + q)
            let cr = V(xr + p + 2 * q), ci = V(xi + p + 2 * q)
            let dr = V(xr + p + 3 * q), di = V(xi + p + 3 * q)
            let apcR = ar + cr, apcI = ai + ci, amcR = ar - cr, amcI = ai - ci
            let bpdR = br + dr, bpdI = bi + di
            // -i (b - d)
            let jR = bi - di, jI = dr - br
            let y0r = apcR + bpdR, y0i = apcI + bpdI
            let u1r = amcR + jR, u1i = amcI + jI
            let u2r = apcR - bpdR, u2i = apcI - bpdI
            let u3r = amcR - jR, u3i = amcI - jI
            let w1r = V(t + p), w1i = V(t + q + p), w2r = V(t + 2 * q + p), w2i = V(t + 3 * q + p)
            let w3r = V(t + 4 * q + p), w3i = V(t + 5 * q + p)
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
    private func transposeStore(_ a: V, _ b: V, _ c: V, _ d: V, _ out: UnsafeMutablePointer<Float>) {
        V(a[0], b[0], c[0], d[0]).store(out)
        V(a[1], b[1], c[1], d[1]).store(out + 4)
        V(a[2], b[2], c[2], d[2]).store(out + 8)
        V(a[3], b[3], c[3], d[3]).store(out + 12)
    }

    /// A radix-4 pass with stride s >= 4: vectorised over the stride.
    @inline(__always)
    private func radix4(_ q: Int, _ s: Int, _ t: UnsafeMutablePointer<Float>, _ xr: UnsafeMutablePointer<Float>, _ xi: UnsafeMutablePointer<Float>,
                        _ yr: UnsafeMutablePointer<Float>, _ yi: UnsafeMutablePointer<Float>) {
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
                let ar = V(xr + a), ai = V(xi + a)
                let br = V(xr + a + sq), bi = V(xi + a + sq)
                let cr = V(xr + a + 2 * sq), ci = V(xi + a + 2 * sq)
                let dr = V(xr + a + 3 * sq), di = V(xi + a + 3 * sq)
                let apcR = ar + cr, apcI = ai + ci, amcR = ar - cr, amcI = ai - ci
                let bpdR = br + dr, bpdI = bi + di
                let jR = bi - di, jI = dr - br
                let u1r = amcR + jR, u1i = amcI + jI
                let u2r = apcR - bpdR, u2i = apcI - bpdI
                let u3r = amcR - jR, u3i = amcI - jI
                let o = dst + j
                (apcR + bpdR).store(yr + o); (apcI + bpdI).store(yi + o)
                (u1r * w1r - u1i * w1i).store(yr + o + s); (u1r * w1i + u1i * w1r).store(yi + o + s)
                (u2r * w2r - u2i * w2i).store(yr + o + 2 * s); (u2r * w2i + u2i * w2r).store(yi + o + 2 * s)
                (u3r * w3r - u3i * w3i).store(yr + o + 3 * s); (u3r * w3i + u3i * w3r).store(yi + o + 3 * s)
                j += 4
            }
            p += 1
        }
    }
}

extension SIMD4 where Scalar == Float {
    @inline(__always)
    init(_ p: UnsafePointer<Float>) {
        self = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always)
    init(_ p: UnsafeMutablePointer<Float>) {
        self = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always)
    func store(_ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: self, as: SIMD4<Float>.self)
    }
}

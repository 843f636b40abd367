// A complex FFT for fast convolution: split real/imaginary arrays, power-of-two sizes >= 16,
// in place, radix 4 (plus one radix-2 pass when log2(n) is odd).
//
// `forward` takes natural order and leaves the spectrum in a scrambled order (digit reversal,
// and the last pass stores four butterflies transposed); `inverse` takes that order back to
// natural order. A fast convolution multiplies two spectra bin by bin, so the order never has
// to be undone: the filter's spectrum is computed with the same `forward` and is scrambled the
// same way. `inverse(forward(x)) == n * x`.
//
// Complexity: 4.25 n log2 n real operations, all SIMD4 (vectorised over four butterflies), no
// allocation; the twiddle tables (about 1.5 n complex values) are built in `init`.

@usableFromInline
final class PermutedFFT<T: ResamplerScalar> {
    let n: Int
    /// log2(n) is odd: the first forward pass (last inverse pass) is radix 2.
    let hasRadix2Pass: Bool
    /// Radix-2 twiddles w^j, j < n/2 (real parts, then imaginary parts).
    let twiddles2: AlignedBuffer<T>
    /// Radix-4 passes with span >= 4, largest span first.
    let spans: AlignedBuffer<Int>
    let passCount: Int
    /// Per radix-4 pass, at `offsets[p]`: w1r, w1i, w2r, w2i, w3r, w3i, each `span` long.
    let offsets: AlignedBuffer<Int>
    let twiddles4: AlignedBuffer<T>

    init(size: Int) {
        precondition(size >= 16 && size & (size - 1) == 0, "PermutedFFT: size \(size) must be a power of two >= 16")
        n = size
        let log2n = size.trailingZeroBitCount
        hasRadix2Pass = log2n % 2 == 1
        twiddles2 = AlignedBuffer(count: hasRadix2Pass ? size : 1)
        if hasRadix2Pass {
            let half = size / 2
            for j in 0..<half {
                twiddles2.pointer[j] = T(ResamplerMath.cosPi(-2 * Double(j) / Double(size)))
                twiddles2.pointer[half + j] = T(ResamplerMath.sinPi(-2 * Double(j) / Double(size)))
            }
        }
        var spanList: [Int] = []
        var s = (hasRadix2Pass ? size / 2 : size) / 4
        while s >= 4 { spanList.append(s); s /= 4 }
        passCount = spanList.count
        spans = AlignedBuffer(count: max(passCount, 1))
        offsets = AlignedBuffer(count: max(passCount, 1))
        var total = 0
        for (p, s) in spanList.enumerated() {
            spans.pointer[p] = s
            offsets.pointer[p] = total
            total += 6 * s
        }
        twiddles4 = AlignedBuffer(count: max(total, 1))
        for (p, s) in spanList.enumerated() {
            let t = twiddles4.pointer + offsets.pointer[p]
            let m = Double(4 * s)
            for j in 0..<s {
                for q in 1...3 {
                    let a = -2 * Double(j * q) / m
                    t[(2 * q - 2) * s + j] = T(ResamplerMath.cosPi(a))
                    t[(2 * q - 1) * s + j] = T(ResamplerMath.sinPi(a))
                }
            }
        }
    }

    deinit {
        twiddles2.deallocate(); spans.deallocate(); offsets.deallocate(); twiddles4.deallocate()
    }

    typealias V = SIMD4<T>

    /// Natural order in, scrambled spectrum out (unnormalised).
    @inline(__always)
    func forward(_ re: UnsafeMutablePointer<T>, _ im: UnsafeMutablePointer<T>) {
        if hasRadix2Pass {
            let half = n / 2
            let wr = twiddles2.pointer, wi = twiddles2.pointer + half
            var j = 0
            while j < half {
                let ar = re.v4(j), ai = im.v4(j), br = re.v4(j + half), bi = im.v4(j + half)
                let dr = ar - br, di = ai - bi
                let cr = wr.v4(j), ci = wi.v4(j)
                re.setV4(j, ar + br); im.setV4(j, ai + bi)
                re.setV4(j + half, dr * cr - di * ci); im.setV4(j + half, dr * ci + di * cr)
                j += 4
            }
        }
        for p in 0..<passCount {
            let s = spans.pointer[p]
            let t = twiddles4.pointer + offsets.pointer[p]
            var g = 0
            while g < n {
                let r0 = re + g, i0 = im + g
                var j = 0
                while j < s {
                    let ar = r0.v4(j), ai = i0.v4(j)
                    let br = r0.v4(j + s), bi = i0.v4(j + s)
                    let cr = r0.v4(j + 2 * s), ci = i0.v4(j + 2 * s)
                    let dr = r0.v4(j + 3 * s), di = i0.v4(j + 3 * s)
                    let t0r = ar + cr, t0i = ai + ci, t1r = ar - cr, t1i = ai - ci
                    let t2r = br + dr, t2i = bi + di, t3r = br - dr, t3i = bi - di
                    // z0 = t0 + t2, z2 = t0 - t2, z1 = t1 - i t3, z3 = t1 + i t3
                    r0.setV4(j, t0r + t2r); i0.setV4(j, t0i + t2i)
                    let z1r = t1r + t3i, z1i = t1i - t3r
                    let z2r = t0r - t2r, z2i = t0i - t2i
                    let z3r = t1r - t3i, z3i = t1i + t3r
                    let w1r = t.v4(j), w1i = t.v4(s + j)
                    let w2r = t.v4(2 * s + j), w2i = t.v4(3 * s + j)
                    let w3r = t.v4(4 * s + j), w3i = t.v4(5 * s + j)
                    r0.setV4(j + s, z1r * w1r - z1i * w1i); i0.setV4(j + s, z1r * w1i + z1i * w1r)
                    r0.setV4(j + 2 * s, z2r * w2r - z2i * w2i); i0.setV4(j + 2 * s, z2r * w2i + z2i * w2r)
                    r0.setV4(j + 3 * s, z3r * w3r - z3i * w3i); i0.setV4(j + 3 * s, z3r * w3i + z3i * w3r)
                    j += 4
                }
                g += 4 * s
            }
        }
        // last pass, span 1: four consecutive butterflies loaded transposed, stored transposed
        var g = 0
        while g < n {
            let (ar, br, cr, dr) = PermutedFFT.transpose(re.v4(g), re.v4(g + 4), re.v4(g + 8), re.v4(g + 12))
            let (ai, bi, ci, di) = PermutedFFT.transpose(im.v4(g), im.v4(g + 4), im.v4(g + 8), im.v4(g + 12))
            let t0r = ar + cr, t0i = ai + ci, t1r = ar - cr, t1i = ai - ci
            let t2r = br + dr, t2i = bi + di, t3r = br - dr, t3i = bi - di
            re.setV4(g, t0r + t2r); im.setV4(g, t0i + t2i)
            re.setV4(g + 4, t1r + t3i); im.setV4(g + 4, t1i - t3r)
            re.setV4(g + 8, t0r - t2r); im.setV4(g + 8, t0i - t2i)
            re.setV4(g + 12, t1r - t3i); im.setV4(g + 12, t1i + t3r)
            g += 16
        }
    }

    /// Scrambled spectrum in, natural order out, scaled by n.
    @inline(__always)
    func inverse(_ re: UnsafeMutablePointer<T>, _ im: UnsafeMutablePointer<T>) {
        var g = 0
        while g < n {
            let z0r = re.v4(g), z0i = im.v4(g), z1r = re.v4(g + 4), z1i = im.v4(g + 4)
            let z2r = re.v4(g + 8), z2i = im.v4(g + 8), z3r = re.v4(g + 12), z3i = im.v4(g + 12)
            let t0r = z0r + z2r, t0i = z0i + z2i, t1r = z0r - z2r, t1i = z0i - z2i
            let t2r = z1r + z3r, t2i = z1i + z3i, t3r = z1r - z3r, t3i = z1i - z3i
            // a = t0 + t2, c = t0 - t2, b = t1 + i t3, d = t1 - i t3
            let (ar, br, cr, dr) = PermutedFFT.transpose(t0r + t2r, t1r - t3i, t0r - t2r, t1r + t3i)
            let (ai, bi, ci, di) = PermutedFFT.transpose(t0i + t2i, t1i + t3r, t0i - t2i, t1i - t3r)
            re.setV4(g, ar); re.setV4(g + 4, br); re.setV4(g + 8, cr); re.setV4(g + 12, dr)
            im.setV4(g, ai); im.setV4(g + 4, bi); im.setV4(g + 8, ci); im.setV4(g + 12, di)
            g += 16
        }
        var p = passCount - 1
        while p >= 0 {
            let s = spans.pointer[p]
            let t = twiddles4.pointer + offsets.pointer[p]
            var g = 0
            while g < n {
                let r0 = re + g, i0 = im + g
                var j = 0
                while j < s {
                    let w1r = t.v4(j), w1i = t.v4(s + j)
                    let w2r = t.v4(2 * s + j), w2i = t.v4(3 * s + j)
                    let w3r = t.v4(4 * s + j), w3i = t.v4(5 * s + j)
                    let z0r = r0.v4(j), z0i = i0.v4(j)
                    let y1r = r0.v4(j + s), y1i = i0.v4(j + s)
                    let y2r = r0.v4(j + 2 * s), y2i = i0.v4(j + 2 * s)
                    let y3r = r0.v4(j + 3 * s), y3i = i0.v4(j + 3 * s)
                    // multiply by conj(w)
                    let z1r = y1r * w1r + y1i * w1i, z1i = y1i * w1r - y1r * w1i
                    let z2r = y2r * w2r + y2i * w2i, z2i = y2i * w2r - y2r * w2i
                    let z3r = y3r * w3r + y3i * w3i, z3i = y3i * w3r - y3r * w3i
                    let t0r = z0r + z2r, t0i = z0i + z2i, t1r = z0r - z2r, t1i = z0i - z2i
                    let t2r = z1r + z3r, t2i = z1i + z3i, t3r = z1r - z3r, t3i = z1i - z3i
                    r0.setV4(j, t0r + t2r); i0.setV4(j, t0i + t2i)
                    r0.setV4(j + s, t1r - t3i); i0.setV4(j + s, t1i + t3r)
                    r0.setV4(j + 2 * s, t0r - t2r); i0.setV4(j + 2 * s, t0i - t2i)
                    r0.setV4(j + 3 * s, t1r + t3i); i0.setV4(j + 3 * s, t1i - t3r)
                    j += 4
                }
                g += 4 * s
            }
            p -= 1
        }
        if hasRadix2Pass {
            let half = n / 2
            let wr = twiddles2.pointer, wi = twiddles2.pointer + half
            var j = 0
            while j < half {
                let ar = re.v4(j), ai = im.v4(j), yr = re.v4(j + half), yi = im.v4(j + half)
                let cr = wr.v4(j), ci = wi.v4(j)
                let br = yr * cr + yi * ci, bi = yi * cr - yr * ci
                re.setV4(j, ar + br); im.setV4(j, ai + bi)
                re.setV4(j + half, ar - br); im.setV4(j + half, ai - bi)
                j += 4
            }
        }
    }

    @inline(__always)
    static func transpose(_ a: V, _ b: V, _ c: V, _ d: V) -> (V, V, V, V) {
        (V(a[0], b[0], c[0], d[0]), V(a[1], b[1], c[1], d[1]), V(a[2], b[2], c[2], d[2]), V(a[3], b[3], c[3], d[3]))
    }
}

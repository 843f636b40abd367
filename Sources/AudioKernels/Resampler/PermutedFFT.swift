// A complex FFT for fast convolution: split real/imaginary arrays, power-of-two sizes >= 16,
// in place, radix 4 (plus one radix-2 pass when log2(n) is odd).
//
// `forward` takes natural order and leaves the spectrum in a scrambled order (digit reversal,
// and the last pass stores its butterflies transposed, W at a time); `inverse` takes that order
// back to natural order. A fast convolution multiplies two spectra bin by bin, so the order never
// has to be undone: the filter's spectrum is computed with a transform of the same vector width
// W (in Float64), which scrambles it the same way. `inverse(forward(x)) == n * x`.
//
// Generic over the vector type V (W = V.scalarCount lanes, 2 or 4): Float uses SIMD4<Float> and
// Float64 uses SIMD2<Double>, one SSE register each, so a radix-4 butterfly's eight complex
// inputs stay in registers.
//
// Complexity: 4.25 n log2 n real operations, vectorised over W butterflies, no allocation; the
// twiddle tables (about 1.5 n complex values) are built in `init` and freed by `deallocate()`
// (a struct, so the render path reaches it without reference counting).

struct PermutedFFT<V: SIMD> where V.Scalar: ResamplerScalar {
    typealias T = V.Scalar
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

    /// Frees the tables (the owner calls this once, on the control side).
    func deallocate() {
        twiddles2.deallocate(); spans.deallocate(); offsets.deallocate(); twiddles4.deallocate()
    }

    @inline(__always) static func ld(_ p: UnsafeMutablePointer<T>, _ i: Int) -> V {
        UnsafeRawPointer(p + i).loadUnaligned(as: V.self)
    }

    @inline(__always) static func st(_ p: UnsafeMutablePointer<T>, _ i: Int, _ v: V) {
        UnsafeMutableRawPointer(p + i).storeBytes(of: v, as: V.self)
    }

    /// The four butterfly inputs (a, b, c, d) of W consecutive groups of four, from the W-wide
    /// vectors at g, g + W, g + 2W, g + 3W.
    @inline(__always) static func gather(_ v0: V, _ v1: V, _ v2: V, _ v3: V) -> (V, V, V, V) {
        if V.scalarCount == 4 { return transposed(v0, v1, v2, v3) }
        var a = V(), b = V(), c = V(), d = V()
        a[0] = v0[0]; a[1] = v2[0]; b[0] = v0[1]; b[1] = v2[1]
        c[0] = v1[0]; c[1] = v3[0]; d[0] = v1[1]; d[1] = v3[1]
        return (a, b, c, d)
    }

    /// Inverse of `gather`.
    @inline(__always) static func scatter(_ a: V, _ b: V, _ c: V, _ d: V) -> (V, V, V, V) {
        if V.scalarCount == 4 { return transposed(a, b, c, d) }
        var v0 = V(), v1 = V(), v2 = V(), v3 = V()
        v0[0] = a[0]; v0[1] = b[0]; v1[0] = c[0]; v1[1] = d[0]
        v2[0] = a[1]; v2[1] = b[1]; v3[0] = c[1]; v3[1] = d[1]
        return (v0, v1, v2, v3)
    }

    @inline(__always) static func transposed(_ a: V, _ b: V, _ c: V, _ d: V) -> (V, V, V, V) {
        var r0 = V(), r1 = V(), r2 = V(), r3 = V()
        r0[0] = a[0]; r0[1] = b[0]; r0[2] = c[0]; r0[3] = d[0]
        r1[0] = a[1]; r1[1] = b[1]; r1[2] = c[1]; r1[3] = d[1]
        r2[0] = a[2]; r2[1] = b[2]; r2[2] = c[2]; r2[3] = d[2]
        r3[0] = a[3]; r3[1] = b[3]; r3[2] = c[3]; r3[3] = d[3]
        return (r0, r1, r2, r3)
    }

    /// Natural order in, scrambled spectrum out (unnormalised), in place.
    @inline(__always)
    func forward(_ re: UnsafeMutablePointer<T>, _ im: UnsafeMutablePointer<T>) {
        forward(from: re, im, to: re, im)
    }

    /// Natural order in (`sr`, `si`, left untouched unless it is the destination), scrambled
    /// spectrum out in (`re`, `im`). The first pass reads the source, so no copy is needed.
    @inline(__always)
    func forward(from sr: UnsafeMutablePointer<T>, _ si: UnsafeMutablePointer<T>,
                 to re: UnsafeMutablePointer<T>, _ im: UnsafeMutablePointer<T>) {
        typealias F = PermutedFFT
        let w = V.scalarCount
        var xr = sr, xi = si
        if hasRadix2Pass {
            let half = n / 2
            let wr = twiddles2.pointer, wi = twiddles2.pointer + half
            var j = 0
            while j < half {
                let ar = F.ld(xr, j), ai = F.ld(xi, j), br = F.ld(xr, j &+ half), bi = F.ld(xi, j &+ half)
                let dr = ar - br, di = ai - bi
                let cr = F.ld(wr, j), ci = F.ld(wi, j)
                F.st(re, j, ar + br); F.st(im, j, ai + bi)
                F.st(re, j &+ half, dr * cr - di * ci); F.st(im, j &+ half, dr * ci + di * cr)
                j &+= w
            }
            xr = re; xi = im
        }
        for p in 0..<passCount {
            let s = spans.pointer[p]
            let t = twiddles4.pointer + offsets.pointer[p]
            var g = 0
            while g < n {
                let r0 = xr + g, i0 = xi + g, d0 = re + g, e0 = im + g
                var j = 0
                while j < s {
                    let ar = F.ld(r0, j), ai = F.ld(i0, j)
                    let br = F.ld(r0, j &+ s), bi = F.ld(i0, j &+ s)
                    let cr = F.ld(r0, j &+ 2 &* s), ci = F.ld(i0, j &+ 2 &* s)
                    let dr = F.ld(r0, j &+ 3 &* s), di = F.ld(i0, j &+ 3 &* s)
                    let t0r = ar + cr, t0i = ai + ci, t1r = ar - cr, t1i = ai - ci
                    let t2r = br + dr, t2i = bi + di, t3r = br - dr, t3i = bi - di
                    // z0 = t0 + t2, z2 = t0 - t2, z1 = t1 - i t3, z3 = t1 + i t3
                    F.st(d0, j, t0r + t2r); F.st(e0, j, t0i + t2i)
                    let z1r = t1r + t3i, z1i = t1i - t3r
                    let z2r = t0r - t2r, z2i = t0i - t2i
                    let z3r = t1r - t3i, z3i = t1i + t3r
                    let w1r = F.ld(t, j), w1i = F.ld(t, s &+ j)
                    F.st(d0, j &+ s, z1r * w1r - z1i * w1i); F.st(e0, j &+ s, z1r * w1i + z1i * w1r)
                    let w2r = F.ld(t, 2 &* s &+ j), w2i = F.ld(t, 3 &* s &+ j)
                    F.st(d0, j &+ 2 &* s, z2r * w2r - z2i * w2i); F.st(e0, j &+ 2 &* s, z2r * w2i + z2i * w2r)
                    let w3r = F.ld(t, 4 &* s &+ j), w3i = F.ld(t, 5 &* s &+ j)
                    F.st(d0, j &+ 3 &* s, z3r * w3r - z3i * w3i); F.st(e0, j &+ 3 &* s, z3r * w3i + z3i * w3r)
                    j &+= w
                }
                g &+= 4 &* s
            }
            xr = re; xi = im
        }
        // last pass, span 1: W groups of four loaded transposed, results stored transposed
        var g = 0
        while g < n {
            let (ar, br, cr, dr) = F.gather(F.ld(xr, g), F.ld(xr, g &+ w), F.ld(xr, g &+ 2 &* w), F.ld(xr, g &+ 3 &* w))
            let (ai, bi, ci, di) = F.gather(F.ld(xi, g), F.ld(xi, g &+ w), F.ld(xi, g &+ 2 &* w), F.ld(xi, g &+ 3 &* w))
            let t0r = ar + cr, t0i = ai + ci, t1r = ar - cr, t1i = ai - ci
            let t2r = br + dr, t2i = bi + di, t3r = br - dr, t3i = bi - di
            F.st(re, g, t0r + t2r); F.st(im, g, t0i + t2i)
            F.st(re, g &+ w, t1r + t3i); F.st(im, g &+ w, t1i - t3r)
            F.st(re, g &+ 2 &* w, t0r - t2r); F.st(im, g &+ 2 &* w, t0i - t2i)
            F.st(re, g &+ 3 &* w, t1r - t3i); F.st(im, g &+ 3 &* w, t1i + t3r)
            g &+= 4 &* w
        }
    }

    /// Scrambled spectrum in, natural order out, scaled by n, in place.
    @inline(__always)
    func inverse(_ re: UnsafeMutablePointer<T>, _ im: UnsafeMutablePointer<T>) {
        typealias F = PermutedFFT
        let w = V.scalarCount
        var g = 0
        while g < n {
            let z0r = F.ld(re, g), z0i = F.ld(im, g), z1r = F.ld(re, g &+ w), z1i = F.ld(im, g &+ w)
            let z2r = F.ld(re, g &+ 2 &* w), z2i = F.ld(im, g &+ 2 &* w)
            let z3r = F.ld(re, g &+ 3 &* w), z3i = F.ld(im, g &+ 3 &* w)
            let t0r = z0r + z2r, t0i = z0i + z2i, t1r = z0r - z2r, t1i = z0i - z2i
            let t2r = z1r + z3r, t2i = z1i + z3i, t3r = z1r - z3r, t3i = z1i - z3i
            // a = t0 + t2, c = t0 - t2, b = t1 + i t3, d = t1 - i t3
            let (v0r, v1r, v2r, v3r) = F.scatter(t0r + t2r, t1r - t3i, t0r - t2r, t1r + t3i)
            let (v0i, v1i, v2i, v3i) = F.scatter(t0i + t2i, t1i + t3r, t0i - t2i, t1i - t3r)
            F.st(re, g, v0r); F.st(re, g &+ w, v1r); F.st(re, g &+ 2 &* w, v2r); F.st(re, g &+ 3 &* w, v3r)
            F.st(im, g, v0i); F.st(im, g &+ w, v1i); F.st(im, g &+ 2 &* w, v2i); F.st(im, g &+ 3 &* w, v3i)
            g &+= 4 &* w
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
                    let z0r = F.ld(r0, j), z0i = F.ld(i0, j)
                    let w1r = F.ld(t, j), w1i = F.ld(t, s &+ j)
                    let y1r = F.ld(r0, j &+ s), y1i = F.ld(i0, j &+ s)
                    let z1r = y1r * w1r + y1i * w1i, z1i = y1i * w1r - y1r * w1i
                    let w2r = F.ld(t, 2 &* s &+ j), w2i = F.ld(t, 3 &* s &+ j)
                    let y2r = F.ld(r0, j &+ 2 &* s), y2i = F.ld(i0, j &+ 2 &* s)
                    let z2r = y2r * w2r + y2i * w2i, z2i = y2i * w2r - y2r * w2i
                    let w3r = F.ld(t, 4 &* s &+ j), w3i = F.ld(t, 5 &* s &+ j)
                    let y3r = F.ld(r0, j &+ 3 &* s), y3i = F.ld(i0, j &+ 3 &* s)
                    let z3r = y3r * w3r + y3i * w3i, z3i = y3i * w3r - y3r * w3i
                    let t0r = z0r + z2r, t0i = z0i + z2i, t1r = z0r - z2r, t1i = z0i - z2i
                    let t2r = z1r + z3r, t2i = z1i + z3i, t3r = z1r - z3r, t3i = z1i - z3i
                    F.st(r0, j, t0r + t2r); F.st(i0, j, t0i + t2i)
                    F.st(r0, j &+ s, t1r - t3i); F.st(i0, j &+ s, t1i + t3r)
                    F.st(r0, j &+ 2 &* s, t0r - t2r); F.st(i0, j &+ 2 &* s, t0i - t2i)
                    F.st(r0, j &+ 3 &* s, t1r + t3i); F.st(i0, j &+ 3 &* s, t1i - t3r)
                    j &+= w
                }
                g &+= 4 &* s
            }
            p -= 1
        }
        if hasRadix2Pass {
            let half = n / 2
            let wr = twiddles2.pointer, wi = twiddles2.pointer + half
            var j = 0
            while j < half {
                let ar = F.ld(re, j), ai = F.ld(im, j), yr = F.ld(re, j &+ half), yi = F.ld(im, j &+ half)
                let cr = F.ld(wr, j), ci = F.ld(wi, j)
                let br = yr * cr + yi * ci, bi = yi * cr - yr * ci
                F.st(re, j, ar + br); F.st(im, j, ai + bi)
                F.st(re, j &+ half, ar - br); F.st(im, j &+ half, ai - bi)
                j &+= w
            }
        }
    }
}

/// 4x4 transpose of SIMD4 rows.
@inline(__always)
func transpose4<T: SIMDScalar>(_ a: SIMD4<T>, _ b: SIMD4<T>, _ c: SIMD4<T>, _ d: SIMD4<T>)
    -> (SIMD4<T>, SIMD4<T>, SIMD4<T>, SIMD4<T>) {
    (SIMD4(a[0], b[0], c[0], d[0]), SIMD4(a[1], b[1], c[1], d[1]), SIMD4(a[2], b[2], c[2], d[2]), SIMD4(a[3], b[3], c[3], d[3]))
}

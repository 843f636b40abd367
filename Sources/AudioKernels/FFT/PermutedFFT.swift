// The complex FFT for fast convolution: `ComplexFFT`'s unordered variant. Split real/imaginary
// arrays, power-of-two sizes >= 16, Float32 or Float64, in place (or from a source in natural
// order), radix 4 plus one radix-2 pass when log2(n) is odd.
//
// Why a second ordering: `ComplexFFT` sorts its output (Stockham autosort, ping-pong buffers
// and a copy in and out). A fast convolution multiplies two spectra bin by bin and transforms
// back, so the order of the bins never matters as long as both spectra share it: `forward`
// takes natural order and leaves the spectrum scrambled (digit reversal, and the last pass
// stores its butterflies transposed, 4 at a time); `inverse` takes that order back to natural
// order. Nothing is copied or reordered, and every pass runs in place in the caller's buffers.
// The filter's spectrum is computed with a plan of the same size (Float64 for precision, then
// rounded), which scrambles it the same way whatever T is: the order depends only on n.
//
// Conventions: decimation in frequency; `forward` computes the DFT X[k] = sum_j x[j]
// e^(-2 pi i jk/n) into scrambled positions, `inverse` the unscaled inverse, so
// inverse(forward(x)) = n x. Tested against a direct DFT through the permutation and against
// direct circular convolution (FFTTests).
//
// Bodies: Float32 runs the Swift passes below (SIMD4<Float>, one SSE register). Float64 runs
// the same passes in C (CFFTKernels: AVX2 + FMA where the CPU has them, chosen once at init;
// SIMD4<Double> in Swift would be two SSE registers without fused multiply-add), on the tables
// built here (the radix-4 twiddles re-laid 4 at a time for it). The Swift body also compiles
// for Float64 (`Body.swift`, for tests comparing the two).
//
// Complexity: 4.25 n log2 n real operations, vectorised 4 butterflies at a time, no
// allocation; the twiddle tables (about 1.5 n complex values) are built in `init` and freed by
// `deallocate()`. A struct of pointers, so the render path reaches it without reference
// counting; one plan may be used by any number of threads at once (it holds no work buffers).

internal import CFFTKernels

struct PermutedFFT<T: FFTScalar> {
    typealias V = SIMD4<T>

    /// Which implementation runs the Float64 passes (Float32 always runs in Swift).
    enum Body {
        /// The C passes with AVX2 + FMA when the CPU has them, else (or when the environment
        /// variable OPENAVFAUDIO_RESAMPLER_PORTABLE=1 asks for them) the portable C ones.
        case best
        /// The portable C passes (baseline x86-64), whatever the CPU.
        case portable
        /// The Swift passes.
        case swift
    }

    /// Complex size (a power of two >= 16).
    let n: Int
    /// log2(n) is odd: the first forward pass (last inverse pass) is radix 2.
    let hasRadix2Pass: Bool
    /// Radix-2 twiddles w^j, j < n/2 (real parts, then imaginary parts).
    let twiddles2: UnsafeMutablePointer<T>
    /// Radix-4 passes with span >= 4, largest span first.
    let spans: UnsafeMutablePointer<Int>
    let passCount: Int
    /// Per radix-4 pass, at `offsets[p]`: w1r, w1i, w2r, w2i, w3r, w3i, each `span` long
    /// (the layout of `ComplexFFT`'s stage tables).
    let offsets: UnsafeMutablePointer<Int>
    let twiddles4: UnsafeMutablePointer<T>
    /// Float64 with a C body: the kernels, the plan and its interleaved radix-4 table.
    let kernels: UnsafePointer<CFFTKernelTable>?
    let plan: UnsafeMutablePointer<CFFTPlan>?
    let cTwiddles4: UnsafeMutablePointer<Double>?

    /// A plan for transforms of `count` points (a power of two >= 16). Control side only.
    init(count size: Int, body: Body = .best) {
        precondition(size >= 16 && size & (size - 1) == 0, "PermutedFFT: size \(size) must be a power of two >= 16")
        n = size
        let log2n = size.trailingZeroBitCount
        hasRadix2Pass = log2n % 2 == 1
        twiddles2 = PermutedFFT.table(hasRadix2Pass ? size : 1)
        if hasRadix2Pass {
            let half = size / 2
            for j in 0..<half {
                let w = FFTMath.sinCosPi(-2 * Double(j) / Double(size))
                twiddles2[j] = T(w.cos)
                twiddles2[half + j] = T(w.sin)
            }
        }
        var spanList: [Int] = []
        var s = (hasRadix2Pass ? size / 2 : size) / 4
        while s >= 4 { spanList.append(s); s /= 4 }
        passCount = spanList.count
        spans = PermutedFFT.table(max(passCount, 1))
        offsets = PermutedFFT.table(max(passCount, 1))
        var total = 0
        for (p, s) in spanList.enumerated() {
            spans[p] = s
            offsets[p] = total
            total += 6 * s
        }
        twiddles4 = PermutedFFT.table(max(total, 1))
        for (p, s) in spanList.enumerated() {
            let t = twiddles4 + offsets[p]
            let m = Double(4 * s)
            for j in 0..<s {
                for q in 1...3 {
                    let w = FFTMath.sinCosPi(-2 * Double(j * q) / m)
                    t[(2 * q - 2) * s + j] = T(w.cos)
                    t[(2 * q - 1) * s + j] = T(w.sin)
                }
            }
        }
        if T.self == Double.self && body != .swift {
            // the C body's radix-4 table: the same values, 4 at a time (w1r[j..<j+4], w1i[...], ...)
            let t4: UnsafeMutablePointer<Double> = PermutedFFT.table(max(total, 1))
            let src = UnsafeMutableRawPointer(twiddles4).assumingMemoryBound(to: Double.self)
            for (p, s) in spanList.enumerated() {
                let from = src + offsets[p], to = t4 + offsets[p]
                for j in 0..<s { for q in 0..<6 { to[(j / 4) * 24 + q * 4 + j % 4] = from[q * s + j] } }
            }
            let pl = UnsafeMutablePointer<CFFTPlan>.allocate(capacity: 1)
            pl.initialize(to: CFFTPlan(n: size, hasRadix2Pass: hasRadix2Pass ? 1 : 0,
                                       twiddles2: UnsafePointer(UnsafeMutableRawPointer(twiddles2).assumingMemoryBound(to: Double.self)),
                                       passCount: passCount, spans: UnsafePointer(spans), offsets: UnsafePointer(offsets),
                                       twiddles4: UnsafePointer(t4)))
            kernels = body == .portable ? cfft_kernels_portable() : cfft_kernels()
            plan = pl
            cTwiddles4 = t4
        } else {
            kernels = nil
            plan = nil
            cTwiddles4 = nil
        }
    }

    /// A zeroed, 64-byte aligned table.
    private static func table<E>(_ count: Int) -> UnsafeMutablePointer<E> {
        let bytes = count * MemoryLayout<E>.stride
        let raw = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: bytes)
        return raw.bindMemory(to: E.self, capacity: count)
    }

    /// Frees the tables (the owner calls this once, on the control side).
    func deallocate() {
        twiddles2.deallocate(); spans.deallocate(); offsets.deallocate(); twiddles4.deallocate()
        plan?.deallocate(); cTwiddles4?.deallocate()
    }

    /// True when the Float64 passes run in C with AVX2 + FMA.
    var usesAVX2: Bool { kernels?.pointee.simd == 1 }

    // MARK: transforms

    /// Natural order in, scrambled spectrum out (unnormalised), in place. Real-time safe.
    @inline(__always)
    func forward(_ re: UnsafeMutablePointer<T>, _ im: UnsafeMutablePointer<T>) {
        forward(from: re, im, to: re, im)
    }

    /// Natural order in (`sr`, `si`, left untouched unless it is the destination), scrambled
    /// spectrum out in (`re`, `im`). The first pass reads the source, so no copy is needed.
    /// Real-time safe.
    @inline(__always)
    func forward(from sr: UnsafeMutablePointer<T>, _ si: UnsafeMutablePointer<T>,
                 to re: UnsafeMutablePointer<T>, _ im: UnsafeMutablePointer<T>) {
        if T.self == Double.self, let plan {
            typealias F = PermutedFFT
            FFTCKernels.forward(kernels.unsafelyUnwrapped, plan, F.doubles(sr), F.doubles(si), F.doubles(re), F.doubles(im))
        } else {
            swiftForward(from: sr, si, to: re, im)
        }
    }

    /// Scrambled spectrum in, natural order out, scaled by n, in place. Real-time safe.
    @inline(__always)
    func inverse(_ re: UnsafeMutablePointer<T>, _ im: UnsafeMutablePointer<T>) {
        if T.self == Double.self, let plan {
            FFTCKernels.inverse(kernels.unsafelyUnwrapped, plan, PermutedFFT.doubles(re), PermutedFFT.doubles(im))
        } else {
            swiftInverse(re, im)
        }
    }

    @inline(__always)
    static func doubles(_ p: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<Double> {
        UnsafeMutableRawPointer(p).assumingMemoryBound(to: Double.self)
    }

    // MARK: the Swift body

    @inline(__always) static func ld(_ p: UnsafeMutablePointer<T>, _ i: Int) -> V {
        UnsafeRawPointer(p + i).loadUnaligned(as: V.self)
    }

    @inline(__always) static func st(_ p: UnsafeMutablePointer<T>, _ i: Int, _ v: V) {
        UnsafeMutableRawPointer(p + i).storeBytes(of: v, as: V.self)
    }

    /// 4 x 4 transpose of rows (a, b, c, d).
    @inline(__always) static func transposed(_ a: V, _ b: V, _ c: V, _ d: V) -> (V, V, V, V) {
        (V(a[0], b[0], c[0], d[0]), V(a[1], b[1], c[1], d[1]), V(a[2], b[2], c[2], d[2]), V(a[3], b[3], c[3], d[3]))
    }

    @inline(__always)
    func swiftForward(from sr: UnsafeMutablePointer<T>, _ si: UnsafeMutablePointer<T>,
                      to re: UnsafeMutablePointer<T>, _ im: UnsafeMutablePointer<T>) {
        typealias F = PermutedFFT
        let w = 4
        var xr = sr, xi = si
        if hasRadix2Pass {
            let half = n / 2
            let wr = twiddles2, wi = twiddles2 + half
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
            let s = spans[p]
            let t = twiddles4 + offsets[p]
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
        // last pass, span 1: 4 groups of four loaded transposed, results stored transposed
        var g = 0
        while g < n {
            let (ar, br, cr, dr) = F.transposed(F.ld(xr, g), F.ld(xr, g &+ w), F.ld(xr, g &+ 2 &* w), F.ld(xr, g &+ 3 &* w))
            let (ai, bi, ci, di) = F.transposed(F.ld(xi, g), F.ld(xi, g &+ w), F.ld(xi, g &+ 2 &* w), F.ld(xi, g &+ 3 &* w))
            let t0r = ar + cr, t0i = ai + ci, t1r = ar - cr, t1i = ai - ci
            let t2r = br + dr, t2i = bi + di, t3r = br - dr, t3i = bi - di
            F.st(re, g, t0r + t2r); F.st(im, g, t0i + t2i)
            F.st(re, g &+ w, t1r + t3i); F.st(im, g &+ w, t1i - t3r)
            F.st(re, g &+ 2 &* w, t0r - t2r); F.st(im, g &+ 2 &* w, t0i - t2i)
            F.st(re, g &+ 3 &* w, t1r - t3i); F.st(im, g &+ 3 &* w, t1i + t3r)
            g &+= 4 &* w
        }
    }

    @inline(__always)
    func swiftInverse(_ re: UnsafeMutablePointer<T>, _ im: UnsafeMutablePointer<T>) {
        typealias F = PermutedFFT
        let w = 4
        var g = 0
        while g < n {
            let z0r = F.ld(re, g), z0i = F.ld(im, g), z1r = F.ld(re, g &+ w), z1i = F.ld(im, g &+ w)
            let z2r = F.ld(re, g &+ 2 &* w), z2i = F.ld(im, g &+ 2 &* w)
            let z3r = F.ld(re, g &+ 3 &* w), z3i = F.ld(im, g &+ 3 &* w)
            let t0r = z0r + z2r, t0i = z0i + z2i, t1r = z0r - z2r, t1i = z0i - z2i
            let t2r = z1r + z3r, t2i = z1i + z3i, t3r = z1r - z3r, t3i = z1i - z3i
            // a = t0 + t2, c = t0 - t2, b = t1 + i t3, d = t1 - i t3
            let (v0r, v1r, v2r, v3r) = F.transposed(t0r + t2r, t1r - t3i, t0r - t2r, t1r + t3i)
            let (v0i, v1i, v2i, v3i) = F.transposed(t0i + t2i, t1i + t3r, t0i - t2i, t1i - t3r)
            F.st(re, g, v0r); F.st(re, g &+ w, v1r); F.st(re, g &+ 2 &* w, v2r); F.st(re, g &+ 3 &* w, v3r)
            F.st(im, g, v0i); F.st(im, g &+ w, v1i); F.st(im, g &+ 2 &* w, v2i); F.st(im, g &+ 3 &* w, v3i)
            g &+= 4 &* w
        }
        var p = passCount - 1
        while p >= 0 {
            let s = spans[p]
            let t = twiddles4 + offsets[p]
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
            let wr = twiddles2, wi = twiddles2 + half
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

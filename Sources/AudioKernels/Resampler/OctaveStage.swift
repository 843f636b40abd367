// The steep stage: a long linear-phase (or minimum-phase) low-pass FIR that doubles or halves
// the sample rate, computed by fast convolution (overlap-save) with the polyphase halves of the
// filter, so every transform is the same size M and the spectra are multiplied bin by bin.
//
// Channels are processed in pairs packed as one complex signal (left + i right): the filter is
// real, so one complex transform filters two channels. Mono packs two consecutive blocks instead
// (block b + i block b+1, each run covering two blocks), so it costs the same per channel. The
// lone last channel of an odd count > 1 runs with a zero partner.
//
// Doubling (up):   w[2j]   = sum_i g_e[i] x[j + L - 1 - i],   w[2j+1] = sum_i g_o[i] x[j + L - 1 - i]
// Halving  (down): y[j]    = sum_i h_e[i] v[2(j + L - 1 - i)] + h_o[i] v[2(j + L - 1 - i) - 1]
// with g = 2h, h_e/h_o the even/odd taps (L = ceil(N/2) taps each), and v[-1] = 0.
//
// Cost per block of B = M - L + 1 input (up) or output (down) frames per channel pair (or per
// two mono blocks): three transforms of size M (4.25 M log2 M flops each) and 2M complex
// multiply-adds. M is chosen at init (about 8 L) to minimise the work per frame.
//
// The transforms are the package's FFT for convolution (FFT/PermutedFFT.swift: scrambled
// spectrum order, in place; its Float64 body runs in C with AVX2 + FMA when the CPU has them).
// Float64 runs the spectrum products in CResamplerKernels the same way; Float runs them in Swift.

internal import CResamplerKernels

struct OctaveStage<T: ResamplerScalar> {
    typealias V = SIMD4<T>

    let up: Bool
    let channels: Int
    let pairs: Int          // complex groups: ceil(channels / 2)
    let m: Int              // transform size
    let taps: Int           // L, taps per polyphase branch
    let block: Int          // frames per run: B = m - L + 1, or 2B for mono
    let window: Int         // input frames per run: m, or m + B for mono
    let packBlocks: Bool    // mono: two consecutive blocks per transform
    let fft: PermutedFFT<T>
    /// The spectrum products' C kernels (used for Float64).
    let kernels: UnsafePointer<CRKKernels>

    /// Spectra (scrambled order) of the two branches, scaled by 1/m; for a lone channel when
    /// doubling, `pack` is the spectrum of g_e + i g_o.
    let heRe: AlignedBuffer<T>, heIm: AlignedBuffer<T>
    let hoRe: AlignedBuffer<T>, hoIm: AlignedBuffer<T>
    let packRe: AlignedBuffer<T>, packIm: AlignedBuffer<T>

    /// Input blocks: up: x per group (re, im planes); down: even and odd streams per group.
    /// Layout: group g, plane k at (g * 4 + k) * m  (k: 0 xRe/eRe, 1 xIm/eIm, 2 oRe, 3 oIm).
    let input: AlignedBuffer<T>
    /// Frames currently in the input block: up: x; down: the even and odd streams.
    var fill = 0
    var fillOdd = 0

    let work: AlignedBuffer<T>  // 4 planes of m

    init(up: Bool, channels: Int, filter: [Double], transformSize: Int) {
        self.up = up
        self.channels = channels
        pairs = (channels + 1) / 2
        let n = filter.count
        taps = (n + 1) / 2
        m = transformSize
        precondition(m >= 2 * taps, "OctaveStage: transform too small")
        packBlocks = channels == 1
        block = packBlocks ? 2 * (m - taps + 1) : m - taps + 1
        window = packBlocks ? 2 * m - taps + 1 : m
        fft = PermutedFFT<T>(count: m)
        kernels = crk_kernels()
        heRe = AlignedBuffer(count: m); heIm = AlignedBuffer(count: m)
        hoRe = AlignedBuffer(count: m); hoIm = AlignedBuffer(count: m)
        packRe = AlignedBuffer(count: m); packIm = AlignedBuffer(count: m)
        input = AlignedBuffer(count: pairs * 4 * 2 * m)
        work = AlignedBuffer(count: 4 * m)

        // branch spectra in Float64, then rounded (a plan of the same size scrambles the bins
        // the same way, whatever its scalar type)
        let gain = up ? 2.0 : 1.0
        let d = PermutedFFT<Double>(count: m, body: .swift)
        let r = AlignedBuffer<Double>(count: m), i = AlignedBuffer<Double>(count: m)
        defer { r.deallocate(); i.deallocate(); d.deallocate() }
        let scale = gain / Double(m)
        func spectrum(_ even: Bool, _ odd: Bool, re: AlignedBuffer<T>, im: AlignedBuffer<T>) {
            for k in 0..<m { r.pointer[k] = 0; i.pointer[k] = 0 }
            for t in 0..<taps {
                if even, 2 * t < n { r.pointer[t] = filter[2 * t] * scale }
                if odd, 2 * t + 1 < n {
                    if even { i.pointer[t] = filter[2 * t + 1] * scale } else { r.pointer[t] = filter[2 * t + 1] * scale }
                }
            }
            d.forward(r.pointer, i.pointer)
            for k in 0..<m { re.pointer[k] = T(r.pointer[k]); im.pointer[k] = T(i.pointer[k]) }
        }
        spectrum(true, false, re: heRe, im: heIm)
        spectrum(false, true, re: hoRe, im: hoIm)
        spectrum(true, true, re: packRe, im: packIm)
        reset()
    }

    func deallocate() {
        heRe.deallocate(); heIm.deallocate(); hoRe.deallocate(); hoIm.deallocate()
        packRe.deallocate(); packIm.deallocate(); input.deallocate(); work.deallocate()
        fft.deallocate()
    }

    mutating func reset() {
        zeroSamples(input.pointer, pairs * 4 * 2 * m)
        fill = 0
        // down: o[0] = v[-1] = 0 is the first frame of the odd stream
        fillOdd = up ? 0 : 1
    }

    @inline(__always) func plane(_ g: Int, _ k: Int) -> UnsafeMutablePointer<T> { input.pointer + (g * 4 + k) * 2 * m }

    /// Channel c's plane in the x (up) or e (down) stream.
    @inline(__always) func channelPlane(_ c: Int, odd: Bool = false) -> UnsafeMutablePointer<T> {
        plane(c / 2, (c & 1) + (odd ? 2 : 0))
    }

    // MARK: up

    /// Frames of x the block still needs.
    var spaceUp: Int { window - fill }

    var blockReady: Bool { fill == window }

    /// Runs one block: x[fill == m] -> 2*block frames of w per channel written to dest[c] (+offset).
    mutating func runUp(dest: UnsafeMutablePointer<UnsafeMutablePointer<T>>) {
        let m = self.m, L = taps
        let wr = work.pointer, wi = wr + m, vr = wi + m, vi = vr + m
        if packBlocks {
            // blocks b and b+1 of the one channel as real and imaginary parts
            let x = plane(0, 0), half = m - L + 1
            forward(from: x, x + half, to: wr, wi)
            multiply(wr, wi, hoRe.pointer, hoIm.pointer, m, into: vr, vi)
            multiply(wr, wi, heRe.pointer, heIm.pointer, m)
            inverse(wr, wi)
            inverse(vr, vi)
            OctaveStage.interleave(wr + (L - 1), vr + (L - 1), dest[0], half)
            OctaveStage.interleave(wi + (L - 1), vi + (L - 1), dest[0] + 2 * half, half)
            moveSamples(x, x + block, L - 1)
            fill = L - 1
            return
        }
        let B = block
        for g in 0..<pairs {
            let xr = plane(g, 0), xi = plane(g, 1)
            forward(from: xr, xi, to: wr, wi)
            let lone = 2 * g + 1 >= channels
            if lone {
                multiply(wr, wi, packRe.pointer, packIm.pointer, m)
                inverse(wr, wi)
                let d0 = dest[2 * g]
                OctaveStage.interleave(wr + (L - 1), wi + (L - 1), d0, B)
            } else {
                multiply(wr, wi, hoRe.pointer, hoIm.pointer, m, into: vr, vi)
                multiply(wr, wi, heRe.pointer, heIm.pointer, m)
                inverse(wr, wi)
                inverse(vr, vi)
                let d0 = dest[2 * g], d1 = dest[2 * g + 1]
                OctaveStage.interleave(wr + (L - 1), vr + (L - 1), d0, B)
                OctaveStage.interleave(wi + (L - 1), vi + (L - 1), d1, B)
            }
            // keep the last L - 1 frames
            moveSamples(xr, xr + B, L - 1)
            moveSamples(xi, xi + B, L - 1)
        }
        fill = L - 1
    }

    // MARK: down

    /// Runs one block (down): e/o streams full -> `block` output frames per channel into dest.
    mutating func runDown(dest: UnsafeMutablePointer<UnsafeMutablePointer<T>>) {
        let m = self.m, L = taps
        let ar = work.pointer, ai = ar + m, br = ai + m, bi = br + m
        if packBlocks {
            let e = plane(0, 0), o = plane(0, 2), half = m - L + 1
            forward(from: e, e + half, to: ar, ai)
            forward(from: o, o + half, to: br, bi)
            multiplyAdd(ar, ai, heRe.pointer, heIm.pointer, br, bi, hoRe.pointer, hoIm.pointer, m)
            inverse(ar, ai)
            moveSamples(dest[0], ar + (L - 1), half)
            moveSamples(dest[0] + half, ai + (L - 1), half)
            moveSamples(e, e + block, L - 1)
            moveSamples(o, o + block, L - 1)
            fill = L - 1
            fillOdd = L - 1
            return
        }
        let B = block
        for g in 0..<pairs {
            let er = plane(g, 0), ei = plane(g, 1), or = plane(g, 2), oi = plane(g, 3)
            forward(from: er, ei, to: ar, ai)
            forward(from: or, oi, to: br, bi)
            multiplyAdd(ar, ai, heRe.pointer, heIm.pointer, br, bi, hoRe.pointer, hoIm.pointer, m)
            inverse(ar, ai)
            moveSamples(dest[2 * g], ar + (L - 1), B)
            if 2 * g + 1 < channels {
                moveSamples(dest[2 * g + 1], ai + (L - 1), B)
            }
            moveSamples(er, er + B, L - 1); moveSamples(ei, ei + B, L - 1)
            moveSamples(or, or + B, L - 1); moveSamples(oi, oi + B, L - 1)
        }
        fill = L - 1
        fillOdd = L - 1
    }

    /// Appends up to `n` frames of v (per channel, from src[c] + offset) to the even/odd
    /// streams, stopping when a block is ready; returns the number taken.
    mutating func appendDown(_ src: UnsafeMutablePointer<UnsafeMutablePointer<T>>, offset: Int, count n: Int) -> Int {
        var taken = 0
        while taken < n && fill < window {
            // next v is odd when fillOdd == fill + 1 is false, i.e. when fillOdd == fill
            if fillOdd == fill {
                for c in 0..<channels { channelPlane(c, odd: true)[fillOdd] = src[c][offset + taken] }
                fillOdd += 1
                taken += 1
            } else {
                // even sample, then as many (even, odd) pairs as fit
                let pairsAvail = (n - taken - 1) / 2
                let evenRoom = window - fill
                let k = min(pairsAvail, evenRoom - 1)
                for c in 0..<channels {
                    let s = src[c] + offset + taken
                    let e = channelPlane(c) + fill
                    let o = channelPlane(c, odd: true) + fillOdd
                    e[0] = s[0]
                    var j = 0
                    while j < k {
                        o[j] = s[2 * j + 1]
                        e[j + 1] = s[2 * j + 2]
                        j += 1
                    }
                }
                fill += 1 + k
                fillOdd += k
                taken += 1 + 2 * k
            }
        }
        return taken
    }

    /// Frames of v still needed before the next block can run.
    var neededDown: Int { (window - fill) + (window - fillOdd) }

    // MARK: kernels

    @inline(__always)
    static func doubles(_ p: UnsafeMutablePointer<T>) -> UnsafeMutablePointer<Double> {
        UnsafeMutableRawPointer(p).assumingMemoryBound(to: Double.self)
    }

    /// Natural order (sr, si) in, scrambled spectrum out in (re, im).
    @inline(__always)
    func forward(from sr: UnsafeMutablePointer<T>, _ si: UnsafeMutablePointer<T>,
                 to re: UnsafeMutablePointer<T>, _ im: UnsafeMutablePointer<T>) {
        fft.forward(from: sr, si, to: re, im)
    }

    /// Scrambled spectrum in, natural order (scaled by m) out, in place.
    @inline(__always)
    func inverse(_ re: UnsafeMutablePointer<T>, _ im: UnsafeMutablePointer<T>) {
        fft.inverse(re, im)
    }

    /// a *= h (complex, bin by bin), or into (outR, outI).
    @inline(__always)
    func multiply(_ ar: UnsafeMutablePointer<T>, _ ai: UnsafeMutablePointer<T>,
                  _ hr: UnsafeMutablePointer<T>, _ hi: UnsafeMutablePointer<T>, _ n: Int,
                  into outR: UnsafeMutablePointer<T>? = nil, _ outI: UnsafeMutablePointer<T>? = nil) {
        let dr = outR ?? ar, di = outI ?? ai
        if T.self == Double.self {
            typealias S = OctaveStage
            ResamplerCKernels.multiply(kernels, S.doubles(ar), S.doubles(ai), S.doubles(hr), S.doubles(hi), S.doubles(dr), S.doubles(di), n)
        } else {
            OctaveStage.multiplySwift(ar, ai, hr, hi, n, into: dr, di)
        }
    }

    /// a = a * ha + b * hb (complex, bin by bin).
    @inline(__always)
    func multiplyAdd(_ ar: UnsafeMutablePointer<T>, _ ai: UnsafeMutablePointer<T>,
                     _ har: UnsafeMutablePointer<T>, _ hai: UnsafeMutablePointer<T>,
                     _ br: UnsafeMutablePointer<T>, _ bi: UnsafeMutablePointer<T>,
                     _ hbr: UnsafeMutablePointer<T>, _ hbi: UnsafeMutablePointer<T>, _ n: Int) {
        if T.self == Double.self {
            typealias S = OctaveStage
            ResamplerCKernels.multiplyAdd(kernels, S.doubles(ar), S.doubles(ai), S.doubles(har), S.doubles(hai),
                                          S.doubles(br), S.doubles(bi), S.doubles(hbr), S.doubles(hbi), n)
        } else {
            OctaveStage.multiplyAddSwift(ar, ai, har, hai, br, bi, hbr, hbi, n)
        }
    }

    @inline(__always)
    static func multiplySwift(_ ar: UnsafeMutablePointer<T>, _ ai: UnsafeMutablePointer<T>,
                              _ hr: UnsafeMutablePointer<T>, _ hi: UnsafeMutablePointer<T>, _ n: Int,
                              into dr: UnsafeMutablePointer<T>, _ di: UnsafeMutablePointer<T>) {
        var k = 0
        while k < n {
            let xr = ar.v4(k), xi = ai.v4(k), yr = hr.v4(k), yi = hi.v4(k)
            dr.setV4(k, xr * yr - xi * yi)
            di.setV4(k, xr * yi + xi * yr)
            k += 4
        }
    }

    @inline(__always)
    static func multiplyAddSwift(_ ar: UnsafeMutablePointer<T>, _ ai: UnsafeMutablePointer<T>,
                                 _ har: UnsafeMutablePointer<T>, _ hai: UnsafeMutablePointer<T>,
                                 _ br: UnsafeMutablePointer<T>, _ bi: UnsafeMutablePointer<T>,
                                 _ hbr: UnsafeMutablePointer<T>, _ hbi: UnsafeMutablePointer<T>, _ n: Int) {
        var k = 0
        while k < n {
            let xr = ar.v4(k), xi = ai.v4(k), yr = har.v4(k), yi = hai.v4(k)
            let ur = br.v4(k), ui = bi.v4(k), vr = hbr.v4(k), vi = hbi.v4(k)
            ar.setV4(k, xr * yr - xi * yi + (ur * vr - ui * vi))
            ai.setV4(k, xr * yi + xi * yr + (ur * vi + ui * vr))
            k += 4
        }
    }

    /// d[2j] = e[j], d[2j+1] = o[j].
    @inline(__always)
    static func interleave(_ e: UnsafeMutablePointer<T>, _ o: UnsafeMutablePointer<T>, _ d: UnsafeMutablePointer<T>, _ n: Int) {
        var j = 0
        while j + 4 <= n {
            let a = e.v4(j), b = o.v4(j)
            d.setV4(2 * j, V(a[0], b[0], a[1], b[1]))
            d.setV4(2 * j + 4, V(a[2], b[2], a[3], b[3]))
            j += 4
        }
        while j < n { d[2 * j] = e[j]; d[2 * j + 1] = o[j]; j += 1 }
    }
}

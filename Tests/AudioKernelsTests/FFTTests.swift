// The FFT folder's transforms against their definitions computed directly in Float64:
// complex and real FFTs against an O(N^2) DFT (every bin up to 2^10 points, 40 random bins
// above, up to 2^16), round trips and Parseval; the MDCT against its cosine-sum definition and
// TDAC reconstruction with sine and KBD windows; the block convolver against direct convolution,
// with output identical whatever the chunk sizes it is fed.
import Testing
import Foundation
@testable import AudioKernels

private struct LCG {
    var state: UInt64
    mutating func next() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Double(Int64(bitPattern: state >> 11) % 1_000_000) / 1_000_000
    }
    mutating func int(_ range: ClosedRange<Int>) -> Int {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return range.lowerBound + Int((state >> 33) % UInt64(range.count))
    }
}

/// e^(-2 pi i j/n), j < n, in Float64 (exact at the quarter points).
private func unitTable(_ n: Int) -> (re: [Double], im: [Double]) {
    var re = [Double](repeating: 0, count: n), im = re
    for j in 0..<n {
        re[j] = cos(-2 * Double.pi * Double(j) / Double(n))
        im[j] = sin(-2 * Double.pi * Double(j) / Double(n))
    }
    if n % 4 == 0 { re[n / 4] = 0; im[n / 4] = -1; re[3 * n / 4] = 0; im[3 * n / 4] = 1 }
    if n % 2 == 0 { re[n / 2] = -1; im[n / 2] = 0 }
    return (re, im)
}

/// Direct DFT bins `ks` of (xr, xi).
private func directDFT(_ xr: [Double], _ xi: [Double], bins ks: [Int]) -> [(Double, Double)] {
    let n = xr.count
    let w = unitTable(n)
    return ks.map { k in
        var sr = 0.0, si = 0.0
        for j in 0..<n {
            let e = (j * k) % n
            sr += xr[j] * w.re[e] - xi[j] * w.im[e]
            si += xr[j] * w.im[e] + xi[j] * w.re[e]
        }
        return (sr, si)
    }
}

private func binsToCheck(_ count: Int, _ rng: inout LCG) -> [Int] {
    if count <= 1024 { return Array(0..<count) }
    return [0, 1, count / 2, count - 1] + (0..<36).map { _ in rng.int(0...(count - 1)) }
}

/// rms of the differences / rms of the reference.
private func relativeError(_ got: [(Double, Double)], _ want: [(Double, Double)]) -> Double {
    var e = 0.0, s = 0.0
    for (g, w) in zip(got, want) {
        e += (g.0 - w.0) * (g.0 - w.0) + (g.1 - w.1) * (g.1 - w.1)
        s += w.0 * w.0 + w.1 * w.1
    }
    return (e / max(s, 1e-300)).squareRoot()
}

private func tolerance<T: FFTScalar>(_: T.Type, _ n: Int) -> Double {
    let log2n = Double(max(1, n.trailingZeroBitCount))
    return T.self == Float.self ? 2e-7 * log2n + 1e-7 : 1e-15 * log2n + 1e-16
}

@Suite struct FFTTests {
    func complexCase<T: FFTScalar>(_: T.Type, _ m: Int) {
        var rng = LCG(state: UInt64(m) &* 77 &+ 5)
        let xr = (0..<m).map { _ in rng.next() - 0.5 }, xi = (0..<m).map { _ in rng.next() - 0.5 }
        let fft = ComplexFFT<T>(count: m)
        var re = xr.map { T($0) }, im = xi.map { T($0) }
        // the reference sees exactly the rounded input
        let xr2 = re.map { Double($0) }, xi2 = im.map { Double($0) }
        re.withUnsafeMutableBufferPointer { r in
            im.withUnsafeMutableBufferPointer { i in
                fft.forward(inRe: r.baseAddress!, inIm: i.baseAddress!, outRe: r.baseAddress!, outIm: i.baseAddress!)
            }
        }
        let ks = binsToCheck(m, &rng)
        let want = directDFT(xr2, xi2, bins: ks)
        let got = ks.map { (Double(re[$0]), Double(im[$0])) }
        let err = relativeError(got, want)
        #expect(err < tolerance(T.self, m), "complex \(T.self) m=\(m): error \(err)")
        // round trip: inverse(forward(x)) = m x
        re.withUnsafeMutableBufferPointer { r in
            im.withUnsafeMutableBufferPointer { i in
                fft.inverse(inRe: r.baseAddress!, inIm: i.baseAddress!, outRe: r.baseAddress!, outIm: i.baseAddress!)
            }
        }
        let back = (0..<m).map { (Double(re[$0]) / Double(m), Double(im[$0]) / Double(m)) }
        let rt = relativeError(back, (0..<m).map { (xr2[$0], xi2[$0]) })
        #expect(rt < tolerance(T.self, m), "complex round trip \(T.self) m=\(m): error \(rt)")
    }

    @Test(arguments: 0...16) func complexMatchesDirectDFT(log2m: Int) {
        complexCase(Float.self, 1 << log2m)
        complexCase(Double.self, 1 << log2m)
    }

    func realCase<T: FFTScalar>(_: T.Type, _ n: Int) {
        var rng = LCG(state: UInt64(n) &* 31 &+ 9)
        let x = (0..<n).map { _ in T(rng.next() - 0.5) }
        let xd = x.map { Double($0) }
        let fft = RealFFT<T>(count: n)
        var re = [T](repeating: 0, count: n / 2 + 1), im = re
        var y = [T](repeating: 0, count: n)
        x.withUnsafeBufferPointer { xp in
            re.withUnsafeMutableBufferPointer { r in
                im.withUnsafeMutableBufferPointer { i in
                    fft.forward(xp.baseAddress!, re: r.baseAddress!, im: i.baseAddress!)
                    y.withUnsafeMutableBufferPointer { fft.inverse(re: r.baseAddress!, im: i.baseAddress!, output: $0.baseAddress!) }
                }
            }
        }
        let ks = binsToCheck(n / 2 + 1, &rng)
        let want = directDFT(xd, [Double](repeating: 0, count: n), bins: ks)
        let got = ks.map { (Double(re[$0]), Double(im[$0])) }
        let err = relativeError(got, want)
        #expect(err < tolerance(T.self, n), "real \(T.self) n=\(n): error \(err)")
        #expect(im[0] == 0 && im[n / 2] == 0)
        // round trip: inverse(forward(x)) = n x
        let back = y.map { (Double($0) / Double(n), 0.0) }
        let rt = relativeError(back, xd.map { ($0, 0.0) })
        #expect(rt < tolerance(T.self, n), "real round trip \(T.self) n=\(n): error \(rt)")
        // Parseval: sum x^2 = (|X0|^2 + |X(n/2)|^2 + 2 sum_{0<k<n/2} |Xk|^2) / n
        let energy = xd.reduce(0) { $0 + $1 * $1 }
        var spectral = 0.0
        for k in 0...(n / 2) {
            let p = Double(re[k]) * Double(re[k]) + Double(im[k]) * Double(im[k])
            spectral += (k == 0 || k == n / 2) ? p : 2 * p
        }
        spectral /= Double(n)
        #expect(abs(spectral - energy) <= 4 * tolerance(T.self, n) * energy, "Parseval \(T.self) n=\(n): \(spectral) vs \(energy)")
    }

    @Test(arguments: 1...16) func realMatchesDirectDFT(log2n: Int) {
        realCase(Float.self, 1 << log2n)
        realCase(Double.self, 1 << log2n)
    }

    /// The packed interface (even/odd samples written in place) gives the same spectrum.
    @Test func realPackedInterface() {
        let n = 512
        var rng = LCG(state: 3)
        let x = (0..<n).map { _ in Float(rng.next() - 0.5) }
        let fft = RealFFT<Float>(count: n)
        var re1 = [Float](repeating: 0, count: n / 2 + 1), im1 = re1, re2 = re1, im2 = re1
        fft.forward(x, re: &re1, im: &im1)
        for j in 0..<(n / 2) { fft.packedEven[j] = x[2 * j]; fft.packedOdd[j] = x[2 * j + 1] }
        fft.forwardPacked(re: &re2, im: &im2)
        #expect(re1 == re2 && im1 == im2)
        let (even, odd) = fft.inversePacked(re: re1, im: im1)
        for j in 0..<(n / 2) {
            #expect(abs(even[j] / Float(n) - x[2 * j]) < 1e-6 && abs(odd[j] / Float(n) - x[2 * j + 1]) < 1e-6)
        }
    }

    // MARK: MDCT

    /// cos(2 pi/N (i + 1/2 + N/4)(k + 1/2)) = cos(2 pi r/(4N)) with r = (2i + 1 + N/2)(2k + 1)
    /// mod 4N, computed exactly in integers (large arguments of cos would lose accuracy).
    private func mdctPhase(_ n: Int, _ i: Int, _ k: Int) -> Int { ((2 * i + 1 + n / 2) * (2 * k + 1)) % (4 * n) }

    private func mdctCosines(_ n: Int) -> [Double] { (0..<(4 * n)).map { cos(2 * Double.pi * Double($0) / Double(4 * n)) } }

    private func directMDCT(_ x: [Double]) -> [Double] {
        let n = x.count, c = mdctCosines(n)
        return (0..<(n / 2)).map { k in
            var s = 0.0
            for i in 0..<n { s += x[i] * c[mdctPhase(n, i, k)] }
            return s
        }
    }

    private func directIMDCT(_ c: [Double]) -> [Double] {
        let n = 2 * c.count, t = mdctCosines(n)
        return (0..<n).map { i in
            var s = 0.0
            for k in 0..<(n / 2) { s += c[k] * t[mdctPhase(n, i, k)] }
            return s
        }
    }

    func mdctCase<T: FFTScalar>(_: T.Type, _ n: Int) {
        var rng = LCG(state: UInt64(n) &+ 17)
        let x = (0..<n).map { _ in T(rng.next() - 0.5) }
        let mdct = MDCT<T>(count: n)
        var c = [T](repeating: 0, count: n / 2), y = [T](repeating: 0, count: n)
        mdct.forward(x, &c)
        let want = directMDCT(x.map { Double($0) })
        let err = relativeError(c.map { (Double($0), 0) }, want.map { ($0, 0) })
        #expect(err < 4 * tolerance(T.self, n), "MDCT \(T.self) N=\(n): error \(err)")
        mdct.inverse(c, &y)
        let wantY = directIMDCT(c.map { Double($0) })
        let errY = relativeError(y.map { (Double($0), 0) }, wantY.map { ($0, 0) })
        #expect(errY < 4 * tolerance(T.self, n), "IMDCT \(T.self) N=\(n): error \(errY)")
    }

    @Test(arguments: 2...12) func mdctMatchesDefinition(log2n: Int) {
        mdctCase(Float.self, 1 << log2n)
        mdctCase(Double.self, 1 << log2n)
    }

    /// Kaiser-Bessel-derived window of length n (alpha as AAC: 4 for long blocks).
    private func kbdWindow(_ n: Int, alpha: Double) -> [Double] {
        func i0(_ x: Double) -> Double {
            var sum = 1.0, term = 1.0
            for k in 1..<60 { term *= (x / (2 * Double(k))) * (x / (2 * Double(k))); sum += term }
            return sum
        }
        let half = n / 2
        let kaiser = (0...half).map { i -> Double in
            let r = 2 * Double(i) / Double(half) - 1
            return i0(Double.pi * alpha * (1 - r * r).squareRoot())
        }
        let total = kaiser.reduce(0, +)
        var w = [Double](repeating: 0, count: n)
        var run = 0.0
        for i in 0..<half {
            run += kaiser[i]
            w[i] = (run / total).squareRoot()
            w[n - 1 - i] = w[i]
        }
        return w
    }

    func tdacCase<T: FFTScalar>(_: T.Type, _ n: Int, window: [Double]) {
        // Princen-Bradley holds for the window
        for i in 0..<(n / 2) { #expect(abs(window[i] * window[i] + window[i + n / 2] * window[i + n / 2] - 1) < 1e-12) }
        let hop = n / 2, blocks = 8
        var rng = LCG(state: UInt64(n) &* 3 &+ 1)
        let total = hop * (blocks + 1)
        let x = (0..<total).map { _ in T(rng.next() - 0.5) }
        let mdct = MDCT<T>(count: n)
        var out = [Double](repeating: 0, count: total)
        var frame = [T](repeating: 0, count: n), c = [T](repeating: 0, count: hop), y = frame
        for b in 0..<blocks {
            for i in 0..<n { frame[i] = x[b * hop + i] * T(window[i]) }
            mdct.forward(frame, &c)
            mdct.inverse(c, &y)
            for i in 0..<n { out[b * hop + i] += Double(y[i]) * window[i] }
        }
        // fully overlapped region: (N/4) x
        var e = 0.0, s = 0.0
        for i in hop..<(blocks * hop) {
            let d = out[i] * 4 / Double(n) - Double(x[i])
            e += d * d; s += Double(x[i]) * Double(x[i])
        }
        let err = (e / s).squareRoot()
        #expect(err < 8 * tolerance(T.self, n), "TDAC \(T.self) N=\(n): error \(err)")
    }

    @Test(arguments: [8, 64, 256, 2048]) func mdctPerfectReconstruction(n: Int) {
        let sine = (0..<n).map { sin(Double.pi * (Double($0) + 0.5) / Double(n)) }
        let kbd = kbdWindow(n, alpha: 4)
        for w in [sine, kbd] {
            tdacCase(Float.self, n, window: w)
            tdacCase(Double.self, n, window: w)
        }
    }

    // MARK: convolver

    func convolverCase<T: FFTScalar>(_: T.Type, taps: Int, block: Int, seed: UInt64) {
        var rng = LCG(state: seed)
        let h = (0..<taps).map { _ in T(rng.next() - 0.5) }
        let length = 3 * taps + 5 * block + 100
        let x = (0..<length).map { _ in T(rng.next() - 0.5) }
        // direct convolution, Float64, delayed by the block size
        var want = [Double](repeating: 0, count: length)
        for t in block..<length {
            let u = t - block
            var s = 0.0
            for j in 0..<min(taps, u + 1) { s += Double(h[j]) * Double(x[u - j]) }
            want[t] = s
        }
        // fed in random chunks, then in one call: identical outputs
        let a = BlockConvolver<T>(filter: h, blockSize: block)
        var outA = [T](repeating: 0, count: length)
        var pos = 0
        while pos < length {
            let n = min(rng.int(1...(3 * block + 7)), length - pos)
            x.withUnsafeBufferPointer { xp in
                outA.withUnsafeMutableBufferPointer { a.process(xp.baseAddress! + pos, $0.baseAddress! + pos, count: n) }
            }
            pos += n
        }
        let b = BlockConvolver<T>(filter: h, blockSize: block)
        var outB = x
        outB.withUnsafeMutableBufferPointer { b.process($0.baseAddress!, $0.baseAddress!, count: length) }  // in place
        #expect(outA == outB, "convolver \(T.self) taps=\(taps) B=\(block): output depends on chunking")
        var e = 0.0, s = 0.0
        for t in 0..<length {
            let d = Double(outA[t]) - want[t]
            e += d * d; s += want[t] * want[t]
        }
        let err = (e / s).squareRoot()
        let tol = T.self == Float.self ? 2e-6 : 1e-14
        #expect(err < tol, "convolver \(T.self) taps=\(taps) B=\(block): error \(err)")
        // reset: the same input again gives the same output
        b.reset()
        var outC = x
        outC.withUnsafeMutableBufferPointer { b.process($0.baseAddress!, $0.baseAddress!, count: length) }
        #expect(outC == outB)
    }

    @Test(arguments: [1, 7, 64, 100, 1000, 4097]) func convolverMatchesDirectConvolution(taps: Int) {
        for block in taps <= 100 ? [1, 4, 64, 256] : [4, 64, 256] {
            convolverCase(Float.self, taps: taps, block: block, seed: UInt64(taps * 1000 + block))
            convolverCase(Double.self, taps: taps, block: block, seed: UInt64(taps * 1000 + block + 1))
        }
    }
}

// The permuted FFT (AudioKernels/FFT/PermutedFFT.swift, the resampler's convolution transform)
// against its definition, computed directly in Float64:
//  * each complex tone e^(2 pi i k j/n) must transform to n in exactly one bin and ~0 in every
//    other; the bins the n tones land in must be a permutation of 0..<n, the same for every
//    scalar type and body (Float32 Swift, Float64 Swift, Float64 C portable and best), since a
//    filter spectrum computed in Float64 is multiplied with signal spectra computed in Float32;
//  * a random signal's scrambled spectrum, read through that permutation, must match the
//    direct DFT, and inverse(forward(x)) = n x;
//  * up to 2^16 points, the use itself: inverse(forward(x) * forward(h)) / n against the direct
//    circular convolution of x and h.
import Testing
import Foundation
@testable import AudioKernels

private struct PermLCG {
    var state: UInt64
    mutating func next() -> Double {
        state = state &* 6364136223846793005 &+ 1442695040888963407
        return Double(Int64(bitPattern: state >> 11) % 1_000_000) / 1_000_000 - 0.5
    }
}

/// e^(sign 2 pi i jk/n) in Float64, with the index reduced exactly.
private func unit(_ e: Int, _ n: Int, sign: Double) -> (Double, Double) {
    let a = sign * 2 * Double.pi * Double(e % n) / Double(n)
    return (cos(a), sin(a))
}

private enum Variant: CaseIterable, CustomStringConvertible {
    case float, doubleSwift, doublePortable, doubleBest
    var description: String {
        switch self {
        case .float: "Float32 (Swift)"
        case .doubleSwift: "Float64 Swift"
        case .doublePortable: "Float64 C portable"
        case .doubleBest: "Float64 C best"
        }
    }
    /// Relative rms tolerance for n points.
    func tolerance(_ n: Int) -> Double {
        let log2n = Double(n.trailingZeroBitCount)
        return self == .float ? 2e-7 * log2n + 1e-7 : 1e-15 * log2n + 1e-16
    }
}

/// Runs forward (and optionally the inverse) of one variant on Float64 data; returns (re, im).
private func transform(_ v: Variant, _ re: [Double], _ im: [Double], inverse: Bool = false,
                       multiplyBy h: ([Double], [Double])? = nil) -> ([Double], [Double]) {
    func run<T: FFTScalar>(_: T.Type, _ body: PermutedFFT<T>.Body) -> ([Double], [Double]) {
        let n = re.count
        let fft = PermutedFFT<T>(count: n, body: body)
        defer { fft.deallocate() }
        var r = re.map { T($0) }, i = im.map { T($0) }
        r.withUnsafeMutableBufferPointer { rp in
            i.withUnsafeMutableBufferPointer { ip in
                let a = rp.baseAddress!, b = ip.baseAddress!
                if inverse && h == nil {
                    fft.inverse(a, b)
                    return
                }
                fft.forward(a, b)
                if let h {
                    for k in 0..<n {
                        let xr = a[k], xi = b[k], yr = T(h.0[k]), yi = T(h.1[k])
                        a[k] = xr * yr - xi * yi
                        b[k] = xr * yi + xi * yr
                    }
                    fft.inverse(a, b)
                }
            }
        }
        return (r.map { Double($0) }, i.map { Double($0) })
    }
    switch v {
    case .float: return run(Float.self, .best)
    case .doubleSwift: return run(Double.self, .swift)
    case .doublePortable: return run(Double.self, .portable)
    case .doubleBest: return run(Double.self, .best)
    }
}

/// The scrambled position of each frequency, from the transforms of the n complex tones;
/// checks that every tone lands in exactly one bin, with value n.
private func permutation(_ v: Variant, _ n: Int) -> [Int] {
    var pos = [Int](repeating: -1, count: n)
    var worst = 0.0
    for k in 0..<n {
        var re = [Double](repeating: 0, count: n), im = re
        for j in 0..<n { (re[j], im[j]) = unit(j * k, n, sign: 1) }
        let (yr, yi) = transform(v, re, im)
        var best = 0, bestMag = -1.0
        for p in 0..<n {
            let mag = yr[p] * yr[p] + yi[p] * yi[p]
            if mag > bestMag { bestMag = mag; best = p }
        }
        // every other bin ~0, the peak = n
        for p in 0..<n where p != best {
            worst = max(worst, (yr[p] * yr[p] + yi[p] * yi[p]).squareRoot() / Double(n))
        }
        worst = max(worst, hypot(yr[best] - Double(n), yi[best]) / Double(n))
        pos[k] = best
    }
    #expect(worst < 4 * v.tolerance(n), "\(v) n=\(n): tone leakage \(worst)")
    return pos
}

private func relativeRMS(_ got: ([Double], [Double]), _ want: ([Double], [Double])) -> Double {
    var e = 0.0, s = 0.0
    for k in 0..<got.0.count {
        let dr = got.0[k] - want.0[k], di = got.1[k] - want.1[k]
        e += dr * dr + di * di
        s += want.0[k] * want.0[k] + want.1[k] * want.1[k]
    }
    return (e / max(s, 1e-300)).squareRoot()
}

@Suite struct PermutedFFTTests {
    /// Tones, the permutation, a random signal against the direct DFT, and the round trip.
    @Test(arguments: 4...9) func permutedMatchesDirectDFT(log2n: Int) {
        let n = 1 << log2n
        var perms: [[Int]] = []
        for v in Variant.allCases {
            let perm = permutation(v, n)
            #expect(Set(perm).count == n && perm.allSatisfy { (0..<n).contains($0) }, "\(v) n=\(n): not a permutation")
            perms.append(perm)
            // random signal: scrambled spectrum through the permutation vs the direct DFT
            var rng = PermLCG(state: UInt64(n) &* 131 &+ 7)
            let xr0 = (0..<n).map { _ in rng.next() }, xi0 = (0..<n).map { _ in rng.next() }
            // the reference sees exactly the rounded input
            let xr = v == .float ? xr0.map { Double(Float($0)) } : xr0
            let xi = v == .float ? xi0.map { Double(Float($0)) } : xi0
            var want = ([Double](repeating: 0, count: n), [Double](repeating: 0, count: n))
            for k in 0..<n {
                var sr = 0.0, si = 0.0
                for j in 0..<n {
                    let (wr, wi) = unit(j * k, n, sign: -1)
                    sr += xr[j] * wr - xi[j] * wi
                    si += xr[j] * wi + xi[j] * wr
                }
                want.0[k] = sr; want.1[k] = si
            }
            let (yr, yi) = transform(v, xr, xi)
            let got = ((0..<n).map { yr[perm[$0]] }, (0..<n).map { yi[perm[$0]] })
            let err = relativeRMS(got, want)
            #expect(err < v.tolerance(n), "\(v) n=\(n): error against the direct DFT \(err)")
            // round trip
            let back = transform(v, yr, yi, inverse: true)
            let rt = relativeRMS((back.0.map { $0 / Double(n) }, back.1.map { $0 / Double(n) }), (xr, xi))
            #expect(rt < v.tolerance(n), "\(v) n=\(n): round-trip error \(rt)")
        }
        // one order for every scalar type and body
        for p in perms.dropFirst() { #expect(p == perms[0], "n=\(n): the variants scramble differently") }
    }

    /// The use: spectra multiplied bin by bin and transformed back give the circular convolution.
    @Test(arguments: [4, 5, 8, 11, 13, 16]) func permutedConvolutionMatchesDirect(log2n: Int) {
        let n = 1 << log2n
        let taps = min(n / 2, 97)
        var rng = PermLCG(state: UInt64(n) &* 17 &+ 3)
        let xr = (0..<n).map { _ in rng.next() }, xi = (0..<n).map { _ in rng.next() }
        var hr = [Double](repeating: 0, count: n), hi = hr
        for t in 0..<taps { hr[t] = rng.next(); hi[t] = rng.next() }
        // the filter's spectrum in Float64 (as the resampler computes it), scaled by 1/n
        let (Hr, Hi) = transform(.doubleSwift, hr.map { $0 / Double(n) }, hi.map { $0 / Double(n) })
        // outputs to check: every one up to 2^10 points, 40 spread ones above
        let checks = n <= 1024 ? Array(0..<n) : (0..<40).map { ($0 * 7919 + 13) % n }
        for v in Variant.allCases {
            let rx = v == .float ? xr.map { Double(Float($0)) } : xr
            let ix = v == .float ? xi.map { Double(Float($0)) } : xi
            let rH = v == .float ? Hr.map { Double(Float($0)) } : Hr
            let iH = v == .float ? Hi.map { Double(Float($0)) } : Hi
            let (yr, yi) = transform(v, rx, ix, multiplyBy: (rH, iH))
            var got = ([Double](), [Double]()), want = ([Double](), [Double]())
            for j in checks {
                var sr = 0.0, si = 0.0
                for t in 0..<taps {
                    let i = (j - t + n) % n
                    sr += rx[i] * hr[t] - ix[i] * hi[t]
                    si += rx[i] * hi[t] + ix[i] * hr[t]
                }
                want.0.append(sr); want.1.append(si)
                got.0.append(yr[j]); got.1.append(yi[j])
            }
            let err = relativeRMS(got, want)
            #expect(err < 2 * v.tolerance(n), "\(v) n=\(n): convolution error \(err)")
        }
    }
}

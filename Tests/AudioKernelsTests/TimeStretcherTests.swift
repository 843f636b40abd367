// The time stretcher's kernels: its FFT (AudioKernels/FFT's RealFFT) against a direct DFT, its trigonometry, and the
// stretcher's streaming invariants (rate 1 is a pure delay; output does not depend on chunking).
import Testing
import Foundation
@testable import AudioKernels

@Suite struct TimeStretcherKernelTests {
    /// The stretcher's FFT (RealFFT<Float>, through the packed interface it uses).
    @Test func fftMatchesDirectDFT() {
        for size in [64, 128, 256, 2048] {
            let fft = RealFFT<Float>(count: size)
            var x = [Double](repeating: 0, count: size)
            var seed: UInt64 = 12345
            for i in 0..<size {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                x[i] = Double(Int64(bitPattern: seed >> 11) % 1000) / 1000
            }
            for j in 0..<size / 2 {
                fft.packedEven[j] = Float(x[2 * j])
                fft.packedOdd[j] = Float(x[2 * j + 1])
            }
            let re = UnsafeMutablePointer<Float>.allocate(capacity: size / 2 + 1)
            let im = UnsafeMutablePointer<Float>.allocate(capacity: size / 2 + 1)
            defer { re.deallocate(); im.deallocate() }
            fft.forwardPacked(re: re, im: im)
            var worst = 0.0
            for k in 0...(size / 2) {
                var sr = 0.0, si = 0.0
                for j in 0..<size {
                    let a = -2 * Double.pi * Double(j * k % size) / Double(size)
                    sr += x[j] * cos(a); si += x[j] * sin(a)
                }
                worst = max(worst, abs(sr - Double(re[k])), abs(si - Double(im[k])))
            }
            #expect(worst < 1e-4 * Double(size), "size \(size): worst error \(worst)")
            // inverse: n x the signal
            let (even, odd) = fft.inversePacked(re: re, im: im)
            var worstInverse = 0.0
            for j in 0..<size / 2 {
                worstInverse = max(worstInverse, abs(Double(even[j]) / Double(size) - x[2 * j]),
                                   abs(Double(odd[j]) / Double(size) - x[2 * j + 1]))
            }
            #expect(worstInverse < 1e-5, "size \(size): inverse error \(worstInverse)")
        }
    }

    @Test func trigonometry() {
        var worst = 0.0
        var x = -40.0
        while x < 40 {
            let (s, c) = StretchMath.sincos(x)
            worst = max(worst, abs(s - sin(x)), abs(c - cos(x)))
            for y in [-3.0, -0.5, 0, 0.2, 1, 7] {
                worst = max(worst, abs(StretchMath.atan2(y, x) - atan2(y, x)))
            }
            let w = StretchMath.wrap(x)
            #expect(w >= -Double.pi && w < Double.pi)
            let turns = (x - w) / (2 * Double.pi)
            worst = max(worst, abs(turns - turns.rounded()))
            x += 0.0137
        }
        #expect(worst < 1e-10, "worst error \(worst)")
        // the four-lane Float32 versions used per spectral peak
        var worst4 = 0.0
        var v = -3.3
        while v < 3.3 {
            let x = SIMD4<Float>(Float(v), Float(-v), Float(v * 0.3), 0.001)
            let (s4, c4) = StretchMath.sincos(x)
            let y = SIMD4<Float>(1, -2, Float(v), -0.0001)
            let a4 = StretchMath.atan2(y, x)
            let inv = StretchMath.inverseSquareRoot(x * x + 0.5)
            for l in 0..<4 {
                worst4 = max(worst4, abs(Double(s4[l]) - sin(Double(x[l]))), abs(Double(c4[l]) - cos(Double(x[l]))),
                             abs(Double(a4[l]) - atan2(Double(y[l]), Double(x[l]))),
                             abs(Double(inv[l]) * (Double(x[l] * x[l]) + 0.5).squareRoot() - 1))
            }
            v += 0.0071
        }
        #expect(worst4 < 1e-6, "worst Float32 error \(worst4)")
    }

    /// Renders `input` (mono) through a stretcher in chunks of `chunk` output frames.
    static func run(_ input: [Float], rate: Double, pitch: Double = 1, outputFrames: Int, chunk: Int) -> [Float] {
        let ts = TimeStretcher(sampleRate: 48_000, channels: 1, maximumOutputFrames: 4096)
        ts.setRate(rate)
        ts.setPitchScale(pitch)
        ts.reset()
        var out = [Float](repeating: 0, count: outputFrames)
        var consumed = 0
        var done = 0
        let o = UnsafeMutablePointer<Float>.allocate(capacity: chunk)
        defer { o.deallocate() }
        var padded = input
        padded += [Float](repeating: 0, count: 1 << 18)
        padded.withUnsafeBufferPointer { src in
            while done < outputFrames {
                let k = min(chunk, outputFrames - done)
                let need = ts.inputFramesNeeded(forOutputFrames: k)
                var ip = src.baseAddress! + consumed
                var op = o
                let got = withUnsafePointer(to: &ip) { i in
                    withUnsafePointer(to: &op) { p in
                        ts.process(input: UnsafeRawPointer(i).assumingMemoryBound(to: UnsafePointer<Float>.self), inputFrames: need,
                                   output: p, outputFrames: k)
                    }
                }
                #expect(got == k)
                consumed += need
                for i in 0..<k { out[done + i] = o[i] }
                done += k
            }
        }
        return out
    }

    @Test func rateOneIsADelayByHalfAWindow() {
        var x = [Float](repeating: 0, count: 20_000)
        var seed: UInt32 = 7
        for i in 0..<x.count { seed = seed &* 1664525 &+ 1013904223; x[i] = Float(Int32(bitPattern: seed)) / Float(Int32.max) * 0.5 }
        let y = Self.run(x, rate: 1, outputFrames: 24_000, chunk: 512)
        let d = TimeStretcher.frameSize(sampleRate: 48_000) / 2
        var worst: Float = 0
        for i in 0..<(x.count - 100) { worst = max(worst, abs(y[i + d] - x[i])) }
        #expect(worst < 1e-4, "worst \(worst)")
    }

    @Test func outputDoesNotDependOnChunking() {
        var x = [Float](repeating: 0, count: 12_000)
        for i in 0..<x.count { x[i] = sin(Float(i) * 0.05) * (i % 3000 < 200 ? 1 : 0.3) }
        let a = Self.run(x, rate: 0.7, outputFrames: 16_000, chunk: 512)
        let b = Self.run(x, rate: 0.7, outputFrames: 16_000, chunk: 97)
        #expect(a == b)
        let c = Self.run(x, rate: 1.3, pitch: 1.2, outputFrames: 9_000, chunk: 256)
        let d = Self.run(x, rate: 1.3, pitch: 1.2, outputFrames: 9_000, chunk: 1000)
        #expect(c == d)
    }
}

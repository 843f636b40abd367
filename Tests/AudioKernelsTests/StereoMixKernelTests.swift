// StereoMixKernel: both variants (AVX2 + FMA and portable) against a Float64 reference sum, for
// every input count around the four-at-a-time grouping and frame counts around the 16-frame
// prefetch line, plus the chunk-size determinism the engine's offline contract needs.
import Testing
import AudioKernels

@Suite("Stereo mix kernel")
struct StereoMixKernelTests {
    /// Deterministic pseudo-random samples in [-1, 1).
    static func noise(_ count: Int, seed: UInt64) -> [Float] {
        var x = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        return (0..<count).map { _ in
            x ^= x << 13; x ^= x >> 7; x ^= x << 17
            return Float(Double(x >> 11) / Double(1 << 52) - 1)
        }
    }

    /// Mixes `inputs` (mono when `stereo[k]` is false) with `kernel`, `chunk` frames per call.
    static func mix(_ kernel: StereoMixKernel, sources: [[Float]], stereo: [Bool], gains: [(Float, Float)],
                    frames: Int, chunk: Int, initial: Float) -> ([Float], [Float]) {
        var l = [Float](repeating: initial, count: frames), r = [Float](repeating: -initial, count: frames)
        var start = 0
        while start < frames {
            let n = min(chunk, frames - start)
            var pending: [StereoMixInput] = []
            for k in sources.indices {
                sources[k].withUnsafeBufferPointer { src in
                    let left = src.baseAddress! + start
                    let right = stereo[k] ? src.baseAddress! + frames + start : left
                    pending.append(StereoMixInput(left: left, right: right, gainLeft: gains[k].0, gainRight: gains[k].1))
                }
            }
            l.withUnsafeMutableBufferPointer { lp in
                r.withUnsafeMutableBufferPointer { rp in
                    kernel.mix(into: lp.baseAddress! + start, rp.baseAddress! + start, inputs: pending, count: pending.count, frames: n)
                }
            }
            start += n
        }
        return (l, r)
    }

    @Test("matches a Float64 sum for 0…9 inputs, mono and stereo, 0…67 frames, both variants")
    func matchesReference() {
        for kernel in [StereoMixKernel(), .portable] {
            for count in 0...9 {
                for frames in [0, 1, 3, 15, 16, 17, 31, 32, 33, 67] {
                    let stereo = (0..<count).map { $0 % 3 == 1 }
                    let sources = (0..<count).map { Self.noise(2 * max(frames, 1), seed: UInt64($0 + 1)) }
                    let gains: [(Float, Float)] = (0..<count).map { k -> (Float, Float) in (Float(k + 1) * 0.11, Float(count - k) * 0.07) }
                    let (l, r) = Self.mix(kernel, sources: sources, stereo: stereo, gains: gains, frames: frames,
                                          chunk: max(frames, 1), initial: 0.25)
                    for i in 0..<frames {
                        var el = 0.25, er = -0.25
                        for k in 0..<count {
                            el += Double(gains[k].0) * Double(sources[k][i])
                            er += Double(gains[k].1) * Double(sources[k][stereo[k] ? frames + i : i])
                        }
                        // A handful of Float32 roundings of values ≤ ~3 in magnitude.
                        #expect(abs(Double(l[i]) - el) < 4e-6, "count \(count) frames \(frames) left[\(i)]")
                        #expect(abs(Double(r[i]) - er) < 4e-6, "count \(count) frames \(frames) right[\(i)]")
                    }
                }
            }
        }
    }

    @Test("identical samples whatever the chunk size (1, 7, 16, 37, 512)")
    func chunkSizeDeterminism() {
        let frames = 1_000, count = 11
        let stereo = (0..<count).map { $0 % 2 == 0 }
        let sources = (0..<count).map { Self.noise(2 * frames, seed: UInt64(40 + $0)) }
        let gains: [(Float, Float)] = (0..<count).map { k -> (Float, Float) in
            let g = Float(k) * 0.05
            return (g + 0.01, 0.6 - g)
        }
        for kernel in [StereoMixKernel(), .portable] {
            let whole = Self.mix(kernel, sources: sources, stereo: stereo, gains: gains, frames: frames, chunk: frames, initial: 0)
            for chunk in [1, 7, 16, 37, 512] {
                let parts = Self.mix(kernel, sources: sources, stereo: stereo, gains: gains, frames: frames, chunk: chunk, initial: 0)
                #expect(parts.0 == whole.0 && parts.1 == whole.1, "chunk \(chunk), simd \(kernel.usesSIMD)")
            }
        }
    }
}

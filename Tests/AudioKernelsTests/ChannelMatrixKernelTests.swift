// ChannelMatrixKernel (the matrix in raw memory the mixer's render thread uses) against
// ChannelMatrix.apply: the same samples, bit for bit, for remaps, downmixes with several terms
// per row, unit and non-unit first gains, and silent rows; and both against a direct Float64
// evaluation of Σ gain · input.
import Testing
import AudioKernels

@Suite("Channel matrix kernel")
struct ChannelMatrixKernelTests {
    static func channels(_ count: Int, frames: Int, seed: UInt64) -> [[Float]] {
        (0..<count).map { StereoMixKernelTests.noise(frames, seed: seed &+ UInt64($0)) }
    }

    static func run(_ apply: (UnsafePointer<UnsafeMutablePointer<Float>>, UnsafePointer<UnsafeMutablePointer<Float>>) -> Void,
                    input: [[Float]], outputs: Int, frames: Int) -> [[Float]] {
        let inPointers = input.map { row -> UnsafeMutablePointer<Float> in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: frames)
            p.initialize(from: row, count: frames)
            return p
        }
        let outPointers = (0..<outputs).map { _ -> UnsafeMutablePointer<Float> in
            let p = UnsafeMutablePointer<Float>.allocate(capacity: frames)
            p.initialize(repeating: 7, count: frames)   // stale contents the matrix must overwrite
            return p
        }
        defer { (inPointers + outPointers).forEach { $0.deallocate() } }
        inPointers.withUnsafeBufferPointer { i in
            outPointers.withUnsafeBufferPointer { o in apply(i.baseAddress!, o.baseAddress!) }
        }
        return outPointers.map { Array(UnsafeBufferPointer(start: $0, count: frames)) }
    }

    @Test(arguments: [
        // 5.1 → stereo downmix (L, R, C, LFE, Ls, Rs)
        [[1, 0, 0.7071, 0, 0.7071, 0], [0, 1, 0.7071, 0, 0, 0.7071]] as [[Float]],
        // a remap with a silent row and a channel used twice
        [[0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0], [0, 0, 1, 0, 0, 0]],
        // non-unit first gains, many terms
        [[0.25, 0.5, -0.75, 1.5, 0.125, 2], [-1, 0, 0, 0, 0, 0.3]],
    ])
    func sameSamplesAsChannelMatrix(gains: [[Float]]) {
        let frames = 1_000
        let input = Self.channels(6, frames: frames, seed: 42)
        let matrix = ChannelMatrix(gains: gains, inputChannels: 6)
        let kernel = ChannelMatrixKernel(matrix)
        let reference = Self.run({ matrix.apply(frames: frames, input: $0, output: $1) }, input: input, outputs: gains.count, frames: frames)
        let flat = Self.run({ kernel.apply(frames: frames, input: $0, output: $1) }, input: input, outputs: gains.count, frames: frames)
        #expect(kernel.outputChannels == gains.count)
        for o in 0..<gains.count {
            #expect(flat[o] == reference[o], "output \(o) differs from ChannelMatrix.apply")
            var worst = 0.0
            for n in 0..<frames {
                let exact = (0..<6).reduce(0.0) { $0 + Double(gains[o][$1]) * Double(input[$1][n]) }
                worst = max(worst, abs(exact - Double(flat[o][n])))
            }
            #expect(worst < 1e-5, "output \(o): \(worst) from the Float64 sum")
        }
    }
}

// A `ChannelMatrix` flattened for the render thread: the same terms in raw memory (no arrays,
// whose buffers a reader retains), applied with the same arithmetic in the same order, so the
// samples are bit-for-bit those of `ChannelMatrix.apply`. Built on the control side; `apply` is
// proved free of locks, allocation and reference counting (`ChannelMatrixKernelRealTimeSafety`).

/// A channel matrix in raw memory, for the render thread.
public final class ChannelMatrixKernel {
    /// Output channels.
    public let outputChannels: Int
    /// Row `o`'s terms are `terms[rowStart[o] ..< rowStart[o + 1]]`.
    private let rowStart: UnsafeMutablePointer<Int>
    private let inputs: UnsafeMutablePointer<Int>
    private let gains: UnsafeMutablePointer<Float>

    public init(_ matrix: ChannelMatrix) {
        outputChannels = matrix.rows.count
        let total = matrix.rows.reduce(0) { $0 + $1.count }
        rowStart = .allocate(capacity: outputChannels + 1)
        inputs = .allocate(capacity: max(1, total))
        gains = .allocate(capacity: max(1, total))
        var k = 0
        for (o, row) in matrix.rows.enumerated() {
            rowStart[o] = k
            for term in row {
                inputs[k] = term.input
                gains[k] = term.gain
                k += 1
            }
        }
        rowStart[outputChannels] = k
    }

    deinit {
        rowStart.deallocate()
        inputs.deallocate()
        gains.deallocate()
    }

    /// `ChannelMatrix.apply` (same operations, same order). `input` and `output` must not overlap.
    public func apply(frames: Int, input: UnsafePointer<UnsafeMutablePointer<Float>>,
                      output: UnsafePointer<UnsafeMutablePointer<Float>>) {
        var o = 0
        while o < outputChannels {
            let dst = output[o]
            let start = rowStart[o], end = rowStart[o + 1]
            o += 1
            if start == end {
                var n = 0
                while n < frames { dst[n] = 0; n += 1 }
                continue
            }
            let src0 = UnsafePointer(input[inputs[start]])
            let g0 = gains[start]
            if g0 == 1 {
                UnsafeMutableRawPointer(dst).copyMemory(from: src0, byteCount: frames &* MemoryLayout<Float>.stride)
            } else {
                var n = 0
                while n < frames { dst[n] = src0[n] * g0; n += 1 }
            }
            var t = start + 1
            while t < end {
                let src = UnsafePointer(input[inputs[t]])
                let g = gains[t]
                t += 1
                var n = 0
                while n < frames { dst[n] += src[n] * g; n += 1 }
            }
        }
    }
}

#if !DEBUG && !AVAUDIO_TESTABLE_RELEASE
enum ChannelMatrixKernelRealTimeSafety {
    @_noLocks
    static func apply(_ k: ChannelMatrixKernel, _ i: UnsafePointer<UnsafeMutablePointer<Float>>,
                      _ o: UnsafePointer<UnsafeMutablePointer<Float>>, _ n: Int) {
        k.apply(frames: n, input: i, output: o)
    }
}
#endif

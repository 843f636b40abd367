// Channel remapping and mixing: out[o] = Σ_i gain[o][i] · in[i], on deinterleaved Float32.
//
// The matrix is dense but usually sparse in practice (a remap has one 1 per row); rows are stored
// as (input index, gain) pairs so a remap costs one copy per output channel and a 5.1 → stereo
// downmix three multiply-adds per output sample.

/// A fixed channel matrix, built once (control side) and applied allocation-free.
public struct ChannelMatrix: Sendable, Equatable {
    /// One input's contribution to an output channel.
    public struct Term: Sendable, Equatable {
        public var input: Int
        public var gain: Float
    }

    /// For each output channel, the contributing inputs and their gains (empty = silent).
    public let rows: [[Term]]
    public let inputChannels: Int

    /// - Parameter gains: `gains[o][i]` is the gain from input `i` to output `o`; zeros are dropped.
    public init(gains: [[Float]], inputChannels: Int) {
        self.inputChannels = inputChannels
        rows = gains.map { row in row.enumerated().compactMap { $0.element == 0 ? nil : Term(input: $0.offset, gain: $0.element) } }
    }

    /// A remap: output `o` copies input `map[o]`, or is silent when `map[o]` is negative or out of range.
    public init(map: [Int], inputChannels: Int) {
        self.inputChannels = inputChannels
        rows = map.map { $0 >= 0 && $0 < inputChannels ? [Term(input: $0, gain: 1)] : [] }
    }

    public var outputChannels: Int { rows.count }

    /// True when output `o` is input `o` for every channel and nothing else.
    public var isIdentity: Bool {
        rows.count == inputChannels && rows.enumerated().allSatisfy { $0.element.count == 1 && $0.element[0].input == $0.offset && $0.element[0].gain == 1 }
    }

    /// Applies the matrix to `frames` frames. `input` and `output` must not overlap.
    ///
    /// Index loops only (no `for … in array`): unspecialised debug builds allocate a coroutine
    /// frame per element when iterating arrays generically, and this runs on the render thread.
    public func apply(frames: Int, input: UnsafePointer<UnsafeMutablePointer<Float>>, inputOffset: Int = 0,
                      output: UnsafePointer<UnsafeMutablePointer<Float>>, outputOffset: Int = 0) {
        var o = 0
        while o < rows.count {
            let row = rows[o]
            let dst = output[o] + outputOffset
            o += 1
            if row.isEmpty {
                dst.update(repeating: 0, count: frames)
                continue
            }
            let first = row[0]
            let src0 = UnsafePointer(input[first.input] + inputOffset)
            if first.gain == 1 {
                dst.update(from: src0, count: frames)
            } else {
                let g = first.gain
                for n in 0..<frames { dst[n] = src0[n] * g }
            }
            var t = 1
            while t < row.count {
                let term = row[t]
                t += 1
                let src = UnsafePointer(input[term.input] + inputOffset)
                let g = term.gain
                for n in 0..<frames { dst[n] += src[n] * g }
            }
        }
    }
}

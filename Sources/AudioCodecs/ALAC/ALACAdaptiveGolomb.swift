// ALAC's entropy coder: adaptive Golomb-Rice codes whose parameter follows a running mean of the
// recent magnitudes, with a run-length escape for stretches of zeros.
//
// Each residual r is first folded to an unsigned n (0, -1, 1, -2, … → 0, 1, 2, 3, …; n even for
// r ≥ 0). With `mean` the running history (initially the cookie's mb), the parameter is
// k = min(⌊log2(mean/512 + 3)⌋, kb) and n is coded as a unary prefix q of ones ended by a zero,
// then — unless k is 1 — k bits v, where n = q·(2^k − 1) + v − 1 when v ≥ 2, and n = q·(2^k − 1)
// with only k − 1 bits taken when v < 2 (the top k − 1 bits then read 0). A prefix of nine ones
// escapes: n follows in `escapeBits` plain bits. After each value the history moves towards n:
// mean += pb·n − (pb·mean)/512 (pb = the cookie's pb × the channel's factor / 4), and is pinned
// at 0xFFFF when n exceeds it. When the history falls below 128 a zero run may follow: its length
// is coded the same way with k = clz(mean) − 24 + (mean + 16)/64 and 16-bit escapes, the zeros are
// emitted, and the next value is coded one lower (n − 1) unless the run reached 65,535; the
// history restarts at 0.
//
// (This reading of the format comes from Apple's public ALAC description and open-source
// reference decoder's documented behaviour; the code here is written afresh. The same arithmetic
// runs in the encoder, ALACEncoder.swift, in reverse.)

enum ALACAdaptiveGolomb {
    static let historyShift: UInt32 = 9          // QBSHIFT
    static let maximumPrefix = 9                 // MAX_PREFIX_16 / MAX_PREFIX_32
    static let meanClamp: UInt32 = 0xFFFF

    /// The parameter for a value given the history.
    @inline(__always)
    static func valueParameter(_ mean: UInt32, limit: Int) -> Int {
        let m = (mean >> historyShift) &+ 3
        return min(31 - m.leadingZeroBitCount, limit)
    }

    /// The parameter for a zero-run length given the history (which is below 128).
    @inline(__always)
    static func runParameter(_ mean: UInt32) -> Int {
        mean.leadingZeroBitCount - 24 + Int((mean &+ 16) >> 6)
    }

    /// Reads one code with parameter `k` (multiplier m = (2^k − 1) masked as the format does).
    @inline(__always)
    static func read(_ r: inout ALACBitReader, k: Int, m: UInt32, escapeBits: Int) throws -> UInt32 {
        let w = r.peek64()
        let prefix = (~w).leadingZeroBitCount
        if prefix >= maximumPrefix {
            try r.skip(maximumPrefix)
            return UInt32(truncatingIfNeeded: try r.read(escapeBits))
        }
        if k <= 1 {
            try r.skip(prefix + 1)
            return UInt32(prefix) &* m
        }
        let v = UInt32(truncatingIfNeeded: (w << UInt64(prefix + 1)) >> UInt64(64 - k))
        if v >= 2 {
            try r.skip(prefix + 1 + k)
            return UInt32(prefix) &* m &+ v &- 1
        }
        try r.skip(prefix + k)
        return UInt32(prefix) &* m
    }

    /// Decodes `count` residuals into `out`.
    static func decode(_ r: inout ALACBitReader, into out: UnsafeMutablePointer<Int32>, count: Int,
                       initialHistory: UInt32, pb: UInt32, kb: Int, escapeBits: Int) throws {
        var mean = initialHistory
        var zeroMode: UInt32 = 0
        let wb = kb >= 32 ? UInt32.max : (UInt32(1) << UInt32(kb)) &- 1
        var c = 0
        while c < count {
            let k = valueParameter(mean, limit: kb)
            let m = k >= 32 ? UInt32.max : (UInt32(1) << UInt32(k)) &- 1
            let n = try read(&r, k: k, m: m, escapeBits: escapeBits)
            let folded = n &+ zeroMode
            // even → +folded/2, odd → −(folded+1)/2
            out[c] = Int32(bitPattern: (folded &+ 1) >> 1) &* (folded & 1 == 0 ? 1 : -1)
            c += 1
            mean = pb &* folded &+ mean &- ((pb &* mean) >> historyShift)
            if n > meanClamp { mean = meanClamp }
            zeroMode = 0
            if (mean << 2) < (1 << historyShift) && c < count {
                zeroMode = 1
                let kz = runParameter(mean)
                let mz = ((UInt32(1) << UInt32(kz)) &- 1) & wb
                let run = Int(try read(&r, k: kz, m: mz, escapeBits: 16))
                guard run <= count - c else {
                    throw CodecError(.corrupt, "Apple Lossless: a run of \(run) zeros goes past the packet's \(count) samples")
                }
                (out + c).initialize(repeating: 0, count: run)
                c += run
                if run >= 65535 { zeroMode = 0 }
                mean = 0
            }
        }
    }
}

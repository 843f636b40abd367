// Decodes FLAC frames (RFC 9639 §9–§11): frame header, one subframe per channel (constant,
// verbatim, fixed or linear prediction, each with Rice-coded residuals), interchannel
// decorrelation (left/side, side/right, mid/side), CRC-8 of the header and CRC-16 of the frame.
//
// Samples are decoded into 64-bit integers: a side channel carries one bit more than the
// stream's samples (33 bits for 32-bit audio), and prediction sums need the headroom. Memory is
// one buffer per channel of the largest block a frame can declare (65,536 samples), allocated
// when a frame first needs it, never per frame.
//
// Linear prediction, the largest share of a decode, runs in C with AVX2 where the CPU has it
// (CFLACKernels/lpc.c) for every subframe whose samples fit 32 bits; in a stereo frame whose two
// subframes both predict, both residual runs are decoded first and the two restores share one
// loop (two independent dependency chains keep the multiplier busy). Elsewhere, and with
// OPENAVFAUDIO_FLAC_PORTABLE=1, the Swift loop (`restoreLPC`) does it; both give the same samples.

import CFLACKernels

/// What a frame header says.
public struct FLACFrameHeader: Equatable {
    public var blockSize: Int
    public var sampleRate: Int
    /// 0…7: independent channels (value + 1 of them); 8 left/side; 9 side/right; 10 mid/side.
    public var channelAssignment: Int
    public var channelCount: Int
    public var bitsPerSample: Int
    /// True: `number` is the first sample's number (variable block size); false: the frame's.
    public var variableBlockSize: Bool
    public var number: Int64
}

public final class FLACFrameDecoder {
    public let info: FLACStreamInfo

    /// What the decoded frames used (for tests and diagnostics): subframe kinds, Rice escape
    /// partitions, subframes with wasted bits, frames per channel assignment (index 0…10).
    public struct Statistics: Equatable {
        public var constant = 0, verbatim = 0, fixed = 0, lpc = 0
        public var escapedPartitions = 0, wastedBits = 0
        public var largestLPCOrder = 0
        public var assignments = [Int](repeating: 0, count: 11)
        public init() {}
    }
    public private(set) var statistics = Statistics()
    /// One buffer per channel, `capacity` samples each (grown up to 65,536).
    private var buffers: [UnsafeMutablePointer<Int64>] = []
    private var capacity = 0
    /// LPC coefficients of the subframes being decoded (at most 32 each): channel 0's at 0,
    /// channel 1's at 32 (a stereo frame's two restores may run together), any other at 0.
    private let coefficients = UnsafeMutablePointer<Int64>.allocate(capacity: 64)

    /// A linear-prediction subframe whose residuals are decoded but not yet turned into samples
    /// (see `decodeFrame`: a stereo frame's two restores run in one loop).
    private struct PendingLPC {
        var order: Int
        var shift: Int
        var wasted: Int
        var coefficients: UnsafeMutablePointer<Int64>
    }

    /// Whether linear prediction may use the AVX2 loops of CFLACKernels/lpc.c (CPUID, once;
    /// OPENAVFAUDIO_FLAC_PORTABLE=1 keeps the Swift loop).
    static let lpcUsesAVX2 = cflac_has_avx2() != 0

    public init(info: FLACStreamInfo) {
        self.info = info
    }

    deinit {
        for b in buffers { b.deallocate() }
        coefficients.deallocate()
    }

    /// The samples of channel `c` of the last decoded frame (`header.blockSize` of them).
    public func samples(channel c: Int) -> UnsafePointer<Int64> {
        if let pending = pendingDecorrelation {
            pendingDecorrelation = nil
            decorrelate(pending)
        }
        return UnsafePointer(buffers[c])
    }

    /// The header of the last frame when it was decoded with `deferringDecorrelation` and its
    /// stereo channels still hold left/side, side/right or mid/side (see `convertToFloat32`).
    private var pendingDecorrelation: FLACFrameHeader?

    /// Samples `first..<first + count` of every channel of the last decoded frame, as Float32:
    /// each sample shifted left by `shift` bits, truncated to 32 bits, times `scale` (the PCM
    /// container's integer over its full scale), into `channels[c] + offset`. When the frame's
    /// stereo decorrelation was deferred, it happens here, in the same pass as the conversion
    /// (one read of the two channels instead of a write-back and a second read), leaving the
    /// frame's buffers as they are.
    public func convertToFloat32(from first: Int, count n: Int, shift: Int, scale: Float,
                                 into channels: UnsafePointer<UnsafeMutablePointer<Float>>, at offset: Int) {
        // (a loop in C, vectorised, AVX2 where the CPU has it: see CFLACKernels/float.c)
        let kernel = Self.floatKernelUsesAVX2 ? cflac_to_float_avx2 : cflac_to_float_portable
        let shift = Int32(shift)
        guard let pending = pendingDecorrelation else {
            for c in 0..<info.channelCount {
                let s = UnsafePointer(buffers[c]) + first
                kernel(s, s, 0, n, shift, scale, channels[c] + offset, channels[c] + offset)
            }
            return
        }
        kernel(UnsafePointer(buffers[0]) + first, UnsafePointer(buffers[1]) + first, Int32(pending.channelAssignment), n,
               shift, scale, channels[0] + offset, channels[1] + offset)
    }

    /// Whether `convertToFloat32` may use the AVX2 copy of its loop (CPUID, once).
    static let floatKernelUsesAVX2 = cflac_has_avx2() != 0

    private func reserve(channels: Int, samples: Int) {
        if samples > capacity {
            for b in buffers { b.deallocate() }
            buffers = (0..<channels).map { _ in .allocate(capacity: samples) }
            capacity = samples
        }
        while buffers.count < channels { buffers.append(.allocate(capacity: capacity)) }
    }

    /// Decodes the frame starting at byte `offset` of `bytes`. Returns its header and its length
    /// in bytes (the next frame starts right after).
    ///
    /// With `deferringDecorrelation`, a stereo frame's left/side, side/right or mid/side channels
    /// are turned into left and right only when they are asked for: in `convertToFloat32`'s
    /// pass (fused with the conversion), or by the first `samples(channel:)`.
    public func decodeFrame(_ bytes: UnsafeRawBufferPointer, at offset: Int,
                            deferringDecorrelation: Bool = false) throws -> (header: FLACFrameHeader, length: Int) {
        pendingDecorrelation = nil
        let p = bytes.bindMemory(to: UInt8.self).baseAddress!
        var r = FLACBitReader(p, count: bytes.count, byteOffset: offset)
        let header = try readHeader(&r, base: p, start: offset)
        reserve(channels: header.channelCount, samples: header.blockSize)
        statistics.assignments[header.channelAssignment] += 1
        // A stereo frame's two linear-prediction restores wait until both subframes' residuals
        // are decoded, then run in one loop (two independent dependency chains; lpc.c).
        let pairing = header.channelCount == 2 && Self.lpcUsesAVX2
        var first: PendingLPC? = nil, second: PendingLPC? = nil
        for c in 0..<header.channelCount {
            var bits = header.bitsPerSample
            switch (header.channelAssignment, c) {
            case (8, 1), (9, 0), (10, 1): bits += 1   // the side channel
            default: break
            }
            let deferred = try decodeSubframe(&r, into: buffers[c], blockSize: header.blockSize, bits: bits, channel: c,
                                              deferringLPC: pairing)
            if c == 0 { first = deferred } else { second = deferred }
        }
        if pairing { restorePair(first, second, blockSize: header.blockSize) }
        r.alignToByte()
        let end = r.bitPosition / 8
        let crc = FLACChecksums.crc16(p + offset, end - offset)
        let stored = UInt16(try r.read(16))
        guard crc == stored else {
            throw CodecError(.corrupt, "FLAC: frame at byte \(offset) fails its CRC-16 check (damaged data)")
        }
        if deferringDecorrelation && header.channelAssignment >= 8 {
            pendingDecorrelation = header
        } else {
            decorrelate(header)
        }
        return (header, end + 2 - offset)
    }

    // MARK: header

    /// Parses (without decoding the audio) the frame header at byte `offset`: sync code,
    /// fields, CRC-8, consistency with STREAMINFO. Throws when it is not a valid header, so a
    /// scan for frame boundaries can test candidate positions with it.
    public func frameHeader(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws -> FLACFrameHeader {
        let p = bytes.bindMemory(to: UInt8.self).baseAddress!
        var r = FLACBitReader(p, count: bytes.count, byteOffset: offset)
        return try readHeader(&r, base: p, start: offset)
    }

    private func readHeader(_ r: inout FLACBitReader, base: UnsafePointer<UInt8>, start: Int) throws -> FLACFrameHeader {
        guard try r.read(14) == 0x3FFE else { throw CodecError(.corrupt, "FLAC: no frame sync code at byte \(start)") }
        guard try r.read(1) == 0 else { throw CodecError(.corrupt, "FLAC: reserved bit set in the frame header at byte \(start)") }
        let variable = try r.read(1) == 1
        let sizeCode = Int(try r.read(4)), rateCode = Int(try r.read(4))
        let channelCode = Int(try r.read(4)), depthCode = Int(try r.read(3))
        guard try r.read(1) == 0 else { throw CodecError(.corrupt, "FLAC: reserved bit set in the frame header at byte \(start)") }
        // The frame or sample number, in UTF-8's variable-length layout (up to 36 bits).
        let first = try r.read(8)
        var number = Int64(0)
        var extra = 0
        switch first {
        case 0..<0x80: number = Int64(first)
        case 0xC0..<0xE0: number = Int64(first & 0x1F); extra = 1
        case 0xE0..<0xF0: number = Int64(first & 0x0F); extra = 2
        case 0xF0..<0xF8: number = Int64(first & 0x07); extra = 3
        case 0xF8..<0xFC: number = Int64(first & 0x03); extra = 4
        case 0xFC..<0xFE: number = Int64(first & 0x01); extra = 5
        case 0xFE: number = 0; extra = 6
        default: throw CodecError(.corrupt, "FLAC: invalid coded frame number at byte \(start)")
        }
        for _ in 0..<extra {
            let b = try r.read(8)
            guard b & 0xC0 == 0x80 else { throw CodecError(.corrupt, "FLAC: invalid coded frame number at byte \(start)") }
            number = number << 6 | Int64(b & 0x3F)
        }
        let blockSize: Int
        switch sizeCode {
        case 0: throw CodecError(.corrupt, "FLAC: reserved block size code at byte \(start)")
        case 1: blockSize = 192
        case 2...5: blockSize = 576 << (sizeCode - 2)
        case 6: blockSize = Int(try r.read(8)) + 1
        case 7: blockSize = Int(try r.read(16)) + 1
        default: blockSize = 256 << (sizeCode - 8)
        }
        let rate: Int
        switch rateCode {
        case 0: rate = info.sampleRate
        case 1: rate = 88_200
        case 2: rate = 176_400
        case 3: rate = 192_000
        case 4: rate = 8_000
        case 5: rate = 16_000
        case 6: rate = 22_050
        case 7: rate = 24_000
        case 8: rate = 32_000
        case 9: rate = 44_100
        case 10: rate = 48_000
        case 11: rate = 96_000
        case 12: rate = Int(try r.read(8)) * 1000
        case 13: rate = Int(try r.read(16))
        case 14: rate = Int(try r.read(16)) * 10
        default: throw CodecError(.corrupt, "FLAC: invalid sample rate code at byte \(start)")
        }
        let depth: Int
        switch depthCode {
        case 0: depth = info.bitsPerSample
        case 1: depth = 8
        case 2: depth = 12
        case 3: throw CodecError(.corrupt, "FLAC: reserved sample size code at byte \(start)")
        case 4: depth = 16
        case 5: depth = 20
        case 6: depth = 24
        default: depth = 32
        }
        let channels: Int
        switch channelCode {
        case 0...7: channels = channelCode + 1
        case 8...10: channels = 2
        default: throw CodecError(.corrupt, "FLAC: reserved channel assignment \(channelCode) at byte \(start)")
        }
        let headerEnd = r.bitPosition / 8
        let crc = FLACChecksums.crc8(base + start, headerEnd - start)
        guard UInt8(try r.read(8)) == crc else {
            throw CodecError(.corrupt, "FLAC: frame header at byte \(start) fails its CRC-8 check (damaged data)")
        }
        guard channels == info.channelCount else {
            throw CodecError(.corrupt, "FLAC: frame at byte \(start) has \(channels) channels; the stream has \(info.channelCount)")
        }
        guard depth == info.bitsPerSample else {
            throw CodecError(.corrupt, "FLAC: frame at byte \(start) has \(depth)-bit samples; the stream has \(info.bitsPerSample)-bit")
        }
        return FLACFrameHeader(blockSize: blockSize, sampleRate: rate, channelAssignment: channelCode, channelCount: channels,
                               bitsPerSample: depth, variableBlockSize: variable, number: number)
    }

    // MARK: subframes

    /// Decodes one subframe into `s`. With `deferringLPC`, a linear-prediction subframe whose
    /// samples fit 32 bits is left as warm-up samples and residuals, and what its restore needs
    /// is returned (the caller restores it and applies its wasted bits); otherwise returns nil.
    @discardableResult
    private func decodeSubframe(_ r: inout FLACBitReader, into s: UnsafeMutablePointer<Int64>, blockSize n: Int, bits frameBits: Int, channel: Int,
                                deferringLPC: Bool = false) throws -> PendingLPC? {
        guard try r.read(1) == 0 else { throw CodecError(.corrupt, "FLAC: subframe \(channel) starts with a set padding bit") }
        let type = Int(try r.read(6))
        var wasted = 0
        if try r.read(1) == 1 {
            wasted = try r.readUnary() + 1
            statistics.wastedBits += 1
        }
        let bits = frameBits - wasted
        guard bits > 0 else { throw CodecError(.corrupt, "FLAC: subframe \(channel) wastes \(wasted) of its \(frameBits) bits") }
        switch type {
        case 0:
            statistics.constant += 1
            let v = try r.readSigned(bits)
            s.update(repeating: v, count: n)
        case 1:
            statistics.verbatim += 1
            for i in 0..<n { s[i] = try r.readSigned(bits) }
        case 8...12:
            let order = type - 8
            statistics.fixed += 1
            guard order <= n else { throw CodecError(.corrupt, "FLAC: subframe \(channel): predictor order \(order) exceeds the block size \(n)") }
            for i in 0..<order { s[i] = try r.readSigned(bits) }
            try decodeResidual(&r, into: s, blockSize: n, order: order)
            Self.restoreFixed(s, n, order)
        case 32...63:
            let order = type - 31
            statistics.lpc += 1
            statistics.largestLPCOrder = max(statistics.largestLPCOrder, order)
            guard order <= n else { throw CodecError(.corrupt, "FLAC: subframe \(channel): predictor order \(order) exceeds the block size \(n)") }
            for i in 0..<order { s[i] = try r.readSigned(bits) }
            let precisionCode = Int(try r.read(4))
            guard precisionCode != 15 else { throw CodecError(.corrupt, "FLAC: subframe \(channel): invalid coefficient precision") }
            let precision = precisionCode + 1
            let shift = Int(try r.readSigned(5))
            guard shift >= 0 else { throw CodecError(.corrupt, "FLAC: subframe \(channel): negative prediction shift") }
            let c = coefficients + (channel == 1 ? 32 : 0)
            for j in 0..<order { c[j] = try r.readSigned(precision) }
            try decodeResidual(&r, into: s, blockSize: n, order: order)
            // The AVX2 loops multiply the low 32 bits of each sample: a valid stream's samples
            // fit the subframe's depth, so they are exact up to 32 bits (lpc.c).
            if Self.lpcUsesAVX2 && bits <= 32 {
                let p = PendingLPC(order: order, shift: shift, wasted: wasted, coefficients: c)
                if deferringLPC { return p }
                cflac_lpc_restore_avx2(s, c, Int32(order), Int32(shift), n)   // (wasted bits below)
            } else {
                Self.restoreLPC(s, n, order, c, shift)
            }
        default:
            throw CodecError(.corrupt, "FLAC: subframe \(channel) has the reserved type \(type)")
        }
        if wasted > 0 {
            for i in 0..<n { s[i] <<= Int64(wasted) }
        }
        return nil
    }

    /// Rice-coded residuals after the `order` warm-up samples (RFC 9639 §9.2.7).
    private func decodeResidual(_ r: inout FLACBitReader, into s: UnsafeMutablePointer<Int64>, blockSize n: Int, order: Int) throws {
        let method = try r.read(2)
        guard method < 2 else { throw CodecError(.corrupt, "FLAC: reserved residual coding method") }
        let parameterBits = method == 0 ? 4 : 5
        let escape = method == 0 ? 15 : 31
        let partitionOrder = Int(try r.read(4))
        let partitions = 1 << partitionOrder
        let perPartition = n >> partitionOrder
        guard perPartition << partitionOrder == n, perPartition >= order else {
            throw CodecError(.corrupt, "FLAC: residual partition order \(partitionOrder) does not divide the block of \(n) (predictor order \(order))")
        }
        var i = order
        for partition in 0..<partitions {
            let count = perPartition - (partition == 0 ? order : 0)
            let k = Int(try r.read(parameterBits))
            if k == escape {
                statistics.escapedPartitions += 1
                let rawBits = Int(try r.read(5))
                for _ in 0..<count {
                    s[i] = try r.readSigned(rawBits)
                    i += 1
                }
            } else {
                // (the output index is bounded by the partition arithmetic above)
                try r.readRiceRun(into: s + i, count: count, parameter: k)
                i &+= count
            }
        }
    }

    /// Restores a stereo frame's deferred linear-prediction subframes with the AVX2 loops: both
    /// in one loop when both are deferred, else the one that is.
    private func restorePair(_ a: PendingLPC?, _ b: PendingLPC?, blockSize n: Int) {
        if let a, let b {
            cflac_lpc_restore_pair_avx2(buffers[0], a.coefficients, Int32(a.order), Int32(a.shift),
                                        buffers[1], b.coefficients, Int32(b.order), Int32(b.shift), n)
            Self.shiftWasted(buffers[0], n, a.wasted)
            Self.shiftWasted(buffers[1], n, b.wasted)
        } else if let a {
            Self.restore(a, buffers[0], n)
        } else if let b {
            Self.restore(b, buffers[1], n)
        }
    }

    /// One deferred subframe's restore (AVX2) and wasted bits.
    private static func restore(_ p: PendingLPC, _ s: UnsafeMutablePointer<Int64>, _ n: Int) {
        cflac_lpc_restore_avx2(s, p.coefficients, Int32(p.order), Int32(p.shift), n)
        shiftWasted(s, n, p.wasted)
    }

    private static func shiftWasted(_ s: UnsafeMutablePointer<Int64>, _ n: Int, _ wasted: Int) {
        guard wasted > 0 else { return }
        for i in 0..<n { s[i] <<= Int64(wasted) }
    }

    /// Fixed polynomial predictors of order 0…4: the residuals in `s[order...]` become samples
    /// (the caller checked `order <= n`). Each order is its own loop, the previous samples kept in
    /// registers.
    static func restoreFixed(_ s: UnsafeMutablePointer<Int64>, _ n: Int, _ order: Int) {
        guard order > 0, n > order else { return }
        var i = order
        switch order {
        case 1:
            var a = s[0]
            while i < n { a &+= s[i]; s[i] = a; i &+= 1 }
        case 2:
            var a = s[1], b = s[0]
            while i < n { let v = s[i] &+ 2 &* a &- b; s[i] = v; b = a; a = v; i &+= 1 }
        case 3:
            var a = s[2], b = s[1], d = s[0]
            while i < n { let v = s[i] &+ 3 &* (a &- b) &+ d; s[i] = v; d = b; b = a; a = v; i &+= 1 }
        case 4:
            var a = s[3], b = s[2], d = s[1], e = s[0]
            while i < n { let v = s[i] &+ 4 &* (a &+ d) &- 6 &* b &- e; s[i] = v; e = d; d = b; b = a; a = v; i &+= 1 }
        default: break
        }
    }

    /// Linear prediction: s[i] += (Σ c[j]·s[i−1−j]) >> shift, wrapping 64-bit arithmetic (the
    /// sums of a valid stream fit; a hostile one gets wrong samples, never a trap). Every order
    /// 1…32 gets its own copy of the loop with the order a constant, so the compiler unrolls
    /// the inner sum.
    static func restoreLPC(_ s: UnsafeMutablePointer<Int64>, _ n: Int, _ order: Int, _ c: UnsafeMutablePointer<Int64>, _ shift: Int) {
        switch order {
        case 1: lpc(s, n, 1, c, shift)
        case 2: lpc(s, n, 2, c, shift)
        case 3: lpc(s, n, 3, c, shift)
        case 4: lpc(s, n, 4, c, shift)
        case 5: lpc(s, n, 5, c, shift)
        case 6: lpc(s, n, 6, c, shift)
        case 7: lpc(s, n, 7, c, shift)
        case 8: lpc(s, n, 8, c, shift)
        case 9: lpc(s, n, 9, c, shift)
        case 10: lpc(s, n, 10, c, shift)
        case 11: lpc(s, n, 11, c, shift)
        case 12: lpc(s, n, 12, c, shift)
        case 13: lpc(s, n, 13, c, shift)
        case 14: lpc(s, n, 14, c, shift)
        case 15: lpc(s, n, 15, c, shift)
        case 16: lpc(s, n, 16, c, shift)
        case 17: lpc(s, n, 17, c, shift)
        case 18: lpc(s, n, 18, c, shift)
        case 19: lpc(s, n, 19, c, shift)
        case 20: lpc(s, n, 20, c, shift)
        case 21: lpc(s, n, 21, c, shift)
        case 22: lpc(s, n, 22, c, shift)
        case 23: lpc(s, n, 23, c, shift)
        case 24: lpc(s, n, 24, c, shift)
        case 25: lpc(s, n, 25, c, shift)
        case 26: lpc(s, n, 26, c, shift)
        case 27: lpc(s, n, 27, c, shift)
        case 28: lpc(s, n, 28, c, shift)
        case 29: lpc(s, n, 29, c, shift)
        case 30: lpc(s, n, 30, c, shift)
        case 31: lpc(s, n, 31, c, shift)
        case 32: lpc(s, n, 32, c, shift)
        default: lpc(s, n, order, c, shift)
        }
    }

    @inline(__always)
    private static func lpc(_ s: UnsafeMutablePointer<Int64>, _ n: Int, _ order: Int, _ c: UnsafeMutablePointer<Int64>, _ shift: Int) {
        guard n > order else { return }
        var i = order
        let shift = Int64(shift)
        let c0 = c[0]
        // The newest sample stays in a register and its product is added last, so the
        // dependency from one output sample to the next is one multiply, an add, the shift and
        // the residual's add; the older terms do not wait for it.
        var previous = s[i &- 1]
        while i < n {
            var sum: Int64 = 0
            var j = order &- 1
            while j > 0 {
                sum &+= c[j] &* s[i &- 1 &- j]
                j &-= 1
            }
            sum &+= c0 &* previous
            previous = s[i] &+ (sum &>> shift)
            s[i] = previous
            i &+= 1
        }
    }

    /// Left/side, side/right and mid/side back to left and right (RFC 9639 §4.2).
    private func decorrelate(_ h: FLACFrameHeader) {
        let n = h.blockSize
        switch h.channelAssignment {
        case 8:
            let l = buffers[0], side = buffers[1]
            for i in 0..<n { side[i] = l[i] &- side[i] }
        case 9:
            let side = buffers[0], r = buffers[1]
            for i in 0..<n { side[i] = side[i] &+ r[i] }
        case 10:
            let m = buffers[0], side = buffers[1]
            for i in 0..<n {
                let mid = m[i] << 1 | (side[i] & 1)
                m[i] = (mid &+ side[i]) >> 1
                side[i] = (mid &- side[i]) >> 1
            }
        default: break
        }
    }
}

// FLAC encoder (RFC 9639), written from the specification.
//
// Design note. The encoder turns blocks of integer samples (one array per channel) into FLAC
// frames; the stream header, buffering and file handling belong to the caller (the file writer in
// AudioFileFormats). Every choice below is made by estimated size; the bits actually written are
// always a valid encoding of the samples, whatever the estimate.
//
// * Block size: 4096 samples per frame (1152 at levels 0–2, as libFLAC), fixed-blocksize stream (libFLAC's default at its usual
//   levels and ffmpeg's at 44.1/48 kHz; long enough for the predictor's cost to vanish, short
//   enough for the signal to be stationary). The last frame may be shorter (§9.1: only the last
//   frame of a fixed-blocksize stream may be). The frame header codes the block size and, when a
//   code exists, the sample rate and depth, so each frame is decodable on its own.
// * Per channel (§9.2), the cheapest of: CONSTANT (every sample equal), VERBATIM, FIXED orders 0–4
//   (the best order by the sum of absolute residuals, as libFLAC does, then priced exactly), and
//   LPC (FLACLinearPredictor: Tukey(0.5)-windowed autocorrelation, Levinson–Durbin to order 8 —
//   or the level's order, `parameters(forLevel:)`, with order 8 also priced above it —
//   coefficients quantised to 12 bits for depths up to 16 and 14 bits above). Trailing zero bits
//   common to a whole block are taken out as "wasted bits" first.
// * Residuals must stay within a 32-bit signed integer other than −2^31 (§9.2.7 allows decoders
//   to assume so); a predictor whose residual leaves that range is not used.
// * Stereo (§4.2): the four channel assignments — independent, left/side, side/right, mid/side —
//   are priced from the four analysed channels L, R, S = L − R (one bit wider) and
//   M = (L + R) >> 1, and the cheapest pair is written. More than two channels: independent.
// * Checksums: CRC-8 over the header and CRC-16 over the frame (FLACChecksums).

import CFLACKernels

/// Encodes blocks of samples into FLAC frames.
public final class FLACEncoder {
    /// Whether the C kernels may use their AVX2 variant (CFLACEncodeKernels.h), read once.
    static let kernelsUseAVX2: Int32 = cflac_encode_has_avx2()

    public let sampleRate: Int
    public let channelCount: Int
    public let bitsPerSample: Int
    /// Samples per frame (every frame but the last).
    public let blockSize: Int
    /// Largest LPC order tried.
    public let maximumLPCOrder: Int

    private var input: [UnsafeMutablePointer<Int64>]
    private var analyses: [ChannelAnalysis]
    private var writer: FLACBitWriter
    private var predictor: FLACLinearPredictor
    private var residualCoder = FLACResidualCoder()
    private let precision: Int

    /// The block size and largest LPC order of compression level `level` (0…8, clamped), as
    /// libFLAC's levels set them (its `flac --help` and `FLAC__stream_encoder_set_compression_level`
    /// table): 0–2 → 1,152-sample blocks and fixed predictors only; 3 → 4,096 and LPC to order 6;
    /// 4–6 → 4,096 and order 8; 7–8 → 4,096 and order 12. libFLAC's levels also differ in stereo
    /// decorrelation and in the Rice partition search; this encoder always prices the four
    /// stereo modes and partition orders 0–6 (libFLAC: 3 at levels 0–2, 4 at 3–4, 5 at 5, 6 at
    /// 6–8), so a level here compresses at least as much as those two settings would (and costs
    /// the same time at every level).
    public static func parameters(forLevel level: Int) -> (blockSize: Int, maximumLPCOrder: Int) {
        switch max(0, min(8, level)) {
        case 0, 1, 2: return (1152, 0)
        case 3: return (4096, 6)
        case 4, 5, 6: return (4096, 8)
        default: return (4096, 12)
        }
    }

    /// Checks the parameters against what a FLAC stream can describe (RFC 9639 §8.2): 1–8
    /// channels, 4–32 bits, a sample rate of 1 Hz to 2^20 − 1 Hz, a block size of 16–65,535.
    public init(sampleRate: Int, channelCount: Int, bitsPerSample: Int, blockSize: Int = 4096, maximumLPCOrder: Int = 8) throws {
        guard (1...8).contains(channelCount) else { throw CodecError(.unsupported, "FLAC holds 1 to 8 channels, not \(channelCount)") }
        guard (4...32).contains(bitsPerSample) else { throw CodecError(.unsupported, "FLAC holds 4- to 32-bit samples, not \(bitsPerSample)-bit") }
        guard (1...0xFFFFF).contains(sampleRate) else {
            throw CodecError(.unsupported, "FLAC holds sample rates of 1 to 1,048,575 Hz, not \(sampleRate) Hz")
        }
        guard (16...65535).contains(blockSize) else { throw CodecError(.unsupported, "FLAC block sizes are 16 to 65,535, not \(blockSize)") }
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bitsPerSample = bitsPerSample
        self.blockSize = blockSize
        self.maximumLPCOrder = max(0, min(maximumLPCOrder, 32))
        precision = bitsPerSample <= 16 ? 12 : 14
        input = (0..<channelCount).map { _ in
            let p = UnsafeMutablePointer<Int64>.allocate(capacity: blockSize)
            p.initialize(repeating: 0, count: blockSize)
            return p
        }
        analyses = (0..<(channelCount == 2 ? 4 : channelCount)).map { _ in ChannelAnalysis(capacity: blockSize) }
        writer = FLACBitWriter(capacity: 32 + blockSize * channelCount * 5)
        predictor = FLACLinearPredictor(capacity: blockSize, maxOrder: self.maximumLPCOrder)
    }

    deinit {
        input.forEach { $0.deallocate() }
        writer.deallocate()
    }

    /// Where the caller puts channel `c`'s samples for the next frame (`blockSize` of them, each
    /// within the stream's depth).
    public func samples(channel c: Int) -> UnsafeMutablePointer<Int64> { input[c] }

    /// Encodes the first `count` samples of every channel as frame `frameNumber`; the bytes stay
    /// valid until the next call.
    public func encodeFrame(count n: Int, frameNumber: Int64) -> UnsafeRawBufferPointer {
        precondition(n >= 1 && n <= blockSize)
        writer.reset()
        let assignment: Int
        if channelCount == 2 {
            let l = input[0], r = input[1]
            let m = analyses[2].source, s = analyses[3].source
            for i in 0..<n {
                s[i] = l[i] &- r[i]
                m[i] = (l[i] &+ r[i]) >> 1
            }
            analyse(analyses[0], UnsafePointer(l), n, bitsPerSample)
            analyse(analyses[1], UnsafePointer(r), n, bitsPerSample)
            analyse(analyses[2], UnsafePointer(m), n, bitsPerSample)
            analyse(analyses[3], UnsafePointer(s), n, bitsPerSample + 1)
            let lb = analyses[0].bits, rb = analyses[1].bits, mb = analyses[2].bits, sb = analyses[3].bits
            let options = [(1, lb + rb), (8, lb + sb), (9, sb + rb), (10, mb + sb)]
            assignment = options.min { $0.1 < $1.1 }!.0
        } else {
            for c in 0..<channelCount { analyse(analyses[c], UnsafePointer(input[c]), n, bitsPerSample) }
            assignment = channelCount - 1
        }
        writeHeader(count: n, frameNumber: frameNumber, assignment: assignment)
        let order: [Int]
        switch assignment {
        case 8: order = [0, 3]
        case 9: order = [3, 1]
        case 10: order = [2, 3]
        default: order = Array(0..<channelCount)
        }
        for a in order { writeSubframe(analyses[a], n) }
        writer.alignAndFlush()
        let crc = FLACChecksums.crc16(writer.bytes, writer.count)
        writer.write(UInt32(crc), 16)
        writer.alignAndFlush()
        return UnsafeRawBufferPointer(start: writer.bytes, count: writer.count)
    }

    // MARK: - Frame header (§9.1)

    private func writeHeader(count n: Int, frameNumber: Int64, assignment: Int) {
        writer.write(0b11_1111_1111_1110, 14)   // sync code
        writer.write(0, 1)                     // reserved
        writer.write(0, 1)                     // fixed block size: the coded number is a frame number
        let (sizeCode, sizeExtra, sizeExtraBits) = Self.blockSizeCode(n)
        writer.write(UInt32(sizeCode), 4)
        let (rateCode, rateExtra, rateExtraBits) = Self.sampleRateCode(sampleRate)
        writer.write(UInt32(rateCode), 4)
        writer.write(UInt32(assignment), 4)
        writer.write(UInt32(Self.depthCode(bitsPerSample)), 3)
        writer.write(0, 1)                     // reserved
        for byte in Self.codedNumber(UInt64(frameNumber)) { writer.write(UInt32(byte), 8) }
        if sizeExtraBits > 0 { writer.write(UInt32(sizeExtra), sizeExtraBits) }
        if rateExtraBits > 0 { writer.write(UInt32(rateExtra), rateExtraBits) }
        writer.alignAndFlush()
        writer.write(UInt32(FLACChecksums.crc8(writer.bytes, writer.count)), 8)
    }

    /// The 4-bit block size code and any value after the coded number (§9.1.1).
    static func blockSizeCode(_ n: Int) -> (Int, Int, Int) {
        switch n {
        case 192: return (1, 0, 0)
        case 576: return (2, 0, 0)
        case 1152: return (3, 0, 0)
        case 2304: return (4, 0, 0)
        case 4608: return (5, 0, 0)
        case 256, 512, 1024, 2048, 4096, 8192, 16384, 32768: return (8 + n.trailingZeroBitCount - 8, 0, 0)
        case ...256: return (6, n - 1, 8)
        default: return (7, n - 1, 16)
        }
    }

    /// The 4-bit sample rate code and any value after the coded number (§9.1.2); 0 ("see
    /// STREAMINFO") only when no code can say the rate.
    static func sampleRateCode(_ rate: Int) -> (Int, Int, Int) {
        switch rate {
        case 88200: return (1, 0, 0)
        case 176400: return (2, 0, 0)
        case 192000: return (3, 0, 0)
        case 8000: return (4, 0, 0)
        case 16000: return (5, 0, 0)
        case 22050: return (6, 0, 0)
        case 24000: return (7, 0, 0)
        case 32000: return (8, 0, 0)
        case 44100: return (9, 0, 0)
        case 48000: return (10, 0, 0)
        case 96000: return (11, 0, 0)
        default:
            if rate % 1000 == 0 && rate / 1000 <= 255 { return (12, rate / 1000, 8) }
            if rate <= 65535 { return (13, rate, 16) }
            if rate % 10 == 0 && rate / 10 <= 65535 { return (14, rate / 10, 16) }
            return (0, 0, 0)
        }
    }

    /// The 3-bit depth code (§9.1.4); 0 ("see STREAMINFO") for depths without one.
    static func depthCode(_ bits: Int) -> Int {
        switch bits {
        case 8: return 1
        case 12: return 2
        case 16: return 4
        case 20: return 5
        case 24: return 6
        case 32: return 7
        default: return 0
        }
    }

    /// A frame number in the variable-length form UTF-8 uses for code points (§9.1.5), up to 36 bits.
    static func codedNumber(_ v: UInt64) -> [UInt8] {
        if v < 0x80 { return [UInt8(v)] }
        var continuation = 1
        while continuation < 6 && v >= UInt64(1) << UInt64(6 * continuation + (6 - continuation)) { continuation += 1 }
        var bytes = [UInt8](repeating: 0, count: continuation + 1)
        var rest = v
        for i in stride(from: continuation, to: 0, by: -1) {
            bytes[i] = 0x80 | UInt8(rest & 0x3F)
            rest >>= 6
        }
        let lead: UInt8 = continuation == 6 ? 0xFE : UInt8(truncatingIfNeeded: 0xFF00 >> (continuation + 1))
        bytes[0] = lead | UInt8(rest)
        return bytes
    }

    // MARK: - Subframes (§9.2)

    /// One channel's analysis: its chosen subframe and the residual to write.
    final class ChannelAnalysis {
        enum Kind { case constant, verbatim, fixed(Int), lpc(FLACQuantizedPredictor) }
        /// Scratch for a derived channel (mid, side) when the encoder computes one.
        let source: UnsafeMutablePointer<Int64>
        /// The samples after removing wasted bits.
        let shifted: UnsafeMutablePointer<Int64>
        var residual: UnsafeMutablePointer<Int64>
        var work: UnsafeMutablePointer<Int64>
        var samples: UnsafePointer<Int64>
        var kind: Kind = .verbatim
        var plan = FLACRicePlan()
        var wasted = 0
        var sampleBits = 0
        /// Estimated size of the subframe in bits.
        var bits = 0
        init(capacity: Int) {
            source = .allocate(capacity: capacity)
            shifted = .allocate(capacity: capacity)
            residual = .allocate(capacity: capacity)
            work = .allocate(capacity: capacity)
            samples = UnsafePointer(shifted)
        }
        deinit {
            source.deallocate(); shifted.deallocate(); residual.deallocate(); work.deallocate()
        }
    }

    private func analyse(_ a: ChannelAnalysis, _ s: UnsafePointer<Int64>, _ n: Int, _ bits: Int) {
        a.samples = s
        a.wasted = 0
        a.sampleBits = bits
        var ored: UInt64 = 0
        if cflac_scan(Self.kernelsUseAVX2, s, n, &ored) != 0 {
            a.kind = .constant
            a.bits = 8 + bits
            return
        }
        let wasted = ored.trailingZeroBitCount
        if wasted > 0 {
            for i in 0..<n { a.shifted[i] = s[i] >> Int64(wasted) }
            a.samples = UnsafePointer(a.shifted)
            a.wasted = wasted
            a.sampleBits = bits - wasted
        }
        let x = a.samples
        let b = a.sampleBits
        let header = 8 + a.wasted
        a.kind = .verbatim
        a.bits = header + n * b

        // FIXED: choose the order by the sum of absolute residuals (orders 0…4).
        if n > 4 {
            var totals: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)
            let order = withUnsafeMutableBytes(of: &totals) { raw -> Int in
                let t = raw.baseAddress!.assumingMemoryBound(to: UInt64.self)
                cflac_fixed_sums(Self.kernelsUseAVX2, x, n, t)
                var best = 0
                for o in 1..<5 where t[o] < t[best] { best = o }
                return best
            }
            if Self.fixedResidual(x, n, order, into: a.work) {
                consider(a, .fixed(order), order: order, bits: header + order * b, n)
            }
        }
        // LPC
        // Above order 8 (levels 7–8) the order chosen by the error estimate can code larger than
        // the order-8 search (the estimate ignores coefficient quantisation, which matters most on
        // tonal material), so the order-8 predictor is priced too and the cheaper kept: a higher
        // level never codes a subframe larger than a lower one.
        if maximumLPCOrder > 0 && n > maximumLPCOrder {
            for limit in maximumLPCOrder > 8 ? [maximumLPCOrder, 8] : [maximumLPCOrder] {
                if let p = predictor.analyse(x, count: n, bits: b, precision: precision, orderLimit: limit),
                   Self.lpcResidual(x, n, bits: b, p, into: a.work) {
                    consider(a, .lpc(p), order: p.order, bits: header + p.order * b + 4 + 5 + p.order * p.precision, n)
                }
            }
        }
    }

    /// Prices the residual in `a.work` and keeps it if the subframe beats the current choice.
    private func consider(_ a: ChannelAnalysis, _ kind: ChannelAnalysis.Kind, order: Int, bits: Int, _ n: Int) {
        let plan = residualCoder.plan(UnsafePointer(a.work), count: n, order: order)
        let total = bits + plan.bits
        guard total < a.bits else { return }
        a.bits = total
        a.kind = kind
        a.plan = plan
        swap(&a.residual, &a.work)
    }

    static let residualLimit = Int64(Int32.max)

    /// The fixed predictor's residual (§9.2.5); false if a residual leaves the 32-bit range.
    static func fixedResidual(_ x: UnsafePointer<Int64>, _ n: Int, _ order: Int, into r: UnsafeMutablePointer<Int64>) -> Bool {
        cflac_fixed_residual(kernelsUseAVX2, x, n, Int32(order), r) != 0
    }

    /// The LPC residual with the decoder's integer arithmetic (§9.2.6).
    static func lpcResidual(_ x: UnsafePointer<Int64>, _ n: Int, bits: Int, _ p: FLACQuantizedPredictor, into r: UnsafeMutablePointer<Int64>) -> Bool {
        // Samples of up to 32 bits and coefficients of up to 15 let the kernel multiply 32 × 32 → 64.
        let narrow: Int32 = bits <= 32 && p.precision <= 16 ? 1 : 0
        return p.coefficients.withUnsafeBufferPointer { c in
            cflac_lpc_residual(kernelsUseAVX2, x, n, c.baseAddress!, Int32(p.order), Int32(p.shift), narrow, r) != 0
        }
    }

    private func writeSubframe(_ a: ChannelAnalysis, _ n: Int) {
        let x = a.samples
        let b = a.sampleBits
        func header(_ type: Int) {
            writer.write(UInt32(type) << 1 | (a.wasted > 0 ? 1 : 0), 8)
            if a.wasted > 0 {
                // wasted bits k coded as k − 1 zeros and a one
                var zeros = a.wasted - 1
                while zeros >= 32 { writer.write(0, 32); zeros -= 32 }
                writer.write(1, zeros + 1)
            }
        }
        switch a.kind {
        case .constant:
            header(0)
            writer.writeSigned(x[0], a.sampleBits)
        case .verbatim:
            header(1)
            for i in 0..<n { writer.writeSigned(x[i], b) }
        case .fixed(let order):
            header(8 + order)
            for i in 0..<order { writer.writeSigned(x[i], b) }
            FLACResidualCoder.write(a.residual, count: n, order: order, plan: a.plan, to: &writer)
        case .lpc(let p):
            header(31 + p.order)
            for i in 0..<p.order { writer.writeSigned(x[i], b) }
            writer.write(UInt32(p.precision - 1), 4)
            writer.writeSigned(Int64(p.shift), 5)
            for c in p.coefficients { writer.writeSigned(c, p.precision) }
            FLACResidualCoder.write(a.residual, count: n, order: p.order, plan: a.plan, to: &writer)
        }
    }

    // MARK: - Stream header (§8)

    /// The 34 bytes of STREAMINFO (§8.2). `totalSamples` 0 means unknown; an all-zero `md5` means
    /// "not computed"; frame sizes 0 mean unknown.
    public func streamInfo(minimumFrameSize: Int, maximumFrameSize: Int, totalSamples: Int64, md5: [UInt8]) -> [UInt8] {
        var w = FLACBitWriter(capacity: 64)
        defer { w.deallocate() }
        w.write(UInt32(blockSize), 16)
        w.write(UInt32(blockSize), 16)
        w.write(UInt32(min(minimumFrameSize, 0xFFFFFF)), 24)
        w.write(UInt32(min(maximumFrameSize, 0xFFFFFF)), 24)
        w.write(UInt32(sampleRate), 20)
        w.write(UInt32(channelCount - 1), 3)
        w.write(UInt32(bitsPerSample - 1), 5)
        w.write64(UInt64(totalSamples) & 0xF_FFFF_FFFF, 36)
        w.alignAndFlush()
        var out = Array(UnsafeBufferPointer(start: w.bytes, count: w.count))
        out += md5.count == 16 ? md5 : [UInt8](repeating: 0, count: 16)
        return out
    }

    /// "fLaC" and the STREAMINFO block (marked as the last metadata block).
    public func streamHeader(minimumFrameSize: Int, maximumFrameSize: Int, totalSamples: Int64, md5: [UInt8]) -> [UInt8] {
        [0x66, 0x4C, 0x61, 0x43, 0x80, 0, 0, 34]
            + streamInfo(minimumFrameSize: minimumFrameSize, maximumFrameSize: maximumFrameSize, totalSamples: totalSamples, md5: md5)
    }
}

// Apple Lossless (ALAC) packet decoder.
//
// A packet is a sequence of syntax elements, each 3 bits of type then 4 bits of instance tag,
// ended by an END element and padding to a byte:
//
//   SCE (0) / LFE (3)  one channel       CPE (1)  a channel pair       END (7)
//   DSE (4)  data to skip (count, optionally byte-aligned)            FIL (6)  fill bytes
//   (CCE and PCE, from AAC's syntax, never appear in ALAC and are refused.)
//
// The channels come out in the order of the elements: for 1–8 channels Apple's encoder writes
// SCE | CPE | SCE CPE | SCE CPE SCE | SCE CPE CPE | SCE CPE CPE LFE | SCE CPE CPE SCE LFE |
// SCE CPE CPE CPE LFE — that is C, L R, Ls Rs, Cs, LFE in the orders of Apple's ALAC layouts
// (kAudioChannelLayoutTag_MPEG_3_0_B, MPEG_4_0_B, MPEG_5_0_D, MPEG_5_1_D, AAC_6_1, MPEG_7_1_B),
// and that is the order this decoder outputs, as Apple's does. (ffmpeg reorders to its own
// layouts; the tests map between them.)
//
// An audio element's header: 12 unused bits (zero), a flag for a partial packet (then the frame
// count in 32 bits), 2 bits of "bytes shifted" (the low 8 or 16 bits of 24/32-bit samples are
// stored verbatim, after the header, and only the high part is predicted), and an escape flag.
// Escaped ("uncompressed") elements hold the samples as plain signed integers, interleaved.
// Compressed ones hold the stereo mixing parameters (mixBits, mixRes), then per channel: mode
// (4 bits), denominator shift (4), history-multiplier factor (3), order (5) and `order` 16-bit
// coefficients; then the shifted-off low bits, then each channel's adaptive-Golomb residuals
// (ALACAdaptiveGolomb) which the adaptive FIR (ALACPredictor) turns back into samples, and for a
// pair the unmixing: L = u + v − ((mixRes·v) >> mixBits), R = L − v (mixRes 0: L = u, R = v).
// A pair's predicted samples are one bit wider than its channels (the side signal).
//
// Threads: one decoder per stream; it keeps scratch buffers but no state between packets (every
// ALAC packet decodes on its own), so `reset()` has nothing to do.

public final class ALACDecoder: AudioPacketDecoder {
    public let config: ALACSpecificConfig
    public let channelCount: Int
    public let bitsPerSample: Int
    public let sampleRate: Double
    public var maximumFramesPerPacket: Int { Int(config.frameLength) }

    private let capacity: Int
    private let residual: UnsafeMutablePointer<Int32>
    private let mixU: UnsafeMutablePointer<Int32>
    private let mixV: UnsafeMutablePointer<Int32>
    private let shifted: UnsafeMutablePointer<UInt16>
    // Allocated in init after every check that can throw: an init that throws does not run
    // deinit, so memory allocated before the throw would leak (found by the mp4 fuzz target).
    private let coefsU: UnsafeMutablePointer<Int16>
    private let coefsV: UnsafeMutablePointer<Int16>

    /// The element types.
    enum Element: UInt64 {
        case sce = 0, cpe = 1, cce = 2, lfe = 3, dse = 4, pce = 5, fil = 6, end = 7
    }

    /// A decoder for the stream the cookie describes. `setup.channelCount` and
    /// `bitsPerSample`, when not 0, must agree with the cookie.
    public init(setup: AudioStreamSetup) throws {
        let c = try ALACSpecificConfig.parse(setup.magicCookie)
        if setup.channelCount != 0 && setup.channelCount != Int(c.channelCount) {
            throw CodecError(.corrupt, "Apple Lossless: the container declares \(setup.channelCount) channels but the magic cookie \(c.channelCount)")
        }
        config = c
        channelCount = Int(c.channelCount)
        bitsPerSample = Int(c.bitDepth)
        sampleRate = setup.sampleRate > 0 ? setup.sampleRate : Double(c.sampleRate)
        capacity = Int(c.frameLength)
        residual = .allocate(capacity: capacity)
        mixU = .allocate(capacity: capacity)
        mixV = .allocate(capacity: capacity)
        shifted = .allocate(capacity: 2 * capacity)
        coefsU = .allocate(capacity: 32)
        coefsV = .allocate(capacity: 32)
    }

    deinit {
        residual.deallocate()
        mixU.deallocate()
        mixV.deallocate()
        shifted.deallocate()
        coefsU.deallocate()
        coefsV.deallocate()
    }

    public func reset() {}

    public func decode(_ packet: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<Int32>, frameCapacity: Int) throws -> Int {
        var r = ALACBitReader(packet)
        var channel = 0
        var frames: Int?
        elements: while true {
            guard let type = Element(rawValue: try r.read(3)) else { break }
            switch type {
            case .sce, .lfe, .cpe:
                let width = type == .cpe ? 2 : 1
                guard channel + width <= channelCount else {
                    throw CodecError(.corrupt, "Apple Lossless: a packet holds more channels than the \(channelCount) its magic cookie declares")
                }
                let (n, bytesShifted) = try decodeElement(&r, pair: width == 2)
                if let f = frames, f != n {
                    throw CodecError(.corrupt, "Apple Lossless: the channels of one packet hold different frame counts (\(f) and \(n))")
                }
                frames = n
                guard n <= frameCapacity else {
                    throw CodecError(.corrupt, "Apple Lossless: a packet of \(n) frames does not fit the \(frameCapacity) frames given")
                }
                store(n, bytesShifted: bytesShifted, pair: width == 2, at: channel, into: output)
                channel += width
            case .dse:
                try r.skip(4)   // instance tag
                let aligned = try r.read(1) == 1
                var count = Int(try r.read(8))
                if count == 255 { count += Int(try r.read(8)) }
                if aligned { r.alignToByte() }
                try r.skip(count * 8)
            case .fil:
                var count = Int(try r.read(4))
                if count == 15 { count += Int(try r.read(8)) - 1 }
                try r.skip(count * 8)
            case .end:
                break elements
            case .cce, .pce:
                throw CodecError(.corrupt, "Apple Lossless: a packet holds an AAC \(type == .cce ? "coupling-channel" : "program-config") element, which ALAC never uses")
            }
        }
        guard channel == channelCount else {
            throw CodecError(.corrupt, "Apple Lossless: a packet holds \(channel) of the \(channelCount) channels its magic cookie declares")
        }
        return frames ?? 0
    }

    /// Decodes one SCE/LFE (into mixU) or CPE (into mixU, mixV, unmixed to L and R); returns the
    /// frames and the bytes shifted (whose low bits are then in `shifted`).
    private func decodeElement(_ r: inout ALACBitReader, pair: Bool) throws -> (Int, Int) {
        try r.skip(4)   // element instance tag
        guard try r.read(12) == 0 else {
            throw CodecError(.corrupt, "Apple Lossless: an element header's reserved bits are not zero")
        }
        let partial = try r.read(1) == 1
        let bytesShifted = Int(try r.read(2))
        let escaped = try r.read(1) == 1
        var n = capacity
        if partial {
            let declared = try r.read(32)
            guard declared <= UInt64(capacity) else {
                throw CodecError(.corrupt, "Apple Lossless: a packet declares \(declared) frames; the magic cookie allows \(capacity)")
            }
            n = Int(declared)
        }
        let depth = bitsPerSample
        let channels = pair ? 2 : 1
        if escaped {
            // Plain samples, interleaved, `depth` bits each.
            for i in 0..<n {
                mixU[i] = Int32(truncatingIfNeeded: try r.readSigned(depth))
                if pair { mixV[i] = Int32(truncatingIfNeeded: try r.readSigned(depth)) }
            }
            return (n, 0)
        }
        guard bytesShifted != 3, bytesShifted * 8 < depth else {
            throw CodecError(.corrupt, "Apple Lossless: an element shifts off \(bytesShifted) bytes of \(depth)-bit samples")
        }
        // The predicted part's width: a pair's side signal needs one more bit. (33 for an
        // unshifted 32-bit pair: the arithmetic then wraps at 32 bits, as in the reference.)
        let chanBits = depth - bytesShifted * 8 + (pair ? 1 : 0)
        let mixBits = Int32(try r.read(8))
        let mixRes = Int32(Int8(truncatingIfNeeded: try r.read(8)))
        var modes = (0, 0), denShifts = (0, 0), factors = (0, 0), orders = (0, 0)
        for ch in 0..<channels {
            let modeAndShift = try r.read(8)
            let factorAndOrder = try r.read(8)
            let order = Int(factorAndOrder & 31)
            for k in 0..<order {
                let c = Int16(truncatingIfNeeded: try r.readSigned(16))
                if ch == 0 { coefsU[k] = c } else { coefsV[k] = c }
            }
            if ch == 0 {
                (modes.0, denShifts.0, factors.0, orders.0) = (Int(modeAndShift >> 4), Int(modeAndShift & 15), Int(factorAndOrder >> 5), order)
            } else {
                (modes.1, denShifts.1, factors.1, orders.1) = (Int(modeAndShift >> 4), Int(modeAndShift & 15), Int(factorAndOrder >> 5), order)
            }
        }
        var shiftReader = r
        if bytesShifted != 0 { try r.skip(bytesShifted * 8 * channels * n) }
        let pb = UInt32(config.pb), mb = UInt32(config.mb), kb = Int(config.kb)
        for ch in 0..<channels {
            let (mode, denShift, factor, order) = ch == 0 ? (modes.0, denShifts.0, factors.0, orders.0) : (modes.1, denShifts.1, factors.1, orders.1)
            try ALACAdaptiveGolomb.decode(&r, into: residual, count: n, initialHistory: mb, pb: (pb * UInt32(factor)) / 4,
                                          kb: kb, escapeBits: chanBits)
            let out = ch == 0 ? mixU : mixV
            if mode != 0 {
                // Mode ≠ 0: the residuals are first integrated once (the "order 31" pass).
                ALACPredictor.reconstruct(residual, into: residual, count: n, coefs: coefsU, order: 31, bits: chanBits, shift: 0)
            }
            if ch == 0 {
                ALACPredictor.reconstruct(residual, into: out, count: n, coefs: coefsU, order: order, bits: chanBits, shift: denShift)
            } else {
                ALACPredictor.reconstruct(residual, into: out, count: n, coefs: coefsV, order: order, bits: chanBits, shift: denShift)
            }
        }
        if bytesShifted != 0 {
            let bits = bytesShifted * 8
            for i in 0..<(n * channels) { shifted[i] = UInt16(try shiftReader.read(bits)) }
        }
        if pair && mixRes != 0 {
            for i in 0..<n {
                let u = mixU[i], v = mixV[i]
                let l = u &+ v &- ((mixRes &* v) >> mixBits)
                mixU[i] = l
                mixV[i] = l &- v
            }
        }
        return (n, bytesShifted)
    }

    /// Writes an element's channels, interleaved, restoring shifted-off low bits.
    private func store(_ n: Int, bytesShifted: Int, pair: Bool, at channel: Int, into output: UnsafeMutablePointer<Int32>) {
        let stride = channelCount
        let shift = UInt32(bytesShifted * 8)
        let sources = pair ? [mixU, mixV] : [mixU]
        for (c, source) in sources.enumerated() {
            var out = output + channel + c
            if shift == 0 {
                for i in 0..<n { out.pointee = source[i]; out += stride }
            } else {
                let step = pair ? 2 : 1
                for i in 0..<n {
                    out.pointee = Int32(bitPattern: UInt32(bitPattern: source[i]) << shift | UInt32(shifted[i * step + c]))
                    out += stride
                }
            }
        }
    }
}

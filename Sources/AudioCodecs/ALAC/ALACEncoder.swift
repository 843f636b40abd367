// Apple Lossless (ALAC) packet encoder: the inverse of ALACDecoder, 4,096 frames per packet.
//
// Per packet, channels go out as the syntax elements Apple's channel order prescribes (SCE, CPE,
// …, LFE: see ALACDecoder). For each element the encoder:
//
// - tries shifting off low bytes, stored verbatim (24-bit: 1 byte or none; 32-bit: 2 bytes or
//   1 — a 32-bit pair's side channel would otherwise need 33 bits), and keeps the smaller;
// - for a pair, picks the stereo mix: mixBits 2 and mixRes 0…4 (0: left/right as they are; 2:
//   mid/side), the one whose two channels have the smallest sum of absolute first differences —
//   a cheap stand-in for their coded size;
// - for each channel, tries three predictor starts and keeps the one whose residuals code
//   shortest (counted exactly, the adaptive-Golomb cost of every residual): the coefficients
//   the channel's adaptive predictor ended the previous packet with (a warm start: the predictor
//   keeps adapting across packets), and fresh order-4 and order-8 linear predictors from the
//   packet's autocorrelation (Levinson-Durbin, quantised with a denominator shift of 9);
// - stores the element uncompressed (the escape) when that is smaller.
//
// The cost and the writing share one code path (`codeResiduals` with or without a writer), so
// the size chosen is the size written.

public final class ALACEncoder: AudioPacketEncoder {
    public let config: ALACSpecificConfig
    public let channelCount: Int
    public let bitsPerSample: Int
    public let sampleRate: Double
    public var framesPerPacket: Int { Int(config.frameLength) }
    public let maximumPacketSize: Int
    public var magicCookie: [UInt8] { config.cafCookie }

    static let denShift = 9
    static let pbFactor = 4
    static let mixBits = 2

    /// Elements per channel count: (is a pair, is LFE).
    static func elements(_ channels: Int) -> [(pair: Bool, lfe: Bool)] {
        let s = (pair: false, lfe: false), c = (pair: true, lfe: false), l = (pair: false, lfe: true)
        switch channels {
        case 1: return [s]
        case 2: return [c]
        case 3: return [s, c]
        case 4: return [s, c, s]
        case 5: return [s, c, c]
        case 6: return [s, c, c, l]
        case 7: return [s, c, c, s, l]
        default: return [s, c, c, c, l]
        }
    }

    private let capacity: Int
    private let u: UnsafeMutablePointer<Int32>
    private let v: UnsafeMutablePointer<Int32>
    /// Two candidate codings' residuals (U and V each) and shifted-off low bits.
    private let residuals: [UnsafeMutablePointer<Int32>]
    private let lows: [UnsafeMutablePointer<UInt16>]
    private let scratch: UnsafeMutablePointer<Int32>
    /// Per channel: the adaptive predictor's coefficients at the end of the last packet.
    private var carried: [[Int16]]

    public init(setup: AudioStreamSetup) throws {
        let bits = setup.bitsPerSample == 0 ? 16 : setup.bitsPerSample
        guard [16, 20, 24, 32].contains(bits) else {
            throw CodecError(.unsupported, "Apple Lossless stores 16, 20, 24 or 32-bit samples, not \(bits)-bit")
        }
        guard (1...8).contains(setup.channelCount) else {
            throw CodecError(.unsupported, "Apple Lossless stores 1 to 8 channels, not \(setup.channelCount)")
        }
        guard setup.sampleRate >= 1, setup.sampleRate <= Double(UInt32.max) else {
            throw CodecError(.unsupported, "Apple Lossless cannot store a sample rate of \(setup.sampleRate) Hz")
        }
        channelCount = setup.channelCount
        bitsPerSample = bits
        sampleRate = setup.sampleRate
        capacity = 4096
        // The escape: every sample verbatim, plus element headers, END and padding.
        maximumPacketSize = (capacity * channelCount * bits + 64 * (channelCount + 1)) / 8 + 16
        config = ALACSpecificConfig(frameLength: UInt32(capacity), bitDepth: UInt8(bits), channelCount: UInt8(channelCount),
                                    sampleRate: UInt32(setup.sampleRate.rounded()), maxFrameBytes: UInt32(maximumPacketSize))
        u = .allocate(capacity: capacity)
        v = .allocate(capacity: capacity)
        residuals = (0..<4).map { _ in .allocate(capacity: 4096) }
        lows = (0..<2).map { _ in .allocate(capacity: 2 * 4096) }
        scratch = .allocate(capacity: capacity)
        carried = Array(repeating: [], count: channelCount)
    }

    deinit {
        u.deallocate(); v.deallocate(); scratch.deallocate()
        residuals.forEach { $0.deallocate() }
        lows.forEach { $0.deallocate() }
    }

    public func encode(_ samples: UnsafePointer<Int32>, frameCount n: Int, into output: UnsafeMutableRawPointer) throws -> Int {
        guard n >= 1 && n <= capacity else {
            throw CodecError(.unsupported, "Apple Lossless: a packet holds 1 to \(capacity) frames, not \(n)")
        }
        var w = ALACBitWriter(output, capacity: maximumPacketSize)
        var channel = 0
        var tags = [0, 0, 0]
        for element in ALACEncoder.elements(channelCount) {
            let type: UInt32 = element.pair ? 1 : (element.lfe ? 3 : 0)
            try w.write(type, 3)
            try w.write(UInt32(tags[Int(type) == 3 ? 2 : Int(type)]), 4)
            tags[Int(type) == 3 ? 2 : Int(type)] += 1
            try encodeElement(samples, frames: n, channel: channel, pair: element.pair, into: &w)
            channel += element.pair ? 2 : 1
        }
        try w.write(7, 3)   // END
        try w.flush()
        return w.byteCount
    }

    /// What one way of coding an element costs, and what it needs to be written.
    private struct Plan {
        var bytesShifted: Int
        var mixRes: Int32
        var orders: [Int] = []
        var coefs: [[Int16]] = []
        var adapted: [[Int16]] = []
        var bits = 0
    }

    private func encodeElement(_ samples: UnsafePointer<Int32>, frames n: Int, channel: Int, pair: Bool, into w: inout ALACBitWriter) throws {
        let depth = bitsPerSample
        let stride = channelCount
        let channels = pair ? 2 : 1
        // Shifting off low bytes stores them at 8 bits a sample whatever they hold: worth it for
        // loud or noisy high-depth audio, not for quiet audio. 24-bit tries 1 and 0 bytes, 32-bit
        // 2 and 1 (a 32-bit pair must shift: its side channel would need 33 bits).
        let options = depth == 32 ? [2, 1] : (depth == 24 ? [1, 0] : [0])
        var best = try plan(samples, frames: n, channel: channel, pair: pair, bytesShifted: options[0], set: 0)
        var set = 0
        if options.count > 1 {
            let other = try plan(samples, frames: n, channel: channel, pair: pair, bytesShifted: options[1], set: 1)
            if other.bits < best.bits { best = other; set = 1 }
        }
        for c in 0..<channels { carried[channel + c] = best.adapted[c] }
        let partial = n != capacity
        let escape = channels * n * depth <= best.bits
        try w.write(0, 12)
        try w.write(partial ? 1 : 0, 1)
        try w.write(escape ? 0 : UInt32(best.bytesShifted), 2)
        try w.write(escape ? 1 : 0, 1)
        if partial { try w.write(UInt32(n), 32) }
        if escape {
            for i in 0..<n {
                for c in 0..<channels { try w.write(UInt32(bitPattern: samples[i * stride + channel + c]), depth) }
            }
            return
        }
        try w.write(pair ? UInt32(ALACEncoder.mixBits) : 0, 8)
        try w.write(UInt32(bitPattern: best.mixRes) & 0xFF, 8)
        for c in 0..<channels {
            try w.write(UInt32(ALACEncoder.denShift), 8)            // mode 0, denominator shift
            try w.write(UInt32(ALACEncoder.pbFactor << 5 | best.orders[c]), 8)
            for k in best.coefs[c] { try w.write(UInt32(UInt16(bitPattern: k)), 16) }
        }
        let low = lows[set]
        if best.bytesShifted > 0 {
            for i in 0..<(n * channels) { try w.write(UInt32(low[i]), best.bytesShifted * 8) }
        }
        let chanBits = depth - best.bytesShifted * 8 + (pair ? 1 : 0)
        for c in 0..<channels { try ALACEncoder.codeResiduals(residuals[2 * set + c], count: n, escapeBits: chanBits, into: &w) }
    }

    /// Splits off `bytesShifted` low bytes (into `lows[set]`), mixes a pair, picks each
    /// channel's predictor (residuals into `residuals[2·set + c]`) and counts the bits.
    private func plan(_ samples: UnsafePointer<Int32>, frames n: Int, channel: Int, pair: Bool, bytesShifted: Int, set: Int) throws -> Plan {
        let stride = channelCount
        let shift = Int32(bytesShifted * 8)
        let chanBits = bitsPerSample - Int(shift) + (pair ? 1 : 0)
        let channels = pair ? 2 : 1
        let low = lows[set]
        let lowMask: UInt32 = (1 << UInt32(shift)) &- 1
        var result = Plan(bytesShifted: bytesShifted, mixRes: 0)
        for i in 0..<n {
            for c in 0..<channels {
                let x = samples[i * stride + channel + c]
                if shift > 0 { low[i * channels + c] = UInt16(truncatingIfNeeded: UInt32(bitPattern: x) & lowMask) }
                (c == 0 ? u : v)[i] = x >> shift
            }
        }
        if pair {
            result.mixRes = chooseMix(n)
            if result.mixRes != 0 {
                let m2 = Int32(1 << ALACEncoder.mixBits) - result.mixRes
                for i in 0..<n {
                    let l = u[i], r = v[i]
                    u[i] = (result.mixRes &* l &+ m2 &* r) >> Int32(ALACEncoder.mixBits)
                    v[i] = l &- r
                }
            }
        }
        result.bits = 16 + channels * 16 + bytesShifted * 8 * channels * n
        for c in 0..<channels {
            let x = c == 0 ? u : v
            let target = residuals[2 * set + c]
            var best: (coefs: [Int16], bits: Int, adapted: [Int16])?
            var candidates: [[Int16]] = []
            if !carried[channel + c].isEmpty { candidates.append(carried[channel + c]) }
            candidates.append(ALACEncoder.linearPredictor(x, count: n, order: 8))
            candidates.append(ALACEncoder.linearPredictor(x, count: n, order: 4))
            for start in candidates {
                var coefs = start
                coefs.withUnsafeMutableBufferPointer {
                    ALACPredictor.residuals(x, into: scratch, count: n, coefs: $0.baseAddress!, order: start.count, bits: chanBits, shift: ALACEncoder.denShift)
                }
                var counter = ALACCostCounter()
                try ALACEncoder.codeResiduals(scratch, count: n, escapeBits: chanBits, into: &counter)
                if best == nil || counter.bits < best!.bits {
                    best = (start, counter.bits, coefs)
                    target.update(from: scratch, count: n)
                }
            }
            result.orders.append(best!.coefs.count)
            result.coefs.append(best!.coefs)
            result.adapted.append(best!.adapted)
            result.bits += best!.coefs.count * 16 + best!.bits
        }
        return result
    }

    /// The mix (mixRes 0…4 with mixBits 2) whose channels have the smallest total of absolute
    /// first differences; u and v hold left and right.
    private func chooseMix(_ n: Int) -> Int32 {
        guard n > 1 else { return 0 }
        var sums = [Int64](repeating: 0, count: 5)
        var side: Int64 = 0
        let m = Int64(1 << ALACEncoder.mixBits)
        for i in 1..<n {
            let dl = Int64(u[i]) - Int64(u[i - 1]), dr = Int64(v[i]) - Int64(v[i - 1])
            side += abs(dl - dr)
            for res in 0...4 { sums[res] += abs((Int64(res) * dl + (m - Int64(res)) * dr) >> 2) }
        }
        var best = 0
        var bestCost = Int64.max
        for res in 0...4 {
            // mixRes 0 keeps left/right: its cost is right plus left, not right plus side.
            let cost = res == 0 ? sums[0] + sums[4] : sums[res] + side
            if cost < bestCost { bestCost = cost; best = res }
        }
        return Int32(best)
    }

    /// Quantised linear-predictor coefficients of `order` for the ALAC predictor (relative to the
    /// sample `order + 1` back), from the signal's autocorrelation by Levinson-Durbin.
    static func linearPredictor(_ x: UnsafePointer<Int32>, count n: Int, order: Int) -> [Int16] {
        guard n > order + 1 else { return [Int16](repeating: 0, count: order) }
        var r = [Double](repeating: 0, count: order + 1)
        for lag in 0...order {
            var s = 0.0
            for i in lag..<n { s += Double(x[i]) * Double(x[i - lag]) }
            r[lag] = s
        }
        guard r[0] > 0 else { return [Int16](repeating: 0, count: order) }
        r[0] *= 1.0 + 1e-9
        var a = [Double](repeating: 0, count: order + 1)
        var err = r[0]
        for i in 1...order {
            var acc = r[i]
            for j in 1..<i { acc -= a[j] * r[i - j] }
            let k = acc / err
            var next = a
            next[i] = k
            for j in 1..<i { next[j] = a[j] - k * a[i - j] }
            a = next
            err *= (1 - k * k)
            if err <= 0 { break }
        }
        let scale = Double(1 << denShift)
        return (1...order).map { Int16(clamping: Int((a[$0] * scale).rounded())) }
    }

    /// Codes residuals with the adaptive Golomb code (ALACAdaptiveGolomb, in reverse) into a
    /// writer or a bit counter.
    static func codeResiduals<S: ALACBitSink>(_ res: UnsafePointer<Int32>, count: Int, escapeBits: Int, into w: inout S) throws {
        var mean = UInt32(ALACSpecificConfig.defaultMB)
        let pb = UInt32(ALACSpecificConfig.defaultPB) * UInt32(pbFactor) / 4
        let kb = Int(ALACSpecificConfig.defaultKB)
        let wb = (UInt32(1) << UInt32(kb)) - 1
        var zeroMode: UInt32 = 0
        var c = 0
        while c < count {
            let r = res[c]
            let folded = r >= 0 ? UInt32(bitPattern: r) &* 2 : UInt32(bitPattern: 0 &- r) &* 2 &- 1
            let n = folded &- zeroMode
            // ffmpeg's decoder pins the history when n + zeroMode exceeds 0xFFFF, Apple's (and
            // ours) when n does: they part ways on n = 0xFFFF after a zero run. A coding that
            // needs it is priced out, so the element is stored another way (the escape at worst).
            if zeroMode == 1 && n == ALACAdaptiveGolomb.meanClamp { w.ambiguous() }
            let k = ALACAdaptiveGolomb.valueParameter(mean, limit: kb)
            try code(n, k: k, m: (UInt32(1) << UInt32(k)) - 1, escapeBits: escapeBits, into: &w)
            c += 1
            mean = pb &* folded &+ mean &- ((pb &* mean) >> ALACAdaptiveGolomb.historyShift)
            if n > ALACAdaptiveGolomb.meanClamp { mean = ALACAdaptiveGolomb.meanClamp }
            zeroMode = 0
            if (mean << 2) < (1 << ALACAdaptiveGolomb.historyShift) && c < count {
                var run = 0
                while c + run < count && res[c + run] == 0 && run < 65535 { run += 1 }
                let kz = ALACAdaptiveGolomb.runParameter(mean)
                try code(UInt32(run), k: kz, m: ((UInt32(1) << UInt32(kz)) - 1) & wb, escapeBits: 16, into: &w)
                c += run
                zeroMode = run >= 65535 ? 0 : 1
                mean = 0
            }
        }
    }

    /// One value: q ones, a zero, then k bits (v = remainder + 1) or k − 1 zero bits when the
    /// remainder is 0; nine ones and `escapeBits` plain bits when q would reach 9.
    @inline(__always)
    static func code<S: ALACBitSink>(_ n: UInt32, k: Int, m: UInt32, escapeBits: Int, into w: inout S) throws {
        if k <= 1 || m == 0 {
            if n < 9 { try w.unary(Int(n), then: 0, bits: 0) } else { try w.escape(n, escapeBits) }
            return
        }
        let q = n / m
        if q >= 9 { try w.escape(n, escapeBits); return }
        let rem = n - q * m
        if rem == 0 { try w.unary(Int(q), then: 0, bits: k - 1) } else { try w.unary(Int(q), then: rem + 1, bits: k) }
    }
}

/// Where coded residuals go: the packet (ALACBitWriter) or a bit count (ALACCostCounter).
protocol ALACBitSink {
    /// `q` one bits, a zero bit, then the low `bits` bits of `value`.
    mutating func unary(_ q: Int, then value: UInt32, bits: Int) throws
    /// Nine one bits, then `value` in `bits` bits.
    mutating func escape(_ value: UInt32, _ bits: Int) throws
    /// Marks a coding decoders disagree on (see `codeResiduals`).
    mutating func ambiguous()
}

struct ALACCostCounter: ALACBitSink {
    var bits = 0
    @inline(__always) mutating func unary(_ q: Int, then value: UInt32, bits b: Int) { bits += q + 1 + b }
    @inline(__always) mutating func escape(_ value: UInt32, _ b: Int) { bits += 9 + b }
    /// Prices the coding above the escape's (at most 32 bits × 8 channels × 2^16 frames).
    mutating func ambiguous() { bits += 1 << 40 }
}

extension ALACBitWriter: ALACBitSink {
    /// Only the escape reaches the writer after an ambiguous price; nothing to do.
    mutating func ambiguous() {}

    @inline(__always)
    mutating func unary(_ q: Int, then value: UInt32, bits: Int) throws {
        // q < 9: the prefix, its zero and up to 14 bits fit one write.
        let total = q + 1 + bits
        if total <= 32 {
            let prefix: UInt64 = ((1 << UInt64(q)) - 1) << UInt64(1 + bits)
            try write(UInt32(truncatingIfNeeded: prefix | UInt64(value)), total)
        } else {
            try ones(q)
            try write(0, 1)
            try write(value, bits)
        }
    }

    @inline(__always)
    mutating func escape(_ value: UInt32, _ bits: Int) throws {
        try write(0x1FF, 9)
        try write(value, bits)
    }
}

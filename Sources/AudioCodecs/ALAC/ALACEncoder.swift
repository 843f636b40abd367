// Apple Lossless (ALAC) packet encoder: the inverse of ALACDecoder, 4,096 frames per packet.
//
// Per packet, channels go out as the syntax elements Apple's channel order prescribes (SCE, CPE,
// …, LFE: see ALACDecoder). For each element the encoder:
//
// - shifts off low bytes, stored verbatim (24-bit: 1 byte; 32-bit: 2 — a 32-bit pair's side
//   channel would otherwise need 33 bits), and tries the smaller shift (24-bit: none; 32-bit: 1)
//   too only when the larger leaves small residuals (`tryLessShiftBelow`), keeping the smaller;
// - for a pair, picks the stereo mix: mixBits 2 and mixRes 0…4 (0: left/right as they are; 2:
//   mid/side), the one whose two channels have the smallest sum of absolute first differences —
//   a cheap stand-in for their coded size;
// - for each channel, considers three predictor starts: the coefficients the channel's adaptive
//   predictor ended the previous packet with (a warm start: the predictor keeps adapting across
//   packets), and fresh order-8 and order-4 linear predictors from the packet's autocorrelation
//   (one Levinson-Durbin recursion gives both; quantised with a denominator shift of 9). Each
//   runs over the packet's first `probeFrames` frames and is priced exactly there (the
//   adaptive-Golomb cost of every residual); only the cheapest runs over the whole packet;
// - writes that plan straight away, without counting its bits first: the writing measures them
//   (count and writing follow one code path), and stops as soon as the element outgrows the
//   escape or meets the one coding decoders disagree on (see `codeResiduals`). Only then, or
//   when a 24/32-bit plan's residuals are small enough for the smaller shift to be worth a try,
//   is an element priced exactly (every start in full where the probe's choice needs that
//   coding) and written again from a copy of the writer kept at the element's start;
// - stores the element uncompressed (the escape) when that is smaller.
//
// The predictor, the bit count and the residuals' writing run in C (CALACKernels: the same
// arithmetic as ALACPredictor.residuals and `codeResiduals`, the Swift reference ALACKernelTests
// compares them against; the count and the writing follow one code path, so the size chosen is
// the size written), and so do the split of the interleaved samples into shifted channels and
// low bytes and the writing of those bytes (one call per element, not one Swift `write` per
// sample). Everything the encoder needs is allocated once, at init: no allocation per packet.
//
// Speed (Benchmarks/results/alac-2026-11-28.md): before this design the encoder priced three
// starts over whole packets and, at 24 bits, both shifts (six full predictor runs per channel)
// in Swift: 51× real time at 16 bits and 24× at 24, against ffmpeg's 97× and 108×. Writing the
// plan instead of counting it and then writing it (alac-2026-11-28c.md) (with a word-wise C
// writer) cut the encode's CPU time by 15–24 % at 24 bits and 10–12 % at 16, the bytes
// unchanged; the 256-frame probe about 10 % more, with smaller files.

import CALACKernels

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
    /// `elements(channelCount)`, made once (not an array per packet).
    private let elementList: [(pair: Bool, lfe: Bool)]
    private let u: UnsafeMutablePointer<Int32>
    private let v: UnsafeMutablePointer<Int32>
    /// Two candidate codings' residuals (U and V each) and shifted-off low bits.
    private let residuals: [UnsafeMutablePointer<Int32>]
    private let lows: [UnsafeMutablePointer<UInt16>]
    private let scratch: UnsafeMutablePointer<Int32>
    /// Coefficients, `maxOrder` slots each: per plan set and channel the chosen start and the
    /// adapted end (`coefSlot`), then the candidates' starts and a trial copy.
    private let coefs: UnsafeMutablePointer<Int16>
    /// Per channel: the adaptive predictor's coefficients at the end of the last packet
    /// (`carriedOrder[c]` of them; 0 before the first packet).
    private let carried: UnsafeMutablePointer<Int16>
    private var carriedOrder: [Int]
    /// Levinson-Durbin's work: autocorrelation, two coefficient rows.
    private let lpcWork: UnsafeMutablePointer<Double>

    static let maxOrder = 8
    /// The predictor starts are compared on this many first frames of the packet, and only the
    /// best runs to the end. The start matters most early on (the predictor adapts from it), so
    /// the probe mostly agrees with a full comparison; what it costs in size on the benchmark's
    /// material is in Benchmarks/results/alac-2026-11-28.md (files stay smaller than ffmpeg's).
    /// 256 rather than 512 (alac-2026-11-28c.md): a tenth less encode time, and on that
    /// material files 0.6 % (16-bit) and 0.4 % (24-bit) smaller, not larger — the first frames,
    /// where the start matters before the predictor has adapted, decide better alone. An
    /// empirical choice on one program's material, not a rule.
    static let probeFrames = 256
    /// Residual bits per sample (with the larger shift) below which the smaller shift is tried too;
    /// see `encodeElement`.
    static let tryLessShiftBelow = 6

    private func coefSlot(set: Int, channel c: Int, adapted: Bool) -> UnsafeMutablePointer<Int16> {
        coefs + ((set * 2 + c) * 2 + (adapted ? 1 : 0)) * ALACEncoder.maxOrder
    }
    private var candidateSlots: UnsafeMutablePointer<Int16> { coefs + 8 * ALACEncoder.maxOrder }
    private var trialSlot: UnsafeMutablePointer<Int16> { coefs + 11 * ALACEncoder.maxOrder }

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
        elementList = ALACEncoder.elements(channelCount)
        // The escape: every sample verbatim, plus element headers, END and padding.
        maximumPacketSize = (capacity * channelCount * bits + 64 * (channelCount + 1)) / 8 + 16
        config = ALACSpecificConfig(frameLength: UInt32(capacity), bitDepth: UInt8(bits), channelCount: UInt8(channelCount),
                                    sampleRate: UInt32(setup.sampleRate.rounded()), maxFrameBytes: UInt32(maximumPacketSize))
        u = .allocate(capacity: capacity)
        v = .allocate(capacity: capacity)
        residuals = (0..<4).map { _ in .allocate(capacity: 4096) }
        lows = (0..<2).map { _ in .allocate(capacity: 2 * 4096) }
        scratch = .allocate(capacity: capacity)
        coefs = .allocate(capacity: 12 * ALACEncoder.maxOrder)
        coefs.initialize(repeating: 0, count: 12 * ALACEncoder.maxOrder)
        carried = .allocate(capacity: channelCount * ALACEncoder.maxOrder)
        carried.initialize(repeating: 0, count: channelCount * ALACEncoder.maxOrder)
        carriedOrder = Array(repeating: 0, count: channelCount)
        lpcWork = .allocate(capacity: 3 * (ALACEncoder.maxOrder + 1))
    }

    deinit {
        u.deallocate(); v.deallocate(); scratch.deallocate()
        coefs.deallocate(); carried.deallocate(); lpcWork.deallocate()
        residuals.forEach { $0.deallocate() }
        lows.forEach { $0.deallocate() }
    }

    public func encode(_ samples: UnsafePointer<Int32>, frameCount n: Int, into output: UnsafeMutableRawPointer) throws -> Int {
        guard n >= 1 && n <= capacity else {
            throw CodecError(.unsupported, "Apple Lossless: a packet holds 1 to \(capacity) frames, not \(n)")
        }
        var w = ALACBitWriter(output, capacity: maximumPacketSize)
        var channel = 0
        var tags = (0, 0, 0)
        for element in elementList {
            let type: UInt32 = element.pair ? 1 : (element.lfe ? 3 : 0)
            try w.write(type, 3)
            let tag: Int
            switch type {
            case 0: tag = tags.0; tags.0 += 1
            case 1: tag = tags.1; tags.1 += 1
            default: tag = tags.2; tags.2 += 1
            }
            try w.write(UInt32(tag), 4)
            try encodeElement(samples, frames: n, channel: channel, pair: element.pair, into: &w)
            channel += element.pair ? 2 : 1
        }
        try w.write(7, 3)   // END
        try w.flush()
        return w.byteCount
    }

    /// What one way of coding an element costs; its coefficients are in `coefSlot(set:…)`.
    private struct Plan {
        var bytesShifted: Int
        var mixRes: Int32
        var orders = (0, 0)
        var bits = 0
        /// The residuals' share of `bits` (what the shift decision looks at).
        var residualBits = 0
    }

    private func encodeElement(_ samples: UnsafePointer<Int32>, frames n: Int, channel: Int, pair: Bool, into w: inout ALACBitWriter) throws {
        let depth = bitsPerSample
        let channels = pair ? 2 : 1
        // Shifting off low bytes stores them at 8 bits a sample whatever they hold: worth it for
        // loud or noisy high-depth audio, not for quiet audio. 24-bit tries 1 byte and 32-bit 2
        // (a 32-bit pair must shift at least 1: its side channel would otherwise need 33 bits).
        // The smaller shift is tried too only when the residuals left by the larger are small
        // (under `tryLessShiftBelow` bits a sample): when they are larger, the bytes kept back
        // are below the prediction error and code as about 8 bits a sample either way, so the
        // second search would cost as much time as the first for next to nothing.
        // (A pair of Ints, not an array literal: no allocation per element.)
        let options = depth == 32 ? (2, 1) : (depth == 24 ? (1, 0) : (0, -1))
        let escapeBits = channels * n * depth
        // The first plan is written as soon as it is chosen, not counted first: the writing
        // measures its size (the bit count and the writing follow one code path), and a
        // residual count would cost a third of a predictor run per channel. The writer is
        // kept here so another coding (the smaller shift, the escape) can replace it.
        let mark = w
        var best = plan(samples, frames: n, channel: channel, pair: pair, bytesShifted: options.0, set: 0, priced: false)
        var set = 0
        switch try writeCoded(best, set: 0, frames: n, pair: pair, limitBits: escapeBits, into: &w) {
        case .written(let bits, let residualBits):
            best.bits = bits
            best.residualBits = residualBits
        case .tooLarge:
            // Larger than the escape: nothing else is tried (the smaller shift leaves larger
            // residuals still).
            best.bits = Int.max
            best.residualBits = Int.max
        case .ambiguous:
            // A coding decoders disagree on (see `codeResiduals`): the exact search prices it
            // out and compares the other starts in full.
            w = mark
            best = plan(samples, frames: n, channel: channel, pair: pair, bytesShifted: options.0, set: 0, priced: true)
            if best.bits < escapeBits {
                _ = try writeCoded(best, set: 0, frames: n, pair: pair, limitBits: nil, into: &w)
            }
        }
        if options.1 >= 0 && best.residualBits < ALACEncoder.tryLessShiftBelow * channels * n {
            let other = plan(samples, frames: n, channel: channel, pair: pair, bytesShifted: options.1, set: 1, priced: true)
            if other.bits < best.bits {
                best = other; set = 1
                w = mark
                if best.bits < escapeBits { _ = try writeCoded(best, set: 1, frames: n, pair: pair, limitBits: nil, into: &w) }
            }
        }
        for c in 0..<channels {
            let order = c == 0 ? best.orders.0 : best.orders.1
            (carried + (channel + c) * ALACEncoder.maxOrder).update(from: coefSlot(set: set, channel: c, adapted: true), count: order)
            carriedOrder[channel + c] = order
        }
        if escapeBits <= best.bits {
            w = mark
            try writeHeader(frames: n, bytesShifted: 0, escape: true, into: &w)
            let stride = channelCount
            for i in 0..<n {
                for c in 0..<channels { try w.write(UInt32(bitPattern: samples[i * stride + channel + c]), depth) }
            }
        }
    }

    /// An element's header after its type and tag: 12 unused bits, the partial-packet flag,
    /// the bytes shifted, the escape flag, and a partial packet's frame count.
    private func writeHeader(frames n: Int, bytesShifted: Int, escape: Bool, into w: inout ALACBitWriter) throws {
        let partial = n != capacity
        try w.write(0, 12)
        try w.write(partial ? 1 : 0, 1)
        try w.write(UInt32(bytesShifted), 2)
        try w.write(escape ? 1 : 0, 1)
        if partial { try w.write(UInt32(n), 32) }
    }

    /// What `writeCoded` did: wrote the element (`bits` after the header: what `Plan.bits`
    /// counts), or stopped, the writer's state then meaningless.
    private enum CodedWrite { case written(bits: Int, residualBits: Int), tooLarge, ambiguous }

    /// Writes an element as planned (not the escape): the header, the mix, each channel's
    /// predictor, the low bytes, the residuals. With `limitBits`, the residuals are written
    /// checked, stopping once the element passes that many bits after its header (`.tooLarge`)
    /// or at a coding decoders disagree on (`.ambiguous`); without, the plan was priced.
    private func writeCoded(_ plan: Plan, set: Int, frames n: Int, pair: Bool, limitBits: Int?,
                            into w: inout ALACBitWriter) throws -> CodedWrite {
        let channels = pair ? 2 : 1
        try writeHeader(frames: n, bytesShifted: plan.bytesShifted, escape: false, into: &w)
        let start = w.bitCount
        try w.write(pair ? UInt32(ALACEncoder.mixBits) : 0, 8)
        try w.write(UInt32(bitPattern: plan.mixRes) & 0xFF, 8)
        for c in 0..<channels {
            let order = c == 0 ? plan.orders.0 : plan.orders.1
            try w.write(UInt32(ALACEncoder.denShift), 8)            // mode 0, denominator shift
            try w.write(UInt32(ALACEncoder.pbFactor << 5 | order), 8)
            let coefs = coefSlot(set: set, channel: c, adapted: false)
            for k in 0..<order { try w.write(UInt32(UInt16(bitPattern: coefs[k])), 16) }
        }
        if plan.bytesShifted > 0 { try w.writeFixed(lows[set], count: n * channels, bits: plan.bytesShifted * 8) }
        let residualStart = w.bitCount
        let chanBits = bitsPerSample - plan.bytesShifted * 8 + (pair ? 1 : 0)
        // Stopping at byte `limit` means more than `limitBits` bits were needed.
        let limit = limitBits.map { (start + $0) / 8 + 1 } ?? Int.max
        for c in 0..<channels {
            if limitBits == nil {
                try w.writeResiduals(residuals[2 * set + c], count: n, escapeBits: chanBits)
                continue
            }
            switch w.writeResidualsChecked(residuals[2 * set + c], count: n, escapeBits: chanBits, limit: limit) {
            case .written: break
            case .tooLarge: return .tooLarge
            case .ambiguous: return .ambiguous
            }
        }
        return .written(bits: w.bitCount - start, residualBits: w.bitCount - residualStart)
    }

    /// Splits off `bytesShifted` low bytes (into `lows[set]`), mixes a pair, picks each
    /// channel's predictor (residuals into `residuals[2·set + c]`, coefficients into
    /// `coefSlot(set:…)`) and, when `priced`, counts the bits (else `bits` and `residualBits`
    /// are left for the writing to measure).
    private func plan(_ samples: UnsafePointer<Int32>, frames n: Int, channel: Int, pair: Bool, bytesShifted: Int, set: Int,
                      priced: Bool) -> Plan {
        let stride = channelCount
        let shift = Int32(bytesShifted * 8)
        let chanBits = bitsPerSample - Int(shift) + (pair ? 1 : 0)
        let channels = pair ? 2 : 1
        var result = Plan(bytesShifted: bytesShifted, mixRes: 0)
        calac_split(samples + channel, stride, n, Int32(channels), shift, u, v, lows[set])
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
            let (order, bits) = choosePredictor(c == 0 ? u : v, frames: n, channel: channel + c, chanBits: chanBits,
                                                start: coefSlot(set: set, channel: c, adapted: false),
                                                adapted: coefSlot(set: set, channel: c, adapted: true),
                                                residuals: residuals[2 * set + c], priced: priced)
            if c == 0 { result.orders.0 = order } else { result.orders.1 = order }
            result.bits += order * 16 + bits
            result.residualBits += bits
        }
        return result
    }

    /// Picks one channel's predictor start among the carried coefficients and fresh order-8 and
    /// order-4 linear predictors: each runs over the first `probeFrames` frames and the one
    /// whose residuals code shortest there runs over the packet. Writes the start, the adapted
    /// end and the residuals; returns the order and the residuals' exact bit count (0 unless
    /// `priced`: the caller then measures it as it writes them).
    private func choosePredictor(_ x: UnsafeMutablePointer<Int32>, frames n: Int, channel: Int, chanBits: Int,
                                 start: UnsafeMutablePointer<Int16>, adapted: UnsafeMutablePointer<Int16>,
                                 residuals target: UnsafeMutablePointer<Int32>, priced: Bool) -> (order: Int, bits: Int) {
        let slots = candidateSlots, trial = trialSlot, stride = ALACEncoder.maxOrder
        var orders = (0, 0, 0)
        var count = 0
        if carriedOrder[channel] > 0 {
            slots.update(from: carried + channel * stride, count: carriedOrder[channel])
            orders.0 = carriedOrder[channel]
            count = 1
        }
        linearPredictors(x, count: n, order8: slots + count * stride, order4: slots + (count + 1) * stride)
        if count == 0 { orders.0 = 8; orders.1 = 4 } else { orders.1 = 8; orders.2 = 4 }
        count += 2
        func order(_ i: Int) -> Int { i == 0 ? orders.0 : (i == 1 ? orders.1 : orders.2) }
        /// Runs candidate `i` over `m` frames into `out`, adapting a copy in `trial`.
        func run(_ i: Int, _ m: Int, into out: UnsafeMutablePointer<Int32>, count: Bool = true) -> Int {
            trial.update(from: slots + i * stride, count: order(i))
            calac_residuals(x, out, m, trial, Int32(order(i)), Int32(chanBits), Int32(ALACEncoder.denShift))
            return count ? Int(calac_cost(out, m, Int32(chanBits))) : 0
        }
        func keep(_ i: Int, bits: Int) -> (order: Int, bits: Int) {
            start.update(from: slots + i * stride, count: order(i))
            adapted.update(from: trial, count: order(i))
            return (order(i), bits)
        }
        let probe = min(n, ALACEncoder.probeFrames)
        var bestIndex = 0, bestBits = Int.max
        for i in 0..<count {
            let bits = run(i, probe, into: scratch)
            if bits < bestBits {
                bestBits = bits; bestIndex = i
                if probe == n { target.update(from: scratch, count: n); _ = keep(i, bits: bits) }
            }
        }
        if probe == n { return (order(bestIndex), priced ? bestBits : 0) }
        let bits = run(bestIndex, n, into: target, count: priced)
        if !priced { return keep(bestIndex, bits: 0) }
        if bits < ALACCostCounter.ambiguousPrice { return keep(bestIndex, bits: bits) }
        // The probe's choice needs the coding decoders disagree on: compare the others in full.
        var chosen = keep(bestIndex, bits: bits)
        for i in 0..<count where i != bestIndex {
            let other = run(i, n, into: scratch)
            if other < chosen.bits { target.update(from: scratch, count: n); chosen = keep(i, bits: other) }
        }
        return chosen
    }

    /// The mix (mixRes 0…4 with mixBits 2) whose channels have the smallest total of absolute
    /// first differences; u and v hold left and right.
    private func chooseMix(_ n: Int) -> Int32 {
        guard n > 1 else { return 0 }
        var s0: Int64 = 0, s1: Int64 = 0, s2: Int64 = 0, s3: Int64 = 0, s4: Int64 = 0
        var side: Int64 = 0
        for i in 1..<n {
            let dl = Int64(u[i]) &- Int64(u[i - 1]), dr = Int64(v[i]) &- Int64(v[i - 1])
            side &+= abs(dl &- dr)
            s0 &+= abs(dr)                                   // (0·dl + 4·dr) >> 2
            s1 &+= abs((dl &+ 3 &* dr) >> 2)
            s2 &+= abs((2 &* dl &+ 2 &* dr) >> 2)
            s3 &+= abs((3 &* dl &+ dr) >> 2)
            s4 &+= abs(dl)
        }
        // mixRes 0 keeps left/right: its cost is right plus left, not right plus side.
        let costs = (s0 &+ s4, s1 &+ side, s2 &+ side, s3 &+ side, s4 &+ side)
        var best = 0
        var bestCost = costs.0
        if costs.1 < bestCost { bestCost = costs.1; best = 1 }
        if costs.2 < bestCost { bestCost = costs.2; best = 2 }
        if costs.3 < bestCost { bestCost = costs.3; best = 3 }
        if costs.4 < bestCost { bestCost = costs.4; best = 4 }
        return Int32(best)
    }

    /// Quantised linear-predictor coefficients of order 8 and of order 4 for the ALAC predictor
    /// (relative to the sample `order + 1` back), from the signal's autocorrelation by
    /// Levinson-Durbin (the order-4 set is the recursion's fourth step).
    private func linearPredictors(_ x: UnsafePointer<Int32>, count n: Int, order8: UnsafeMutablePointer<Int16>, order4: UnsafeMutablePointer<Int16>) {
        let order = 8
        order8.update(repeating: 0, count: 8)
        order4.update(repeating: 0, count: 4)
        guard n > order + 1 else { return }
        let r = lpcWork, a = lpcWork + (order + 1), next = lpcWork + 2 * (order + 1)
        calac_autocorrelation(x, n, Int32(order), r)
        guard r[0] > 0 else { return }
        r[0] *= 1.0 + 1e-9
        a.update(repeating: 0, count: order + 1)
        let scale = Double(1 << ALACEncoder.denShift)
        var err = r[0]
        var reached = 0
        for i in 1...order {
            var acc = r[i]
            for j in 1..<i { acc -= a[j] * r[i - j] }
            let k = acc / err
            next.update(from: a, count: order + 1)
            next[i] = k
            for j in 1..<i { next[j] = a[j] - k * a[i - j] }
            a.update(from: next, count: order + 1)
            err *= (1 - k * k)
            reached = i
            if i == 4 { for j in 0..<4 { order4[j] = Int16(clamping: Int((a[j + 1] * scale).rounded())) } }
            if err <= 0 { break }
        }
        if reached < 4 { for j in 0..<4 { order4[j] = Int16(clamping: Int((a[j + 1] * scale).rounded())) } }
        for j in 0..<8 { order8[j] = Int16(clamping: Int((a[j + 1] * scale).rounded())) }
    }

    /// The order-`order` coefficients alone (tests and tools; the encoder uses `linearPredictors`).
    static func linearPredictor(_ x: UnsafePointer<Int32>, count n: Int, order: Int) -> [Int16] {
        guard n > order + 1 else { return [Int16](repeating: 0, count: order) }
        var r = [Double](repeating: 0, count: order + 1)
        calac_autocorrelation(x, n, Int32(order), &r)
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
    mutating func ambiguous() { bits += ALACCostCounter.ambiguousPrice }
    static let ambiguousPrice = 1 << 40
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

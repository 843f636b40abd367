// The ALAC encoder's C kernels (CALACKernels) against the Swift reference they replace on the
// encoder's path: calac_residuals gives the same residuals and the same adapted coefficients as
// ALACPredictor.residuals, and calac_cost the same bit count as ALACEncoder.codeResiduals into an
// ALACCostCounter — over signals from silence (zero runs) to full-scale noise (escapes), every
// order the encoder uses and the special orders 0 and 31, channel widths 16, 17, 24, 25 and 32.
import Foundation
import Testing
@testable import AudioCodecs
import CALACKernels

@Suite struct ALACKernelTests {
    /// A deterministic generator (xorshift) so failures reproduce.
    struct Random { var s: UInt64; mutating func next() -> UInt64 { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s } }

    /// `n` samples `bits` wide: a tone plus noise at `noiseBits`, with a run of zeros.
    static func signal(_ n: Int, bits: Int, noiseBits: Int, seed: UInt64) -> [Int32] {
        var r = Random(s: seed)
        let top = Double(Int64(1) << (bits - 2))
        return (0..<n).map { i in
            if i > n / 3 && i < n / 3 + 300 { return 0 }
            let noise = noiseBits == 0 ? 0 : Int64(r.next() % (UInt64(1) << UInt64(noiseBits))) - (Int64(1) << (noiseBits - 1))
            let x = Int64((sin(Double(i) * 0.031) * top * 0.9).rounded()) + noise
            let shift = 64 - bits
            return Int32(truncatingIfNeeded: (x << shift) >> shift)
        }
    }

    @Test(arguments: [16, 17, 24, 25, 32])
    func residualsAndCostMatchTheSwiftReference(_ bits: Int) {
        var rng = Random(s: 0x9E37_79B9_7F4A_7C15)
        for noise in [0, 3, 12, min(bits, 30)] {
            let x = Self.signal(4096, bits: bits, noiseBits: noise, seed: rng.next())
            for order in [0, 1, 2, 4, 8, 31] {
                var start = (0..<max(order, 1)).map { _ in Int16(truncatingIfNeeded: Int64(rng.next() % 1024) - 512) }
                if order == 0 || order == 31 { start = [] }
                var swiftCoefs = start, cCoefs = start
                var swiftRes = [Int32](repeating: 0, count: x.count), cRes = swiftRes
                x.withUnsafeBufferPointer { input in
                    swiftCoefs.withUnsafeMutableBufferPointer { c in
                        ALACPredictor.residuals(input.baseAddress!, into: &swiftRes, count: x.count, coefs: c.baseAddress ?? UnsafeMutablePointer(mutating: [Int16(0)]),
                                                order: order, bits: bits, shift: 9)
                    }
                    cCoefs.withUnsafeMutableBufferPointer { c in
                        var dummy: Int16 = 0
                        calac_residuals(input.baseAddress!, &cRes, x.count, c.baseAddress ?? withUnsafeMutablePointer(to: &dummy) { $0 }, Int32(order), Int32(bits), 9)
                    }
                }
                #expect(swiftRes == cRes, "\(bits)-bit, noise \(noise), order \(order): residuals differ")
                #expect(swiftCoefs == cCoefs, "\(bits)-bit, noise \(noise), order \(order): adapted coefficients differ")
                var counter = ALACCostCounter()
                try? ALACEncoder.codeResiduals(swiftRes, count: swiftRes.count, escapeBits: bits, into: &counter)
                #expect(Int(calac_cost(swiftRes, swiftRes.count, Int32(bits))) == counter.bits, "\(bits)-bit, noise \(noise), order \(order): bit counts differ")
                // The C writer writes the Swift writer's bytes (after 5 odd bits already pending).
                var swiftBytes = [UInt8](repeating: 0, count: 8 * swiftRes.count + 64), cBytes = swiftBytes
                var swiftEnd = 0, cEnd = 0, cWhole = 0
                swiftBytes.withUnsafeMutableBytes { raw in
                    var w = ALACBitWriter(raw.baseAddress!, capacity: raw.count)
                    try? w.write(0b10110, 5)
                    try? ALACEncoder.codeResiduals(swiftRes, count: swiftRes.count, escapeBits: bits, into: &w)
                    try? w.flush()
                    swiftEnd = w.byteCount
                }
                cBytes.withUnsafeMutableBytes { raw in
                    var w = ALACBitWriter(raw.baseAddress!, capacity: raw.count)
                    try? w.write(0b10110, 5)
                    try? w.writeResiduals(swiftRes, count: swiftRes.count, escapeBits: bits)
                    cWhole = w.byteCount   // the whole bytes, before the last one's padding
                    try? w.flush()
                    cEnd = w.byteCount
                }
                #expect(swiftEnd == cEnd && swiftBytes == cBytes, "\(bits)-bit, noise \(noise), order \(order): written bytes differ")
                // The checked writer (the encoder's): the same bytes when nothing stops it; with
                // a limit of exactly the whole bytes the residuals fill it still writes them (a
                // partial last byte stays pending), one byte less stops it; it stops at an ambiguous coding exactly when the count
                // prices one.
                let ambiguous = counter.bits >= ALACCostCounter.ambiguousPrice
                for (limit, expected) in [(Int.max, ambiguous ? ALACBitWriter.CheckedWrite.ambiguous : .written),
                                          (cWhole, ambiguous ? .ambiguous : .written), (cWhole - 1, .tooLarge)] {
                    var checkedBytes = [UInt8](repeating: 0, count: swiftBytes.count)
                    var result = ALACBitWriter.CheckedWrite.written
                    var end = 0
                    checkedBytes.withUnsafeMutableBytes { raw in
                        var w = ALACBitWriter(raw.baseAddress!, capacity: raw.count)
                        try? w.write(0b10110, 5)
                        result = w.writeResidualsChecked(swiftRes, count: swiftRes.count, escapeBits: bits, limit: limit)
                        try? w.flush()
                        end = w.byteCount
                    }
                    if ambiguous && limit == cWhole - 1 { continue }   // either stop may come first
                    #expect(result == expected, "\(bits)-bit, noise \(noise), order \(order), limit \(limit)")
                    if expected == .written { #expect(end == cEnd && checkedBytes == cBytes) }
                }
            }
        }
    }

    /// The rare coding decoders disagree on (0xFFFF coded one lower after a zero run) is priced
    /// out by both counts alike.
    @Test func ambiguousCodingIsPricedOutAlike() {
        // A zero keeps the history (10) under 128, so a zero run is coded; then 32,768 (folded
        // 0x10000) is coded one lower, as 0xFFFF.
        var res = [Int32](repeating: 0, count: 11)
        res.append(32768)
        res += [Int32](repeating: 3, count: 50)
        var counter = ALACCostCounter()
        try? ALACEncoder.codeResiduals(res, count: res.count, escapeBits: 17, into: &counter)
        #expect(counter.bits >= ALACCostCounter.ambiguousPrice)
        #expect(Int(calac_cost(res, res.count, 17)) == counter.bits)
        var bytes = [UInt8](repeating: 0, count: 1024)
        bytes.withUnsafeMutableBytes { raw in
            var w = ALACBitWriter(raw.baseAddress!, capacity: raw.count)
            #expect(w.writeResidualsChecked(res, count: res.count, escapeBits: 17, limit: .max) == .ambiguous)
        }
    }

    /// The encoder writes its first plan without counting it and meets the ambiguous coding only
    /// as it writes: it then prices the element exactly, and here every start needs that coding
    /// (zeros, then 32,768: a residual of 32,768 whatever the coefficients), so the element goes
    /// out escaped — and decodes to the input.
    @Test func encoderEscapesAnElementOnlyAnAmbiguousCodingWouldCode() throws {
        let setup = AudioStreamSetup(codec: 0x616C_6163, sampleRate: 44_100, channelCount: 1, bitsPerSample: 20)
        let encoder = try AudioCodecRegistry.encoder(for: setup)
        let decoder = try AudioCodecRegistry.decoder(for: AudioStreamSetup(codec: 0x616C_6163, sampleRate: 44_100, channelCount: 1,
                                                                          magicCookie: encoder.magicCookie))
        var input = [Int32](repeating: 0, count: 4096)
        input[100] = 32768
        for i in 101..<4096 { input[i] = Int32((sin(Double(i) * 0.01) * 1000).rounded()) }
        var packet = [UInt8](repeating: 0, count: encoder.maximumPacketSize)
        let size = try input.withUnsafeBufferPointer { i in
            try packet.withUnsafeMutableBytes { try encoder.encode(i.baseAddress!, frameCount: 4096, into: $0.baseAddress!) }
        }
        // Type, tag, 12 unused bits, partial, shift, escape (bit 22), 4096 × 20 bits, END.
        #expect(size == (23 + 4096 * 20 + 3 + 7) / 8)
        #expect(packet[2] & 0x02 != 0, "the escape flag")
        var output = [Int32](repeating: 0, count: 4096)
        let got = try packet.withUnsafeBytes { p in
            try output.withUnsafeMutableBufferPointer { try decoder.decode(UnsafeRawBufferPointer(rebasing: p[0..<size]), into: $0.baseAddress!, frameCapacity: 4096) }
        }
        #expect(got == 4096 && output == input)
    }

    @Test(arguments: [0, 8, 16])
    func splitAndLowBytesMatchPerSampleSwift(_ shift: Int) throws {
        // Interleaved frames of three channels; the pair is channels 1 and 2, the single one 0.
        let n = 1000, stride = 3
        let samples = ALACKernelTests.signal(n * stride, bits: 32, noiseBits: 20, seed: UInt64(77 + shift))
        let mask = UInt32((UInt64(1) << UInt64(shift)) - 1)
        for channels in [1, 2] {
            let first = channels == 2 ? 1 : 0
            var u = [Int32](repeating: 0, count: n), v = [Int32](repeating: -7, count: n)
            var low = [UInt16](repeating: 0, count: 2 * n)
            samples.withUnsafeBufferPointer { calac_split($0.baseAddress! + first, stride, n, Int32(channels), Int32(shift), &u, &v, &low) }
            for i in 0..<n {
                let l = samples[i * stride + first]
                #expect(u[i] == l >> Int32(shift))
                if shift > 0 { #expect(low[channels * i] == UInt16(truncatingIfNeeded: UInt32(bitPattern: l) & mask)) }
                if channels == 2 {
                    let r = samples[i * stride + first + 1]
                    #expect(v[i] == r >> Int32(shift))
                    if shift > 0 { #expect(low[2 * i + 1] == UInt16(truncatingIfNeeded: UInt32(bitPattern: r) & mask)) }
                } else {
                    #expect(v[i] == -7)
                }
            }
            guard shift > 0 else { continue }
            // The low bytes written in one call are the bytes of one write per value, after a
            // few odd bits so the values straddle byte boundaries.
            let count = n * channels
            var one = [UInt8](repeating: 0, count: 4 * n + 16), run = one
            try one.withUnsafeMutableBytes { raw in
                var w = ALACBitWriter(raw.baseAddress!, capacity: raw.count)
                try w.write(0b101, 3)
                for i in 0..<count { try w.write(UInt32(low[i]), shift) }
                try w.flush()
            }
            try run.withUnsafeMutableBytes { raw in
                var w = ALACBitWriter(raw.baseAddress!, capacity: raw.count)
                try w.write(0b101, 3)
                try low.withUnsafeBufferPointer { try w.writeFixed($0.baseAddress!, count: count, bits: shift) }
                try w.flush()
            }
            #expect(one == run, "shift \(shift), \(channels) channels")
        }
    }
}

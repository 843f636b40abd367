// G.711 against three independent references: CPython audioop's tables, a literal transcription
// of Sun's g711.c (Reference.swift), and values from the recommendation itself.

import AudioKernels
import Testing

@Suite struct G711Tests {
    @Test("µ-law decoding matches audioop for all 256 codes")
    func ulawDecodeTable() {
        for code in 0 ... 255 {
            let byte = UInt8(code)
            #expect(G711.linear(fromULaw: byte) == AudioopTables.ulawToLinear[code], "code \(code)")
            #expect(G711Reference.ulawDecode(byte) == AudioopTables.ulawToLinear[code], "reference, code \(code)")
        }
    }

    @Test("A-law decoding matches audioop for all 256 codes")
    func alawDecodeTable() {
        for code in 0 ... 255 {
            let byte = UInt8(code)
            #expect(G711.linear(fromALaw: byte) == AudioopTables.alawToLinear[code], "code \(code)")
            #expect(G711Reference.alawDecode(byte) == AudioopTables.alawToLinear[code], "reference, code \(code)")
        }
    }

    @Test("known values")
    func knownValues() {
        // µ-law: 0xFF and 0x7F are +0 and -0; 0x00 and 0x80 the extremes ±8031 × 4.
        #expect(G711.linear(fromULaw: 0xFF) == 0)
        #expect(G711.linear(fromULaw: 0x7F) == 0)
        #expect(G711.linear(fromULaw: 0x00) == -32124)
        #expect(G711.linear(fromULaw: 0x80) == 32124)
        // A-law: 0xD5 / 0x55 are the smallest positive / negative levels (±1 × 8 in 16-bit units);
        // 0xAA / 0x2A the extremes ±4032 × 8. (Sign bit set = positive, so 0x2A is the negative one.)
        #expect(G711.linear(fromALaw: 0xD5) == 8)
        #expect(G711.linear(fromALaw: 0x55) == -8)
        #expect(G711.linear(fromALaw: 0xAA) == 32256)
        #expect(G711.linear(fromALaw: 0x2A) == -32256)
        // Silence encodes to the idle codes.
        #expect(G711.ulaw(fromLinear: 0) == 0xFF)
        #expect(G711.alaw(fromLinear: 0) == 0xD5)
        for (linear, ulaw, alaw) in AudioopTables.encoded {
            #expect(G711.ulaw(fromLinear: linear) == ulaw, "µ-law of \(linear)")
            #expect(G711.alaw(fromLinear: linear) == alaw, "A-law of \(linear)")
        }
    }

    @Test("encoding matches Sun's coder for all 65536 inputs")
    func exhaustiveEncode() {
        var ulawMismatches = 0, alawMismatches = 0
        for x in Int16.min ... Int16.max {
            if G711.ulaw(fromLinear: x) != G711Reference.ulawEncode(x) { ulawMismatches += 1 }
            if G711.alaw(fromLinear: x) != G711Reference.alawEncode(x) { alawMismatches += 1 }
        }
        #expect(ulawMismatches == 0)
        #expect(alawMismatches == 0)
    }

    @Test("every code survives decode → encode (µ-law's -0 becomes +0)")
    func codesRoundTrip() {
        for code in 0 ... 255 {
            let byte = UInt8(code)
            #expect(G711.ulaw(fromLinear: G711.linear(fromULaw: byte)) == (byte == 0x7F ? 0xFF : byte))
            #expect(G711.alaw(fromLinear: G711.linear(fromALaw: byte)) == byte)
        }
    }

    @Test("buffer kernels agree with the per-sample functions", arguments: [SampleEncoding.ulaw, .alaw])
    func kernels(_ encoding: SampleEncoding) {
        // All 256 codes, decoded to int16 (interleaved stereo, so the stereo loop runs too) and back.
        let codes = (0 ... 255).map { UInt8($0) }
        let file = TestBytes(codes)
        let buffer = TestBuffer(.int16, channels: 2, capacity: 128, layout: .channelPointers)
        SampleConversion.decode(frameCount: 128, from: file.pointer, encoding: encoding, bigEndian: false, to: buffer.pointer)
        let table = encoding == .ulaw ? AudioopTables.ulawToLinear : AudioopTables.alawToLinear
        for i in 0 ..< 256 {
            #expect(buffer[i / 2, i % 2].same(.i16(table[i])), "code \(i)")
        }
        let back = TestBytes(count: 256)
        SampleConversion.encode(frameCount: 128, from: buffer.pointer, to: back.pointer, encoding: encoding, bigEndian: false)
        #expect(back.bytes == codes.map { encoding == .ulaw && $0 == 0x7F ? 0xFF : $0 })
    }
}

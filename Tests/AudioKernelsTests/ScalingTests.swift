// The numeric rules at their edges: full scale, clipping, NaN, infinities and rounding ties, both
// through the per-sample functions and through the buffer kernels (whose vectorised loops must
// agree with them).

import AudioKernels
import Testing

/// Converts `values` with the buffer kernel: float32 interleaved mono → `encoding` LE bytes →
/// the integers they hold.
func encodeFloats(_ values: [Float], as encoding: SampleEncoding) -> [Int64] {
    let source = TestBuffer(.float32, channels: 1, capacity: values.count, layout: .interleaved)
    for (i, v) in values.enumerated() { source[i, 0] = .f32(v) }
    let file = TestBytes(count: values.count * encoding.bytesPerSample)
    SampleConversion.encode(frameCount: values.count, from: source.pointer, to: file.pointer,
                            encoding: encoding, bigEndian: false)
    let format = FileFormat(encoding: encoding, bigEndian: false)
    let bytes = file.bytes
    return (0 ..< values.count).map { i in
        guard case .int(let v, _) = Reference.read(bytes[i * format.bytes ..< (i + 1) * format.bytes], format) else {
            return .min
        }
        return v
    }
}

@Suite struct ScalingTests {
    @Test("float → int16: full scale, clipping, NaN and infinities")
    func floatToInt16FullScale() {
        let cases: [(Float, Int32)] = [
            (1.0, 32767), (-1.0, -32768), (1.5, 32767), (-1.5, -32768), (.nan, 0), (-.nan, 0),
            (.infinity, 32767), (-.infinity, -32768), (0, 0), (-0.0, 0), (32767.0 / 32768, 32767),
            (.greatestFiniteMagnitude, 32767), (-.greatestFiniteMagnitude, -32768),
        ]
        for (x, expected) in cases {
            #expect(SampleScaling.integer(fromFloat: x, bits: 16) == expected, "\(x)")
            #expect(SampleScaling.integer(fromDouble: Double(x), bits: 16) == expected, "\(x) as Double")
        }
        // The same through the kernel, repeated so the values also pass through the vector loop.
        let values = Array(repeating: cases.map(\.0), count: 4).joined()
        let expected = Array(repeating: cases.map { Int64($0.1) }, count: 4).joined()
        #expect(encodeFloats(Array(values), as: .signed16) == Array(expected))
    }

    @Test("float → integer rounds halfway cases to even", arguments: [8, 16, 24, 32])
    func tiesToEven(bits: Int) {
        let lsb = 1 / Double(sign: .plus, exponent: bits - 1, significand: 1)
        let cases: [(Double, Int32)] = [
            (0.5, 0), (1.5, 2), (2.5, 2), (3.5, 4), (-0.5, 0), (-1.5, -2), (-2.5, -2),
            (0.49, 0), (0.51, 1), (-0.51, -1), (100.5, 100), (101.5, 102),
        ]
        for (steps, expected) in cases {
            #expect(SampleScaling.integer(fromDouble: steps * lsb, bits: bits) == expected, "\(steps) LSB, \(bits) bits")
            if let f = Float(exactly: steps * lsb) {
                #expect(SampleScaling.integer(fromFloat: f, bits: bits) == expected, "\(steps) LSB as Float, \(bits) bits")
            }
        }
    }

    @Test("float → int24 and int32 at full scale")
    func wideFullScale() {
        #expect(SampleScaling.integer(fromFloat: 1.0, bits: 24) == 8_388_607)
        #expect(SampleScaling.integer(fromFloat: -1.0, bits: 24) == -8_388_608)
        #expect(SampleScaling.integer(fromFloat: 8_388_606.5 / 8_388_608, bits: 24) == 8_388_606)
        #expect(SampleScaling.integer(fromFloat: -8_388_607.5 / 8_388_608, bits: 24) == -8_388_608)
        #expect(SampleScaling.integer(fromFloat: 1.0, bits: 32) == .max)
        #expect(SampleScaling.integer(fromFloat: -1.0, bits: 32) == .min)
        #expect(SampleScaling.integer(fromFloat: .nan, bits: 32) == 0)
        #expect(SampleScaling.integer(fromDouble: 2_147_483_646.5 / 2_147_483_648, bits: 32) == 2_147_483_646)
        #expect(SampleScaling.integer(fromDouble: 1.0, bits: 32) == .max)
        #expect(SampleScaling.integer(fromDouble: -.infinity, bits: 32) == .min)
        let kernel = encodeFloats([1.0, -1.0, 1.5, .nan, 0.5 / 8_388_608, 1.5 / 8_388_608], as: .signed24)
        #expect(kernel == [8_388_607, -8_388_608, 8_388_607, 0, 0, 2])
        let kernel32 = encodeFloats([1.0, -1.0, -1.5, .nan, 0.25], as: .signed32)
        #expect(kernel32 == [2_147_483_647, -2_147_483_648, -2_147_483_648, 0, 536_870_912])
    }

    @Test("8-bit formats: unsigned offset binary and signed")
    func eightBit() {
        #expect(encodeFloats([1.0, -1.0, 0, 0.5, -0.5, .nan, 1.0 / 256], as: .unsigned8) == [127, -128, 0, 64, -64, 0, 0])
        #expect(encodeFloats([1.0, -1.0, 0, 3.0 / 256], as: .signed8) == [127, -128, 0, 2])
        // Unsigned bytes: 0 → -1.0, 128 → 0, 255 → 127/128.
        let file = TestBytes([0, 128, 255, 1])
        let buffer = TestBuffer(.float32, channels: 1, capacity: 4, layout: .interleaved)
        SampleConversion.decode(frameCount: 4, from: file.pointer, encoding: .unsigned8, bigEndian: false, to: buffer.pointer)
        #expect((0 ..< 4).map { buffer[$0, 0].asValue } == [.float(-1), .float(0), .float(127.0 / 128), .float(-127.0 / 128)])
    }

    @Test("integer → float divides by 2^(bits-1)")
    func integerToFloat() {
        #expect(SampleScaling.float(fromInteger: -32768, bits: 16) == -1.0)
        #expect(SampleScaling.float(fromInteger: 32767, bits: 16) == 32767.0 / 32768)
        #expect(SampleScaling.float(fromInteger: -8_388_608, bits: 24) == -1.0)
        #expect(SampleScaling.float(fromInteger: .min, bits: 32) == -1.0)
        // int32 → float32 rounds to 24 significant bits (nearest): 2^31 - 1 becomes 1.0.
        #expect(SampleScaling.float(fromInteger: .max, bits: 32) == 1.0)
        #expect(SampleScaling.double(fromInteger: .max, bits: 32) == 2_147_483_647.0 / 2_147_483_648)
        #expect(SampleScaling.float(fromInteger: -128, bits: 8) == -1.0)
    }

    @Test("integer narrowing rounds to nearest (ties to even) and clips; widening shifts")
    func integerResizing() {
        let cases: [(Int32, Int32)] = [
            (0x7FFF_8000, 32767), (0x7FFF_7FFF, 32767), (0x7FFF_FFFF, 32767), (Int32.min, -32768),
            (0x0000_8000, 0), (0x0001_8000, 2), (0x0002_8000, 2), (0x0001_7FFF, 1), (0x0001_8001, 2),
            (-0x8000, 0), (-0x1_8000, -2), (-0x8001, -1), (0x7FFE_8000, 32766), (0x7FFD_8000, 32766),
        ]
        for (x, expected) in cases {
            #expect(SampleScaling.integer(x, fromBits: 32, toBits: 16) == expected, "\(String(x, radix: 16))")
        }
        #expect(SampleScaling.integer(-32768, fromBits: 16, toBits: 32) == Int32.min)
        #expect(SampleScaling.integer(12345, fromBits: 16, toBits: 24) == 12345 << 8)
        #expect(SampleScaling.integer(0x7F_FF80, fromBits: 24, toBits: 16) == 32767)
        #expect(SampleScaling.integer(0x00_0180, fromBits: 24, toBits: 16) == 2)
        // Through the kernel: int32 processing → int16 file.
        let source = TestBuffer(.int32, channels: 1, capacity: cases.count, layout: .interleaved)
        for (i, c) in cases.enumerated() { source[i, 0] = .i32(c.0) }
        let file = TestBytes(count: cases.count * 2)
        SampleConversion.encode(frameCount: cases.count, from: source.pointer, to: file.pointer,
                                encoding: .signed16, bigEndian: true)
        let bytes = file.bytes
        for (i, c) in cases.enumerated() {
            #expect(Int16(bitPattern: UInt16(bytes[2 * i]) << 8 | UInt16(bytes[2 * i + 1])) == Int16(c.1))
        }
    }

    @Test("float32 ↔ float64 follow IEEE")
    func floatWidths() {
        let values: [Double] = [1.0 / 3, 0.1, -0.7, 1e-40, 1e40, .infinity]
        let source = TestBuffer(.float64, channels: 1, capacity: values.count, layout: .interleaved)
        for (i, v) in values.enumerated() { source[i, 0] = .f64(v) }
        let destination = TestBuffer(.float32, channels: 1, capacity: values.count, layout: .interleaved)
        SampleConversion.convert(frameCount: values.count, from: source.pointer, to: destination.pointer)
        for (i, v) in values.enumerated() {
            #expect(destination[i, 0].same(.f32(Float(v))), "\(v)")
        }
    }
}

// TPDF dither: the generator's statistics, determinism, the ±1 LSB bound on what it may change,
// that it really linearises the quantiser, and that it leaves conversions without quantisation alone.

import AudioKernels
import Testing

@Suite struct DitherTests {
    @Test("noise is triangular on (-1, 1): mean 0, variance 1/6")
    func statistics() {
        var dither = TPDFDither(seed: 42)
        var sum = 0.0, sumOfSquares = 0.0, count = 0
        var histogram = [Int](repeating: 0, count: 4)   // |d| in quarters
        for _ in 0 ..< 4096 {
            let block = dither.next()
            for lane in 0 ..< 8 {
                let d = Double(block[lane])
                #expect(d > -1 && d < 1)
                sum += d
                sumOfSquares += d * d
                histogram[min(3, Int(abs(d) * 4))] += 1
                count += 1
            }
        }
        let mean = sum / Double(count)
        let variance = sumOfSquares / Double(count) - mean * mean
        #expect(abs(mean) < 0.01)
        #expect(abs(variance - 1.0 / 6) < 0.01)
        // A triangle puts 7/16 of its mass in |d| < 1/4 and 1/16 in |d| > 3/4.
        #expect(abs(Double(histogram[0]) / Double(count) - 7.0 / 16) < 0.02)
        #expect(abs(Double(histogram[3]) / Double(count) - 1.0 / 16) < 0.02)
    }

    @Test("the same seed gives the same output, another seed another")
    func deterministic() {
        func run(seed: UInt64) -> [UInt8] {
            let source = TestBuffer(.float32, channels: 2, capacity: 300, layout: .channelPointers)
            for f in 0 ..< 300 { for c in 0 ..< 2 { source[f, c] = .f32(Float(f - 150) / 40000 + Float(c) * 0.001) } }
            let file = TestBytes(count: 300 * 2 * 2)
            var dither = TPDFDither(seed: seed)
            SampleConversion.encode(frameCount: 300, from: source.pointer, to: file.pointer, encoding: .signed16,
                                    bigEndian: false, dither: &dither)
            return file.bytes
        }
        #expect(run(seed: 1) == run(seed: 1))
        #expect(run(seed: 1) != run(seed: 2))
    }

    @Test("a dithered sample is within 1.5 LSB of its exact value and stays in range",
          arguments: [SampleEncoding.unsigned8, .signed8, .signed16, .signed24, .signed32])
    func bounded(_ encoding: SampleEncoding) {
        let bits = encoding.bytesPerSample * 8
        for channels in [1, 2, 3] {
            for layout in Layout.allCases {
                for type in [ProcessingSampleType.float32, .float64] {
                    let frames = 517
                    let samples = Signals.processed(type, count: frames * channels, seed: UInt64(channels))
                    let source = TestBuffer(type, channels: channels, capacity: frames, layout: layout)
                    for f in 0 ..< frames { for c in 0 ..< channels { source[f, c] = samples[f * channels + c] } }
                    let file = TestBytes(count: frames * channels * encoding.bytesPerSample)
                    var dither = TPDFDither(seed: 7)
                    SampleConversion.encode(frameCount: frames, from: source.pointer, to: file.pointer, encoding: encoding,
                                            bigEndian: true, dither: &dither)
                    let format = FileFormat(encoding: encoding, bigEndian: true)
                    let bytes = file.bytes
                    for i in 0 ..< frames * channels {
                        guard case .int(let q, _) = Reference.read(bytes[i * format.bytes ..< (i + 1) * format.bytes], format)
                        else { Issue.record("not an integer"); return }
                        let x = Reference.double(samples[i].asValue)
                        let top = Double(sign: .plus, exponent: bits - 1, significand: 1)
                        if x.isNaN { #expect(q == 0); continue }
                        // The exact value in LSBs, clipped; the dithered result is at most 1.5 LSB
                        // away (rounding ½ plus dither < 1), and never outside the range.
                        let exact = min(max(x * top, -top), top - 1)
                        #expect(abs(Double(q) - exact) < 1.5, "\(encoding) \(x): \(q)")
                    }
                }
            }
        }
    }

    @Test("dither linearises the quantiser: a constant 0.3 LSB averages 0.3 LSB")
    func linearises() {
        let frames = 8192
        let source = TestBuffer(.float32, channels: 1, capacity: frames, layout: .interleaved)
        for f in 0 ..< frames { source[f, 0] = .f32(0.3 / 32768) }
        let file = TestBytes(count: frames * 2)
        var dither = TPDFDither()
        SampleConversion.encode(frameCount: frames, from: source.pointer, to: file.pointer, encoding: .signed16,
                                bigEndian: false, dither: &dither)
        let bytes = file.bytes
        let values = (0 ..< frames).map { Int16(bitPattern: UInt16(bytes[2 * $0]) | UInt16(bytes[2 * $0 + 1]) << 8) }
        #expect(values.allSatisfy { (-1 ... 1).contains($0) })
        let mean = Double(values.reduce(0) { $0 + Int($1) }) / Double(frames)
        #expect(abs(mean - 0.3) < 0.03, "mean \(mean)")
        // Without dither every sample rounds to 0.
        SampleConversion.encode(frameCount: frames, from: source.pointer, to: file.pointer, encoding: .signed16,
                                bigEndian: false)
        #expect(file.bytes.allSatisfy { $0 == 0 })
    }

    @Test("pairs that do not quantise float ignore dither and leave the generator alone")
    func ignoredWithoutQuantisation() {
        let frames = 64
        let samples = Signals.processed(.int16, count: frames, seed: 3)
        let source = TestBuffer(.int16, channels: 1, capacity: frames, layout: .interleaved)
        for f in 0 ..< frames { source[f, 0] = samples[f] }
        let plain = TestBytes(count: frames * 3)
        let dithered = TestBytes(count: frames * 3)
        var dither = TPDFDither(seed: 11)
        SampleConversion.encode(frameCount: frames, from: source.pointer, to: plain.pointer, encoding: .signed24, bigEndian: false)
        SampleConversion.encode(frameCount: frames, from: source.pointer, to: dithered.pointer, encoding: .signed24,
                                bigEndian: false, dither: &dither)
        #expect(plain.bytes == dithered.bytes)
        var untouched = TPDFDither(seed: 11)
        #expect(dither.next() == untouched.next())

        // float → float likewise.
        let floats = TestBuffer(.float32, channels: 1, capacity: frames, layout: .interleaved)
        let doubles = TestBuffer(.float64, channels: 1, capacity: frames, layout: .interleaved)
        for f in 0 ..< frames { floats[f, 0] = .f32(Float(f) / 100) }
        SampleConversion.convert(frameCount: frames, from: floats.pointer, to: doubles.pointer, dither: &dither)
        #expect((0 ..< frames).allSatisfy { doubles[$0, 0].same(.f64(Double(Float($0) / 100))) })
        #expect(dither.next() == untouched.next())
    }

    @Test("dithered decode and convert quantise float to integer processing types", arguments: [1, 2, 3, 6])
    func decodeAndConvert(channels: Int) {
        let frames = 300
        let format = FileFormat(encoding: .float32, bigEndian: true)
        let file = TestBytes(Signals.bytes(for: format, count: frames * channels, seed: 8))
        for layout in Layout.allCases {
            let buffer = TestBuffer(.int16, channels: channels, capacity: frames, layout: layout)
            var dither = TPDFDither(seed: 5)
            SampleConversion.decode(frameCount: frames, from: file.pointer, encoding: .float32, bigEndian: true,
                                    to: buffer.pointer, dither: &dither)
            let exact = TestBuffer(.float64, channels: channels, capacity: frames, layout: layout)
            SampleConversion.decode(frameCount: frames, from: file.pointer, encoding: .float32, bigEndian: true,
                                    to: exact.pointer)
            let converted = TestBuffer(.int32, channels: channels, capacity: frames,
                                       layout: layout == .interleaved ? .planar : .interleaved)
            SampleConversion.convert(frameCount: frames, from: exact.pointer, to: converted.pointer, dither: &dither)
            for f in 0 ..< frames {
                for c in 0 ..< channels {
                    guard case .f64(let x) = exact[f, c], case .i16(let q) = buffer[f, c],
                          case .i32(let q32) = converted[f, c]
                    else { Issue.record("types"); return }
                    if x.isNaN { #expect(q == 0 && q32 == 0); continue }
                    #expect(abs(Double(q) - min(max(x * 32768, -32768), 32767)) < 1.5, "\(x) → \(q)")
                    #expect(abs(Double(q32) - min(max(x * 2147483648, -2147483648), 2147483647)) < 1.5, "\(x) → \(q32)")
                }
            }
            #expect(buffer.untouched(outside: 0 ..< frames) && converted.untouched(outside: 0 ..< frames))
        }
    }
}

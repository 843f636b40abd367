// Lossless round trips: file → processing → file must give back the same bytes whenever the
// processing type can hold every value of the file format (int8/int16/int24 in float32, int32 in
// float64 or int32, anything narrower in a wider integer).

import AudioKernels
import Testing

struct RoundTrip: CustomStringConvertible, Sendable {
    let format: FileFormat
    let through: ProcessingSampleType
    var description: String { "\(format) via \(through)" }

    static let lossless: [RoundTrip] = FileFormat.all.flatMap { format -> [RoundTrip] in
        let types: [ProcessingSampleType]
        switch format.encoding {
        case .unsigned8, .signed8, .signed16, .ulaw, .alaw: types = [.float32, .float64, .int16, .int32]
        case .signed24: types = [.float32, .float64, .int32]
        case .signed32: types = [.float64, .int32]
        case .float32: types = [.float32, .float64]
        case .float64: types = [.float64]
        }
        return types.map { RoundTrip(format: format, through: $0) }
    }
}

@Suite struct RoundTripTests {
    @Test("file → processing → file is bit-exact", arguments: RoundTrip.lossless)
    func bitExact(_ trip: RoundTrip) {
        for channels in [1, 2, 6] {
            for layout in Layout.allCases {
                let frames = 1023
                var bytes = Signals.bytes(for: trip.format, count: frames * channels, seed: 99)
                if trip.format.encoding.isFloat {
                    // NaN payloads need not survive; replace NaNs with a number.
                    let size = trip.format.bytes
                    for i in 0 ..< frames * channels
                        where Reference.double(Reference.read(bytes[i * size ..< (i + 1) * size], trip.format)).isNaN {
                        bytes.replaceSubrange(i * size ..< (i + 1) * size, with: Reference.stored(.float(0.125), as: trip.format))
                    }
                }
                let file = TestBytes(bytes)
                let buffer = TestBuffer(trip.through, channels: channels, capacity: frames, layout: layout)
                SampleConversion.decode(frameCount: frames, from: file.pointer, encoding: trip.format.encoding,
                                        bigEndian: trip.format.bigEndian, to: buffer.pointer)
                let back = TestBytes(count: bytes.count)
                SampleConversion.encode(frameCount: frames, from: buffer.pointer, to: back.pointer,
                                        encoding: trip.format.encoding, bigEndian: trip.format.bigEndian)
                var expected = bytes
                if trip.format.encoding == .ulaw {
                    // µ-law has two zeros; -0 (0x7F) comes back as +0 (0xFF).
                    expected = expected.map { $0 == 0x7F ? 0xFF : $0 }
                }
                #expect(back.bytes == expected, "\(trip) \(channels)ch \(layout)")
            }
        }
    }

    @Test("all 65536 int16 values survive float32, both byte orders")
    func everyInt16ThroughFloat32() {
        var bytes: [UInt8] = []
        for x in Int16.min ... Int16.max { bytes += [UInt8(truncatingIfNeeded: x), UInt8(truncatingIfNeeded: x >> 8)] }
        for bigEndian in [false, true] {
            let file = TestBytes(bytes)
            let buffer = TestBuffer(.float32, channels: 2, capacity: 32768, layout: .planar)
            SampleConversion.decode(frameCount: 32768, from: file.pointer, encoding: .signed16, bigEndian: bigEndian,
                                    to: buffer.pointer)
            let back = TestBytes(count: bytes.count)
            SampleConversion.encode(frameCount: 32768, from: buffer.pointer, to: back.pointer, encoding: .signed16,
                                    bigEndian: bigEndian)
            #expect(back.bytes == bytes)
        }
    }

    @Test("odd frame counts and offsets through every loop shape", arguments: [1, 2, 3, 6, 8])
    func offsetsAndTails(channels: Int) {
        // Decode a long file piecewise – odd-sized pieces at odd offsets – and compare with one call.
        let frames = 1023
        let format = FileFormat(encoding: .signed24, bigEndian: false)
        let bytes = Signals.bytes(for: format, count: frames * channels, seed: 5)
        let file = TestBytes(bytes)
        for layout in Layout.allCases {
            let whole = TestBuffer(.float32, channels: channels, capacity: frames, layout: layout)
            SampleConversion.decode(frameCount: frames, from: file.pointer, encoding: .signed24, bigEndian: false,
                                    to: whole.pointer)
            let pieces = TestBuffer(.float32, channels: channels, capacity: frames, layout: layout)
            var done = 0
            for size in [1, 7, 13, 1, 255, 3, 600, 143] {
                SampleConversion.decode(frameCount: size, from: file.pointer + done * channels * 3, encoding: .signed24,
                                        bigEndian: false, to: pieces.pointer, atFrame: done)
                done += size
            }
            #expect(done == frames)
            #expect((0 ..< frames).allSatisfy { f in (0 ..< channels).allSatisfy { whole[f, $0].same(pieces[f, $0]) } })
            // And back, piecewise from offsets, into one file.
            let back = TestBytes(count: bytes.count)
            done = 0
            for size in [600, 7, 1, 415] {
                SampleConversion.encode(frameCount: size, from: pieces.pointer, atFrame: done,
                                        to: back.pointer + done * channels * 3, encoding: .signed24, bigEndian: false)
                done += size
            }
            #expect(back.bytes == bytes, "\(channels)ch \(layout)")
            #expect(back.guardsIntact)
        }
    }
}

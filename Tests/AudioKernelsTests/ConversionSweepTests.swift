// Exhaustive sweeps: every file format (9 encodings × 2 byte orders) × channel counts
// {1, 2, 3, 6, 8} × the three buffer layouts × the four processing types × frame counts chosen to
// hit every loop shape and SIMD tail, each sample compared with the reference model, and every
// byte outside the converted range checked to be untouched.

import AudioKernels
import Testing

let channelCounts = [1, 2, 3, 6, 8]

/// Frame counts per channel count: 1 and 7 (shorter than any vector, so all tail), and a long odd
/// count (a vector body plus a tail) – 1023 where the vectorised loops run (one and two
/// channels), shorter for the blocked many-channel path to keep debug runs quick.
func frameCounts(channels: Int) -> [Int] { channels <= 2 ? [1, 7, 1023] : [1, 7, 101] }

/// A destination or source frame offset that is not a multiple of any vector width.
func frameOffset(_ frames: Int) -> Int { frames == 1 ? 0 : 3 }

@Suite struct ConversionSweepTests {
    @Test("decode: every file format into every processing type and layout", arguments: FileFormat.all)
    func decode(_ format: FileFormat) {
        var failures = 0
        for channels in channelCounts {
            for frames in frameCounts(channels: channels) {
                let bytes = Signals.bytes(for: format, count: frames * channels, seed: UInt64(frames * 31 + channels))
                let file = TestBytes(bytes)
                for type in ProcessingSampleType.all {
                    for layout in Layout.allCases {
                        let offset = frameOffset(frames)
                        let buffer = TestBuffer(type, channels: channels, capacity: offset + frames + 2, layout: layout)
                        SampleConversion.decode(frameCount: frames, from: file.pointer, encoding: format.encoding,
                                                bigEndian: format.bigEndian, to: buffer.pointer, atFrame: offset)
                        for f in 0 ..< frames {
                            for c in 0 ..< channels {
                                let i = (f * channels + c) * format.bytes
                                let source = Reference.read(bytes[i ..< i + format.bytes], format)
                                let expected = Reference.processed(source, as: type)
                                let actual = buffer[offset + f, c]
                                if !actual.same(expected) {
                                    failures += 1
                                    if failures <= 5 {
                                        Issue.record("\(format) → \(type) \(layout) \(channels)ch \(frames)fr [\(f),\(c)]: \(source) gave \(actual), expected \(expected)")
                                    }
                                }
                            }
                        }
                        #expect(buffer.untouched(outside: offset ..< offset + frames),
                                "decode \(format) → \(type) \(layout) \(channels)ch wrote outside its frames")
                        #expect(file.guardsIntact)
                    }
                }
            }
        }
        #expect(failures == 0)
    }

    @Test("encode: every processing type and layout into every file format", arguments: FileFormat.all)
    func encode(_ format: FileFormat) {
        var failures = 0
        for channels in channelCounts {
            for frames in frameCounts(channels: channels) {
                for type in ProcessingSampleType.all {
                    let samples = Signals.processed(type, count: frames * channels, seed: UInt64(frames * 17 + channels))
                    for layout in Layout.allCases {
                        let offset = frameOffset(frames)
                        let buffer = TestBuffer(type, channels: channels, capacity: offset + frames + 2, layout: layout)
                        for f in 0 ..< frames { for c in 0 ..< channels { buffer[offset + f, c] = samples[f * channels + c] } }
                        let file = TestBytes(count: frames * channels * format.bytes)
                        SampleConversion.encode(frameCount: frames, from: buffer.pointer, atFrame: offset,
                                                to: file.pointer, encoding: format.encoding, bigEndian: format.bigEndian)
                        let bytes = file.bytes
                        for f in 0 ..< frames {
                            for c in 0 ..< channels {
                                let sample = samples[f * channels + c]
                                let expected = Reference.stored(sample.asValue, as: format)
                                let i = (f * channels + c) * format.bytes
                                let actual = Array(bytes[i ..< i + format.bytes])
                                // A NaN float written as float may carry any payload.
                                let bothNaN = format.encoding.isFloat
                                    && Reference.double(Reference.read(actual[...], format)).isNaN
                                    && Reference.double(sample.asValue).isNaN
                                if actual != expected && !bothNaN {
                                    failures += 1
                                    if failures <= 5 {
                                        Issue.record("\(type) \(layout) → \(format) \(channels)ch \(frames)fr [\(f),\(c)]: \(sample) gave \(actual), expected \(expected)")
                                    }
                                }
                            }
                        }
                        #expect(file.guardsIntact, "encode \(type) \(layout) → \(format) \(channels)ch wrote outside")
                        #expect(buffer.untouched(outside: offset ..< offset + frames), "encode modified its source")
                    }
                }
            }
        }
        #expect(failures == 0)
    }

    @Test("convert: every processing type and layout to every other", arguments: ProcessingSampleType.all)
    func convert(_ sourceType: ProcessingSampleType) {
        var failures = 0
        for channels in channelCounts {
            for frames in frameCounts(channels: channels) {
                let samples = Signals.processed(sourceType, count: frames * channels, seed: UInt64(frames + channels))
                for sourceLayout in Layout.allCases {
                    let sourceOffset = frameOffset(frames) + 1
                    let source = TestBuffer(sourceType, channels: channels, capacity: sourceOffset + frames, layout: sourceLayout)
                    for f in 0 ..< frames { for c in 0 ..< channels { source[sourceOffset + f, c] = samples[f * channels + c] } }
                    for destinationType in ProcessingSampleType.all {
                        for destinationLayout in Layout.allCases {
                            let offset = frameOffset(frames)
                            let destination = TestBuffer(destinationType, channels: channels, capacity: offset + frames + 1,
                                                         layout: destinationLayout)
                            SampleConversion.convert(frameCount: frames, from: source.pointer, atFrame: sourceOffset,
                                                     to: destination.pointer, atFrame: offset)
                            for f in 0 ..< frames {
                                for c in 0 ..< channels {
                                    let sample = samples[f * channels + c]
                                    let expected = Reference.processed(sample.asValue, as: destinationType)
                                    let actual = destination[offset + f, c]
                                    if !actual.same(expected) {
                                        failures += 1
                                        if failures <= 5 {
                                            Issue.record("\(sourceType) \(sourceLayout) → \(destinationType) \(destinationLayout) \(channels)ch \(frames)fr [\(f),\(c)]: \(sample) gave \(actual), expected \(expected)")
                                        }
                                    }
                                }
                            }
                            #expect(destination.untouched(outside: offset ..< offset + frames))
                        }
                    }
                }
            }
        }
        #expect(failures == 0)
    }

    @Test("a frame count of zero touches nothing")
    func zeroFrames() {
        let buffer = TestBuffer(.float32, channels: 2, capacity: 4, layout: .channelPointers)
        let file = TestBytes(count: 8)
        SampleConversion.decode(frameCount: 0, from: file.pointer, encoding: .signed16, bigEndian: false, to: buffer.pointer)
        SampleConversion.encode(frameCount: 0, from: buffer.pointer, to: file.pointer, encoding: .signed24, bigEndian: true)
        var dither = TPDFDither(seed: 3)
        SampleConversion.encode(frameCount: 0, from: buffer.pointer, to: file.pointer, encoding: .signed16, bigEndian: false,
                                dither: &dither)
        #expect(buffer.untouched(outside: 0 ..< 0))
        #expect(file.bytes.allSatisfy { $0 == guardByte } && file.guardsIntact)
    }
}

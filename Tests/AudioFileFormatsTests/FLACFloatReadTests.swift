// FLACFileReader.readFloat32 — the fused decode straight into deinterleaved Float32 that
// AVAudioFile's processing format uses — gives bit for bit what the general path gives: the
// interleaved container integers of `read` converted by SampleConversion (Core Audio's scaling,
// the reference the PCM readers are tested against). Every container width (1–4 bytes) with
// depths that fill it and that do not (left-justified samples), 1–3 channels, extremes of the
// range, reads that start and end inside frames.
import Foundation
import Testing
import AudioFileFormats
import AudioKernels

@Suite struct FLACFloatReadTests {
    @Test(arguments: [4, 8, 12, 16, 20, 24, 28, 32])
    func fusedFloatReadEqualsReadThenConvert(bits: Int) throws {
        let encoding: SampleEncoding = bits <= 8 ? .signed8 : bits <= 16 ? .signed16 : bits <= 24 ? .signed24 : .signed32
        let width = encoding.bytesPerSample
        for channels in 1...3 {
            let path = FileManager.default.temporaryDirectory.appendingPathComponent("flac-float-\(getpid())-\(bits)-\(channels).flac").path
            defer { try? FileManager.default.removeItem(atPath: path) }
            let description = AudioDataDescription(sampleRate: 44100, channelCount: channels, encoding: encoding, bigEndian: false,
                                                   validBitsPerSample: bits)
            // Samples: a tone, noise, and the two extremes, left-justified in the container.
            let frames = 10_000
            let top = (Int64(1) << (bits - 1)) - 1
            var s: UInt64 = UInt64(bits * 10 + channels)
            var container = [UInt8](repeating: 0, count: frames * channels * width)
            for i in 0..<frames {
                for c in 0..<channels {
                    s = s &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                    var v = Int64((0.6 * sin(Double(i) / (5.0 + Double(c))) * Double(top)).rounded()) + (Int64(bitPattern: s) >> (66 - bits))
                    if i % 997 == 0 { v = top } else if i % 991 == 0 { v = -top - 1 }
                    v = max(-top - 1, min(top, v))
                    let stored = v << Int64(width * 8 - bits)
                    for b in 0..<width { container[(i * channels + c) * width + b] = UInt8(truncatingIfNeeded: stored >> (8 * b)) }
                }
            }
            let writer = try FLACFileWriter(path: path, description: description)
            try container.withUnsafeBytes { try writer.write(frames: frames, from: $0.baseAddress!) }
            try writer.close()

            let reader = try FLACFileReader(path: path)
            defer { reader.close() }
            #expect(reader.frameCount == Int64(frames))
            for (start, count) in [(0, frames), (1000, 5000), (4095, 2), (9_990, 100)] {
                let expectedCount = min(count, frames - start)
                // The general path: container integers, then the sample conversion.
                var bytes = [UInt8](repeating: 0, count: count * channels * width)
                let got = try bytes.withUnsafeMutableBytes { try reader.read(frames: count, startingAt: Int64(start), into: $0.baseAddress!) }
                #expect(got == expectedCount)
                let planes = (0..<channels).map { _ in UnsafeMutableRawPointer.allocate(byteCount: count * 4, alignment: 16) }
                let fused = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: count) }
                defer { planes.forEach { $0.deallocate() }; fused.forEach { $0.deallocate() } }
                bytes.withUnsafeBytes { raw in
                    planes.withUnsafeBufferPointer { p in
                        SampleConversion.decode(frameCount: got, from: raw.baseAddress!, encoding: encoding, bigEndian: false,
                                                to: .deinterleaved(p, sampleType: .float32))
                    }
                }
                let fusedGot = try fused.withUnsafeBufferPointer { try reader.readFloat32(frames: count, startingAt: Int64(start), into: $0.baseAddress!) }
                #expect(fusedGot == expectedCount)
                var differ = 0
                for c in 0..<channels {
                    let general = planes[c].assumingMemoryBound(to: Float.self)
                    for i in 0..<got where general[i].bitPattern != fused[c][i].bitPattern { differ += 1 }
                }
                #expect(differ == 0, "\(bits)-bit, \(channels) channel(s), frames \(start)..<\(start + count): \(differ) samples differ")
                // And the values themselves: the stored integer over 2^(bits − 1), full scale at −1.
                if start == 0 {
                    // (frame 0 holds the largest sample; in Double the scaling is exact, the one
                    // rounding to Float is the same as Float(Int32)'s)
                    let largest = Double(top << Int64(width * 8 - bits)) / Double(Int64(1) << Int64(8 * width - 1))
                    #expect(fused[0][0] == Float(largest), "\(bits)-bit: \(fused[0][0]) for the largest sample")
                    let minimum = (0..<frames).contains { fused[0][$0] == -1 }
                    #expect(minimum, "\(bits)-bit: the most negative sample reads as -1.0")
                }
            }
        }
    }
}

// Whole-file reads that span many staging chunks (FileSampleCodec converts 1 MiB of file bytes
// at a time; straight-through layouts read the whole request in one call) into buffers large
// enough to come from the huge-page mapping (2 MiB and up, SampleMemory).
import Testing
import AVFoundation

@Suite struct AVAudioFileLargeReadTests {
    struct Case: CustomStringConvertible, Sendable {
        var ext: String
        var bits: Int
        var float: Bool
        var description: String { "\(ext) \(bits)-bit \(float ? "float" : "int")" }
    }

    /// Stereo float32 stages 131,072 frames per chunk, 16-bit 262,144, 24-bit 174,762: 400,003
    /// frames is several chunks plus a ragged tail in each, and a 3.2 MB Float32 buffer.
    static let frames = 400_003

    @Test(arguments: [Case(ext: "wav", bits: 32, float: true), Case(ext: "wav", bits: 16, float: false),
                      Case(ext: "aif", bits: 24, float: false)])
    func wholeFileReadsMatchTheSourceAcrossChunks(c: Case) throws {
        let frames = Self.frames
        let signal = makeSignal(frames: frames, channels: 2)
        let url = temporaryURL("large-\(c.ext)-\(c.bits).\(c.ext)")
        do {
            let out = try AVAudioFile(forWriting: url, settings: [
                AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 2,
                AVLinearPCMBitDepthKey: c.bits, AVLinearPCMIsFloatKey: c.float, AVLinearPCMIsBigEndianKey: c.ext == "aif"])
            try out.write(from: standardBuffer(signal))
            out.close()
        }
        // Deinterleaved (staged and converted) in one read of the whole file.
        let file = try AVAudioFile(forReading: url)
        #expect(file.length == AVAudioFramePosition(frames))
        let planar = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames)))
        try file.read(into: planar)
        #expect(planar.frameLength == AVAudioFrameCount(frames))
        let bound = tolerance(bits: c.bits, float: c.float) * 1.0001
        var worst: Float = 0
        for ch in 0..<2 {
            let p = planar.floatChannelData![ch]
            for i in 0..<frames { worst = max(worst, abs(p[i] - signal[ch][i])) }
        }
        #expect(worst <= bound, "\(c): max error \(worst) > \(bound)")

        // Interleaved Float32: straight into the buffer for a float32 file (one read), staged for
        // the others; either way the very same samples as the deinterleaved read.
        let interleavedFile = try AVAudioFile(forReading: url, commonFormat: .pcmFormatFloat32, interleaved: true)
        let interleaved = try #require(AVAudioPCMBuffer(pcmFormat: interleavedFile.processingFormat, frameCapacity: AVAudioFrameCount(frames)))
        try interleavedFile.read(into: interleaved)
        #expect(interleaved.frameLength == AVAudioFrameCount(frames))
        let x = interleaved.floatChannelData![0]
        var mismatches = 0
        for i in 0..<frames where x[2 * i] != planar.floatChannelData![0][i] || x[2 * i + 1] != planar.floatChannelData![1][i] {
            mismatches += 1
        }
        #expect(mismatches == 0)

        // The same file in pieces that start and end mid-chunk, from a moved frame position.
        let pieces = try AVAudioFile(forReading: url)
        let piece = try #require(AVAudioPCMBuffer(pcmFormat: pieces.processingFormat, frameCapacity: 150_001))
        pieces.framePosition = 7
        var position = 7
        mismatches = 0
        while true {
            try pieces.read(into: piece)
            let n = Int(piece.frameLength)
            if n == 0 { break }
            for ch in 0..<2 {
                let p = piece.floatChannelData![ch], whole = planar.floatChannelData![ch]
                for i in 0..<n where p[i] != whole[position + i] { mismatches += 1 }
            }
            position += n
        }
        #expect(position == frames && pieces.framePosition == AVAudioFramePosition(frames))
        #expect(mismatches == 0)
    }
}

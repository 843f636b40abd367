// Large converting reads decode straight from a memory mapping of the file (FileMapping.swift),
// and the FLAC reader decodes from one: these tests check that the mapped decode gives the very
// samples of the positional-read path, and that a file truncated by someone else while it is open
// makes `read(into:)` throw a readable error instead of the SIGBUS that would otherwise kill the
// process — for a float32 WAV (mapped on its first large read, truncated before the second) and a
// FLAC file (mapped at open).
import Foundation
import Testing
import AVFoundation

@Suite struct FileTruncationTests {
    /// A float32 stereo WAV of `frames` frames of a known ramp, written by AVAudioFile.
    static func makeFloatWAV(frames: Int) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("truncation-\(UUID().uuidString).wav")
        let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 2,
                                       AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true]
        let file = try AVAudioFile(forWriting: url, settings: settings, commonFormat: .pcmFormatFloat32, interleaved: false)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames))!
        buffer.frameLength = AVAudioFrameCount(frames)
        for i in 0..<frames {
            buffer.floatChannelData![0][i] = Float(i % 1000) / 1000
            buffer.floatChannelData![1][i] = -Float(i % 777) / 777
        }
        try file.write(from: buffer)
        file.close()
        return url
    }

    @Test func mappedDecodeMatchesChunkedReads() throws {
        let frames = 400_000   // 3.2 MB of samples: read whole, it goes through the mapping
        let url = try Self.makeFloatWAV(frames: frames)
        defer { try? FileManager.default.removeItem(at: url) }
        let whole = try AVAudioFile(forReading: url)
        let a = AVAudioPCMBuffer(pcmFormat: whole.processingFormat, frameCapacity: AVAudioFrameCount(frames))!
        try whole.read(into: a)
        #expect(Int(a.frameLength) == frames)
        // small reads (below the mapping threshold) go through pread and staging
        let chunked = try AVAudioFile(forReading: url)
        let b = AVAudioPCMBuffer(pcmFormat: chunked.processingFormat, frameCapacity: 4096)!
        var position = 0
        var mismatches = 0
        while position < frames {
            try chunked.read(into: b, frameCount: 4096)
            let n = Int(b.frameLength)
            if n == 0 { break }
            for c in 0..<2 {
                for i in 0..<n where a.floatChannelData![c][position + i] != b.floatChannelData![c][i] { mismatches += 1 }
            }
            position += n
        }
        #expect(position == frames && mismatches == 0)
        #expect(a.floatChannelData![0][1234] == Float(234) / 1000 && a.floatChannelData![1][800] == -Float(23) / 777)
    }

    @Test func wavTruncatedWhileOpenThrows() throws {
        let frames = 600_000
        let url = try Self.makeFloatWAV(frames: frames)
        defer { try? FileManager.default.removeItem(at: url) }
        let file = try AVAudioFile(forReading: url)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 300_000)!
        try file.read(into: buffer)   // maps the whole file
        #expect(buffer.frameLength == 300_000)
        // someone else cuts the file to a tenth
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: 480_000)
        try handle.close()
        var caught: Error?
        do { try file.read(into: buffer) } catch { caught = error }
        let error = try #require(caught as NSError?, "reading past the new end must throw, not crash or return zeros")
        #expect(error.localizedDescription.contains("truncated"))
        // later reads see the file as it now is
        file.framePosition = 0
        try file.read(into: buffer, frameCount: 1000)
        #expect(buffer.frameLength == 1000)
    }

    @Test func flacTruncatedWhileOpenThrows() throws {
        guard AVAudioFileFLACTests.hasPython else {
            print("skipped: python3 with numpy and soundfile is not installed (needed to make a FLAC file)")
            return
        }
        let dir = try AVAudioFileFLACTests().makeFiles()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("s16.flac")
        let file = try AVAudioFile(forReading: url)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int)
        let handle = try FileHandle(forWritingTo: url)
        try handle.truncate(atOffset: UInt64(size / 3))
        try handle.close()
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))!
        var caught: Error?
        do { try file.read(into: buffer) } catch { caught = error }
        let error = try #require(caught as NSError?, "reading frames the file no longer has must throw, not crash")
        #expect(error.localizedDescription.contains("truncated"))
    }
}

// Native FLAC files through the container-reader interface: every frame found by the sync scan
// (CRC-8 + numbering + the previous frame's CRC-16), reads at random positions and lengths equal
// to the samples the file was encoded from (libFLAC via libsndfile, and ffmpeg), left-justified
// in the integer container `description` names. Skips visibly without python3/numpy/soundfile.
import Foundation
import Testing
import AudioFileFormats

@Suite struct FLACFileReaderTests {
    static let generator = #"""
import numpy as np, soundfile as sf, sys, os, subprocess
d = sys.argv[1]
rng = np.random.default_rng(11)
t = np.arange(100000)
x16 = np.stack([np.sin(2*np.pi*440*t/44100)*20000 + rng.normal(0, 30, t.size), rng.integers(-32768, 32767, t.size)], axis=1).astype(np.int32)
sf.write(os.path.join(d, 'a.flac'), x16 << 16, 44100, subtype='PCM_16', format='FLAC')
x16.astype('<i4').tofile(os.path.join(d, 'a.raw'))
x24 = (np.sin(2*np.pi*1000*t[:70000]/96000)*8000000 + rng.normal(0, 500, 70000)).astype(np.int32)[:, None]
sf.write(os.path.join(d, 'b.flac'), x24 << 8, 96000, subtype='PCM_24', format='FLAC')
x24.astype('<i4').tofile(os.path.join(d, 'b.raw'))
# variable block sizes are not written by these encoders; a file with trailing garbage is:
data = open(os.path.join(d, 'a.flac'), 'rb').read()
open(os.path.join(d, 'c.flac'), 'wb').write(data + b'TAG' + bytes(range(125)))
"""#

    static let hasPython: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import numpy, soundfile"]
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

    func makeFiles() throws -> URL {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("flac-reader-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let script = dir.appendingPathComponent("gen.py")
        try Self.generator.write(to: script, atomically: true, encoding: .utf8)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", script.path, dir.path]
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        return dir
    }

    /// Reads `count` frames at `at` and returns them as Int32 values (the container's integers
    /// shifted back to the stream's depth).
    func read(_ reader: FLACFileReader, at: Int64, count: Int) throws -> [Int32] {
        let d = reader.description
        var bytes = [UInt8](repeating: 0, count: max(1, count * d.bytesPerFrame))
        let got = try bytes.withUnsafeMutableBytes { try reader.read(frames: count, startingAt: at, into: $0.baseAddress!) }
        let width = d.encoding.bytesPerSample
        let shift = Int32(width * 8 - d.validBitsPerSample)
        return (0..<(got * d.channelCount)).map { i in
            var v: Int32 = 0
            for b in 0..<width { v |= Int32(bytes[i * width + b]) << Int32(8 * b) }
            v = (v << Int32(32 - 8 * width)) >> Int32(32 - 8 * width)   // sign-extend the container
            return v >> shift
        }
    }

    @Test func randomReadsMatchTheEncodedSamples() throws {
        guard Self.hasPython else { print("SKIP FLAC reader cases: python3 with numpy and soundfile is not installed"); return }
        let dir = try makeFiles()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, channels, bits, rate) in [("a", 2, 16, 44_100.0), ("b", 1, 24, 96_000.0), ("c", 2, 16, 44_100.0)] {
            let reader = try FLACFileReader(path: dir.appendingPathComponent(name + ".flac").path)
            let expected = try Data(contentsOf: dir.appendingPathComponent((name == "c" ? "a" : name) + ".raw"))
                .withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
            let frames = expected.count / channels
            #expect(reader.frameCount == Int64(frames), "\(name)")
            #expect(reader.description.channelCount == channels && reader.description.validBitsPerSample == bits)
            #expect(reader.description.sampleRate == rate)
            #expect(reader.warnings.isEmpty, "\(name): \(reader.warnings)")
            // Whole file in one read, then sequential chunks, then random positions.
            #expect(try read(reader, at: 0, count: frames + 100) == expected, "\(name): whole read")
            var position = 0
            var chunks: [Int32] = []
            while position < frames {
                let n = [1, 17, 4096, 5000, 333][position % 5]
                chunks += try read(reader, at: Int64(position), count: n)
                position += n
            }
            #expect(chunks == expected, "\(name): chunked reads")
            for _ in 0..<40 {
                let at = Int.random(in: 0..<frames), n = Int.random(in: 1...9000)
                let got = try read(reader, at: Int64(at), count: n)
                let end = min(frames, at + n)
                #expect(got == Array(expected[(at * channels)..<(end * channels)]), "\(name): read \(n) at \(at)")
            }
            #expect(try read(reader, at: Int64(frames), count: 10).isEmpty)
            reader.close()
            #expect(throws: AudioFileFormatError.self) { _ = try read(reader, at: 0, count: 1) }
        }
    }

    @Test func notFLACIsRefusedClearly() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("notflac-\(getpid()).flac").path
        try Data("RIFF....WAVEfmt ".utf8).write(to: URL(fileURLWithPath: path))
        defer { unlink(path) }
        #expect(throws: AudioFileFormatError.self) { _ = try FLACFileReader(path: path) }
        #expect(!FLACFileReader.sniff(Array("RIFF".utf8)))
        #expect(FLACFileReader.sniff(Array("fLaC".utf8)))
    }
}

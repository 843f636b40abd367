// AVAudioFile reads native FLAC files as Apple's does: `fileFormat` is the FLAC stream
// (kAudioFormatFLAC, the source depth in the Apple Lossless flags, a packet per frame), the
// processing format deinterleaved Float32 at the stream's rate, and every sample equals the
// integer the file was encoded from scaled by 2^-(bits-1) — read whole, in chunks, after seeks,
// and through a player node. The files come from libFLAC (via libsndfile) and ffmpeg; the test
// skips visibly without python3/numpy/soundfile.
import Foundation
import Testing
import AVFoundation

@Suite struct AVAudioFileFLACTests {
    static let generator = #"""
import numpy as np, soundfile as sf, sys, os, subprocess
d = sys.argv[1]
rng = np.random.default_rng(5)
t = np.arange(88200)
x = np.stack([np.sin(2*np.pi*330*t/44100)*15000 + rng.normal(0, 40, t.size), np.sin(2*np.pi*550*t/44100)*9000], axis=1).astype(np.int32)
sf.write(os.path.join(d, 's16.flac'), x << 16, 44100, subtype='PCM_16', format='FLAC')
x.astype('<i4').tofile(os.path.join(d, 's16.raw'))
y = (np.sin(2*np.pi*1000*t[:48000]/48000)*7000000 + rng.normal(0, 300, 48000)).astype(np.int32)[:, None]
sf.write(os.path.join(d, 'm24.wav'), y << 8, 48000, subtype='PCM_24')
y.astype('<i4').tofile(os.path.join(d, 'm24.raw'))
try:
    subprocess.run(['ffmpeg', '-loglevel', 'error', '-y', '-i', os.path.join(d, 'm24.wav'), '-c:a', 'flac', os.path.join(d, 'm24.flac')], check=True)
except Exception:
    sf.write(os.path.join(d, 'm24.flac'), y << 8, 48000, subtype='PCM_24', format='FLAC')
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
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("avfile-flac-\(UUID().uuidString)")
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

    @Test func readsFLACAsApplesAVAudioFileDoes() throws {
        guard Self.hasPython else { print("SKIP AVAudioFile FLAC cases: python3 with numpy and soundfile is not installed"); return }
        let dir = try makeFiles()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (name, channels, bits, rate, flags) in [("s16", 2, 16, 44_100.0, kAppleLosslessFormatFlag_16BitSourceData),
                                                   ("m24", 1, 24, 48_000.0, kAppleLosslessFormatFlag_24BitSourceData)] {
            let url = dir.appendingPathComponent(name + ".flac")
            let expected = try Data(contentsOf: dir.appendingPathComponent(name + ".raw")).withUnsafeBytes { Array($0.bindMemory(to: Int32.self)) }
            let frames = expected.count / channels
            let scale = Float(1 << (bits - 1))
            let file = try AVAudioFile(forReading: url)
            let asbd = file.fileFormat.streamDescription.pointee
            #expect(asbd.mFormatID == kAudioFormatFLAC)
            #expect(asbd.mFormatFlags == flags)
            #expect(asbd.mSampleRate == rate && asbd.mChannelsPerFrame == UInt32(channels))
            #expect(asbd.mBytesPerPacket == 0 && asbd.mFramesPerPacket > 0)
            #expect(file.processingFormat.commonFormat == .pcmFormatFloat32 && !file.processingFormat.isInterleaved)
            #expect(file.processingFormat.sampleRate == rate)
            #expect(file.length == AVAudioFramePosition(frames))

            let whole = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames))!
            try file.read(into: whole)
            #expect(Int(whole.frameLength) == frames)
            var wrong = 0
            for c in 0..<channels {
                for i in 0..<frames where whole.floatChannelData![c][i] != Float(expected[i * channels + c]) / scale { wrong += 1 }
            }
            #expect(wrong == 0, "\(name): \(wrong) samples differ")

            // Seek and read short chunks.
            let chunk = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 777)!
            for start in [0, 4095, 4096, 12_345, frames - 100] {
                file.framePosition = AVAudioFramePosition(start)
                try file.read(into: chunk)
                let n = Int(chunk.frameLength)
                #expect(n == min(777, frames - start))
                for c in 0..<channels {
                    #expect(Array(UnsafeBufferPointer(start: chunk.floatChannelData![c], count: n))
                            == Array(UnsafeBufferPointer(start: whole.floatChannelData![c] + start, count: n)), "\(name) at \(start)")
                }
            }

            // A player plays what read decodes.
            let engine = AVAudioEngine()
            let player = AVAudioPlayerNode()
            var received = [Float]()
            let sink = AVAudioSinkNode { _, count, list in
                let buffers = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: list))
                received += UnsafeBufferPointer(start: buffers[0].mData!.assumingMemoryBound(to: Float.self), count: Int(count))
                return noErr
            }
            engine.attach(player)
            engine.attach(sink)
            engine.connect(player, to: sink, format: file.processingFormat)
            try engine.enableManualRenderingMode(.offline, format: AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2)!,
                                                 maximumFrameCount: 1024)
            try engine.start()
            player.scheduleFile(try AVAudioFile(forReading: url), at: nil)
            player.play()
            let out = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 1024)!
            while received.count < frames { _ = try engine.renderOffline(1024, to: out) }
            #expect(Array(received[0..<frames]) == Array(UnsafeBufferPointer(start: whole.floatChannelData![0], count: frames)), "\(name): player")
        }
    }

    @Test func damagedFLACGivesAnErrorNotACrash() throws {
        guard Self.hasPython else { print("SKIP damaged FLAC: python3 with numpy and soundfile is not installed"); return }
        let dir = try makeFiles()
        defer { try? FileManager.default.removeItem(at: dir) }
        var bytes = try [UInt8](Data(contentsOf: dir.appendingPathComponent("s16.flac")))
        for i in stride(from: bytes.count / 2, to: bytes.count / 2 + 64, by: 1) { bytes[i] ^= 0x5A }
        let url = dir.appendingPathComponent("damaged.flac")
        try Data(bytes).write(to: url)
        let file = try AVAudioFile(forReading: url)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))!
        #expect(throws: NSError.self) { try file.read(into: buffer) }
    }
}

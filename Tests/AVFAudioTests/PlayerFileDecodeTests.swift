// A player playing a file hears exactly what AVAudioFile.read decodes from it: both go through
// one decode path (FileDecodeStream), whatever the container and sample encoding.
import Testing
import AVFoundation

@Suite struct PlayerFileDecodeTests {
    static let cases: [(ext: String, bits: Int, float: Bool, bigEndian: Bool, channels: Int)] = [
        ("wav", 16, false, false, 2), ("wav", 24, false, false, 1), ("aiff", 24, false, true, 2),
        ("caf", 32, true, true, 2), ("caf", 64, true, false, 1), ("wav", 32, false, false, 3),
    ]

    @Test(arguments: 0..<cases.count)
    func playerSamplesEqualAVAudioFileRead(index: Int) throws {
        let c = Self.cases[index]
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("player-decode-\(UUID().uuidString).\(c.ext)")
        defer { try? FileManager.default.removeItem(at: url) }
        let frames = 20_000
        let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: AVAudioChannelCount(c.channels))!
        do {
            let file = try AVAudioFile(forWriting: url, settings: [
                AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: c.channels,
                AVLinearPCMBitDepthKey: c.bits, AVLinearPCMIsFloatKey: c.float, AVLinearPCMIsBigEndianKey: c.bigEndian])
            let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
            for ch in 0..<c.channels {
                for i in 0..<frames { buffer.floatChannelData![ch][i] = Float(0.7 * sin(Double(i) * 0.01 * Double(ch + 1))) }
            }
            buffer.frameLength = AVAudioFrameCount(frames)
            try file.write(from: buffer)
        }
        let file = try AVAudioFile(forReading: url)
        let decoded = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(frames))!
        try file.read(into: decoded)
        #expect(Int(decoded.frameLength) == frames)

        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        var received = Array(repeating: [Float](), count: c.channels)
        let sink = AVAudioSinkNode { _, count, list in
            let buffers = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: list))
            for ch in 0..<received.count {
                received[ch] += UnsafeBufferPointer(start: buffers[ch].mData!.assumingMemoryBound(to: Float.self), count: Int(count))
            }
            return noErr
        }
        engine.attach(player)
        engine.attach(sink)
        engine.connect(player, to: sink, format: file.processingFormat)
        try engine.enableManualRenderingMode(.offline, format: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!,
                                             maximumFrameCount: 1024)
        try engine.start()
        player.scheduleFile(try AVAudioFile(forReading: url), at: nil)
        player.play()
        let out = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 1024)!
        while received[0].count < frames { _ = try engine.renderOffline(1024, to: out) }
        for ch in 0..<c.channels {
            #expect(Array(received[ch][0..<frames]) == Array(UnsafeBufferPointer(start: decoded.floatChannelData![ch], count: frames)),
                    "\(c) channel \(ch)")
        }
    }
}

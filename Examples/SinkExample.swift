// AVAudioSinkNode in manual rendering: the input node pulls a 0.25-amplitude 200 Hz tone from
// the manual-rendering input block, and a sink node receives it (works offline here; on Apple
// platforms sink nodes need a device).
import AVFoundation

enum SinkExample {
    static func run() throws -> [Check] {
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: Support.stereo, maximumFrameCount: 4096)
        let source = Support.tone(200, seconds: 1, amplitude: 0.25)
        var offset = 0
        let list = AudioBufferList.allocate(maximumBuffers: 1)
        defer { free(list.unsafeMutablePointer) }
        let accepted = engine.inputNode.setManualRenderingInputPCMFormat(Support.mono) { frames -> UnsafePointer<AudioBufferList>? in
            let n = min(Int(frames), Int(source.frameLength) - offset)
            guard n > 0 else { return nil }
            list[0] = AudioBuffer(mNumberChannels: 1, mDataByteSize: UInt32(n * 4),
                                  mData: UnsafeMutableRawPointer(source.floatChannelData![0] + offset))
            offset += n
            return UnsafePointer(list.unsafeMutablePointer)
        }
        var received = 0
        var energy = 0.0
        let sink = AVAudioSinkNode { _, frameCount, audioBufferList -> OSStatus in
            let samples = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: audioBufferList))[0]
                .mData!.assumingMemoryBound(to: Float.self)
            for i in 0..<Int(frameCount) { energy += Double(samples[i]) * Double(samples[i]) }
            received += Int(frameCount)
            return noErr
        }
        engine.attach(sink)
        engine.connect(engine.inputNode, to: sink, format: Support.mono)
        try engine.start()
        let chunk = AVAudioPCMBuffer(pcmFormat: Support.stereo, frameCapacity: 4096)!
        var rendered = 0
        while rendered < 48_000 {
            let n = AVAudioFrameCount(min(4096, 48_000 - rendered))
            _ = try engine.renderOffline(n, to: chunk)
            rendered += Int(n)
        }
        engine.stop()
        let rms = (energy / Double(max(1, received))).squareRoot()
        return [
            Check("the input format was accepted", accepted),
            Check("the sink received \(received) frames (48000)", received == 48_000),
            Check("their RMS is \(Support.fmt(rms, 5)) (0.25/√2 = 0.17678)", abs(rms - 0.25 / 2.0.squareRoot()) < 1e-4),
        ]
    }
}

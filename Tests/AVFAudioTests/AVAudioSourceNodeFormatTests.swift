// AVAudioSourceNode(format:renderBlock:): "format — the format of the PCM audio data the block
// supplies"; "when connecting the audio source node to another node, the system uses the
// connection format to set the audio format for the output bus"; "AVAudioSourceNode supports
// different audio formats for the block and the output, but the system only supports linear PCM
// conversions with sample rate, bit depth, and interleaving" (Apple's documentation of
// init(format:renderBlock:)). So the block's AudioBufferList is laid out in the format given at
// init — one buffer of interleaved samples, or one buffer per channel — and the node converts
// after the block into the connection's format.
import Testing
import AVFoundation

@Suite struct AVAudioSourceNodeFormatTests {
    /// Sample `n` of channel `c` of the analytic test signal: a different sine per channel.
    static func signal(_ n: Int64, _ c: Int, rate: Double = 48_000) -> Double {
        0.5 * sin(2 * Double.pi * Double(300 + 200 * c) * Double(n) / rate + Double(c))
    }

    /// Writes the signal into the block's buffers in `format`'s layout and sample type, checking
    /// the layout is the one the format describes.
    static func fill(_ list: UnsafeMutablePointer<AudioBufferList>, frames: Int, start: Int64, format: AVAudioFormat,
                     layoutOK: inout Bool) {
        let buffers = UnsafeMutableAudioBufferListPointer(list)
        let channels = Int(format.channelCount)
        let interleaved = format.isInterleaved && channels > 1
        let bytesPerSample = Int(format.streamDescription.pointee.mBitsPerChannel) / 8
        let expectedBuffers = interleaved ? 1 : channels
        let expectedBytes = frames * bytesPerSample * (interleaved ? channels : 1)
        if buffers.count != expectedBuffers { layoutOK = false; return }
        for b in 0..<buffers.count where buffers[b].mDataByteSize != UInt32(expectedBytes)
            || buffers[b].mNumberChannels != UInt32(interleaved ? channels : 1) { layoutOK = false }
        for c in 0..<channels {
            let (buffer, stride, offset) = interleaved ? (0, channels, c) : (c, 1, 0)
            let base = buffers[buffer].mData!
            for i in 0..<frames {
                let x = signal(start + Int64(i), c, rate: format.sampleRate)
                let index = i * stride + offset
                switch format.commonFormat {
                case .pcmFormatInt16: base.assumingMemoryBound(to: Int16.self)[index] = Int16((x * 32_768).rounded())
                case .pcmFormatInt32: base.assumingMemoryBound(to: Int32.self)[index] = Int32((x * 2_147_483_648).rounded())
                case .pcmFormatFloat64: base.assumingMemoryBound(to: Double.self)[index] = x
                default: base.assumingMemoryBound(to: Float.self)[index] = Float(x)
                }
            }
        }
    }

    /// Renders `total` frames of a source in `blockFormat` connected to a sink with `connection`;
    /// returns what the sink received (one array per channel) and whether every block call saw
    /// the block format's layout, at most `chunk` frames and a timestamp continuing the last call's.
    static func render(blockFormat: AVAudioFormat, connection: AVAudioFormat, total: Int = 4_800, chunk: AVAudioFrameCount = 480)
        throws -> (received: [[Float]], layoutOK: Bool, requested: Int) {
        let engine = AVAudioEngine()
        var layoutOK = true
        var requested = 0
        let source = AVAudioSourceNode(format: blockFormat) { _, timestamp, frameCount, list in
            // Never more than the engine's maximum per call; timestamps contiguous.
            if frameCount > chunk || Int64(timestamp.pointee.mSampleTime) != Int64(requested) { layoutOK = false }
            fill(list, frames: Int(frameCount), start: Int64(timestamp.pointee.mSampleTime), format: blockFormat, layoutOK: &layoutOK)
            requested += Int(frameCount)
            return noErr
        }
        var received = Array(repeating: [Float](), count: Int(connection.channelCount))
        let sink = AVAudioSinkNode { _, frames, list in
            let buffers = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: list))
            for c in 0..<min(buffers.count, received.count) {
                received[c] += UnsafeBufferPointer(start: buffers[c].mData!.assumingMemoryBound(to: Float.self), count: Int(frames))
            }
            return noErr
        }
        engine.attach(source)
        engine.attach(sink)
        engine.connect(source, to: sink, format: connection)
        try engine.enableManualRenderingMode(.offline, format: AVAudioFormat(standardFormatWithSampleRate: connection.sampleRate, channels: 2)!,
                                             maximumFrameCount: chunk)
        try engine.start()
        let out = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: chunk)!
        var done = 0
        while done < total {
            #expect(try engine.renderOffline(chunk, to: out) == .success)
            done += Int(chunk)
        }
        return (received, layoutOK, requested)
    }

    static let sameRateCases: [(AVAudioCommonFormat, Bool, AVAudioChannelCount, Float)] = [
        (.pcmFormatInt16, true, 2, 1.0 / 32_768),      // Int16 interleaved stereo
        (.pcmFormatInt16, false, 2, 1.0 / 32_768),
        (.pcmFormatInt32, true, 3, 1e-7),
        (.pcmFormatFloat64, false, 1, 1e-7),           // Float64 mono
        (.pcmFormatFloat64, true, 4, 1e-7),
        (.pcmFormatFloat32, false, 2, 0),              // Float32 deinterleaved: no conversion at all
        (.pcmFormatFloat32, true, 2, 0),
    ]

    @Test(arguments: 0..<sameRateCases.count)
    func theBlockRendersInTheFormatGivenAtInit(index: Int) throws {
        let (common, interleaved, channels, tolerance) = Self.sameRateCases[index]
        let blockFormat = AVAudioFormat(commonFormat: common, sampleRate: 48_000, channels: channels, interleaved: interleaved)!
        let connection = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: channels)!
        let (received, layoutOK, requested) = try Self.render(blockFormat: blockFormat, connection: connection)
        #expect(layoutOK, "the block's AudioBufferList is not laid out as \(blockFormat)")
        #expect(requested == 4_800)
        for c in 0..<Int(channels) {
            #expect(received[c].count == 4_800)
            let worst = received[c].enumerated().map { abs(Double($1) - Self.signal(Int64($0), c)) }.max() ?? .nan
            #expect(worst <= Double(tolerance) + 1e-7, "\(blockFormat) channel \(c): largest error \(worst)")
        }
    }

    /// The block at 44.1 kHz (Int16 interleaved), the connection at 48 kHz: the node converts the
    /// rate too. The block is asked for frames at its own rate (timestamps at its rate, contiguous)
    /// and the output carries each channel's sine at its level.
    @Test func theNodeConvertsTheSampleRateAfterTheBlock() throws {
        let blockFormat = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true)!
        let connection = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let (received, layoutOK, requested) = try Self.render(blockFormat: blockFormat, connection: connection, total: 48_000)
        #expect(layoutOK, "layout, request size (at most 480 frames even when the converter starts) or timestamps")
        // About one second at 44.1 kHz (the converter reads a little ahead).
        #expect(abs(requested - 44_100) < 2_000, "\(requested) frames requested")
        for c in 0..<2 {
            let tail = received[c][24_000...]
            #expect(tail.allSatisfy { $0.isFinite })
            // Correlate with the expected sine at 48 kHz: the conversion is linear phase with zero delay.
            let worst = tail.indices.map { abs(Double(received[c][$0]) - Self.signal(Int64($0), c, rate: 48_000)) }.max()!
            #expect(worst < 2e-3, "channel \(c): largest error \(worst)")
        }
    }

    /// A Float32 source upstream of a mixer converting 48 → 44.1 kHz, rendered 10 frames at a time:
    /// the converter's first pull (its filter span) reaches the block in requests of at most 10
    /// frames with contiguous timestamps, and the output is the sine at 44.1 kHz.
    @Test func theBlockIsNeverAskedForMoreThanTheMaximumFrameCount() throws {
        let engine = AVAudioEngine()
        var largest: AVAudioFrameCount = 0
        var next: Int64 = 0
        var contiguous = true
        let mono48 = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
        let source = AVAudioSourceNode(format: mono48) { _, timestamp, frameCount, list in
            largest = max(largest, frameCount)
            let start = Int64(timestamp.pointee.mSampleTime)
            if start != next { contiguous = false }
            next = start + Int64(frameCount)
            let p = UnsafeMutableAudioBufferListPointer(list)[0].mData!.assumingMemoryBound(to: Float.self)
            for i in 0..<Int(frameCount) { p[i] = Float(Self.signal(start + Int64(i), 0)) }
            return noErr
        }
        engine.attach(source)
        engine.connect(source, to: engine.mainMixerNode, format: mono48)
        try engine.enableManualRenderingMode(.realtime, format: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1)!,
                                             maximumFrameCount: 10)
        try engine.start()
        let out = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 10)!
        var rendered: [Float] = []
        var err: OSStatus = 0
        for _ in 0..<2_000 {
            #expect(engine.manualRenderingBlock(10, out.mutableAudioBufferList, &err) == .success)
            rendered += UnsafeBufferPointer(start: out.floatChannelData![0], count: 10)
        }
        #expect(largest <= 10, "the block was asked for \(largest) frames")
        #expect(contiguous)
        let worst = (10_000..<rendered.count).map { abs(Double(rendered[$0]) - Self.signal(Int64($0), 0, rate: 44_100)) }.max()!
        #expect(worst < 2e-3, "largest error \(worst)")
    }

    /// Without a format the block renders in the connection's format (Apple: "the system uses the
    /// connection format to set the audio format for the output bus") — Int16 interleaved here.
    @Test func withoutAFormatTheBlockRendersTheConnectionsFormat() throws {
        let connection = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true)!
        let engine = AVAudioEngine()
        var layoutOK = true
        let source = AVAudioSourceNode { _, timestamp, frameCount, list in
            Self.fill(list, frames: Int(frameCount), start: Int64(timestamp.pointee.mSampleTime), format: connection, layoutOK: &layoutOK)
            return noErr
        }
        engine.attach(source)
        engine.connect(source, to: engine.mainMixerNode, format: connection)
        let stereo = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        try engine.enableManualRenderingMode(.offline, format: stereo, maximumFrameCount: 480)
        try engine.start()
        let out = try Offline.render(engine, total: 960, chunk: 480)
        #expect(layoutOK)
        for c in 0..<2 {
            let worst = out[c].enumerated().map { abs(Double($1) - Self.signal(Int64($0), c)) }.max()!
            #expect(worst <= 1.0 / 32_768 + 1e-7, "channel \(c): largest error \(worst)")
        }
    }

    /// Before any connection the output bus is the engine's format (deinterleaved Float32) with
    /// the block's rate and channels.
    @Test func theOutputBusIsFloat32WithTheBlocksChannels() {
        let source = AVAudioSourceNode(format: AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true)!) { _, _, _, _ in noErr }
        #expect(source.outputFormat(forBus: 0).channelCount == 2)
        #expect(source.outputFormat(forBus: 0).sampleRate == 48_000)
        #expect(!source.outputFormat(forBus: 0).isInterleaved)
        #expect(source.outputFormat(forBus: 0).commonFormat == .pcmFormatFloat32)
    }
}

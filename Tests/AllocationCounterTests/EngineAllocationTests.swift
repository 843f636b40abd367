// The engine's render path allocates nothing, frees nothing: proved by counting heap calls on the
// rendering thread across thousands of cycles after warm-up, for every node type, through the
// public API (`manualRenderingBlock` in real-time manual rendering mode: the block is what a
// real-time client calls from its audio thread).
import Testing
import AVFAudio

@Suite(.serialized) struct EngineAllocationTests {
    /// Builds an engine in real-time manual rendering with `setUp`, warms it up, then counts
    /// allocations over `cycles` render calls of `frames` frames.
    func countRenderAllocations(frames: AVAudioFrameCount = 256, cycles: Int = 2000,
                                format: AVAudioFormat = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!,
                                _ setUp: (AVAudioEngine) throws -> Void) throws -> AllocationCounts {
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.realtime, format: format, maximumFrameCount: 512)
        try setUp(engine)
        try engine.start()
        let render = engine.manualRenderingBlock
        let output = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512)!
        let list = output.mutableAudioBufferList
        var status = noErr
        for _ in 0..<20 { _ = render(frames, list, &status) }
        let counts = countAllocations {
            for _ in 0..<cycles { _ = render(frames, list, &status) }
        }
        engine.stop()
        return counts
    }

    static func buffer(_ format: AVAudioFormat, frames: AVAudioFrameCount) -> AVAudioPCMBuffer {
        let b = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frames)!
        for c in 0..<Int(format.channelCount) { for i in 0..<Int(frames) { b.floatChannelData![c][i] = Float(i % 100) / 100 } }
        b.frameLength = frames
        return b
    }

    @Test func playerLoopingBufferThroughMixer() throws {
        let counts = try countRenderAllocations { engine in
            let player = AVAudioPlayerNode()
            engine.attach(player)
            let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
            engine.connect(player, to: engine.mainMixerNode, format: format)
            player.volume = 0.7
            player.pan = 0.3
            player.scheduleBuffer(Self.buffer(format, frames: 1000), at: nil, options: .loops)
            player.play()
        }
        #expect(counts == .none, "\(counts)")
    }

    @Test func playerBuffersCompletingWhileRendering() throws {
        // Items finishing post completions from the render thread: still no allocation there.
        let counts = try countRenderAllocations(cycles: 1000) { engine in
            let player = AVAudioPlayerNode()
            engine.attach(player)
            let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
            engine.connect(player, to: engine.mainMixerNode, format: format)
            for _ in 0..<600 { player.scheduleBuffer(Self.buffer(format, frames: 300), completionCallbackType: .dataRendered) { _ in } }
            player.play()
        }
        #expect(counts == .none, "\(counts)")
    }

    @Test func mixerSampleRateConversionAndSubmixes() throws {
        let counts = try countRenderAllocations { engine in
            let player = AVAudioPlayerNode(), submix = AVAudioMixerNode()
            engine.attach(player)
            engine.attach(submix)
            let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
            engine.connect(player, to: submix, format: format)
            engine.connect(submix, to: engine.mainMixerNode, format: format)   // converted 44.1 → 48 kHz here
            submix.outputVolume = 0.5
            player.scheduleBuffer(Self.buffer(format, frames: 4410), at: nil, options: .loops)
            player.play()
        }
        #expect(counts == .none, "\(counts)")
    }

    @Test func surroundDownmixInTheMixer() throws {
        let counts = try countRenderAllocations { engine in
            let player = AVAudioPlayerNode()
            engine.attach(player)
            let layout = AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_A)!
            let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channelLayout: layout)
            engine.connect(player, to: engine.mainMixerNode, format: format)
            player.scheduleBuffer(Self.buffer(format, frames: 480), at: nil, options: .loops)
            player.play()
        }
        #expect(counts == .none, "\(counts)")
    }

    @Test func sourceSinkTapAndInputNodes() throws {
        let memory = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        memory.initialize(repeating: 0.1, count: 512)
        defer { memory.deallocate() }
        let inputList = AudioBufferList.allocate(maximumBuffers: 1)
        defer { free(inputList.unsafeMutablePointer) }
        let counts = try countRenderAllocations { engine in
            var phase: Float = 0
            let source = AVAudioSourceNode { _, _, frameCount, abl in
                let buffers = UnsafeMutableAudioBufferListPointer(abl)
                for frame in 0..<Int(frameCount) {
                    phase += 0.01
                    for b in 0..<buffers.count { buffers[b].mData!.assumingMemoryBound(to: Float.self)[frame] = phase }
                }
                return noErr
            }
            var seen = 0
            let sink = AVAudioSinkNode { _, frames, _ in seen += Int(frames); return noErr }
            engine.attach(source)
            engine.attach(sink)
            let mono = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
            engine.connect(source, to: engine.mainMixerNode, format: mono)
            let splitter = AVAudioMixerNode()
            engine.attach(splitter)
            engine.connect(splitter, to: sink, format: mono)
            _ = engine.inputNode.setManualRenderingInputPCMFormat(mono) { frames in
                inputList[0] = AudioBuffer(mNumberChannels: 1, mDataByteSize: frames * 4, mData: memory)
                return inputList.unsafePointer
            }
            engine.connect(engine.inputNode, to: splitter, format: mono)
            engine.mainMixerNode.installTap(onBus: 0, bufferSize: 4096, format: nil) { _, _ in }
        }
        #expect(counts == .none, "\(counts)")
    }

    /// The input node converting its block's 44.1 kHz into an explicit 48 kHz connection, the block
    /// pulled in requests of at most the maximum frame count.
    @Test func inputNodeConvertingTheRateOfItsBlock() throws {
        let memory = UnsafeMutablePointer<Float>.allocate(capacity: 1024)
        memory.initialize(repeating: 0.25, count: 1024)
        defer { memory.deallocate() }
        let inputList = AudioBufferList.allocate(maximumBuffers: 1)
        defer { free(inputList.unsafeMutablePointer) }
        let counts = try countRenderAllocations { engine in
            let block = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1)!
            _ = engine.inputNode.setManualRenderingInputPCMFormat(block) { frames in
                inputList[0] = AudioBuffer(mNumberChannels: 1, mDataByteSize: frames * 4, mData: memory)
                return inputList.unsafePointer
            }
            engine.connect(engine.inputNode, to: engine.mainMixerNode, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!)
        }
        #expect(counts == .none, "\(counts)")
    }

    /// Source nodes whose block renders another format: Int16 interleaved at 44.1 kHz into a
    /// 48 kHz connection (sample type, layout and rate converted after the block), and Float64
    /// mono at the connection's rate.
    @Test func sourceNodesConvertingTheirBlocksFormat() throws {
        let counts = try countRenderAllocations { engine in
            let int16 = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true)!
            var phase: Int16 = 0
            let a = AVAudioSourceNode(format: int16) { _, _, frameCount, abl in
                let p = UnsafeMutableAudioBufferListPointer(abl)[0].mData!.assumingMemoryBound(to: Int16.self)
                var i = 0
                while i < Int(frameCount) * 2 { phase &+= 97; p[i] = phase; i += 1 }
                return noErr
            }
            let float64 = AVAudioFormat(commonFormat: .pcmFormatFloat64, sampleRate: 48_000, channels: 1, interleaved: false)!
            var x = 0.0
            let b = AVAudioSourceNode(format: float64) { _, _, frameCount, abl in
                let p = UnsafeMutableAudioBufferListPointer(abl)[0].mData!.assumingMemoryBound(to: Double.self)
                var i = 0
                while i < Int(frameCount) { x += 0.001; p[i] = x.truncatingRemainder(dividingBy: 1); i += 1 }
                return noErr
            }
            engine.attach(a)
            engine.attach(b)
            engine.connect(a, to: engine.mainMixerNode, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!)
            engine.connect(b, to: engine.mainMixerNode, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!)
        }
        #expect(counts == .none, "\(counts)")
    }

    @Test func playerFileSegmentWithRateConversion() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("alloc-\(getpid()).wav")
        do {
            let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
            let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 44_100,
                                                                    AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 16])
            try file.write(from: Self.buffer(format, frames: 44_100 * 3))
        }
        defer { try? FileManager.default.removeItem(at: url) }
        let counts = try countRenderAllocations(cycles: 400) { engine in
            let player = AVAudioPlayerNode()
            engine.attach(player)
            engine.connect(player, to: engine.mainMixerNode, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!)
            player.scheduleFile(try AVAudioFile(forReading: url), at: nil)
            player.play()
        }
        #expect(counts == .none, "\(counts)")
    }
}

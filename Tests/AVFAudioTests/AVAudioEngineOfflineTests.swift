import Testing
import AVFoundation

/// Helpers for offline engine tests: build, render, measure.
enum Offline {
    /// What a centred mono input gets on each side of a stereo mixer output: 1/√2 (−3 dB),
    /// equal-power, as measured on Apple's engine (sources in AVAudioMixerNode.swift).
    static let centre: Float = Float(0.5).squareRoot()

    /// Apple's mixer gains for a mono input at `pan` (equal power: cos θ, sin θ, θ = (pan+1)·π/4).
    static func monoPan(_ pan: Float) -> (left: Float, right: Float) {
        func side(_ x: Float) -> Float { x >= 2 ? 0 : cos(x * (Float.pi / 4)) }
        return (side(1 + pan), side(1 - pan))
    }

    static func standard(_ rate: Double = 48_000, _ channels: AVAudioChannelCount = 2) -> AVAudioFormat {
        AVAudioFormat(standardFormatWithSampleRate: rate, channels: channels)!
    }

    /// A buffer holding `signal` (one array per channel).
    static func buffer(_ signal: [[Float]], rate: Double = 48_000) -> AVAudioPCMBuffer {
        let b = AVAudioPCMBuffer(pcmFormat: standard(rate, AVAudioChannelCount(signal.count)), frameCapacity: AVAudioFrameCount(signal[0].count))!
        for (c, s) in signal.enumerated() { for (i, x) in s.enumerated() { b.floatChannelData![c][i] = x } }
        b.frameLength = AVAudioFrameCount(signal[0].count)
        return b
    }

    /// Renders `total` frames in chunks of `chunk` and returns each output channel.
    static func render(_ engine: AVAudioEngine, total: Int, chunk: Int) throws -> [[Float]] {
        let format = engine.manualRenderingFormat
        let out = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: engine.manualRenderingMaximumFrameCount)!
        var result = Array(repeating: [Float](), count: Int(format.channelCount))
        var done = 0
        while done < total {
            let n = min(chunk, total - done)
            let status = try engine.renderOffline(AVAudioFrameCount(n), to: out)
            #expect(status == .success)
            #expect(out.frameLength == AVAudioFrameCount(n))
            for c in 0..<result.count { result[c] += (0..<n).map { out.floatChannelData![c][$0] } }
            done += n
        }
        return result
    }

    static func ramp(_ n: Int, scale: Float = 1) -> [Float] { (0..<n).map { Float($0 % 1000) / 1000 * scale } }
}

@Suite struct AVAudioEngineOfflineTests {
    /// A player's buffer comes out of the main mixer sample for sample.
    @Test func playerThroughMainMixerIsBitExact() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        let signal = [Offline.ramp(3000), Offline.ramp(3000, scale: -0.5)]
        let buffer = Offline.buffer(signal)
        engine.connect(player, to: engine.mainMixerNode, format: buffer.format)
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(), maximumFrameCount: 1024)
        try engine.start()
        var completions = 0
        player.scheduleBuffer(buffer) { completions += 1 }
        player.play()
        let out = try Offline.render(engine, total: 4000, chunk: 1024)
        #expect(Array(out[0][0..<3000]) == signal[0])
        #expect(Array(out[1][0..<3000]) == signal[1])
        #expect(out[0][3000...].allSatisfy { $0 == 0 })
        #expect(completions == 1)
        #expect(engine.manualRenderingSampleTime == 4000)
    }

    /// The same graph rendered with different maximum frame counts and chunk sizes gives the
    /// same samples.
    @Test func outputDoesNotDependOnChunking() throws {
        func run(maximum: Int, chunk: Int) throws -> [[Float]] {
            let engine = AVAudioEngine()
            let a = AVAudioPlayerNode(), b = AVAudioPlayerNode()
            engine.attach(a)
            engine.attach(b)
            let monoFormat = Offline.standard(48_000, 1)
            engine.connect(a, to: engine.mainMixerNode, format: monoFormat)
            engine.connect(b, to: engine.mainMixerNode, format: Offline.standard())
            try engine.enableManualRenderingMode(.offline, format: Offline.standard(), maximumFrameCount: AVAudioFrameCount(maximum))
            try engine.start()
            a.volume = 0.5
            a.pan = -0.5
            a.scheduleBuffer(Offline.buffer([Offline.ramp(5000)]), at: AVAudioTime(sampleTime: 123, atRate: 48_000), options: [])
            b.scheduleBuffer(Offline.buffer([Offline.ramp(700), Offline.ramp(700, scale: 0.25)]), at: nil, options: .loops)
            a.play()
            b.play()
            return try Offline.render(engine, total: 6000, chunk: chunk)
        }
        let reference = try run(maximum: 4096, chunk: 4096)
        for (maximum, chunk) in [(1, 1), (37, 37), (512, 512), (4096, 1000)] {
            #expect(try run(maximum: maximum, chunk: chunk) == reference, "maximumFrameCount \(maximum), chunk \(chunk)")
        }
        // And the mix is what volume, pan and looping say: the mono player pans with equal power
        // (Apple's law for mono inputs), the stereo player as a balance (unity at centre).
        let ramp = Offline.ramp(5000)
        let loop = Offline.ramp(700)
        let (gl, gr) = Offline.monoPan(-0.5)                                                   // cos(π/8), sin(π/8)
        #expect(reference[0][122] == loop[122])
        #expect(abs(reference[0][123 + 10] - (0.5 * gl * ramp[10] + loop[133])) < 1e-6)
        #expect(abs(reference[1][123 + 10] - (0.5 * gr * ramp[10] + 0.25 * loop[133])) < 1e-6)
    }

    @Test func sourceNodeSynthesisesASine() throws {
        let engine = AVAudioEngine()
        var phase = 0.0
        let increment = 2 * Double.pi * 1000 / 48_000
        let source = AVAudioSourceNode { _, _, frameCount, abl in
            let buffers = UnsafeMutableAudioBufferListPointer(abl)
            for frame in 0..<Int(frameCount) {
                let value = Float(sin(phase)) * 0.5
                phase += increment
                for buffer in buffers { UnsafeMutableBufferPointer<Float>(buffer)[frame] = value }
            }
            return noErr
        }
        engine.attach(source)
        engine.connect(source, to: engine.mainMixerNode, format: Offline.standard(48_000, 1))
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(), maximumFrameCount: 512)
        try engine.start()
        let out = try Offline.render(engine, total: 4800, chunk: 512)
        for i in stride(from: 0, to: 4800, by: 97) {
            // The mono source enters the stereo mixer at the centre: 1/√2 on each side.
            #expect(abs(out[0][i] - Offline.centre * Float(0.5 * sin(Double(i) * increment))) < 1e-5)
            #expect(out[1][i] == out[0][i])
        }
    }

    /// Taps deliver exactly bufferSize frames with consecutive sample times, before renderOffline returns.
    @Test func tapsDeliverExactBuffersInOrder() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Offline.standard())
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(), maximumFrameCount: 512)
        var times: [AVAudioFramePosition] = []
        var collected: [Float] = []
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: 300, format: nil) { buffer, time in
            #expect(buffer.frameLength == 300)
            times.append(time.sampleTime)
            collected += (0..<300).map { buffer.floatChannelData![0][$0] }
        }
        try engine.start()
        let signal = Offline.ramp(2000)
        player.scheduleBuffer(Offline.buffer([signal, signal]))
        player.play()
        _ = try Offline.render(engine, total: 1800, chunk: 512)
        #expect(times == [0, 300, 600, 900, 1200, 1500])
        #expect(collected == Array(signal[0..<1800]))
    }

    @Test func sampleAccurateScheduling() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Offline.standard())
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(), maximumFrameCount: 256)
        try engine.start()
        let click = Offline.buffer([[1], [1]])
        for t in [0, 255, 256, 1000, 1001] {
            player.scheduleBuffer(click, at: AVAudioTime(sampleTime: AVAudioFramePosition(t), atRate: 48_000), options: [])
        }
        player.play()
        let out = try Offline.render(engine, total: 1200, chunk: 256)
        let hits = out[0].enumerated().filter { $0.element != 0 }.map(\.offset)
        #expect(hits == [0, 255, 256, 1000, 1001])
    }

    @Test func completionCallbackTypesFireOnce() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Offline.standard())
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(), maximumFrameCount: 100)
        try engine.start()
        var events: [(AVAudioPlayerNodeCompletionCallbackType, Int64)] = []
        for type in [AVAudioPlayerNodeCompletionCallbackType.dataConsumed, .dataRendered, .dataPlayedBack] {
            player.scheduleBuffer(Offline.buffer([Offline.ramp(150), Offline.ramp(150)]), completionCallbackType: type) { t in
                events.append((t, engine.manualRenderingSampleTime))
            }
        }
        player.play()
        _ = try Offline.render(engine, total: 1000, chunk: 100)
        #expect(events.map(\.0) == [.dataConsumed, .dataRendered, .dataPlayedBack])
        // Each fires after the render call that consumed its last frame (150, 300, 450).
        #expect(events.map(\.1) == [200, 300, 500])
        // Stopping completes what is still scheduled, exactly once.
        var stopped = 0
        player.scheduleBuffer(Offline.buffer([Offline.ramp(10_000), Offline.ramp(10_000)])) { stopped += 1 }
        _ = try Offline.render(engine, total: 100, chunk: 100)
        player.stop()
        _ = try Offline.render(engine, total: 100, chunk: 100)
        #expect(stopped == 1)
        #expect(!player.isPlaying)
    }

    @Test func sinkNodeReceivesWhatFlowsIntoIt() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        var received: [Float] = []
        let sink = AVAudioSinkNode { _, frames, abl in
            let list = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: abl))
            let p = UnsafeBufferPointer<Float>(list[0])
            received += (0..<Int(frames)).map { p[$0] }
            return noErr
        }
        engine.attach(player)
        engine.attach(sink)
        engine.connect(player, to: sink, format: Offline.standard(48_000, 1))
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(), maximumFrameCount: 64)
        try engine.start()
        let signal = Offline.ramp(500)
        player.scheduleBuffer(Offline.buffer([signal]))
        player.play()
        _ = try Offline.render(engine, total: 640, chunk: 64)
        #expect(Array(received[0..<500]) == signal)
    }

    @Test func manualInputNodeAndInsufficientData() throws {
        let engine = AVAudioEngine()
        let inputFormat = Offline.standard(48_000, 1)
        var available = 300
        let memory = UnsafeMutablePointer<Float>.allocate(capacity: 64)
        defer { memory.deallocate() }
        let list = AudioBufferList.allocate(maximumBuffers: 1)
        defer { free(list.unsafeMutablePointer) }
        _ = engine.inputNode.setManualRenderingInputPCMFormat(inputFormat) { frames in
            guard available >= Int(frames) else { return nil }
            available -= Int(frames)
            for i in 0..<Int(frames) { memory[i] = 0.25 }
            list[0] = AudioBuffer(mNumberChannels: 1, mDataByteSize: frames * 4, mData: memory)
            return list.unsafePointer
        }
        engine.connect(engine.inputNode, to: engine.mainMixerNode, format: nil)
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(), maximumFrameCount: 64)
        try engine.start()
        let out = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 64)!
        var statuses: [AVAudioEngineManualRenderingStatus] = []
        for _ in 0..<6 { statuses.append(try engine.renderOffline(64, to: out)) }
        #expect(statuses == [.success, .success, .success, .success, .insufficientDataFromInputNode, .insufficientDataFromInputNode])
        #expect(out.floatChannelData![0][0] == 0)
    }

    @Test func manualRenderingErrors() throws {
        let engine = AVAudioEngine()
        let out = AVAudioPCMBuffer(pcmFormat: Offline.standard(), frameCapacity: 64)!
        #expect(throws: NSError.self) { _ = try engine.renderOffline(64, to: out) }   // not in manual mode
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(), maximumFrameCount: 64)
        #expect(throws: NSError.self) { _ = try engine.renderOffline(64, to: out) }   // not running
        try engine.start()
        #expect(throws: NSError.self) { _ = try engine.renderOffline(65, to: out) }   // over the maximum
        #expect(try engine.renderOffline(64, to: out) == .success)
        #expect(out.floatChannelData![0][0] == 0)                                     // nothing connected: silence
        // Int16 interleaved manual rendering format.
        let engine2 = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine2.attach(player)
        engine2.connect(player, to: engine2.mainMixerNode, format: Offline.standard())
        let int16 = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true)!
        try engine2.enableManualRenderingMode(.offline, format: int16, maximumFrameCount: 64)
        try engine2.start()
        player.scheduleBuffer(Offline.buffer([[0.5, -0.5], [0.25, 1.0]]))
        player.play()
        let out16 = AVAudioPCMBuffer(pcmFormat: int16, frameCapacity: 64)!
        _ = try engine2.renderOffline(64, to: out16)
        #expect(Array(UnsafeBufferPointer(start: out16.int16ChannelData![0], count: 4)) == [16384, 8192, -16384, 32767])
    }
}

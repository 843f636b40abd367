// Manual rendering with the input node, written the way clients write it.
//
// AudioKit's ManualRenderingTests (testManualRenderingInput) connects the input node to a mixer
// with format nil, enables real-time manual rendering at 44.1 kHz with a maximum of 10 frames,
// sets the input node's manual rendering format and block, starts, and calls
// `manualRenderingBlock` for 10 frames, expecting `.success`, `noErr` and the input back. On
// Apple platforms the order of those calls does not matter: the input node's output takes the
// manual input format, nodes connected with format nil follow, the main mixer follows the
// manual rendering format. Apple's AVAudioIONodeInputBlock contract: the block is asked for the
// frames the engine needs and "may supply either these many frames or none"; if it returns nil
// or fewer frames, "this data will not be used for rendering" and the engine says so in its
// status (`.insufficientDataFromInputNode`).
import Testing
import AVFoundation

/// A client's input source: a sine per channel (phase offset by channel) served from a buffer of
/// `maximumFrameCount` frames, as AudioKit serves `inputBuf.audioBufferList`.
final class SineInput {
    let format: AVAudioFormat
    let buffer: AVAudioPCMBuffer
    var position = 0
    var largestRequest: AVAudioFrameCount = 0
    var requests = 0
    /// Frames the block will hand out before returning nil (nil: unlimited).
    var available: Int?
    /// When set, the block returns buffers holding fewer frames than asked for.
    var shortChange = false

    init(format: AVAudioFormat, capacity: AVAudioFrameCount) {
        self.format = format
        buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: capacity)!
    }

    static func sample(_ n: Int, channel: Int, rate: Double) -> Float {
        Float(0.5 * sin(2 * Double.pi * 440 * Double(n) / rate + Double(channel)))
    }

    var block: AVAudioIONodeInputBlock {
        { [unowned self] frames in
            requests += 1
            largestRequest = max(largestRequest, frames)
            guard frames <= buffer.frameCapacity else { return nil }   // a correct client cannot serve more
            if let available, available < Int(frames) { return nil }
            available = available.map { $0 - Int(frames) }
            let served = shortChange ? frames / 2 : frames
            for c in 0..<Int(format.channelCount) {
                for i in 0..<Int(served) { buffer.floatChannelData![c][i] = Self.sample(position + i, channel: c, rate: format.sampleRate) }
            }
            position += Int(served)
            buffer.frameLength = served
            return buffer.audioBufferList
        }
    }
}

@Suite struct ManualRenderingFormatTests {
    enum Step: CaseIterable { case connect, enable, setInput }

    static let orders: [[Step]] = [
        [.connect, .enable, .setInput], [.connect, .setInput, .enable], [.enable, .connect, .setInput],
        [.enable, .setInput, .connect], [.setInput, .connect, .enable], [.setInput, .enable, .connect],
    ]

    /// Renders `cycles` cycles of `frames` through `manualRenderingBlock`; returns the statuses and
    /// each output channel.
    static func render(_ engine: AVAudioEngine, frames: AVAudioFrameCount, cycles: Int)
        -> (statuses: [AVAudioEngineManualRenderingStatus], errors: [OSStatus], channels: [[Float]]) {
        let format = engine.manualRenderingFormat
        let out = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: engine.manualRenderingMaximumFrameCount)!
        out.frameLength = frames
        var statuses: [AVAudioEngineManualRenderingStatus] = []
        var errors: [OSStatus] = []
        var channels = Array(repeating: [Float](), count: Int(format.channelCount))
        let render = engine.manualRenderingBlock
        for _ in 0..<cycles {
            var err: OSStatus = -1
            statuses.append(render(frames, out.mutableAudioBufferList, &err))
            errors.append(err)
            for c in channels.indices { channels[c] += UnsafeBufferPointer(start: out.floatChannelData![c], count: Int(frames)) }
        }
        return (statuses, errors, channels)
    }

    /// AudioKit's exact test: the input's first sample comes out first, `.success`, `noErr`.
    @Test func audioKitManualRenderingInput() throws {
        let frameCount: AVAudioFrameCount = 10
        let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
        let inputBuf = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frameCount)!
        let outputBuf = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: frameCount)!
        inputBuf.frameLength = frameCount
        outputBuf.frameLength = frameCount
        inputBuf.floatChannelData![0][0] = 42.0

        let engine = AVAudioEngine()
        let mixer = AVAudioMixerNode()          // AudioKit's own mixer, connected before the mode is set
        engine.attach(mixer)
        engine.connect(engine.inputNode, to: mixer, format: nil)
        engine.connect(mixer, to: engine.mainMixerNode, format: nil)
        try engine.enableManualRenderingMode(.realtime, format: format, maximumFrameCount: frameCount)
        var largest: AVAudioFrameCount = 0
        engine.inputNode.setManualRenderingInputPCMFormat(format) { frames in
            largest = max(largest, frames)
            return inputBuf.audioBufferList
        }
        try engine.start()

        var err: OSStatus = 0
        let status = engine.manualRenderingBlock(frameCount, outputBuf.mutableAudioBufferList, &err)
        #expect(status == .success)
        #expect(err == noErr)
        #expect(largest <= frameCount)
        #expect(outputBuf.floatChannelData![0][0] == 42.0)
        #expect(engine.inputNode.outputFormat(forBus: 0).sampleRate == 44_100)
        #expect(mixer.outputFormat(forBus: 0).sampleRate == 44_100)
        for c in 0..<2 { #expect((0..<10).allSatisfy { outputBuf.floatChannelData![c][$0].isFinite }) }
    }

    /// AudioKit 5's own graph, in its test's order: the mode is enabled first; `engine.input`
    /// then connects the input node to an input mixer with format nil, that mixer into an engine
    /// mixer with `.stereo` (44.1 kHz) through `connect(_:to:[AVAudioConnectionPoint]...)`, the
    /// engine mixer into the main mixer with `.stereo`; the input format is set last.
    @Test func audioKitGraphInItsTestsOrder() throws {
        let frameCount: AVAudioFrameCount = 10
        let stereo = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.realtime, format: stereo, maximumFrameCount: frameCount)
        let inputMixer = AVAudioMixerNode(), engineMixer = AVAudioMixerNode()
        engine.attach(inputMixer)
        engine.connect(engine.inputNode, to: inputMixer, format: nil)
        engine.attach(engineMixer)
        engine.connect(engineMixer, to: engine.mainMixerNode, format: stereo)
        var points = engine.outputConnectionPoints(for: inputMixer, outputBus: 0)
        points.append(AVAudioConnectionPoint(node: engineMixer, bus: engineMixer.nextAvailableInputBus))
        engine.connect(inputMixer, to: points, fromBus: 0, format: stereo)
        let input = SineInput(format: stereo, capacity: frameCount)
        engine.inputNode.setManualRenderingInputPCMFormat(stereo, inputBlock: input.block)
        try engine.start()
        let result = Self.render(engine, frames: frameCount, cycles: 100)
        #expect(result.statuses.allSatisfy { $0 == .success })
        #expect(input.largestRequest <= frameCount, "the block was asked for \(input.largestRequest) frames")
        for c in 0..<2 {
            let worst = result.channels[c].enumerated().map { abs($1 - SineInput.sample($0, channel: c, rate: 44_100)) }.max()!
            #expect(worst < 1e-6, "channel \(c): largest error \(worst)")
        }
    }

    /// Every order of connect / enable / set input format, at 44.1 and 48 kHz, mono and stereo,
    /// with 10-frame and maximum-frame cycles: the output is the input sample for sample, the
    /// block is never asked for more than `maximumFrameCount`, every cycle succeeds.
    @Test(arguments: [44_100.0, 48_000.0], [AVAudioChannelCount(1), 2])
    func everyCallOrderFollowsTheManualFormats(rate: Double, channels: AVAudioChannelCount) throws {
        let modes: [AVAudioEngineManualRenderingMode] = [.realtime, .offline]
        for (mode, order) in modes.flatMap({ mode in Self.orders.map { (mode, $0) } }) {
            for (maximum, cycleFrames) in [(AVAudioFrameCount(10), AVAudioFrameCount(10)), (256, 256), (256, 10)] {
                let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: channels)!
                let engine = AVAudioEngine()
                let input = SineInput(format: format, capacity: maximum)
                for step in order {
                    switch step {
                    case .connect: engine.connect(engine.inputNode, to: engine.mainMixerNode, format: nil)
                    case .enable: try engine.enableManualRenderingMode(mode, format: format, maximumFrameCount: maximum)
                    case .setInput: #expect(engine.inputNode.setManualRenderingInputPCMFormat(format, inputBlock: input.block))
                    }
                }
                let label = "\(mode == .offline ? "offline" : "realtime") \(order) \(rate) Hz \(channels) ch, maximum \(maximum), cycles of \(cycleFrames)"
                #expect(engine.inputNode.outputFormat(forBus: 0).sampleRate == rate, "\(label)")
                #expect(engine.inputNode.outputFormat(forBus: 0).channelCount == channels, "\(label)")
                #expect(engine.mainMixerNode.outputFormat(forBus: 0).sampleRate == rate, "\(label)")
                #expect(engine.mainMixerNode.inputFormat(forBus: 0).sampleRate == rate, "\(label)")
                try engine.start()
                let cycles = 3000 / Int(cycleFrames)
                let result = Self.render(engine, frames: cycleFrames, cycles: cycles)
                #expect(result.statuses.allSatisfy { $0 == .success }, "\(label): \(Set(result.statuses.map(\.rawValue)))")
                #expect(result.errors.allSatisfy { $0 == noErr }, "\(label)")
                #expect(input.largestRequest <= maximum, "\(label): the block was asked for \(input.largestRequest) frames")
                for c in 0..<Int(channels) {
                    let expected = (0..<result.channels[c].count).map { SineInput.sample($0, channel: c, rate: rate) }
                    let worst = zip(result.channels[c], expected).map { abs($0 - $1) }.max() ?? .nan
                    #expect(worst < 1e-6, "\(label) channel \(c): largest error \(worst)")
                }
                engine.stop()
            }
        }
    }

    /// An input at another rate than the manual rendering format: the mixer converts, the block
    /// is still asked for at most `maximumFrameCount` frames per call, the output is finite, and
    /// after the converter settles it carries the 440 Hz sine at its level.
    @Test(arguments: [(48_000.0, 44_100.0), (44_100.0, 48_000.0), (22_050.0, 48_000.0)])
    func inputAtAnotherRateIsPulledInChunks(inputRate: Double, outputRate: Double) throws {
        let maximum: AVAudioFrameCount = 10
        let engine = AVAudioEngine()
        let inputFormat = AVAudioFormat(standardFormatWithSampleRate: inputRate, channels: 1)!
        let input = SineInput(format: inputFormat, capacity: maximum)
        engine.connect(engine.inputNode, to: engine.mainMixerNode, format: nil)
        try engine.enableManualRenderingMode(.realtime, format: AVAudioFormat(standardFormatWithSampleRate: outputRate, channels: 1)!,
                                             maximumFrameCount: maximum)
        engine.inputNode.setManualRenderingInputPCMFormat(inputFormat, inputBlock: input.block)
        try engine.start()
        #expect(engine.mainMixerNode.inputFormat(forBus: 0).sampleRate == inputRate)
        let result = Self.render(engine, frames: maximum, cycles: 2000)
        #expect(input.largestRequest <= maximum, "the block was asked for \(input.largestRequest) frames")
        #expect(result.statuses.allSatisfy { $0 == .success }, "\(Set(result.statuses.map(\.rawValue)))")
        let out = result.channels[0]
        #expect(out.allSatisfy { $0.isFinite })
        // Steady state: RMS of a 0.5-amplitude sine is 0.5/√2.
        let tail = out[10_000...]
        let rms = (tail.map { Double($0 * $0) }.reduce(0, +) / Double(tail.count)).squareRoot()
        #expect(abs(rms - 0.5 / 2.0.squareRoot()) < 0.01, "rms \(rms)")
    }

    /// Apple (AVAudioIONode.h): "In the manual rendering mode, the format of the output scope is
    /// initially the same as that of the input, but you may set it to a different format, in which
    /// case the node will convert." A connection made with an explicit format keeps it, in any call
    /// order; the input node converts the block's 44.1 kHz to the connection's 48 kHz, pulling the
    /// block in chunks of at most `maximumFrameCount`, and the main mixer converts back.
    @Test(arguments: 0..<orders.count)
    func anExplicitConnectionFormatIsKeptAndTheInputNodeConverts(orderIndex: Int) throws {
        let maximum: AVAudioFrameCount = 10
        let engine = AVAudioEngine()
        let blockFormat = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
        let connection = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let input = SineInput(format: blockFormat, capacity: maximum)
        for step in Self.orders[orderIndex] {
            switch step {
            case .connect: engine.connect(engine.inputNode, to: engine.mainMixerNode, format: connection)
            case .enable: try engine.enableManualRenderingMode(.realtime, format: blockFormat, maximumFrameCount: maximum)
            case .setInput: engine.inputNode.setManualRenderingInputPCMFormat(blockFormat, inputBlock: input.block)
            }
        }
        #expect(engine.inputNode.outputFormat(forBus: 0).sampleRate == 48_000)
        #expect(engine.mainMixerNode.inputFormat(forBus: 0).sampleRate == 48_000)
        #expect(engine.mainMixerNode.outputFormat(forBus: 0).sampleRate == 44_100)
        try engine.start()
        let result = Self.render(engine, frames: maximum, cycles: 2_000)
        #expect(input.largestRequest <= maximum, "the block was asked for \(input.largestRequest) frames")
        #expect(result.statuses.allSatisfy { $0 == .success }, "\(Set(result.statuses.map(\.rawValue)))")
        for c in 0..<2 {
            let out = result.channels[c]
            #expect(out.allSatisfy { $0.isFinite })
            // Both conversions have zero delay: after they settle the output is the input sine.
            let worst = (10_000..<out.count).map { abs(out[$0] - SineInput.sample($0, channel: c, rate: 44_100)) }.max()!
            #expect(worst < 2e-3, "channel \(c): largest error \(worst)")
        }
    }

    /// Apple: a block returning nil or fewer frames than asked "will not be used for rendering",
    /// and the render call says so: `.insufficientDataFromInputNode`, silence in place of the input.
    @Test func missingOrShortInputIsReportedNotRendered() throws {
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        for short in [false, true] {
            let engine = AVAudioEngine()
            let input = SineInput(format: format, capacity: 64)
            if short { input.shortChange = true } else { input.available = 128 }
            engine.inputNode.setManualRenderingInputPCMFormat(format, inputBlock: input.block)
            engine.connect(engine.inputNode, to: engine.mainMixerNode, format: nil)
            try engine.enableManualRenderingMode(.realtime, format: format, maximumFrameCount: 64)
            try engine.start()
            let result = Self.render(engine, frames: 64, cycles: 4)
            if short {
                #expect(result.statuses == Array(repeating: .insufficientDataFromInputNode, count: 4))
                #expect(result.channels[0].allSatisfy { $0 == 0 })
            } else {
                #expect(result.statuses == [.success, .success, .insufficientDataFromInputNode, .insufficientDataFromInputNode])
                #expect(result.channels[0][128...].allSatisfy { $0 == 0 })
                #expect(result.channels[0][1] == SineInput.sample(1, channel: 0, rate: 48_000))
            }
        }
    }

    /// Apple: "irrespective of the returned status code, on exit, the output buffer's
    /// mDataByteSize will indicate the number of PCM data bytes rendered": none when the call
    /// fails, and a refused call does not advance the timeline.
    @Test func aFailedRenderCallRendersNothing() throws {
        let engine = AVAudioEngine()
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        try engine.enableManualRenderingMode(.realtime, format: format, maximumFrameCount: 64)
        let out = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 64)!
        out.frameLength = 64
        var err: OSStatus = 0
        #expect(engine.manualRenderingBlock(64, out.mutableAudioBufferList, &err) == .error)   // not started
        #expect(err == AVAudioEngineManualRenderingError.notRunning.rawValue)
        #expect(out.audioBufferList.pointee.mBuffers.mDataByteSize == 0)
        try engine.start()
        out.frameLength = 64
        #expect(engine.manualRenderingBlock(65, out.mutableAudioBufferList, &err) == .error)   // over the maximum
        #expect(out.audioBufferList.pointee.mBuffers.mDataByteSize == 0)
        // An interleaved list for a deinterleaved format: refused before rendering.
        let interleaved = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 48_000, channels: 2, interleaved: true)!,
                                           frameCapacity: 64)!
        #expect(engine.manualRenderingBlock(64, interleaved.mutableAudioBufferList, &err) == .error)
        #expect(engine.manualRenderingSampleTime == 0)
        out.frameLength = 64
        #expect(engine.manualRenderingBlock(64, out.mutableAudioBufferList, &err) == .success)
        #expect(err == noErr)
        #expect(engine.manualRenderingSampleTime == 64)
        #expect(out.audioBufferList.pointee.mBuffers.mDataByteSize == 64 * 4)
    }

    /// Leaving manual rendering gives the input node the device's format again; the block is
    /// forgotten (Apple: switching to a device "invalidates any previously set block").
    @Test func disablingManualRenderingRestoresTheDeviceFormat() throws {
        let engine = AVAudioEngine()
        let deviceFormat = engine.inputNode.outputFormat(forBus: 0)
        engine.connect(engine.inputNode, to: engine.mainMixerNode, format: nil)
        let format = AVAudioFormat(standardFormatWithSampleRate: 22_050, channels: 1)!
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 64)
        engine.inputNode.setManualRenderingInputPCMFormat(format) { _ in nil }
        #expect(engine.mainMixerNode.inputFormat(forBus: 0).sampleRate == 22_050)
        engine.disableManualRenderingMode()
        #expect(engine.inputNode.outputFormat(forBus: 0) == deviceFormat)
        #expect(engine.mainMixerNode.inputFormat(forBus: 0).sampleRate == deviceFormat.sampleRate)
    }
}

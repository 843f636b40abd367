// The built-in effects are AUAudioUnits a host can render on its own: AUAudioUnit.instantiate
// with Apple's delay description gives a unit whose render block runs the delay's kernel, split at
// each scheduled event — sample for sample what the engine's AVAudioUnitDelay renders, whatever
// the chunk size.
import Foundation
import Testing
import AVFoundation

@Suite struct BuiltInAudioUnitTests {
    static let delay = AudioComponentDescription(componentType: kAudioUnitType_Effect, componentSubType: kAudioUnitSubType_Delay,
                                                 componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
    static let frames = 12_000
    static let switchAt = 5_003
    /// A deterministic stereo signal.
    static func input(_ c: Int, _ i: Int) -> Float { Float(sin(Double(i) * 0.037 + Double(c)) * 0.5) * (i % 1000 < 300 ? 1 : 0.2) }

    static func configure(_ tree: AUParameterTree?) {
        tree?.parameter(withAddress: AUParameterAddress(kDelayParam_DelayTime))?.value = 0.01
        tree?.parameter(withAddress: AUParameterAddress(kDelayParam_Feedback))?.value = 30
        tree?.parameter(withAddress: AUParameterAddress(kDelayParam_WetDryMix))?.value = 50
        tree?.parameter(withAddress: AUParameterAddress(kDelayParam_LopassCutoff))?.value = 8000
    }

    /// The engine: player → AVAudioUnitDelay → main mixer, offline.
    func renderInEngine() throws -> [[Float]] {
        let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 512)
        let player = AVAudioPlayerNode(), delay = AVAudioUnitDelay()
        engine.attach(player)
        engine.attach(delay)
        engine.connect(player, to: delay, format: format)
        engine.connect(delay, to: engine.mainMixerNode, format: format)
        Self.configure(delay.auAudioUnit.parameterTree)
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(Self.frames))!
        buffer.frameLength = buffer.frameCapacity
        for c in 0..<2 { for i in 0..<Self.frames { buffer.floatChannelData![c][i] = Self.input(c, i) } }
        try engine.start()
        player.scheduleBuffer(buffer, at: nil)
        player.play()
        delay.auAudioUnit.scheduleParameterBlock(AUEventSampleTime(Self.switchAt), 0, AUParameterAddress(kDelayParam_WetDryMix), 100)
        var out: [[Float]] = [[], []]
        let chunk = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512)!
        while out[0].count < Self.frames {
            _ = try engine.renderOffline(AVAudioFrameCount(min(512, Self.frames - out[0].count)), to: chunk)
            for c in 0..<2 { out[c] += UnsafeBufferPointer(start: chunk.floatChannelData![c], count: Int(chunk.frameLength)) }
        }
        return out
    }

    @Test(arguments: [37, 512])
    func delayRenderBlockMatchesEngine(chunk: Int) async throws {
        let unit = try await AUAudioUnit.instantiate(with: Self.delay)
        #expect(unit.parameterTree?.allParameters.count == 4)
        #expect(unit.inputBusses.count == 1 && unit.outputBusses.count == 1)
        let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
        try unit.inputBusses[0].setFormat(format)
        try unit.outputBusses[0].setFormat(format)
        unit.maximumFramesToRender = 512
        Self.configure(unit.parameterTree)
        try unit.allocateRenderResources()
        unit.scheduleParameterBlock(AUEventSampleTime(Self.switchAt), 0, AUParameterAddress(kDelayParam_WetDryMix), 100)

        let render = unit.renderBlock
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512)!
        var position = 0
        let pull: AURenderPullInputBlock = { _, _, frames, _, data in
            let list = UnsafeMutableAudioBufferListPointer(data)
            for c in 0..<2 {
                let p = list[c].mData!.assumingMemoryBound(to: Float.self)
                for i in 0..<Int(frames) { p[i] = Self.input(c, position + i) }
            }
            return noErr
        }
        var out: [[Float]] = [[], []]
        var flags = AudioUnitRenderActionFlags()
        while position < Self.frames {
            let n = min(chunk, Self.frames - position)
            buffer.frameLength = AVAudioFrameCount(n)
            var stamp = AudioTimeStamp()
            stamp.mSampleTime = Double(position)
            stamp.mFlags = .sampleTimeValid
            let status = render(&flags, &stamp, AUAudioFrameCount(n), 0, buffer.mutableAudioBufferList, pull)
            #expect(status == noErr)
            for c in 0..<2 { out[c] += UnsafeBufferPointer(start: buffer.floatChannelData![c], count: n) }
            position += n
        }
        let engine = try renderInEngine()
        var worst: Float = 0
        for c in 0..<2 { for i in 0..<Self.frames { worst = max(worst, abs(out[c][i] - engine[c][i])) } }
        #expect(worst == 0, "largest difference from the engine's rendering: \(worst)")
        // the switch to fully wet lands on its frame: the dry input is gone from there on
        // (the delayed signal of frame i is the input 441 frames earlier)
        #expect(out[0][Self.switchAt - 1] != out[0][Self.switchAt])
        unit.deallocateRenderResources()
    }
}

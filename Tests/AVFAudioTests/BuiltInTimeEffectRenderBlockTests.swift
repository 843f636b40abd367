// Apple's time effects hosted on their own: AUAudioUnit.instantiate with AUVarispeed's or
// AUNewTimePitch's description, rendered through `renderBlock` by a host that supplies input
// through the pull-input block (as an AUv3 host or AVAudioEngine's own graph does).
//
// The host sees the frames the unit asks for: a varispeed at rate 2 pulls twice the frames it
// renders, and the pull's time stamp carries the input's own timeline. The tone checks are
// analytic (a sine's frequency after the effect: rate × f for the varispeed, 2 f for +1200 cents),
// and the samples equal what AVAudioEngine renders through the same node type with the same
// input and the same scheduled parameter changes (one DSP per unit, whichever host renders it).
import Foundation
import Testing
import AVFoundation
import AudioAnalysis

@Suite struct BuiltInTimeEffectRenderBlockTests {
    static let rate = 48_000.0
    static let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2)!
    static let varispeed = AudioComponentDescription(componentType: kAudioUnitType_FormatConverter, componentSubType: kAudioUnitSubType_Varispeed,
                                                     componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
    static let timePitch = AudioComponentDescription(componentType: kAudioUnitType_FormatConverter, componentSubType: kAudioUnitSubType_NewTimePitch,
                                                     componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)

    /// A sine generator that hands out consecutive samples (both channels equal).
    final class Sine: @unchecked Sendable {
        let frequency: Double
        var index = 0
        init(_ frequency: Double) { self.frequency = frequency }
        func fill(_ list: UnsafeMutablePointer<AudioBufferList>, frames: Int) {
            let buffers = UnsafeMutableAudioBufferListPointer(list)
            for i in 0..<frames {
                let v = Float(0.5 * sin(2 * Double.pi * frequency * Double(index + i) / BuiltInTimeEffectRenderBlockTests.rate))
                for b in buffers { b.mData!.assumingMemoryBound(to: Float.self)[i] = v }
            }
            index += frames
        }
    }

    /// The frequency of the sine in `y` (least-squares sine fit over 8192 samples, Gauss-Newton
    /// refinement of the frequency from `expected`), in cents from `expected`.
    func centsFrom(_ expected: Double, _ y: ArraySlice<Float>) -> Double {
        let x = Array(y.prefix(8192))
        let w = x.withUnsafeBufferPointer { ToneAnalysis.fit($0, w: 2 * Double.pi * expected / Self.rate, refine: 5).w }
        return 1200 * log2(w * Self.rate / (2 * Double.pi) / expected)
    }

    /// Renders `cycles` × `chunk` frames through the unit's render block; returns channel 0 and
    /// what the host saw of the pulls (frames asked, the input time stamps).
    func renderAlone(_ description: AudioComponentDescription, parameters: [(AUParameterAddress, AUValue)],
                     events: [(AUEventSampleTime, AUParameterAddress, AUValue)] = [],
                     cycles: Int, chunk: Int = 256, input: Double) async throws -> (out: [Float], pulled: Int, inputTimesOK: Bool) {
        let unit = try await AUAudioUnit.instantiate(with: description)
        try unit.inputBusses[0].setFormat(Self.format)
        try unit.outputBusses[0].setFormat(Self.format)
        unit.maximumFramesToRender = AUAudioFrameCount(chunk)
        for (address, value) in parameters { unit.parameterTree?.parameter(withAddress: address)?.value = value }
        try unit.allocateRenderResources()
        for (time, address, value) in events { unit.scheduleParameterBlock(time, 0, address, value) }
        let sine = Sine(input)
        var pulled = 0
        var timesOK = true
        let pull: AURenderPullInputBlock = { _, stamp, frames, _, data in
            if Int(stamp.pointee.mSampleTime) != pulled { timesOK = false }
            sine.fill(data, frames: Int(frames))
            pulled += Int(frames)
            return noErr
        }
        let buffer = AVAudioPCMBuffer(pcmFormat: Self.format, frameCapacity: AVAudioFrameCount(chunk))!
        buffer.frameLength = AVAudioFrameCount(chunk)
        var out: [Float] = []
        var flags = AudioUnitRenderActionFlags(rawValue: 0)
        var stamp = AudioTimeStamp()
        stamp.mFlags = .sampleTimeValid
        let render = unit.renderBlock
        for k in 0..<cycles {
            stamp.mSampleTime = Double(k * chunk)
            let status = render(&flags, &stamp, AUAudioFrameCount(chunk), 0, buffer.mutableAudioBufferList, pull)
            #expect(status == noErr)
            out += Array(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: chunk))
        }
        unit.deallocateRenderResources()
        return (out, pulled, timesOK)
    }

    /// The same through AVAudioEngine: a source node with the same sine → the node → main mixer.
    func renderInEngine(_ node: AVAudioUnitTimeEffect, parameters: [(AUParameterAddress, AUValue)],
                        events: [(AUEventSampleTime, AUParameterAddress, AUValue)] = [],
                        cycles: Int, chunk: Int = 256, input: Double) throws -> [Float] {
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: Self.format, maximumFrameCount: AVAudioFrameCount(chunk))
        let sine = Sine(input)
        let source = AVAudioSourceNode { _, _, frames, list in
            sine.fill(list, frames: Int(frames))
            return noErr
        }
        engine.attach(source)
        engine.attach(node)
        engine.connect(source, to: node, format: Self.format)
        engine.connect(node, to: engine.mainMixerNode, format: Self.format)
        for (address, value) in parameters { node.auAudioUnit.parameterTree?.parameter(withAddress: address)?.value = value }
        try engine.start()
        for (time, address, value) in events { node.auAudioUnit.scheduleParameterBlock(time, 0, address, value) }
        let buffer = AVAudioPCMBuffer(pcmFormat: Self.format, frameCapacity: AVAudioFrameCount(chunk))!
        var out: [Float] = []
        for _ in 0..<cycles {
            #expect(try engine.renderOffline(AVAudioFrameCount(chunk), to: buffer) == .success)
            out += Array(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength)))
        }
        engine.stop()
        return out
    }

    @Test func varispeedPullsRateTimesTheFramesAndMatchesTheEngine() async throws {
        let rateParameter = AUParameterAddress(kVarispeedParam_PlaybackRate)
        let alone = try await renderAlone(Self.varispeed, parameters: [(rateParameter, 2)], cycles: 200, input: 300)
        // 200 × 256 output frames at rate 2: about twice that many input frames (plus the
        // resampler's look-ahead).
        let out = 200 * 256
        #expect(abs(alone.pulled - 2 * out) < 512, "pulled \(alone.pulled) for \(out)")
        #expect(alone.inputTimesOK, "each pull's mSampleTime is the input frames pulled before it")
        let cents = centsFrom(600, alone.out[(out / 4)...])
        #expect(abs(cents) < 1, "\(cents) cents from 600 Hz")
        let engine = try renderInEngine(AVAudioUnitVarispeed(), parameters: [(rateParameter, 2)], cycles: 200, input: 300)
        #expect(engine == alone.out)
    }

    @Test func timePitchOctaveUpMatchesTheEngine() async throws {
        let pitch = AUParameterAddress(kNewTimePitchParam_Pitch)
        let alone = try await renderAlone(Self.timePitch, parameters: [(pitch, 1200)], cycles: 200, input: 440)
        #expect(alone.inputTimesOK)
        let out = 200 * 256
        // Rate 1: input frames ≈ output frames (plus the stretcher's latency fill).
        #expect(abs(alone.pulled - out) < 8192, "pulled \(alone.pulled) for \(out)")
        let cents = centsFrom(880, alone.out[(out / 3)...])
        #expect(abs(cents) < 5, "\(cents) cents from 880 Hz")
        let engine = try renderInEngine(AVAudioUnitTimePitch(), parameters: [(pitch, 1200)], cycles: 200, input: 440)
        #expect(engine == alone.out)
    }

    /// A rate change scheduled mid-cycle lands on the same output frame in both hosts.
    @Test func scheduledRateChangeMatchesTheEngine() async throws {
        let rateParameter = AUParameterAddress(kVarispeedParam_PlaybackRate)
        let events: [(AUEventSampleTime, AUParameterAddress, AUValue)] = [(10_000, rateParameter, 1.5), (20_100, rateParameter, 0.75)]
        let alone = try await renderAlone(Self.varispeed, parameters: [(rateParameter, 1)], events: events, cycles: 120, input: 500)
        let engine = try renderInEngine(AVAudioUnitVarispeed(), parameters: [(rateParameter, 1)], events: events, cycles: 120, input: 500)
        #expect(engine == alone.out)
        // After the second change the tone is 0.75 × 500 Hz.
        let cents = centsFrom(375, alone.out[22_000...])
        #expect(abs(cents) < 1, "\(cents) cents from 375 Hz")
    }

    @Test func refusesARateChangeBetweenBusses() async throws {
        let unit = try await AUAudioUnit.instantiate(with: Self.varispeed)
        try unit.inputBusses[0].setFormat(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!)
        try unit.outputBusses[0].setFormat(Self.format)
        #expect(throws: (any Error).self) { try unit.allocateRenderResources() }
        #expect(!unit.renderResourcesAllocated)
    }
}

// Sample-accurate parameter changes in real time: the engine runs on the null device (clocked
// like a sound card), a source node feeds a delay, and a tap records the delay's output with its
// sample times. A wet/dry switch scheduled at a sample time, or at a host time through
// AUParameter, must land on its exact frame, as it does offline.
import Foundation
import Testing
import AVFoundation

/// Samples a tap delivered, keyed by their sample times (tap blocks run on another thread).
final class TapRecorder: @unchecked Sendable {
    private let lock = NSLock()
    private var samples: [Int64: Float] = [:]
    func record(_ buffer: AVAudioPCMBuffer, _ when: AVAudioTime) {
        guard let data = buffer.floatChannelData else { return }
        lock.lock(); defer { lock.unlock() }
        for i in 0..<Int(buffer.frameLength) { samples[when.sampleTime + Int64(i)] = data[0][i] }
    }
    var snapshot: [Int64: Float] { lock.lock(); defer { lock.unlock() }; return samples }

    /// Waits (up to 5 s: CI machines may be busy) until the frame `last` has been recorded.
    func wait(until last: Int64) async throws {
        for _ in 0..<500 {
            if snapshot[last] != nil { return }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
    }
}

@Suite(.serialized) struct RealTimeAutomationTests {
    /// source (constant 1) → delay (dry, 2 s delay: the wet signal stays silent) → main mixer.
    static func rig() throws -> (AVAudioEngine, AVAudioUnitDelay, TapRecorder) {
        let engine = AVAudioEngine()
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let source = AVAudioSourceNode(format: format) { _, _, frameCount, audioBufferList in
            for buffer in UnsafeMutableAudioBufferListPointer(audioBufferList) {
                let p = buffer.mData!.assumingMemoryBound(to: Float.self)
                for i in 0..<Int(frameCount) { p[i] = 1 }
            }
            return noErr
        }
        let delay = AVAudioUnitDelay()
        delay.delayTime = 2
        delay.feedback = 0
        delay.wetDryMix = 0
        engine.attach(source)
        engine.attach(delay)
        engine.connect(source, to: delay, format: format)
        engine.connect(delay, to: engine.mainMixerNode, format: format)
        let recorder = TapRecorder()
        delay.installTap(onBus: 0, bufferSize: 480, format: nil) { buffer, when in recorder.record(buffer, when) }
        return (engine, delay, recorder)
    }

    /// Waits until the node has rendered, returns its last render time.
    static func renderTime(_ node: AVAudioNode) async throws -> AVAudioTime {
        for _ in 0..<200 {
            if let t = node.lastRenderTime, t.isSampleTimeValid, t.isHostTimeValid { return t }
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        throw CancellationError()
    }

    @Test func sampleTimeEventLandsOnItsFrameInRealTime() async throws {
        let (engine, delay, recorder) = try Self.rig()
        try engine.start()
        defer { engine.stop() }
        let now = try await Self.renderTime(delay)
        let T = now.sampleTime + 9_000   // ~190 ms ahead
        delay.auAudioUnit.scheduleParameterBlock(AUEventSampleTime(T), 1, AUParameterAddress(kDelayParam_WetDryMix), 100)
        try await recorder.wait(until: T + 4_000)
        engine.stop()
        let samples = recorder.snapshot
        let before = (T - 4_000)..<T, after = T..<(T + 4_000)
        #expect(before.allSatisfy { samples[$0] == 1 }, "dry (1.0) on every recorded frame before \(T)")
        #expect(after.allSatisfy { samples[$0] == 0 }, "wet (silent) from frame \(T) on")
    }

    @Test func hostTimeEventLandsOnTheMatchingFrameInRealTime() async throws {
        let (engine, delay, recorder) = try Self.rig()
        try engine.start()
        defer { engine.stop() }
        let now = try await Self.renderTime(delay)
        let parameter = try #require(delay.auAudioUnit.parameterTree?.parameter(withAddress: AUParameterAddress(kDelayParam_WetDryMix)))
        let host = now.hostTime + 200_000_000           // 200 ms after that cycle began (1 tick = 1 ns)
        let expected = now.sampleTime + 9_600             // 0.2 s × 48 kHz
        parameter.setValue(100, originator: nil, atHostTime: host)
        try await recorder.wait(until: expected + 3_000)
        engine.stop()
        let samples = recorder.snapshot
        guard let first = (expected - 3_000 ..< expected + 3_000).first(where: { (samples[$0] ?? 1) < 1 }) else {
            Issue.record("the mix never changed")
            return
        }
        #expect(abs(first - expected) <= 1, "the change began at frame \(first), expected \(expected)")
        // from there the 128-frame de-zipper glide reaches fully wet
        #expect(((first + 128)..<(first + 3_000)).allSatisfy { samples[$0] == 0 })
    }

    @Test func appleParameterIDsAddressTheUnitsParameters() throws {
        let delay = try #require(AVAudioUnitDelay().auAudioUnit.parameterTree)
        #expect(delay.parameter(withAddress: AUParameterAddress(kDelayParam_DelayTime))?.identifier == "delayTime")
        #expect(delay.parameter(withAddress: AUParameterAddress(kDelayParam_LopassCutoff))?.identifier == "lopassCutoff")
        let reverb = try #require(AVAudioUnitReverb().auAudioUnit.parameterTree)
        #expect(reverb.parameter(withAddress: AUParameterAddress(kReverb2Param_DryWetMix))?.identifier == "dryWetMix")
        #expect(reverb.parameter(withAddress: AUParameterAddress(kReverb2Param_DecayTimeAtNyquist))?.identifier == "decayTimeAtNyquist")
        let distortion = try #require(AVAudioUnitDistortion().auAudioUnit.parameterTree)
        #expect(distortion.parameter(withAddress: AUParameterAddress(kDistortionParam_FinalMix)) != nil)
        #expect(distortion.parameter(withAddress: AUParameterAddress(kDistortionParam_SoftClipGain)) != nil)
        let eq = try #require(AVAudioUnitEQ(numberOfBands: 3).auAudioUnit.parameterTree)
        #expect(eq.parameter(withAddress: AUParameterAddress(kAUNBandEQParam_GlobalGain))?.identifier == "globalGain")
        #expect(eq.parameter(withAddress: AUParameterAddress(kAUNBandEQParam_Frequency + 2))?.identifier == "frequency2")
        #expect(AVAudioUnitEQFilterType.highShelf.rawValue == kAUNBandEQFilterType_HighShelf)
        #expect(AVAudioUnitEQFilterType.resonantHighShelf.rawValue == kAUNBandEQFilterType_ResonantHighShelf)
    }
}

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

    /// Waits (up to 30 s: CI machines may be busy) until the frame `last` has been recorded.
    func wait(until last: Int64) async throws {
        for _ in 0..<3000 {
            if snapshot[last] != nil { return }
            try await Task.sleep(nanoseconds: 10_000_000)
        }
    }
}

@Suite(.serialized) struct RealTimeAutomationTests {
    /// The source's signal: a slow ramp, x(t) = t × 10⁻⁶ at sample time t, so the delay's dry
    /// output (x(t)) and its wet output (x(t − 2 s), no feedback) tell apart at every frame.
    static func x(_ t: Int64) -> Double { Double(t) * 1e-6 }
    static func wet(_ t: Int64) -> Double { t >= 96_000 ? x(t - 96_000) : 0 }
    static func isDry(_ y: Float?, _ t: Int64) -> Bool { y.map { abs(Double($0) - x(t)) < 1e-4 } ?? false }
    static func isWet(_ y: Float?, _ t: Int64) -> Bool { y.map { abs(Double($0) - wet(t)) < 1e-4 } ?? false }

    /// source (the ramp) → delay (dry; 2 s delay, no feedback) → main mixer; a tap on the delay.
    static func rig() throws -> (AVAudioEngine, AVAudioUnitDelay, TapRecorder) {
        let engine = AVAudioEngine()
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let source = AVAudioSourceNode(format: format) { _, timestamp, frameCount, audioBufferList in
            let start = Int64(timestamp.pointee.mSampleTime)
            for buffer in UnsafeMutableAudioBufferListPointer(audioBufferList) {
                let p = buffer.mData!.assumingMemoryBound(to: Float.self)
                for i in 0..<Int(frameCount) { p[i] = Float(RealTimeAutomationTests.x(start + Int64(i))) }
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

    /// Runs `schedule(now)` on a running rig and returns the recorded samples and the frame the
    /// change was aimed at. The aim is 0.5 s ahead. On a loaded CI machine two things can spoil
    /// an attempt without saying anything about where events land: the test thread may be held
    /// up until the engine has rendered past the aim before the event is queued, or the tap's
    /// dispatcher may be starved so that the cycles around the aim are dropped (taps drop, they
    /// never block the render thread). Either way the attempt is repeated on a fresh engine (up
    /// to 5 times).
    static func run(_ schedule: (AVAudioUnitDelay, AVAudioTime) throws -> Int64) async throws -> (samples: [Int64: Float], target: Int64)? {
        for _ in 0..<5 {
            let (engine, delay, recorder) = try rig()
            try engine.start()
            let now = try await renderTime(delay)
            let target = try schedule(delay, now)
            let after = try await renderTime(delay)
            if after.sampleTime + 2 * 512 >= target {   // already (nearly) rendered: too late to tell
                engine.stop()
                continue
            }
            try await recorder.wait(until: target + 4_000)
            engine.stop()
            let samples = recorder.snapshot
            if ((target - 4_000)..<(target + 4_000)).allSatisfy({ samples[$0] != nil }) { return (samples, target) }
        }
        return nil
    }

    @Test func sampleTimeEventLandsOnItsFrameInRealTime() async throws {
        let outcome = try await Self.run { delay, now in
            let T = now.sampleTime + 24_000
            delay.auAudioUnit.scheduleParameterBlock(AUEventSampleTime(T), 1, AUParameterAddress(kDelayParam_WetDryMix), 100)
            return T
        }
        let (samples, T) = try #require(outcome, "the test thread never got to schedule ahead of the render thread")
        let firstNotDry = ((T - 4_000)..<T).first { !Self.isDry(samples[$0], $0) }
        let firstNotWet = (T..<(T + 4_000)).first { !Self.isWet(samples[$0], $0) }
        #expect(firstNotDry == nil, "dry before \(T); frame \(firstNotDry ?? 0) is \(String(describing: samples[firstNotDry ?? 0]))")
        #expect(firstNotWet == nil, "wet from \(T) on; frame \(firstNotWet ?? 0) is \(String(describing: samples[firstNotWet ?? 0]))")
    }

    @Test func hostTimeEventLandsOnTheMatchingFrameInRealTime() async throws {
        let outcome = try await Self.run { delay, now in
            let parameter = try #require(delay.auAudioUnit.parameterTree?.parameter(withAddress: AUParameterAddress(kDelayParam_WetDryMix)))
            parameter.setValue(100, originator: nil, atHostTime: now.hostTime + 500_000_000)  // 0.5 s after that cycle began (1 tick = 1 ns)
            return now.sampleTime + 24_000                                                   // 0.5 s × 48 kHz
        }
        let (samples, expected) = try #require(outcome, "the test thread never got to schedule ahead of the render thread")
        guard let first = (expected - 3_000 ..< expected + 3_000).first(where: { !Self.isDry(samples[$0], $0) }) else {
            Issue.record("the mix never changed")
            return
        }
        #expect(abs(first - expected) <= 1, "the change began at frame \(first), expected \(expected)")
        // from there the 128-frame de-zipper glide reaches fully wet
        #expect(((first + 128)..<(first + 3_000)).allSatisfy { Self.isWet(samples[$0], $0) })
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

// A host's view of a built-in unit's parameter tree, through `import AVFoundation` (which
// re-exports AudioToolbox as on Apple platforms): a UI observes the tree, the app changes a
// property, the UI hears it; the UI's own change (with its token as originator) reaches the DSP
// but not the UI's observer; key paths and v2 look-ups find the same parameters.
import AVFoundation
import Testing

@Suite struct AUParameterTreeHostTests {
    @Test func aHostObservesABuiltInUnitsTree() throws {
        let delay = AVAudioUnitDelay()
        let tree = try #require(delay.auAudioUnit.parameterTree)
        var heard: [(AUParameterAddress, AUValue)] = []
        let ui = tree.token(byAddingParameterObserver: { address, value in heard.append((address, value)) })
        delay.wetDryMix = 20
        #expect(heard.count == 1)
        #expect(heard.first?.0 == AUParameterAddress(kDelayParam_WetDryMix))
        #expect(heard.first?.1 == 20)

        // the UI moves the feedback slider: the unit takes it, the UI is not told of its own change
        let feedback = try #require(tree.parameter(withID: kDelayParam_Feedback, scope: kAudioUnitScope_Global, element: 0))
        feedback.setValue(-30, originator: ui)
        #expect(delay.feedback == -30)
        #expect(heard.count == 1)
        tree.removeParameterObserver(ui)

        #expect(tree.value(forKeyPath: feedback.keyPath) as? AUParameter === feedback)
        #expect(feedback.flags.isSuperset(of: [.flag_IsReadable, .flag_IsWritable, .flag_CanRamp]))
    }

    /// What the UI sets reaches the audio: a dry-only delay (wet/dry 0 set through the tree with
    /// an originator token) passes its input unchanged.
    @Test func aChangeWithAnOriginatorReachesTheRenderObject() throws {
        let engine = AVAudioEngine()
        let format = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1))
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 256)
        let source = AVAudioSourceNode { _, _, frames, list in
            let buffers = UnsafeMutableAudioBufferListPointer(list)
            let samples = buffers[0].mData!.assumingMemoryBound(to: Float.self)
            for i in 0 ..< Int(frames) { samples[i] = 0.5 }
            return noErr
        }
        let delay = AVAudioUnitDelay()
        engine.attach(source)
        engine.attach(delay)
        engine.connect(source, to: delay, format: format)
        engine.connect(delay, to: engine.mainMixerNode, format: format)
        let tree = try #require(delay.auAudioUnit.parameterTree)
        let ui = tree.token(byAddingParameterObserver: { _, _ in Issue.record("the originator heard its own change") })
        tree.parameter(withAddress: AUParameterAddress(kDelayParam_WetDryMix))?.setValue(0, originator: ui)
        try engine.start()
        let out = try #require(AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 256))
        _ = try engine.renderOffline(256, to: out)
        engine.stop()
        tree.removeParameterObserver(ui)
        let samples = try #require(out.floatChannelData?[0])
        #expect(abs(samples[200] - 0.5) < 1e-4, "dry-only output \(samples[200])")
    }
}

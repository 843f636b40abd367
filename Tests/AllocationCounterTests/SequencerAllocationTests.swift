// The sequencer's per-cycle step allocates nothing: an AVAudioSequencer playing four tracks
// (notes, controllers, pitch bends, sysex, a looping drum track, a tempo change) into a client music
// device, heap calls counted on the rendering thread over a thousand real-time manual-rendering
// cycles, across a seek and a rate change.
import Testing
import AVFAudio
import Foundation

/// A client music device that counts the MIDI events it receives.
final class CountingSynth: AUAudioUnit {
    final class Counter { var midi = 0; var sysex = 0 }
    let counter = Counter()
    private var outputs: AUAudioUnitBusArray!

    override init(componentDescription: AudioComponentDescription, options: AudioComponentInstantiationOptions = []) throws {
        try super.init(componentDescription: componentDescription, options: options)
        outputs = AUAudioUnitBusArray(audioUnit: self, busType: .output,
                                      busses: [try AUAudioUnitBus(format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!)])
    }
    override var outputBusses: AUAudioUnitBusArray { outputs }

    override var internalRenderBlock: AUInternalRenderBlock {
        let counter = self.counter
        return { _, _, frameCount, _, output, events, _ in
            let buffers = UnsafeMutableAudioBufferListPointer(output)
            var b = 0
            while b < buffers.count { buffers[b].mData!.assumingMemoryBound(to: Float.self).update(repeating: 0, count: Int(frameCount)); b += 1 }
            var event = events
            while let e = event {
                if e.pointee.head.eventType == .MIDI { counter.midi += 1 }
                if e.pointee.head.eventType == .midiSysEx { counter.sysex += 1 }
                event = UnsafePointer(e.pointee.head.next)
            }
            return noErr
        }
    }
}

@Suite(.serialized) struct SequencerAllocationTests {
    @Test func sequencerStepAllocatesNothing() throws {
        let description = AudioComponentDescription(componentType: kAudioUnitType_MusicDevice, componentSubType: 0x636E_7473 /* 'cnts' */,
                                                    componentManufacturer: 0x5465_7374 /* 'Test' */,
                                                    componentFlags: AudioComponentFlags.unsearchable.rawValue, componentFlagsMask: 0)
        AUAudioUnit.registerSubclass(CountingSynth.self, as: description, name: "Test: Counting Synth", version: 1)
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.realtime, format: format, maximumFrameCount: 512)
        let synth = AVAudioUnitMIDIInstrument(audioComponentDescription: description)
        engine.attach(synth)
        engine.connect(synth, to: engine.mainMixerNode, format: format)
        let sequencer = AVAudioSequencer(audioEngine: engine)
        sequencer.tempoTrack.addEvent(AVExtendedTempoEvent(tempo: 150), at: 16)
        let melody = sequencer.createAndAppendTrack()
        for i in 0 ..< 400 {
            melody.addEvent(AVMIDINoteEvent(channel: 0, key: UInt32(40 + i % 40), velocity: 90, duration: 0.2), at: Double(i) * 0.25)
            if i % 4 == 0 { melody.addEvent(AVMIDIControlChangeEvent(channel: 0, messageType: .expression, value: UInt32(i % 128)), at: Double(i) * 0.25) }
            if i % 3 == 0 { melody.addEvent(AVMIDIPitchBendEvent(channel: 0, value: UInt32(i * 37 % 16384)), at: Double(i) * 0.25 + 0.1) }
            if i % 8 == 0 { melody.addEvent(AVMIDISysexEvent(data: Data([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7])), at: Double(i) * 0.25 + 0.05) }
        }
        let drums = sequencer.createAndAppendTrack()
        for i in 0 ..< 8 { drums.addEvent(AVMIDINoteEvent(channel: 9, key: 36 + UInt32(i % 3), velocity: 127, duration: 0.1), at: Double(i) * 0.5) }
        drums.loopRange = AVMakeBeatRange(0, 4)
        drums.numberOfLoops = AVMusicTrackLoopCount.forever.rawValue
        drums.isLoopingEnabled = true
        let offset = sequencer.createAndAppendTrack()
        offset.addEvent(AVMIDIProgramChangeEvent(channel: 2, programNumber: 3), at: 0)
        offset.offsetTime = 1.5
        try engine.start()
        try sequencer.start()
        let render = engine.manualRenderingBlock
        let output = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512)!
        let list = output.mutableAudioBufferList
        var status = noErr
        for _ in 0 ..< 20 { _ = render(256, list, &status) }
        // Three counted stretches: playing, after a seek, after a rate change (the seek and the
        // rate change themselves run on the control side, between the counts).
        var counts: [AllocationCounts] = []
        counts.append(countAllocations { for _ in 0 ..< 300 { _ = render(256, list, &status) } })
        sequencer.currentPositionInBeats = 2
        counts.append(countAllocations { for _ in 0 ..< 300 { _ = render(256, list, &status) } })
        sequencer.rate = 1.5
        counts.append(countAllocations { for _ in 0 ..< 400 { _ = render(256, list, &status) } })
        sequencer.stop()
        engine.stop()
        #expect(status == noErr)
        #expect((synth.auAudioUnit as! CountingSynth).counter.midi > 150)
        #expect((synth.auAudioUnit as! CountingSynth).counter.sysex >= 5)   // about 13 beats of 10 melody and 4 drum messages a beat
        #expect(counts.allSatisfy { $0 == .none }, "\(counts)")
    }
}

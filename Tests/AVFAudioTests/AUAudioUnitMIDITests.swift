// MIDI through the one render-event scheduler: a client's music device (an AUAudioUnit subclass
// of type 'aumu') receives note-ons and note-offs in its render event list as `.MIDI` events, at
// the sample times they were scheduled for (scheduleMIDIEventBlock) or at the start of the next
// cycle (AVAudioUnitMIDIInstrument.startNote), interleaved in time order with parameter events.
import Foundation
import Testing
import AVFoundation

/// Outputs velocity / 127 while a note is held, times the "level" parameter.
final class ClientGateInstrument: AUAudioUnit {
    final class State { var level: Float = 1; var velocity: Float = 0 }
    let state = State()
    private var outputs: AUAudioUnitBusArray!

    override init(componentDescription: AudioComponentDescription, options: AudioComponentInstantiationOptions = []) throws {
        try super.init(componentDescription: componentDescription, options: options)
        outputs = AUAudioUnitBusArray(audioUnit: self, busType: .output,
                                      busses: [try AUAudioUnitBus(format: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!)])
    }

    override var outputBusses: AUAudioUnitBusArray { outputs }

    override var internalRenderBlock: AUInternalRenderBlock {
        let state = self.state
        return { _, timestamp, frameCount, _, output, events, _ in
            let list = UnsafeMutableAudioBufferListPointer(output)
            let start = AUEventSampleTime(timestamp.pointee.mSampleTime)
            var event = events
            for i in 0..<Int(frameCount) {
                while let e = event, e.pointee.head.eventSampleTime <= start + AUEventSampleTime(i) {
                    switch e.pointee.head.eventType {
                    case .MIDI:
                        let m = e.pointee.MIDI
                        if m.data.0 & 0xF0 == 0x90 && m.data.2 > 0 { state.velocity = Float(m.data.2) / 127 }
                        if m.data.0 & 0xF0 == 0x80 || (m.data.0 & 0xF0 == 0x90 && m.data.2 == 0) { state.velocity = 0 }
                    case .parameter, .parameterRamp:
                        state.level = e.pointee.parameter.value
                    default: break
                    }
                    event = UnsafePointer(e.pointee.head.next)
                }
                for b in 0..<list.count { list[b].mData!.assumingMemoryBound(to: Float.self)[i] = state.velocity * state.level }
            }
            return noErr
        }
    }
}

@Suite struct AUAudioUnitMIDITests {
    static let description = AudioComponentDescription(componentType: kAudioUnitType_MusicDevice, componentSubType: fourCC("gate"),
                                                       componentManufacturer: fourCC("Test"), componentFlags: 0, componentFlagsMask: 0)

    @Test func notesLandOnTheirFrames() async throws {
        AUAudioUnit.registerSubclass(ClientGateInstrument.self, as: Self.description, name: "Test: Gate", version: 1)
        let node = try await AVAudioUnit.instantiate(with: Self.description)
        let instrument = try #require(node as? AVAudioUnitMIDIInstrument)
        #expect(instrument.numberOfInputs == 0 && instrument.numberOfOutputs == 1)
        let schedule = try #require(instrument.auAudioUnit.scheduleMIDIEventBlock)

        let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 512)
        engine.attach(instrument)
        engine.connect(instrument, to: engine.mainMixerNode, format: format)
        try engine.start()

        // scheduled out of order: note-on at 1000 (velocity 127), level 0.5 at 1500, note-off at 2000
        [UInt8](arrayLiteral: 0x80, 60, 0).withUnsafeBufferPointer { schedule(2000, 0, 3, $0.baseAddress!) }
        instrument.auAudioUnit.scheduleParameterBlock(1500, 0, 0, 0.5)
        [UInt8](arrayLiteral: 0x90, 60, 127).withUnsafeBufferPointer { schedule(1000, 0, 3, $0.baseAddress!) }
        var out: [Float] = []
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512)!
        while out.count < 3000 {
            _ = try engine.renderOffline(AVAudioFrameCount(min(300, 3000 - out.count)), to: buffer)
            out += UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength))
        }
        #expect(out[0..<1000].allSatisfy { $0 == 0 })
        #expect(out[1000..<1500].allSatisfy { $0 == 1 })
        #expect(out[1500..<2000].allSatisfy { $0 == 0.5 })
        #expect(out[2000...].allSatisfy { $0 == 0 })

        // startNote: immediate, at the first frame of the next cycle
        instrument.startNote(60, withVelocity: 127, onChannel: 0)
        _ = try engine.renderOffline(100, to: buffer)
        #expect(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: 100).allSatisfy { $0 == 0.5 })
        instrument.stopNote(60, onChannel: 0)
        _ = try engine.renderOffline(100, to: buffer)
        #expect(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: 100).allSatisfy { $0 == 0 })

        // units that take no MIDI have no MIDI block
        #expect(AVAudioUnitDelay().auAudioUnit.scheduleMIDIEventBlock == nil)
    }
}

// The AUAudioUnit behind AVAudioUnitSampler (Apple's AUSampler, 'aumu'/'samp'/'appl'): one
// stereo output bus, MIDI in through the unit's render-event list, the voices in SamplerSynth.
//
// The engine renders it like any wrapped unit (AUAudioUnit+Engine.swift): it sets the output
// bus's format, `maximumFramesToRender`, and calls `allocateRenderResources()` outside the
// engine's lock and never while the unit renders; each cycle it calls the render block, which
// splits the cycle at each MIDI event (sample-accurate note-on/off) and lets the synth mix every
// voice into the output buffers. The synth is created for the output rate when resources are
// allocated; the loaded instrument survives rate changes (it is re-installed into the new synth).
// Loading an instrument while rendering publishes it to the synth atomically (SamplerSynth.swift).
import SamplerSynth

final class SamplerAudioUnit: AUAudioUnit {
    static let samplerDescription = AudioComponentDescription(
        componentType: kAudioUnitType_MusicDevice, componentSubType: kAudioUnitSubType_Sampler,
        componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)

    /// What the render block reaches (no retain per cycle: `Unmanaged`).
    final class RenderState {
        var synth: Unmanaged<SamplerSynth>?
        var scratch: UnsafeMutablePointer<Float>?
        var scratchFrames = 0
        /// Where an `AUMIDIEventList`'s `MIDIEventList` starts (computed here, on the control side:
        /// a key path is an object).
        let eventListOffset = MemoryLayout<AUMIDIEventList>.offset(of: \AUMIDIEventList.eventList)!
        deinit {
            synth?.release()
            scratch?.deallocate()
        }
    }

    private var outputArray: AUAudioUnitBusArray!
    let state = RenderState()
    /// The loaded instrument (control side).
    private(set) var instrument: SamplerInstrument
    /// The synth of the current render resources (control side reference).
    private var synth: SamplerSynth?
    // the façade's settings, applied to every synth
    var gainDecibels: Float = 0 { didSet { synth?.gain = linearGain } }
    var balance: Float = 0 { didSet { synth?.balance = balance / 100 } }
    var tuningCents: Float = 0 { didSet { synth?.tuning = tuningCents } }
    var usesInternalEffects = true { didSet { synth?.usesInternalEffects = usesInternalEffects } }
    private var linearGain: Float { Float(pow(10, Double(gainDecibels) / 20)) }

    init() {
        instrument = SamplerInstrument.builtInTone()
        try! super.init(componentDescription: SamplerAudioUnit.samplerDescription, options: [])
        let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
        outputArray = AUAudioUnitBusArray(audioUnit: self, busType: .output, busses: [try! AUAudioUnitBus(format: format)])
    }

    required init(__registeredComponentDescription componentDescription: AudioComponentDescription,
                  options: AudioComponentInstantiationOptions) throws {
        preconditionFailure("AUSampler is built in, not a registered subclass")
    }

    override init(componentDescription: AudioComponentDescription, options: AudioComponentInstantiationOptions = []) throws {
        instrument = SamplerInstrument.builtInTone()
        try super.init(componentDescription: componentDescription, options: options)
        let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
        outputArray = AUAudioUnitBusArray(audioUnit: self, busType: .output, busses: [try! AUAudioUnitBus(format: format)])
    }

    override var outputBusses: AUAudioUnitBusArray { outputArray }
    override var componentName: String? { "Apple: AUSampler" }
    override var componentVersion: UInt32 { 0x0001_0000 }
    override var tailTime: TimeInterval { 0 }

    /// Replaces the instrument (control side; a rendering synth adopts it at its next cycle).
    func setInstrument(_ newInstrument: SamplerInstrument) {
        instrument = newInstrument
        synth?.publish(newInstrument)
    }

    override func allocateRenderResources() throws {
        try super.allocateRenderResources()
        let rate = outputBusses[0].format.sampleRate
        let frames = Int(maximumFramesToRender)
        if synth == nil || synth!.sampleRate != rate {
            let s = SamplerSynth(sampleRate: rate)
            s.install(instrument)
            s.gain = linearGain; s.balance = balance / 100; s.tuning = tuningCents; s.usesInternalEffects = usesInternalEffects
            synth = s
            state.synth?.release()
            state.synth = .passRetained(s)
        }
        if state.scratchFrames < frames {
            state.scratch?.deallocate()
            state.scratch = .allocate(capacity: 2 * frames)
            state.scratchFrames = frames
        }
    }

    override func reset() {
        // all sound off on every channel (the next cycle)
        guard let block = scheduleMIDIEventBlock else { return }
        for c in 0..<16 {
            let bytes: [UInt8] = [0xB0 | UInt8(c), 120, 0]
            bytes.withUnsafeBufferPointer { block(AUEventSampleTimeImmediate, 0, 3, $0.baseAddress!) }
        }
    }

    override var internalRenderBlock: AUInternalRenderBlock {
        let state = self.state
        return { flags, timestamp, frameCount, _, output, events, _ in
            SamplerAudioUnit.render(state, flags, timestamp, Int(frameCount), output, events)
        }
    }

    /// One cycle: clear, then render between events, handling each MIDI event on its frame.
    static func render(_ state: RenderState, _ flags: UnsafeMutablePointer<AudioUnitRenderActionFlags>,
                       _ timestamp: UnsafePointer<AudioTimeStamp>, _ frames: Int,
                       _ output: UnsafeMutablePointer<AudioBufferList>, _ events: UnsafePointer<AURenderEvent>?) -> AUAudioUnitStatus {
        guard let synthRef = state.synth, let scratch = state.scratch, frames <= state.scratchFrames else { return kAudioUnitErr_Uninitialized }
        let list = UnsafeMutableAudioBufferListPointer(output)
        guard list.count >= 1 else { return kAudioUnitErr_FormatNotSupported }
        if list[0].mData == nil { list[0].mData = UnsafeMutableRawPointer(scratch) }
        let left = list[0].mData!.assumingMemoryBound(to: Float.self)
        var right = scratch + state.scratchFrames
        if list.count >= 2 {
            if list[1].mData == nil { list[1].mData = UnsafeMutableRawPointer(scratch + state.scratchFrames) }
            right = list[1].mData!.assumingMemoryBound(to: Float.self)
        }
        left.update(repeating: 0, count: frames)
        right.update(repeating: 0, count: frames)
        synthRef._withUnsafeGuaranteedRef { synth in
            synth.beginCycle()
            let start = AUEventSampleTime(timestamp.pointee.mSampleTime)
            var done = 0
            var event = events
            while let e = event {
                let t = Int(max(0, min(AUEventSampleTime(frames), e.pointee.head.eventSampleTime - start)))
                if t > done { synth.render(left: left, right: right, offset: done, frames: t - done); done = t }
                if e.pointee.head.eventType == .MIDI {
                    let m = e.pointee.MIDI
                    if m.length >= 1 { synth.handleMIDI(m.data.0, m.length > 1 ? m.data.1 : 0, m.length > 2 ? m.data.2 : 0) }
                } else if e.pointee.head.eventType == .midiEventList {
                    handleEventList(UnsafeRawPointer(e) + state.eventListOffset, synth)
                }
                event = UnsafePointer(e.pointee.head.next)
            }
            if frames > done { synth.render(left: left, right: right, offset: done, frames: frames - done) }
        }
        // a mono connection takes both sides' sum at half level each
        if list.count == 1 {
            var i = 0
            while i < frames { left[i] = 0.5 * (left[i] + right[i]); i += 1 }
        }
        var b = 0
        while b < list.count {
            list[b].mDataByteSize = UInt32(frames * MemoryLayout<Float>.size)
            b += 1
        }
        flags.pointee.remove(.unitRenderAction_OutputIsSilence)
        return noErr
    }

    /// The channel-voice messages of a Universal MIDI Packet list (MIDIServices.h layout: protocol,
    /// packet count, then packets of time stamp, word count and words), as MIDI 1.0 messages:
    /// MIDI 1.0 channel voice (type 2) as they are; MIDI 2.0 channel voice (type 4) with their
    /// values scaled down to 7 bits (14 for pitch bend; a note-on's velocity never to 0; a program
    /// change's bank, when flagged valid, as bank select). Other message types are skipped.
    @inline(__always)
    static func handleEventList(_ list: UnsafeRawPointer, _ synth: SamplerSynth) {
        let packets = Int(list.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
        var p = list + 8
        var n = 0
        while n < packets {
            let count = Int(min(64, p.loadUnaligned(fromByteOffset: 8, as: UInt32.self)))
            var i = 0
            while i < count {
                let w0 = p.loadUnaligned(fromByteOffset: 12 + 4 * i, as: UInt32.self)
                let type = Int(w0 >> 28)
                let size = type <= 2 || type == 6 || type == 7 ? 1 : (type <= 4 || type >= 8 && type <= 0xA ? 2 : (type <= 0xC && type >= 0xB ? 3 : 4))
                let status = UInt8(truncatingIfNeeded: w0 >> 16), d1 = UInt8(truncatingIfNeeded: w0 >> 8) & 0x7F
                if type == 2 {
                    synth.handleMIDI(status, d1, UInt8(truncatingIfNeeded: w0) & 0x7F)
                } else if type == 4 && i + 1 < count {
                    let w1 = p.loadUnaligned(fromByteOffset: 16 + 4 * i, as: UInt32.self)
                    switch status & 0xF0 {
                    case 0x90:
                        let v = UInt8(truncatingIfNeeded: w1 >> 25)
                        synth.handleMIDI(status, d1, w1 >> 16 == 0 ? 0 : max(1, v))
                    case 0x80, 0xA0: synth.handleMIDI(status, d1, UInt8(truncatingIfNeeded: w1 >> 25))
                    case 0xB0: synth.handleMIDI(status, d1, UInt8(truncatingIfNeeded: w1 >> 25))
                    case 0xC0:
                        if w0 & 1 != 0 {
                            synth.handleMIDI(0xB0 | (status & 0x0F), 0, UInt8(truncatingIfNeeded: w1 >> 8) & 0x7F)
                            synth.handleMIDI(0xB0 | (status & 0x0F), 32, UInt8(truncatingIfNeeded: w1) & 0x7F)
                        }
                        synth.handleMIDI(status, UInt8(truncatingIfNeeded: w1 >> 24) & 0x7F, 0)
                    case 0xD0: synth.handleMIDI(status, UInt8(truncatingIfNeeded: w1 >> 25), 0)
                    case 0xE0:
                        let bend = w1 >> 18
                        synth.handleMIDI(status, UInt8(truncatingIfNeeded: bend) & 0x7F, UInt8(truncatingIfNeeded: bend >> 7) & 0x7F)
                    default: break
                    }
                }
                i += size
            }
            p += 12 + 4 * count
            n += 1
        }
    }
}

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
            s.gain = linearGain; s.balance = balance / 100; s.tuning = tuningCents
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
}

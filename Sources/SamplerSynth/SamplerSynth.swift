// The sampler's voice engine: MIDI in, stereo out, for the AVAudioUnitSampler façade.
//
// DESIGN NOTE — threads and memory
// --------------------------------
// * Control side: `init` allocates everything the render side will touch (voices, channels,
//   scratch); `publish(_:)` hands a new instrument over with an atomic exchange (the render side
//   adopts it at the start of its next cycle, stops every voice of the old one, and parks the old
//   one in a slot the control side empties — nothing is freed on the render thread). Gain, pan
//   and tuning are atomics read once per cycle.
// * Render side: `beginCycle()`, then `render(left:right:offset:frames:)` for each stretch between
//   events and `handleMIDI(...)` at each event, so note-ons land on their frame. It allocates
//   nothing, locks nothing, retains nothing (proved in SamplerRealTimeSafety.swift).
//
// Default modulators (SoundFont 2.04 §8.4, with FluidSynth's choices where it departs): note-on
// velocity → attenuation (960 cB, concave: 40·log10(127/v) dB), CC7
// volume and CC11 expression → attenuation (960 cB concave each), CC10 → pan (±50 %), CC1
// modulation wheel and channel pressure → vibrato LFO pitch depth (50 cents each), pitch wheel →
// pitch (± the RPN 0 sensitivity, default 2 semitones). A bank's own modulators are evaluated per
// voice (PlayModulator.swift, SamplerSynth+Modulators.swift). Velocity → filter cutoff is not applied:
// FluidSynth 2.3 does not apply it either (measured; see startVoice). CC91/CC93 → reverb/chorus
// send (200 × value / 128, in 0.1 %) add to the zone's send generators (#16, #15).
//
// Effects: each voice adds its mono signal (before pan) × its send into a reverb bus and a chorus
// bus, as FluidSynth feeds its effects; after the voices, the buses go through one shared
// ReverbProcessor (AVAudioUnitReverb's network at its default parameters: 100 % wet, 1 s decay
// at 0 Hz) and a ChorusProcessor (FluidSynth's chorus defaults), added to the output. Rendering
// runs in stretches of at most 512 frames (the buses' length). The effects run only from the
// first stretch a voice sends anything until the reverb's tail time after the last such
// stretch, so with every send at 0 they never run and the output is the dry voices alone.
import Synchronization
import CSamplerKernels
import SoundBanks
import AudioKernels

/// The MIDI state of one channel.
struct ChannelState {
    var preset = -1
    var bankMSB: UInt8 = 0, bankLSB: UInt8 = 0, bankSelected = false
    var program: UInt8 = 0
    var controllers = (volume: UInt8(100), expression: UInt8(127), pan: UInt8(64), modulation: UInt8(0))
    var sustain = false
    var pitchBend = 8_192
    /// Pitch-bend sensitivity (RPN 0): semitones (data entry MSB) and cents (LSB).
    var bendSemitones: UInt8 = 2, bendCentsPart: UInt8 = 0
    var pressure: UInt8 = 0
    var rpn = (msb: UInt8(127), lsb: UInt8(127))
    /// Moves on every controller, bend and pressure change: voices with custom modulators
    /// re-evaluate them when it differs from the value they last saw.
    var generation: UInt32 = 0
    // derived
    var attenuation: Float = 0
    /// The default modulators' parts, for voices whose zone turns some of them off.
    var attenuationVolume: Float = 0, attenuationExpression: Float = 0
    var vibratoModulation: Float = 0, vibratoPressure: Float = 0
    /// CC91 (reverb) and CC93 (chorus) through FluidSynth's default modulators: 200 × value / 128, in 0.1 %.
    var reverbDepth: Float = 0, chorusDepth: Float = 0
    var panOffset: Float = 0
    var bendCents: Float = 0
    var vibratoExtra: Float = 0

    mutating func derive() {
        attenuation = SynthMath.concaveCentibels(controllers.volume) + SynthMath.concaveCentibels(controllers.expression)
        panOffset = 1_000 * (Float(controllers.pan) - 64) / 128
        bendCents = Float(pitchBend - 8_192) / 8_192 * (Float(bendSemitones) * 100 + Float(bendCentsPart))
        vibratoExtra = 50 * Float(controllers.modulation) / 127 + 50 * Float(pressure) / 127
        attenuationVolume = SynthMath.concaveCentibels(controllers.volume)
        attenuationExpression = SynthMath.concaveCentibels(controllers.expression)
        vibratoModulation = 50 * Float(controllers.modulation) / 127
        vibratoPressure = 50 * Float(pressure) / 127
        generation &+= 1
    }
}

/// The render side's view of the current instrument: plain pointers into its memory (the synth
/// keeps the instrument alive), so no reference is counted while rendering.
struct InstrumentView {
    /// The sample pool's points: Float, or Int16 read as value / 32768 (SamplePool.swift).
    var samples: UnsafeRawPointer
    var samplesAreInt16: Bool
    var zones: UnsafePointer<PlayZone>
    var modulators: UnsafePointer<PlayModulator>
    var presets: UnsafePointer<PresetEntry>
    var presetCount: Int
    var defaultPreset: Int


    /// The preset index for a bank and program (−1: none). Binary search.
    @inline(__always)
    func presetIndex(bank: Int, program: Int) -> Int {
        var lo = 0, hi = presetCount
        let key = (Int32(truncatingIfNeeded: bank), Int32(truncatingIfNeeded: program))
        while lo < hi {
            let mid = (lo + hi) / 2
            if (presets[mid].bank, presets[mid].program) < key { lo = mid + 1 } else { hi = mid }
        }
        if lo < presetCount && presets[lo].bank == key.0 && presets[lo].program == key.1 { return lo }
        return -1
    }
}

/// A polyphonic SoundFont voice engine.
public final class SamplerSynth: @unchecked Sendable {
    public let sampleRate: Double
    public let polyphony: Int
    /// Frames per control block (envelopes, LFOs, pitch and gains are updated once per block).
    public static var blockFrames: Int { synthBlockFrames }
    let capacity: Int
    let voices: UnsafeMutablePointer<Voice>
    let channels: UnsafeMutablePointer<ChannelState>
    let scratch: UnsafeMutablePointer<Float>
    /// Each voice slot's low-pass state: x[n−1], x[n−2], y[n−1], y[n−2].
    let filterStates: UnsafeMutablePointer<Float>
    /// Each voice slot's block cache (`synthCacheStride` floats): the block's interpolated input,
    /// its filtered output, and the low-pass state at the block's first frame (SamplerVoice.swift,
    /// "blocks rendered whole").
    let blockCache: UnsafeMutablePointer<Float>
    /// The voice loops for this CPU (CSamplerKernels: AVX2 + FMA or portable).
    let kernels: UnsafePointer<CSKKernels>
    /// Every channel's 128 controller values (what custom modulators read), and poly pressure per key.
    let controllerValues: UnsafeMutablePointer<UInt8>
    let polyPressure: UnsafeMutablePointer<UInt8>
    /// Per-voice modulator evaluation scratch: one sum per generator, then one link input per record.
    let modulatorSums: UnsafeMutablePointer<Float>
    /// FluidSynth's concave and convex curves, 128 points each (PlayModulator.swift).
    let curves: UnsafeMutablePointer<Float>
    /// The effect sends (see "Effects" in the design note): mono buses the voices add into,
    /// the shared reverb and chorus, their stereo output, and how long they still ring.
    let reverbBus: UnsafeMutablePointer<Float>, chorusBus: UnsafeMutablePointer<Float>
    let effectOutput: UnsafeMutablePointer<Float>
    /// The reverb's channel pointers: input (the reverb bus twice), then output (`effectOutput`'s halves).
    let effectChannels: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let reverb: ReverbProcessor
    let chorus: ChorusProcessor
    /// The effects for the render thread (`reverb`/`chorus` keep them alive; a call through a
    /// loaded reference would retain).
    private let reverbRef: Unmanaged<ReverbProcessor>, chorusRef: Unmanaged<ChorusProcessor>
    var sendsUsed = false
    private var effectFramesLeft = 0
    private let effectTailFrames: Int
    private var instrument: Unmanaged<SamplerInstrument>?
    private(set) var view: InstrumentView?
    private var noteCounter: UInt64 = 0
    var noteCounterForVoices: UInt64 { noteCounter }

    private let pending = Atomic<UInt>(0)
    private let retired = Atomic<UInt>(0)
    private let gainBits = Atomic<UInt32>(Float(1).bitPattern)
    private let tuningBits = Atomic<UInt32>(Float(0).bitPattern)
    private let panBits = Atomic<UInt32>(Float(0).bitPattern)
    private let effectsOn = Atomic<Bool>(true)
    private var cycleGain: Float = 1, cycleTuning: Float = 0, cycleGainL: Float = 1, cycleGainR: Float = 1
    var cycleGainValue: Float { cycleGain }
    var cycleTuningValue: Float { cycleTuning }
    var cycleGainLeft: Float { cycleGainL }
    var cycleGainRight: Float { cycleGainR }

    /// Creates the engine for an output rate; `polyphony` voices sound at once (FluidSynth's default is 256).
    public init(sampleRate: Double, polyphony: Int = 256) {
        self.sampleRate = sampleRate
        self.polyphony = max(1, polyphony)
        capacity = self.polyphony + synthFadeSlots
        voices = .allocate(capacity: capacity)
        voices.initialize(repeating: Voice(), count: capacity)
        channels = .allocate(capacity: 16)
        channels.initialize(repeating: ChannelState(), count: 16)
        for c in 0..<16 { channels[c].derive() }
        scratch = .allocate(capacity: synthBlockFrames)
        scratch.initialize(repeating: 0, count: synthBlockFrames)
        kernels = csk_kernels()
        filterStates = .allocate(capacity: 4 * capacity)
        filterStates.initialize(repeating: 0, count: 4 * capacity)
        blockCache = .allocate(capacity: synthCacheStride * capacity)
        blockCache.initialize(repeating: 0, count: synthCacheStride * capacity)
        controllerValues = .allocate(capacity: 16 * 128)
        polyPressure = .allocate(capacity: 16 * 128)
        polyPressure.initialize(repeating: 0, count: 16 * 128)
        controllerValues.initialize(repeating: 0, count: 16 * 128)
        for c in 0..<16 { resetControllerValues(controllerValues + 128 * c, all: true) }
        modulatorSums = .allocate(capacity: SF2Generator.count + SF2Modulator.maximumPerVoice)
        modulatorSums.initialize(repeating: 0, count: SF2Generator.count + SF2Modulator.maximumPerVoice)
        curves = .allocate(capacity: 256)
        SamplerSynth.fillCurves(curves)
        reverbBus = .allocate(capacity: synthEffectFrames)
        reverbBus.initialize(repeating: 0, count: synthEffectFrames)
        chorusBus = .allocate(capacity: synthEffectFrames)
        chorusBus.initialize(repeating: 0, count: synthEffectFrames)
        effectOutput = .allocate(capacity: 2 * synthEffectFrames)
        effectOutput.initialize(repeating: 0, count: 2 * synthEffectFrames)
        effectChannels = .allocate(capacity: 4)
        effectChannels.initialize(from: [reverbBus, reverbBus, effectOutput, effectOutput + synthEffectFrames], count: 4)
        reverb = ReverbProcessor(sampleRate: sampleRate, channels: 2, maximumFrames: synthEffectFrames)
        chorus = ChorusProcessor(sampleRate: sampleRate)
        reverbRef = .passUnretained(reverb)
        chorusRef = .passUnretained(chorus)
        effectTailFrames = Int((reverb.tailTime + 0.1) * sampleRate)
    }

    deinit {
        instrument?.release()
        if let p = Unmanaged<SamplerInstrument>.from(bits: pending.exchange(0, ordering: .acquiring)) { p.release() }
        if let r = Unmanaged<SamplerInstrument>.from(bits: retired.exchange(0, ordering: .acquiring)) { r.release() }
        voices.deallocate()
        channels.deallocate()
        scratch.deallocate()
        filterStates.deallocate()
        blockCache.deallocate()
        controllerValues.deallocate()
        polyPressure.deallocate()
        modulatorSums.deallocate()
        curves.deallocate()
        reverbBus.deallocate()
        chorusBus.deallocate()
        effectOutput.deallocate()
        effectChannels.deallocate()
    }

    // MARK: Control side

    /// Hands a new instrument to the render side (adopted at its next cycle; every sounding voice stops).
    public func publish(_ newInstrument: SamplerInstrument) {
        if let r = Unmanaged<SamplerInstrument>.from(bits: retired.exchange(0, ordering: .acquiringAndReleasing)) { r.release() }
        let bits = UInt(bitPattern: Unmanaged.passRetained(newInstrument).toOpaque())
        if let old = Unmanaged<SamplerInstrument>.from(bits: pending.exchange(bits, ordering: .acquiringAndReleasing)) { old.release() }
    }

    /// Installs the first instrument before any rendering (control side, no render running).
    public func install(_ first: SamplerInstrument) {
        instrument?.release()
        instrument = .passRetained(first)
        view = first.view
        resetChannels(defaultPreset: first.defaultPreset, presetCount: first.presets.count)
    }

    /// Output gain (linear), stereo balance (−1 … 1) and global tuning (cents), read once per cycle.
    public var gain: Float {
        get { Float(bitPattern: gainBits.load(ordering: .relaxed)) }
        set { gainBits.store(newValue.bitPattern, ordering: .relaxed) }
    }
    public var balance: Float {
        get { Float(bitPattern: panBits.load(ordering: .relaxed)) }
        set { panBits.store(newValue.bitPattern, ordering: .relaxed) }
    }
    public var tuning: Float {
        get { Float(bitPattern: tuningBits.load(ordering: .relaxed)) }
        set { tuningBits.store(newValue.bitPattern, ordering: .relaxed) }
    }
    /// Whether the reverb and chorus run on the voices' sends (default true). Off, the send buses
    /// are emptied unheard: the output is the dry mix alone, and the effects cost nothing.
    public var usesInternalEffects: Bool {
        get { effectsOn.load(ordering: .relaxed) }
        set { effectsOn.store(newValue, ordering: .relaxed) }
    }

    /// How many voices are sounding (render side or quiescent control side).
    public var activeVoiceCount: Int {
        var n = 0
        for i in 0..<capacity where voices[i].playing { n += 1 }
        return n
    }

    // MARK: Render side

    /// Starts a render cycle: adopts a published instrument, reads gain/pan/tuning.
    public func beginCycle() {
        let voices = self.voices, capacity = self.capacity, channels = self.channels   // (locals: no retain of self in the conditions)
        _ = channels; _ = voices; _ = capacity
        let bits = pending.exchange(0, ordering: .acquiringAndReleasing)
        if bits != 0, let adopted = Unmanaged<SamplerInstrument>.from(bits: bits) {
            for i in 0..<capacity { voices[i].playing = false }
            let previous = instrument
            instrument = adopted
            let newView = adopted._withUnsafeGuaranteedRef { $0.view }
            view = newView
            resetChannels(defaultPreset: newView.defaultPreset, presetCount: newView.presetCount)
            let old = retired.exchange(previous.map { UInt(bitPattern: $0.toOpaque()) } ?? 0, ordering: .acquiringAndReleasing)
            // (the control side empties the slot before each publish, so it is empty here; if it
            // is not, the older one stays parked rather than being freed on this thread)
            if old != 0 { _ = retired.exchange(old, ordering: .acquiringAndReleasing) }
        }
        cycleGain = Float(bitPattern: gainBits.load(ordering: .relaxed))
        cycleTuning = Float(bitPattern: tuningBits.load(ordering: .relaxed))
        let b = max(-1, min(1, Float(bitPattern: panBits.load(ordering: .relaxed))))
        cycleGainL = b > 0 ? 1 - b : 1
        cycleGainR = b < 0 ? 1 + b : 1
    }

    private func resetChannels(defaultPreset: Int, presetCount: Int) {
        for c in 0..<16 {
            resetControllerValues(controllerValues + 128 * c, all: true)
            (polyPressure + 128 * c).update(repeating: 0, count: 128)
            channels[c] = ChannelState()
            channels[c].preset = defaultPreset >= 0 ? defaultPreset : (presetCount > 0 ? 0 : -1)
            channels[c].derive()
        }
    }

    /// Mixes every voice into `left`/`right` (added to what is there) for `frames` frames from `offset`.
    public func render(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, offset: Int, frames: Int) {
        guard frames > 0, let view else { return }
        let samples = SamplePoints(base: view.samples, int16: view.samplesAreInt16)
        let voices = self.voices
        // (in stretches of at most synthEffectFrames, the send buses' length; a voice renders the
        // same samples however its frames are split)
        let effects = effectsOn.load(ordering: .relaxed)
        var done = 0
        while done < frames {
            let n = min(synthEffectFrames, frames - done)
            let l = left + offset + done, r = right + offset + done
            sendsUsed = false
            var i = 0
            while i < capacity {
                if voices[i].playing { renderVoice(voices + i, samples, l, r, reverbBus, chorusBus, n) }
                i += 1
            }
            if !effects {
                if sendsUsed { reverbBus.update(repeating: 0, count: n); chorusBus.update(repeating: 0, count: n) }
                effectFramesLeft = 0
            } else {
                if sendsUsed { effectFramesLeft = effectTailFrames }
                if effectFramesLeft > 0 { renderEffects(l, r, n) }
            }
            done += n
        }
    }

    /// Runs the reverb and chorus on the send buses and adds them to the output; empties the buses.
    private func renderEffects(_ left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, _ n: Int) {
        let outL = effectOutput, outR = effectOutput + synthEffectFrames
        EffectCall.reverb(reverbRef, effectChannels, n)
        var i = 0
        while i < n { left[i] += outL[i]; right[i] += outR[i]; i += 1 }
        EffectCall.chorus(chorusRef, chorusBus, left, right, n)
        reverbBus.update(repeating: 0, count: n)
        chorusBus.update(repeating: 0, count: n)
        effectFramesLeft = max(0, effectFramesLeft - n)
    }

    /// One MIDI 1.0 channel message (2 or 3 bytes).
    public func handleMIDI(_ status: UInt8, _ data1: UInt8, _ data2: UInt8) {
        let channel = Int(status & 0x0F)
        let d1 = data1 & 0x7F, d2 = data2 & 0x7F
        switch status & 0xF0 {
        case 0x90: if d2 == 0 { noteOff(channel, Int(d1)) } else { noteOn(channel, Int(d1), Int(d2)) }
        case 0x80: noteOff(channel, Int(d1))
        case 0xB0: controlChange(channel, d1, d2)
        case 0xC0: programChange(channel, d1)
        case 0xA0: polyPressure[128 * channel + Int(d1)] = d2; channels[channel].generation &+= 1
        case 0xD0: channels[channel].pressure = d1; channels[channel].derive()
        case 0xE0: channels[channel].pitchBend = Int(d1) | Int(d2) << 7; channels[channel].derive()
        default: break
        }
    }

    // MARK: MIDI

    /// The SoundFont bank a channel's bank select names: MSB 0x78 (Apple's percussion bank MSB) is
    /// bank 128, MSB 0x79 (Apple's melodic MSB) the LSB's bank; otherwise the MSB (GS style);
    /// channel 10 without a bank select plays bank 128 (General MIDI drums).
    func bank(for channel: Int) -> Int {
        let c = channels[channel]
        if !c.bankSelected { return channel == 9 ? 128 : 0 }
        switch c.bankMSB {
        case 0x78: return 128
        case 0x79: return Int(c.bankLSB)
        default: return Int(c.bankMSB)
        }
    }

    func programChange(_ channel: Int, _ program: UInt8) {
        guard let view else { return }
        channels[channel].program = program
        let bank = bank(for: channel)
        var p = view.presetIndex(bank: bank, program: Int(program))
        // fallbacks, as FluidSynth: drums → the bank's program 0; melodic → bank 0
        if p < 0 && bank == 128 { p = view.presetIndex(bank: 128, program: 0) }
        if p < 0 && bank != 128 { p = view.presetIndex(bank: 0, program: Int(program)) }
        channels[channel].preset = p
    }

    func controlChange(_ channel: Int, _ cc: UInt8, _ value: UInt8) {
        let voices = self.voices, capacity = self.capacity, channels = self.channels   // (locals: no retain of self in the conditions)
        _ = channels; _ = voices; _ = capacity
        controllerValues[128 * channel + Int(cc)] = value
        switch cc {
        case 0: channels[channel].bankMSB = value; channels[channel].bankSelected = true
        case 32: channels[channel].bankLSB = value; channels[channel].bankSelected = true
        case 1: channels[channel].controllers.modulation = value
        case 91: channels[channel].reverbDepth = 200 * Float(value) / 128
        case 93: channels[channel].chorusDepth = 200 * Float(value) / 128
        case 7: channels[channel].controllers.volume = value
        case 10: channels[channel].controllers.pan = value
        case 11: channels[channel].controllers.expression = value
        case 64:
            let on = value >= 64
            channels[channel].sustain = on
            if !on {
                for i in 0..<capacity where voices[i].playing && voices[i].channel == channel && voices[i].heldByPedal {
                    voices[i].heldByPedal = false
                    release(voices + i)
                }
            }
        case 101: channels[channel].rpn.msb = value
        case 100: channels[channel].rpn.lsb = value
        case 6:
            if channels[channel].rpn == (0, 0) { channels[channel].bendSemitones = value }
        case 38:
            if channels[channel].rpn == (0, 0) { channels[channel].bendCentsPart = value }
        case 120:
            for i in 0..<capacity where voices[i].playing && voices[i].channel == channel { kill(voices + i) }
        case 121:
            channels[channel].controllers = (100, 127, 64, 0)
            channels[channel].controllers.volume = 100
            channels[channel].pitchBend = 8_192; channels[channel].pressure = 0; channels[channel].sustain = false
            channels[channel].rpn = (127, 127)
            resetControllerValues(controllerValues + 128 * channel, all: false)
            (polyPressure + 128 * channel).update(repeating: 0, count: 128)
        case 123:
            for i in 0..<capacity where voices[i].playing && voices[i].channel == channel && !voices[i].released { release(voices + i) }
        default: break
        }
        channels[channel].derive()
    }

    func noteOff(_ channel: Int, _ key: Int) {
        let voices = self.voices, capacity = self.capacity, channels = self.channels   // (locals: no retain of self in the conditions)
        _ = channels; _ = voices; _ = capacity
        for i in 0..<capacity where voices[i].playing && voices[i].channel == channel && voices[i].noteKey == key && !voices[i].released {
            if channels[channel].sustain { voices[i].heldByPedal = true } else { release(voices + i) }
        }
    }

    func noteOn(_ channel: Int, _ key: Int, _ velocity: Int) {
        let voices = self.voices, capacity = self.capacity, channels = self.channels   // (locals: no retain of self in the conditions)
        _ = channels; _ = voices; _ = capacity
        guard let view else { return }
        let presetIndex = channels[channel].preset
        guard presetIndex >= 0 else { return }
        // a key struck again releases its sounding voices on the channel (as FluidSynth does)
        for i in 0..<capacity where voices[i].playing && voices[i].channel == channel && voices[i].noteKey == key && !voices[i].released {
            voices[i].heldByPedal = false
            release(voices + i)
        }
        noteCounter &+= 1
        let counter = noteCounter
        do {
            let p = view.presets[presetIndex]
            var z = Int(p.firstZone)
            let last = z + Int(p.zoneCount)
            while z < last {
                let zone = view.zones[z]
                z += 1
                guard key >= Int(zone.keyLow), key <= Int(zone.keyHigh), velocity >= Int(zone.velLow), velocity <= Int(zone.velHigh) else { continue }
                if zone.exclusiveClass != 0 {
                    for i in 0..<capacity where voices[i].playing && voices[i].channel == channel
                        && voices[i].exclusiveClass == zone.exclusiveClass && voices[i].order != counter {
                        // FluidSynth's exclusive-class cut: a release of −200 timecents
                        forceRelease(voices + i, timecents: -200)
                    }
                }
                let slot = allocateVoice()
                startVoice(voices + slot, zone: zone, zoneIndex: z - 1, channel: channel, key: key, velocity: velocity)
            }
        }
    }

    /// A free slot; steals (fading out over one control block) when `polyphony` voices sound.
    func allocateVoice() -> Int {
        let voices = self.voices, capacity = self.capacity, channels = self.channels   // (locals: no retain of self in the conditions)
        _ = channels; _ = voices; _ = capacity
        var live = 0
        var free = -1
        var victim = -1
        var victimScore = UInt64.max
        for i in 0..<capacity {
            let v = voices[i]
            if !v.playing { if free < 0 { free = i }; continue }
            if v.killing { continue }
            live += 1
            // released voices go first, then the oldest
            let score = (v.released ? 0 : UInt64(1) << 62) | v.order
            if score < victimScore { victimScore = score; victim = i }
        }
        if live < polyphony, free >= 0 { return free }
        if victim >= 0 {
            kill(voices + victim)
            if free >= 0 { return free }
            return victim
        }
        return free >= 0 ? free : 0
    }

    /// Fades a voice out over one control block (steals, all sound off).
    func kill(_ v: UnsafeMutablePointer<Voice>) {
        cutBlock(v)
        v.pointee.killing = true
        v.pointee.framesToUpdate = 0
    }

    func release(_ v: UnsafeMutablePointer<Voice>) {
        if v.pointee.loopMode == 3 && !v.pointee.released && v.pointee.framesToUpdate > 0 {
            // (the rest of the block, rendered looping, plays on through the loop's end instead)
            cutBlock(v)
            v.pointee.released = true
            fillBlock(v, from: synthBlockFrames - v.pointee.framesToUpdate)
        }
        v.pointee.released = true
        if v.pointee.vol.stage == 1 {
            // from the linear attack into the decibel-linear domain without a jump
            let x = max(v.pointee.vol.value, 1e-6)
            v.pointee.vol.value = max(0, 1 + 200 * Float(SynthMath.log10(Double(x))) / 960)
        }
        if v.pointee.vol.stage < 5 { v.pointee.vol.stage = 5; v.pointee.vol.count = 0 }
        if v.pointee.mod.stage < 5 { v.pointee.mod.stage = 5; v.pointee.mod.count = 0 }
    }

    func forceRelease(_ v: UnsafeMutablePointer<Voice>, timecents: Float) {
        let blocks = 1 + Int(sampleRate * SynthMath.seconds(timecents: timecents) / Double(synthBlockFrames))
        v.pointee.vol.blocks.5 = blocks
        v.pointee.mod.blocks.5 = blocks
        release(v)
    }

}

private extension Unmanaged where Instance == SamplerInstrument {
    static func from(bits: UInt) -> Unmanaged<SamplerInstrument>? {
        guard bits != 0, let p = UnsafeRawPointer(bitPattern: bits) else { return nil }
        return Unmanaged.fromOpaque(p)
    }
}

/// The effect processors' render calls. The compiler's check cannot follow a call into another
/// module's class through an unretained reference; both are proved `@_noLocks` where they are
/// defined (AudioKernels' EffectsRealTimeSafety.reverb and .chorus).
enum EffectCall {
    @_semantics("no_performance_analysis") @inline(never)
    static func reverb(_ p: Unmanaged<ReverbProcessor>, _ channels: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, _ n: Int) {
        p._withUnsafeGuaranteedRef { $0.process(input: channels, output: channels + 2, channels: 2, frames: n) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func chorus(_ p: Unmanaged<ChorusProcessor>, _ x: UnsafePointer<Float>, _ l: UnsafeMutablePointer<Float>,
                       _ r: UnsafeMutablePointer<Float>, _ n: Int) {
        p._withUnsafeGuaranteedRef { $0.process(input: x, left: l, right: r, frames: n) }
    }
}

// A DLS bank as the voice engine plays it: every DLS region becomes one `PlayZone`, the same
// zone model a SoundFont region becomes, so DLS voices use the same (FluidSynth-checked)
// envelopes, LFOs, filter, loops and voice allocation.
//
// DESIGN NOTE — how DLS maps onto the zone model
// ----------------------------------------------
// Articulation: a region with its own connection blocks uses them, else the instrument's (DLS
// Level 1 §1.5: instrument articulation applies to the regions without their own); then every
// default connection of DLS Level 1 §1.14.4 that the list does not replace (same source,
// control and destination) applies. Units are the SoundFont generators' own, so the mapping is
// a copy of `scale / 65536`:
// * constant blocks (source and control none): EG1 → the volume envelope (delay, attack, hold,
//   decay, sustain, release: time cents; sustain in 0.1 % of the engine's 96 dB log-domain range,
//   i.e. SoundFont sustain = 1000 − level), EG2 → the modulation envelope, the LFO → the
//   modulation LFO (frequency in absolute pitch cents, SoundFont's origin 8.176 Hz; delay in time
//   cents), the vibrato LFO (Level 2) → the vibrato LFO, gain → attenuation (centibels, negated;
//   the engine cannot amplify, so a net positive gain plays at 0 dB), pitch → tuning (cents),
//   pan, reverb and chorus sends (0.1 %), filter cutoff (absolute pitch cents) and Q (centibels);
// * LFO / vibrato LFO / EG2 → pitch, gain, cutoff: the zone's depths (modLfoToPitch, …);
// * key number → pitch: the scale tuning (scale / 128 cents per key; default 12800: 100);
//   key number → EG1/EG2 hold or decay (scale × key / 128 time cents): SoundFont's keynum→hold /
//   decay (−scale / 128 per key around key 60) with scale × 60 / 128 added to the base time;
// * velocity → gain, concave: the engine's default velocity curve (−400·log10(v/127) cB, exactly
//   DLS's −96 dB concave default) when the scale is −96 dB, else a custom modulator (negative
//   concave velocity × −scale cB → attenuation) that turns the default off;
// * CC1 → LFO or vibrato → pitch: the engine's default mod-wheel vibrato (50 cents, the DLS
//   default) plays on the vibrato LFO; for a Level 1 bank, which has one LFO, the vibrato LFO
//   gets that LFO's frequency and delay unless the bank sets the vibrato LFO itself. Another
//   depth becomes a custom modulator (CC1 × depth → the LFO's pitch depth) replacing the default;
// * other blocks with a MIDI source (velocity, key, a controller, channel or poly pressure, the
//   pitch wheel) and no control, with a linear transform, onto a destination SoundFont can
//   modulate: a custom modulator (velocity → EG1 attack, CC74 → cutoff, …);
// * the pitch wheel (× RPN 0), CC7 and CC11 → gain, CC10 → pan, CC91/CC93 → sends: the engine's
//   channel defaults (the SoundFont default modulators, whose curves are DLS's defaults), not per
//   zone; a bank's other depths for these are not taken.
// No equivalent, ignored: RPN 1/2 (fine and coarse tuning; the engine takes only RPN 0), blocks
// with both a source and a control other than CC1 → LFO pitch,
// non-linear transforms other than velocity → gain, EG1 shutdown time, the key-number
// destination (Level 2), output-channel destinations, layers, `F_RGN_OPTION_SELFNONEXCLUSIVE`
// (the engine does not cut a key's earlier note anyway), phase groups and multichannel links
// (a wave's first channel is played).
//
// Samples: the region's `wsmp`, else the wave's: the unity note is the root key, the fine tune
// adds cents, the gain (1/655360 dB) adds attenuation; the first loop plays as SoundFont's loop
// mode 1 (forward: loops until the voice ends) or 3 (Level 2 release loop: while the key is held,
// then on to the end). The key group is the exclusive class.
import SoundBanks

extension SamplerInstrument {
    /// Builds the playable form of a parsed DLS bank; `bank`/`program` name the preset every
    /// channel plays until a program change (see `DLSInstrument.samplerBank`).
    public convenience init(dls: DLSBank, bank: Int, program: Int) {
        var zones: [PlayZone] = []
        var presets: [PresetEntry] = []
        var names: [String] = []
        var modulators: [PlayModulator] = []
        for instrument in dls.instruments {
            let first = zones.count
            for region in instrument.regions {
                guard region.wave < dls.waves.count else { continue }
                let wave = dls.waves[region.wave]
                guard wave.frameCount >= 1 else { continue }
                let blocks = DLSZoneMapping.effectiveConnections(region.connections.isEmpty ? instrument.connections : region.connections)
                var (z, custom) = DLSZoneMapping.zone(region: region, wave: wave, blocks: blocks)
                if !custom.isEmpty {
                    z.firstModulator = Int32(modulators.count); z.modulatorCount = Int32(custom.count)
                    z.modulatesFilter = custom.contains { (8...11).contains($0.destination) }
                    modulators += custom
                }
                zones.append(z)
            }
            presets.append(PresetEntry(bank: Int32(instrument.samplerBank), program: Int32(instrument.samplerProgram),
                                       firstZone: Int32(first), zoneCount: Int32(zones.count - first)))
            names.append(instrument.name)
        }
        self.init(sampleStorage: dls.samples, owner: dls, zones: zones, presets: presets, names: names,
                  defaultBank: bank, defaultProgram: program, modulators: modulators)
    }
}

/// The DLS → zone mapping (see the design note above).
enum DLSZoneMapping {
    typealias C = DLSConnection
    struct Key: Hashable { var source: UInt16, control: UInt16, destination: UInt16 }

    /// DLS Level 1 §1.14.4's default connections that the zone model stores per zone (the ones the
    /// engine applies per channel — pitch wheel, CC7, CC10, CC11 — are left to it).
    static let defaults: [DLSConnectionBlock] = [
        DLSConnectionBlock(source: C.srcNone, control: C.srcNone, destination: C.dstLFOFrequency, transform: 0, scale: scaled(-851.3)),   // 5 Hz
        DLSConnectionBlock(source: C.srcNone, control: C.srcNone, destination: C.dstLFODelay, transform: 0, scale: scaled(-7973)),       // 10 ms
        DLSConnectionBlock(source: C.srcNone, control: C.srcNone, destination: C.dstEG1Attack, transform: 0, scale: Int32.min),          // 0 s
        DLSConnectionBlock(source: C.srcNone, control: C.srcNone, destination: C.dstEG1Decay, transform: 0, scale: Int32.min),
        DLSConnectionBlock(source: C.srcNone, control: C.srcNone, destination: C.dstEG1Sustain, transform: 0, scale: scaled(1000)),      // 100 %
        DLSConnectionBlock(source: C.srcNone, control: C.srcNone, destination: C.dstEG1Release, transform: 0, scale: Int32.min),
        DLSConnectionBlock(source: C.srcNone, control: C.srcNone, destination: C.dstEG2Attack, transform: 0, scale: Int32.min),
        DLSConnectionBlock(source: C.srcNone, control: C.srcNone, destination: C.dstEG2Decay, transform: 0, scale: Int32.min),
        DLSConnectionBlock(source: C.srcNone, control: C.srcNone, destination: C.dstEG2Sustain, transform: 0, scale: scaled(1000)),
        DLSConnectionBlock(source: C.srcNone, control: C.srcNone, destination: C.dstEG2Release, transform: 0, scale: Int32.min),
        DLSConnectionBlock(source: C.srcKeyOnVelocity, control: C.srcNone, destination: C.dstGain, transform: C.transformConcave, scale: scaled(-960)),
        DLSConnectionBlock(source: C.srcKeyNumber, control: C.srcNone, destination: C.dstPitch, transform: 0, scale: scaled(12_800)),
        DLSConnectionBlock(source: C.srcLFO, control: C.srcCC0 + 1, destination: C.dstPitch, transform: 0, scale: scaled(50)),
    ]

    static func scaled(_ v: Double) -> Int32 { Int32((v * 65_536).rounded()) }

    /// The blocks a region plays: its list (later blocks replacing earlier ones with the same
    /// source, control and destination), then the defaults it does not replace.
    static func effectiveConnections(_ list: [DLSConnectionBlock]) -> [DLSConnectionBlock] {
        var order: [Key] = []
        var byKey: [Key: DLSConnectionBlock] = [:]
        for b in defaults + list {
            let k = Key(source: b.source, control: b.control, destination: b.destination)
            if byKey[k] == nil { order.append(k) }
            byKey[k] = b
        }
        return order.map { byKey[$0]! }
    }

    /// The SoundFont generator a DLS destination becomes, and the factor from the DLS value to the
    /// generator's (gain → attenuation and sustain level → sustain decrease change sign).
    static func generator(_ destination: UInt16) -> (Int, Float)? {
        switch destination {
        case C.dstGain: return (SF2Generator.initialAttenuation, -1)
        case C.dstPitch: return (SF2Generator.fineTune, 1)
        case C.dstPan: return (SF2Generator.pan, 1)
        case C.dstReverb: return (SF2Generator.reverbEffectsSend, 1)
        case C.dstChorus: return (SF2Generator.chorusEffectsSend, 1)
        case C.dstLFOFrequency: return (SF2Generator.freqModLFO, 1)
        case C.dstLFODelay: return (SF2Generator.delayModLFO, 1)
        case C.dstVibratoFrequency: return (SF2Generator.freqVibLFO, 1)
        case C.dstVibratoDelay: return (SF2Generator.delayVibLFO, 1)
        case C.dstEG1Delay: return (SF2Generator.delayVolEnv, 1)
        case C.dstEG1Attack: return (SF2Generator.attackVolEnv, 1)
        case C.dstEG1Hold: return (SF2Generator.holdVolEnv, 1)
        case C.dstEG1Decay: return (SF2Generator.decayVolEnv, 1)
        case C.dstEG1Sustain: return (SF2Generator.sustainVolEnv, -1)
        case C.dstEG1Release: return (SF2Generator.releaseVolEnv, 1)
        case C.dstEG2Delay: return (SF2Generator.delayModEnv, 1)
        case C.dstEG2Attack: return (SF2Generator.attackModEnv, 1)
        case C.dstEG2Hold: return (SF2Generator.holdModEnv, 1)
        case C.dstEG2Decay: return (SF2Generator.decayModEnv, 1)
        case C.dstEG2Sustain: return (SF2Generator.sustainModEnv, -1)
        case C.dstEG2Release: return (SF2Generator.releaseModEnv, 1)
        case C.dstFilterCutoff: return (SF2Generator.initialFilterFc, 1)
        case C.dstFilterQ: return (SF2Generator.initialFilterQ, 1)
        default: return nil
        }
    }

    /// A MIDI source as a modulator source (index, FluidSynth flags), nil for the others.
    static func midiSource(_ s: UInt16, transform: UInt16) -> (UInt8, UInt8)? {
        let negative: UInt8 = transform & 0x8000 != 0 ? 1 : 0, bipolar: UInt8 = transform & 0x4000 != 0 ? 2 : 0
        switch s {
        case C.srcKeyOnVelocity: return (2, negative | bipolar)
        case C.srcKeyNumber: return (3, negative | bipolar)
        case C.srcPolyPressure: return (10, negative | bipolar)
        case C.srcChannelPressure, C.srcMonoPressure: return (13, negative | bipolar)
        case C.srcPitchWheel: return (14, negative | bipolar)
        case 0x80..<0x100: return (UInt8(s - 0x80), negative | bipolar | PlayModulator.ccFlag)
        default: return nil
        }
    }

    static func zone(region: DLSRegion, wave: DLSWave, blocks: [DLSConnectionBlock]) -> (PlayZone, [PlayModulator]) {
        var z = PlayZone()
        z.keyLow = UInt8(min(region.keyLow, 127)); z.keyHigh = UInt8(max(min(region.keyHigh, 127), min(region.keyLow, 127)))
        z.velLow = UInt8(min(region.velocityLow, 127)); z.velHigh = UInt8(max(min(region.velocityHigh, 127), min(region.velocityLow, 127)))
        // A Level 1 file writes velocity 0 … 0 or nothing meaningful there ("not used in Level 1"): all velocities.
        if !region.isLevel2 && region.velocityLow == 0 && region.velocityHigh == 0 { z.velHigh = 127 }
        z.exclusiveClass = Int32(region.keyGroup)
        z.sampleRate = Double(wave.sampleRate)
        let info = region.sampleInfo ?? wave.sampleInfo ?? DLSSampleInfo()
        z.start = wave.start; z.end = wave.start + wave.frameCount
        if let loop = info.loops.first, loop.length >= 2, Int(loop.start) < wave.frameCount {
            z.loopStart = wave.start + Int(loop.start)
            z.loopEnd = min(z.end, z.loopStart + Int(loop.length))
            z.loopMode = z.loopEnd - z.loopStart >= 2 ? (loop.type == 1 ? 3 : 1) : 0
        } else {
            z.loopStart = z.start; z.loopEnd = z.end; z.loopMode = 0
        }
        z.rootPitch = Float(min(Int(info.unityNote), 127) * 100)
        z.tune = Float(info.fineTune)
        z.attenuation = -Float(info.gain) / 65_536
        z.volEnv.4 = 0; z.modEnv.4 = 0

        var custom: [PlayModulator] = []
        // (whether the bank sets the vibrato LFO itself: then a Level 1-style CC1 → LFO block drives the modulation LFO)
        let vibratoSet = blocks.contains { $0.source == C.srcNone && $0.control == C.srcNone
            && ($0.destination == C.dstVibratoFrequency || $0.destination == C.dstVibratoDelay) }
        for b in blocks {
            let v = Float(b.value)
            let timeValue = b.scale == Int32.min ? -32_768 : v
            switch (b.source, b.control) {
            case (C.srcNone, C.srcNone):
                switch b.destination {
                case C.dstGain: z.attenuation -= v
                case C.dstPitch: z.tune += v
                case C.dstPan: z.pan = v
                case C.dstReverb: z.reverbSend = v
                case C.dstChorus: z.chorusSend = v
                case C.dstLFOFrequency: z.freqModLFO = v
                case C.dstLFODelay: z.delayModLFO = timeValue
                case C.dstVibratoFrequency: z.freqVibLFO = v
                case C.dstVibratoDelay: z.delayVibLFO = timeValue
                case C.dstEG1Delay: z.volEnv.0 = timeValue
                case C.dstEG1Attack: z.volEnv.1 = timeValue
                case C.dstEG1Hold: z.volEnv.2 = timeValue
                case C.dstEG1Decay: z.volEnv.3 = timeValue
                case C.dstEG1Sustain: z.volEnv.4 = 1_000 - max(0, min(1_000, v))
                case C.dstEG1Release: z.volEnv.5 = timeValue
                case C.dstEG2Delay: z.modEnv.0 = timeValue
                case C.dstEG2Attack: z.modEnv.1 = timeValue
                case C.dstEG2Hold: z.modEnv.2 = timeValue
                case C.dstEG2Decay: z.modEnv.3 = timeValue
                case C.dstEG2Sustain: z.modEnv.4 = 1_000 - max(0, min(1_000, v))
                case C.dstEG2Release: z.modEnv.5 = timeValue
                case C.dstFilterCutoff: z.filterFc = v
                case C.dstFilterQ: z.filterQ = max(0, v)
                default: break
                }
            case (C.srcLFO, C.srcNone):
                switch b.destination {
                case C.dstPitch: z.modLfoToPitch = v
                case C.dstGain: z.modLfoToVolume = v
                case C.dstFilterCutoff: z.modLfoToFilterFc = v
                default: break
                }
            case (C.srcVibrato, C.srcNone):
                if b.destination == C.dstPitch { z.vibLfoToPitch = v }
            case (C.srcEG2, C.srcNone):
                if b.destination == C.dstPitch { z.modEnvToPitch = v }
                if b.destination == C.dstFilterCutoff { z.modEnvToFilterFc = v }
            case (C.srcKeyNumber, C.srcNone) where b.transform & 0x3C0F == 0:
                switch b.destination {
                case C.dstPitch: z.scaleTuning = v / 128
                // scale × key / 128 = (scale × 60 / 128) − (scale / 128) × (60 − key)
                case C.dstEG1Hold: z.volEnv.6 = -v / 128; z.volEnv.2 += v * 60 / 128
                case C.dstEG1Decay: z.volEnv.7 = -v / 128; z.volEnv.3 += v * 60 / 128
                case C.dstEG2Hold: z.modEnv.6 = -v / 128; z.modEnv.2 += v * 60 / 128
                case C.dstEG2Decay: z.modEnv.7 = -v / 128; z.modEnv.3 += v * 60 / 128
                default: custom += modulator(b)
                }
            case (C.srcKeyOnVelocity, C.srcNone) where b.destination == C.dstGain:
                // concave: Level 1 writes the transform as the whole field, Level 2 in the source's bits 10–13
                let concave = b.transform == C.transformConcave || (b.transform >> 10) & 0xF == C.transformConcave
                guard concave else { custom += b.transform & 0x3C0F == 0 ? modulator(b) : []; z.disabledDefaults |= 1; break }
                // (the engine's default curve is DLS's concave −96 dB; another depth replaces it)
                if b.scale != scaled(-960) {
                    var m = PlayModulator()
                    m.source = 2; m.sourceFlags = 1 | 4   // negative, concave
                    m.destination = Int16(SF2Generator.initialAttenuation); m.amount = -v
                    custom.append(m)
                    z.disabledDefaults |= 1
                }
            case (C.srcLFO, C.srcCC0 + 1), (C.srcVibrato, C.srcCC0 + 1):
                guard b.destination == C.dstPitch else { break }
                // (the engine's default: CC1 × 50 cents on the vibrato LFO)
                if b.scale != scaled(50) || b.source == C.srcLFO && vibratoSet {
                    var m = PlayModulator()
                    m.source = 1; m.sourceFlags = PlayModulator.ccFlag
                    m.destination = Int16(b.source == C.srcLFO && vibratoSet ? SF2Generator.modLfoToPitch : SF2Generator.vibLfoToPitch)
                    m.amount = v
                    custom.append(m)
                    z.disabledDefaults |= 1 << 3
                }
            case (let s, C.srcNone) where midiSource(s, transform: b.transform) != nil && b.transform & 0x3C0F == 0:
                // the channel defaults (pitch wheel, CC7/CC10/CC11/CC91/CC93) are the engine's
                if [C.srcPitchWheel, C.srcCC0 + 7, C.srcCC0 + 10, C.srcCC0 + 11, C.srcCC0 + 91, C.srcCC0 + 93].contains(s) { break }
                custom += modulator(b)
            default:
                break
            }
        }
        // A Level 1 bank's single LFO also drives the engine's mod-wheel vibrato (see the note).
        if !vibratoSet { z.freqVibLFO = z.freqModLFO; z.delayVibLFO = z.delayModLFO }
        return (z, custom)
    }

    /// A linear MIDI-source block as a custom modulator (empty when the destination has no generator).
    static func modulator(_ b: DLSConnectionBlock) -> [PlayModulator] {
        guard let (g, factor) = generator(b.destination), let (index, flags) = midiSource(b.source, transform: b.transform) else { return [] }
        var m = PlayModulator()
        m.source = index; m.sourceFlags = flags
        m.destination = Int16(g); m.amount = factor * Float(b.value)
        return [m]
    }
}

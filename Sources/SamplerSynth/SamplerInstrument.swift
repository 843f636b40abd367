// What the voices play: a bank's sample pool and its presets' zones, flattened into fixed memory
// the render thread reads without reference counting (one object per loaded bank, built on the
// control side and published to the synth atomically; see SamplerSynth.swift).
//
// A zone (`PlayZone`) is one SoundFont region with every generator already in the unit the voice
// uses: sample points as pool indices (address offsets applied, §8.1.2 #0–4, 12, 45, 50), tuning
// in cents, attenuation in centibels, times still in timecents (the voice converts them with the
// key, for keynum→hold/decay).
import SoundBanks

/// One playable zone.
public struct PlayZone {
    public var keyLow: UInt8 = 0, keyHigh: UInt8 = 127, velLow: UInt8 = 0, velHigh: UInt8 = 127
    public var start = 0, end = 0, loopStart = 0, loopEnd = 0
    /// 0: no loop, 1: continuous loop, 3: loop while the key is held, then play to the end.
    public var loopMode: UInt8 = 0
    /// The sample's own rate.
    public var sampleRate: Double = 44_100
    /// Root key (overridingRootKey, else the sample's original pitch) × 100 − pitch correction.
    public var rootPitch: Float = 6_000
    public var scaleTuning: Float = 100
    /// coarse × 100 + fine, in cents.
    public var tune: Float = 0
    /// initialAttenuation in centibels, × 0.4 as EMU's hardware and FluidSynth apply it.
    public var attenuation: Float = 0
    public var pan: Float = 0
    public var filterFc: Float = 13_500, filterQ: Float = 0
    public var modLfoToPitch: Float = 0, vibLfoToPitch: Float = 0, modEnvToPitch: Float = 0
    public var modLfoToFilterFc: Float = 0, modEnvToFilterFc: Float = 0, modLfoToVolume: Float = 0
    public var delayModLFO: Float = -12_000, freqModLFO: Float = 0, delayVibLFO: Float = -12_000, freqVibLFO: Float = 0
    /// delay, attack, hold, decay, sustain, release, keynum→hold, keynum→decay (timecents; sustain in cB / 0.1 %).
    public var modEnv: (Float, Float, Float, Float, Float, Float, Float, Float) = (-12_000, -12_000, -12_000, -12_000, 0, -12_000, 0, 0)
    public var volEnv: (Float, Float, Float, Float, Float, Float, Float, Float) = (-12_000, -12_000, -12_000, -12_000, 0, -12_000, 0, 0)
    public var exclusiveClass: Int32 = 0
    /// reverbEffectsSend and chorusEffectsSend (0.1 % units).
    public var reverbSend: Float = 0, chorusSend: Float = 0
    /// Forced key and velocity (−1: the note's).
    public var keynum: Int32 = -1, velocity: Int32 = -1
    /// The zone's custom modulators (`SamplerInstrument.modulators[firstModulator ..< + modulatorCount]`;
    /// see PlayModulator.swift), the default modulators they turn off (bit i: `SF2Modulator.defaults[i]`),
    /// and whether one drives the filter (then the filter always runs).
    public var firstModulator: Int32 = 0, modulatorCount: Int32 = 0
    public var disabledDefaults: UInt16 = 0
    public var modulatesFilter = false
    public init() {}
}

/// A preset: its bank and program, and its zones.
public struct PresetEntry {
    public var bank: Int32, program: Int32
    public var firstZone: Int32, zoneCount: Int32
    public init(bank: Int32, program: Int32, firstZone: Int32, zoneCount: Int32) {
        self.bank = bank; self.program = program; self.firstZone = firstZone; self.zoneCount = zoneCount
    }
}

/// A loaded bank (or generated instrument), immutable once built.
public final class SamplerInstrument: @unchecked Sendable {
    /// The sample points the zones index (Float, or a SoundFont's 16-bit data: SamplePool.swift).
    public let pool: SamplePool
    /// The object owning `samples` when the instrument plays from another's memory (a SoundFont).
    private let sampleOwner: AnyObject?
    public let zones: UnsafeMutableBufferPointer<PlayZone>
    /// Every zone's custom modulators, one run per zone.
    public let modulators: UnsafeMutableBufferPointer<PlayModulator>
    /// Sorted by (bank, program).
    public let presets: UnsafeMutableBufferPointer<PresetEntry>
    /// The preset every channel plays until a program change (index into `presets`; −1: none).
    public let defaultPreset: Int
    /// Preset names, for the façade (control side only).
    public let presetNames: [String]

    /// Builds an instrument from flat parts (copied).
    public convenience init(samples: [Float], zones: [PlayZone], presets: [PresetEntry], names: [String], defaultBank: Int, defaultProgram: Int,
                            modulators: [PlayModulator] = []) {
        let storage = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(samples.count, 1))
        storage[0] = 0
        samples.withUnsafeBufferPointer { if let base = $0.baseAddress { storage.baseAddress!.update(from: base, count: $0.count) } }
        self.init(sampleStorage: storage, owner: nil, zones: zones, presets: presets, names: names, defaultBank: defaultBank, defaultProgram: defaultProgram,
                  modulators: modulators)
    }

    /// Builds an instrument playing from `sampleStorage`: owned (freed with the instrument) when
    /// `owner` is nil, else `owner`'s (kept alive with the instrument).
    public convenience init(sampleStorage: UnsafeMutableBufferPointer<Float>, owner: AnyObject?, zones: [PlayZone], presets: [PresetEntry], names: [String],
                            defaultBank: Int, defaultProgram: Int, modulators: [PlayModulator] = []) {
        self.init(pool: .float32(sampleStorage), owner: owner, zones: zones, presets: presets, names: names,
                  defaultBank: defaultBank, defaultProgram: defaultProgram, modulators: modulators)
    }

    /// Builds an instrument playing from `pool`: owned (freed with the instrument) when `owner`
    /// is nil, else `owner`'s (kept alive with the instrument).
    public init(pool: SamplePool, owner: AnyObject?, zones: [PlayZone], presets: [PresetEntry], names: [String],
                defaultBank: Int, defaultProgram: Int, modulators: [PlayModulator] = []) {
        self.pool = pool
        self.modulators = .allocate(capacity: max(modulators.count, 1))
        _ = self.modulators.initialize(from: modulators)
        if modulators.isEmpty { self.modulators.baseAddress!.initialize(to: PlayModulator()) }
        sampleOwner = owner
        self.zones = .allocate(capacity: max(zones.count, 1))
        _ = self.zones.initialize(from: zones)
        if zones.isEmpty { self.zones.baseAddress!.initialize(to: PlayZone()) }
        let order = presets.indices.sorted { (presets[$0].bank, presets[$0].program) < (presets[$1].bank, presets[$1].program) }
        self.presets = .allocate(capacity: max(presets.count, 1))
        for (i, o) in order.enumerated() { (self.presets.baseAddress! + i).initialize(to: presets[o]) }
        presetNames = order.map { names[$0] }
        var d = -1
        for (i, o) in order.enumerated() where presets[o].bank == Int32(defaultBank) && presets[o].program == Int32(defaultProgram) { d = i }
        defaultPreset = d
        presetCount = presets.count
        let points: UnsafeRawPointer, int16: Bool
        switch pool {
        case .float32(let b): points = UnsafeRawPointer(b.baseAddress!); int16 = false
        case .int16(let b): points = UnsafeRawPointer(b.baseAddress!); int16 = true
        }
        view = InstrumentView(samples: points, samplesAreInt16: int16, zones: UnsafePointer(self.zones.baseAddress!),
                              modulators: UnsafePointer(self.modulators.baseAddress!),
                              presets: UnsafePointer(self.presets.baseAddress!), presetCount: presets.count, defaultPreset: d)
    }

    private let presetCount: Int
    /// The render side's pointers into this instrument (see SamplerSynth.swift).
    let view: InstrumentView

    deinit {
        if sampleOwner == nil { pool.deallocate() }
        zones.deallocate()
        modulators.deallocate()
        presets.deallocate()
    }

    /// The preset index for a bank and program (−1: none). Binary search; render-thread safe.
    @inline(__always)
    public func presetIndex(bank: Int, program: Int) -> Int {
        var lo = 0, hi = presetCount
        let key = (Int32(truncatingIfNeeded: bank), Int32(truncatingIfNeeded: program))
        while lo < hi {
            let mid = (lo + hi) / 2
            let p = presets[mid]
            if (p.bank, p.program) < key { lo = mid + 1 } else { hi = mid }
        }
        if lo < presetCount && presets[lo].bank == key.0 && presets[lo].program == key.1 { return lo }
        return -1
    }
}

extension SamplerInstrument {
    /// Builds the playable form of a parsed SoundFont.
    public convenience init(soundFont font: SoundFont, bank: Int, program: Int) {
        var zones: [PlayZone] = []
        zones.reserveCapacity(font.regions.count)
        var presets: [PresetEntry] = []
        var names: [String] = []
        var modulators: [PlayModulator] = []
        /// Regions share resolved lists (SoundFont.modulators): converted once per list.
        var converted: [Range<Int>: (Int32, Int32, UInt16, Bool)] = [:]
        let pointCount = font.pool.count - SoundFont.guardFrames
        for p in font.presets {
            let first = zones.count
            for r in font.regions[p.firstRegion ..< p.firstRegion + p.regionCount] {
                let g = font.generators[r.generatorBase ..< r.generatorBase + SF2Generator.count].map(Float.init)
                let gi = { (i: Int) -> Int in Int(font.generators[r.generatorBase + i]) }
                let h = font.sampleHeaders[r.sampleIndex]
                var z = PlayZone()
                z.keyLow = r.keyLow; z.keyHigh = r.keyHigh; z.velLow = r.velLow; z.velHigh = r.velHigh
                // Address offsets (fine + 32768 × coarse), clamped into the pool and ordered.
                let start = h.start + gi(SF2Generator.startAddrsOffset) + 32_768 * gi(SF2Generator.startAddrsCoarseOffset)
                let end = h.end + gi(SF2Generator.endAddrsOffset) + 32_768 * gi(SF2Generator.endAddrsCoarseOffset)
                let ls = h.loopStart + gi(SF2Generator.startloopAddrsOffset) + 32_768 * gi(SF2Generator.startloopAddrsCoarseOffset)
                let le = h.loopEnd + gi(SF2Generator.endloopAddrsOffset) + 32_768 * gi(SF2Generator.endloopAddrsCoarseOffset)
                z.start = min(max(start, 0), pointCount)
                z.end = min(max(end, z.start), pointCount)
                z.loopStart = min(max(ls, z.start), z.end)
                z.loopEnd = min(max(le, z.loopStart), z.end)
                let mode = UInt8(truncatingIfNeeded: gi(SF2Generator.sampleModes) & 3)
                // A loop shorter than 2 points cannot loop (FluidSynth plays such zones unlooped too).
                z.loopMode = (mode == 1 || mode == 3) && z.loopEnd - z.loopStart >= 2 ? mode : 0
                if z.end - z.start < 1 { continue }
                z.sampleRate = h.sampleRate
                let root = gi(SF2Generator.overridingRootKey) >= 0 ? gi(SF2Generator.overridingRootKey) : (h.originalPitch <= 127 ? h.originalPitch : 60)
                z.rootPitch = Float(root * 100 - h.pitchCorrection)
                z.scaleTuning = g[SF2Generator.scaleTuning]
                z.tune = 100 * g[SF2Generator.coarseTune] + g[SF2Generator.fineTune]
                z.attenuation = 0.4 * g[SF2Generator.initialAttenuation]
                z.pan = g[SF2Generator.pan]
                z.filterFc = g[SF2Generator.initialFilterFc]; z.filterQ = g[SF2Generator.initialFilterQ]
                z.modLfoToPitch = g[SF2Generator.modLfoToPitch]; z.vibLfoToPitch = g[SF2Generator.vibLfoToPitch]
                z.modEnvToPitch = g[SF2Generator.modEnvToPitch]; z.modLfoToFilterFc = g[SF2Generator.modLfoToFilterFc]
                z.modEnvToFilterFc = g[SF2Generator.modEnvToFilterFc]; z.modLfoToVolume = g[SF2Generator.modLfoToVolume]
                z.delayModLFO = g[SF2Generator.delayModLFO]; z.freqModLFO = g[SF2Generator.freqModLFO]
                z.delayVibLFO = g[SF2Generator.delayVibLFO]; z.freqVibLFO = g[SF2Generator.freqVibLFO]
                z.modEnv = (g[25], g[26], g[27], g[28], g[29], g[30], g[31], g[32])
                z.volEnv = (g[33], g[34], g[35], g[36], g[37], g[38], g[39], g[40])
                z.exclusiveClass = Int32(gi(SF2Generator.exclusiveClass))
                z.reverbSend = g[SF2Generator.reverbEffectsSend]; z.chorusSend = g[SF2Generator.chorusEffectsSend]
                z.keynum = Int32(gi(SF2Generator.keynum)); z.velocity = Int32(gi(SF2Generator.velocity))
                if !r.modulators.isEmpty {
                    if converted[r.modulators] == nil {
                        let (list, disabled, filter) = customModulators(font.modulators[r.modulators])
                        converted[r.modulators] = (Int32(modulators.count), Int32(list.count), disabled, filter)
                        modulators += list
                    }
                    let c = converted[r.modulators]!
                    z.firstModulator = c.0; z.modulatorCount = c.1; z.disabledDefaults = c.2; z.modulatesFilter = c.3
                }
                zones.append(z)
            }
            presets.append(PresetEntry(bank: Int32(p.bank), program: Int32(p.program), firstZone: Int32(first), zoneCount: Int32(zones.count - first)))
            names.append(p.name)
        }
        if font.pool.count == 0 {
            self.init(samples: [0], zones: zones, presets: presets, names: names, defaultBank: bank, defaultProgram: program, modulators: modulators)
        } else {
            self.init(pool: font.pool, owner: font, zones: zones, presets: presets, names: names, defaultBank: bank, defaultProgram: program,
                      modulators: modulators)
        }
    }

    /// The built-in instrument the sampler plays before anything is loaded (Apple's sampler
    /// also sounds out of the box): a generated tone — a sine with a little second and third
    /// harmonic, one period of exactly 128 points at A4 (the table's rate is 128 × 440 Hz), looped —
    /// with a 5 ms attack, a decay to −12 dB over 2 s, and a 0.3 s release. Every key and velocity.
    public static func builtInTone(bank: Int = 0, program: Int = 0) -> SamplerInstrument {
        let period = 128
        var table = [Float](repeating: 0, count: 4 * period + 64)
        for i in 0..<(4 * period) {
            let x = 2 * Float.pi * Float(i % period) / Float(period)
            table[i] = 0.7 * (sinf_(x) + 0.15 * sinf_(2 * x) + 0.05 * sinf_(3 * x))
        }
        var z = PlayZone()
        z.start = 0; z.end = 4 * period; z.loopStart = period; z.loopEnd = 3 * period; z.loopMode = 1
        z.sampleRate = Double(period) * 440
        z.rootPitch = 6_900
        z.volEnv = (-12_000, timecents(0.005), -12_000, timecents(2), 120, timecents(0.3), 0, 0)
        return SamplerInstrument(samples: table, zones: [z], presets: [PresetEntry(bank: Int32(bank), program: Int32(program), firstZone: 0, zoneCount: 1)],
                                 names: ["Sine"], defaultBank: bank, defaultProgram: program)
    }

    public static func timecents(_ seconds: Double) -> Float { Float(1_200 * SynthMath.log2(seconds)) }
    private static func sinf_(_ x: Float) -> Float { Float(SynthMath.sin(Double(x))) }
}

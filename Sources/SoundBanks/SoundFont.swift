// SoundFont 2.04 banks, as the sampler plays them: sample headers, the sample pool (16-bit `smpl`
// kept as stored; with the low byte from `sm24` when present, converted to Float), and every preset resolved
// into flat regions (one per preset zone × instrument zone that overlap) whose generator values
// are final — instrument values (global zone, then local zone overriding it) plus the preset's
// additions (global zone, then local zone overriding it), as SoundFont 2.04 §9.4 specifies.
//
// Nothing here is Apple's: the AVFAudio façade (AVAudioUnitSampler) reads the file and hands the
// bytes to `SoundFont.parse`; the voice engine (SamplerSynth) plays the regions.

/// The SoundFont 2.04 generator numbers (§8.1.2), and the defaults every zone starts from (§8.1.3).
public enum SF2Generator {
    public static let startAddrsOffset = 0, endAddrsOffset = 1, startloopAddrsOffset = 2, endloopAddrsOffset = 3
    public static let startAddrsCoarseOffset = 4, modLfoToPitch = 5, vibLfoToPitch = 6, modEnvToPitch = 7
    public static let initialFilterFc = 8, initialFilterQ = 9, modLfoToFilterFc = 10, modEnvToFilterFc = 11
    public static let endAddrsCoarseOffset = 12, modLfoToVolume = 13, chorusEffectsSend = 15, reverbEffectsSend = 16
    public static let pan = 17, delayModLFO = 21, freqModLFO = 22, delayVibLFO = 23, freqVibLFO = 24
    public static let delayModEnv = 25, attackModEnv = 26, holdModEnv = 27, decayModEnv = 28, sustainModEnv = 29
    public static let releaseModEnv = 30, keynumToModEnvHold = 31, keynumToModEnvDecay = 32
    public static let delayVolEnv = 33, attackVolEnv = 34, holdVolEnv = 35, decayVolEnv = 36, sustainVolEnv = 37
    public static let releaseVolEnv = 38, keynumToVolEnvHold = 39, keynumToVolEnvDecay = 40
    public static let instrument = 41, keyRange = 43, velRange = 44, startloopAddrsCoarseOffset = 45
    public static let keynum = 46, velocity = 47, initialAttenuation = 48, endloopAddrsCoarseOffset = 50
    public static let coarseTune = 51, fineTune = 52, sampleID = 53, sampleModes = 54, scaleTuning = 56
    public static let exclusiveClass = 57, overridingRootKey = 58, endOper = 60
    /// Generators per zone (0 … 59).
    public static let count = 60

    /// §8.1.3 defaults: envelope and LFO times −12000 timecents (1 ms), filter 13500 cents
    /// (open), scale tuning 100 cents per key, keynum/velocity/root key −1 (not set).
    public static let defaults: [Int32] = {
        var d = [Int32](repeating: 0, count: count)
        d[initialFilterFc] = 13500
        for g in [delayModLFO, delayVibLFO, delayModEnv, attackModEnv, holdModEnv, decayModEnv, releaseModEnv,
                  delayVolEnv, attackVolEnv, holdVolEnv, decayVolEnv, releaseVolEnv] { d[g] = -12000 }
        d[keynum] = -1; d[velocity] = -1; d[overridingRootKey] = -1
        d[scaleTuning] = 100
        return d
    }()

    /// Generators a preset zone may not set (§8.5: sample offsets, keynum, velocity, sample
    /// modes, exclusive class, root key): ignored there.
    static func allowedInPreset(_ g: Int) -> Bool {
        switch g {
        case startAddrsOffset, endAddrsOffset, startloopAddrsOffset, endloopAddrsOffset, startAddrsCoarseOffset,
             endAddrsCoarseOffset, startloopAddrsCoarseOffset, endloopAddrsCoarseOffset, keynum, velocity,
             sampleModes, exclusiveClass, overridingRootKey, sampleID:
            return false
        default: return true
        }
    }
}

/// One sample header (`shdr`), with its points as indices into `SoundFont.pool`.
public struct SF2Sample: Sendable {
    public var name: String
    public var start: Int, end: Int, loopStart: Int, loopEnd: Int
    public var sampleRate: Double
    public var originalPitch: Int
    public var pitchCorrection: Int
    public var sampleType: UInt16
    public var link: Int
}

/// One playable region: a preset zone crossed with an instrument zone, generators resolved.
public struct SF2Region: Sendable {
    public var keyLow: UInt8, keyHigh: UInt8, velLow: UInt8, velHigh: UInt8
    public var sampleIndex: Int
    /// Final generator values, `SF2Generator.count` of them at `SoundFont.generators[generatorBase...]`.
    public var generatorBase: Int
    /// The voice's modulator list (§9.5: the defaults, replaced or extended by the instrument's
    /// global and local zones, then the preset's zones added), `SoundFont.modulators[modulators]`.
    public var modulators: Range<Int> = 0..<0
}

/// One preset: its bank and program, and its regions (`SoundFont.regions[firstRegion ..< firstRegion + regionCount]`).
public struct SF2Preset: Sendable {
    public var name: String
    public var bank: Int, program: Int
    public var firstRegion: Int, regionCount: Int
}

/// Why a bank could not be read: a sentence naming the chunk and the byte offset.
public struct SoundBankError: Error, CustomStringConvertible, Sendable {
    public let chunk: String
    public let offset: Int
    public let reason: String
    /// The bank format the chunk belongs to ("SoundFont" or "DLS"), for the sentence.
    public var format = "SoundFont"
    public var description: String { "\(format) '\(chunk)' chunk at byte \(offset): \(reason)" }
}

/// A parsed SoundFont 2 bank.
public final class SoundFont: @unchecked Sendable {
    /// The bank's name (INFO `INAM`), its format version (`ifil`).
    public internal(set) var name = ""
    public internal(set) var version = (major: 0, minor: 0)
    /// The sample pool, followed by `SoundFont.guardFrames` zeros: the 16-bit points as the file
    /// stores them (`.int16`, value / 32768), or for a 24-bit bank (`sm24`) Floats in −1 … 1
    /// (see SamplePool.swift). Owned by this object (from `PoolMemory`, freed with it): an instrument built from the
    /// bank keeps the bank alive and plays from this memory without a copy.
    public internal(set) var pool = SamplePool.int16(UnsafeMutableBufferPointer(start: nil, count: 0))
    public internal(set) var sampleHeaders: [SF2Sample] = []
    public internal(set) var presets: [SF2Preset] = []
    public internal(set) var regions: [SF2Region] = []
    /// Resolved generator values, `SF2Generator.count` per region.
    public internal(set) var generators: [Int32] = []
    /// Resolved modulator lists, one range per region (`SF2Region.modulators`).
    public internal(set) var modulators: [SF2Modulator] = []
    /// Damage tolerated while loading, one sentence each (SF3 samples that did not decode).
    public internal(set) var warnings: [String] = []
    /// Whether the pool carried 24-bit data (`sm24`).
    public internal(set) var has24BitSamples = false

    /// Zero samples appended to the pool, so interpolation may read past any sample's end.
    public static let guardFrames = 64
    /// At most this many regions (preset zones × instrument zones) per bank: a hostile file of a
    /// few kilobytes could otherwise ask for billions.
    public static let maximumRegions = 65_536

    init() {}

    /// Whether `pool` is a mapping (`PoolMemory`), for freeing it.
    var poolIsMapped = false

    deinit { PoolMemory.free(pool, mapped: poolIsMapped) }   // allocated by PoolMemory (SoundFont+Parse.swift)

    /// The preset for a bank and program (nil: none).
    public func preset(bank: Int, program: Int) -> SF2Preset? {
        presets.first { $0.bank == bank && $0.program == program }
    }
}

/// One modulator record (`pmod`/`imod`, SoundFont 2.04 §7.4, §7.8, §8.2–8.3): a source and an
/// amount source (16-bit operators: bits 0–6 the index, bit 7 the MIDI-CC flag, bit 8 the
/// direction D, bit 9 the polarity P, bits 10–15 the curve type), a destination (a generator
/// number, or with bit 15 set the index of another modulator in the same zone whose source is a
/// link, §8.2.2), an amount and a transform (0 linear, 2 absolute value, §8.3).
public struct SF2Modulator: Hashable, Sendable {
    public var source: UInt16
    public var destination: UInt16
    public var amount: Int16
    public var amountSource: UInt16
    public var transform: UInt16

    public init(source: UInt16, destination: UInt16, amount: Int16, amountSource: UInt16, transform: UInt16) {
        self.source = source; self.destination = destination; self.amount = amount
        self.amountSource = amountSource; self.transform = transform
    }

    /// §9.5.1: two modulators are identical when source, destination, amount source and
    /// transform match (the amount may differ).
    public func isIdentical(to other: SF2Modulator) -> Bool {
        source == other.source && destination == other.destination && amountSource == other.amountSource && transform == other.transform
    }

    /// Whether the destination is another modulator (bit 15), and which.
    public var linkTarget: Int? { destination & 0x8000 != 0 ? Int(destination & 0x7FFF) : nil }
    /// Whether the source is a link (general controller 127): another modulator's output.
    public var sourceIsLink: Bool { source & 0xFF == 127 }

    /// The source operator's parts.
    public static func index(_ op: UInt16) -> Int { Int(op & 0x7F) }
    public static func isCC(_ op: UInt16) -> Bool { op & 0x80 != 0 }
    public static func curve(_ op: UInt16) -> Int { Int(op >> 10) }

    /// The ten default modulators of §8.4 in FluidSynth's order (§8.4.1–8.4.10; 8.4.2, velocity →
    /// filter cutoff, in the form SoundFont 2.01 banks write it to switch it off, as FluidSynth
    /// defines it). The voice engine applies these itself; the list is for the identity rule.
    public static let defaults: [SF2Modulator] = [
        SF2Modulator(source: 0x0502, destination: 48, amount: 960, amountSource: 0, transform: 0),     // velocity → attenuation (concave, negative)
        SF2Modulator(source: 0x0102, destination: 8, amount: -2400, amountSource: 0x0C02, transform: 0), // velocity → filter cutoff
        SF2Modulator(source: 0x000D, destination: 6, amount: 50, amountSource: 0, transform: 0),       // channel pressure → vibrato LFO pitch depth
        SF2Modulator(source: 0x0081, destination: 6, amount: 50, amountSource: 0, transform: 0),       // CC1 → vibrato LFO pitch depth
        SF2Modulator(source: 0x0587, destination: 48, amount: 960, amountSource: 0, transform: 0),     // CC7 → attenuation
        SF2Modulator(source: 0x028A, destination: 17, amount: 500, amountSource: 0, transform: 0),     // CC10 → pan (FluidSynth's 500: full left to full right)
        SF2Modulator(source: 0x058B, destination: 48, amount: 960, amountSource: 0, transform: 0),     // CC11 → attenuation
        SF2Modulator(source: 0x00DB, destination: 16, amount: 200, amountSource: 0, transform: 0),     // CC91 → reverb send
        SF2Modulator(source: 0x00DD, destination: 15, amount: 200, amountSource: 0, transform: 0),     // CC93 → chorus send
        SF2Modulator(source: 0x020E, destination: 52, amount: 12_700, amountSource: 0x0010, transform: 0), // pitch wheel → fine tune (× sensitivity)
    ]
}

// SoundFont 2.04 banks, as the sampler plays them: sample headers, the sample pool converted to
// Float (16-bit `smpl`, plus the low byte from `sm24` when present), and every preset resolved
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

/// One sample header (`shdr`), with its points as indices into `SoundFont.samples`.
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
    public var description: String { "SoundFont '\(chunk)' chunk at byte \(offset): \(reason)" }
}

/// A parsed SoundFont 2 bank.
public final class SoundFont: @unchecked Sendable {
    /// The bank's name (INFO `INAM`), its format version (`ifil`).
    public internal(set) var name = ""
    public internal(set) var version = (major: 0, minor: 0)
    /// The sample pool, one Float per sample point in −1 … 1, followed by `SoundFont.guardFrames`
    /// zeros. Owned by this object (freed with it): an instrument built from the bank keeps the
    /// bank alive and plays from this memory without a copy.
    public internal(set) var samples = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)
    public internal(set) var sampleHeaders: [SF2Sample] = []
    public internal(set) var presets: [SF2Preset] = []
    public internal(set) var regions: [SF2Region] = []
    /// Resolved generator values, `SF2Generator.count` per region.
    public internal(set) var generators: [Int32] = []
    /// Whether the pool carried 24-bit data (`sm24`).
    public internal(set) var has24BitSamples = false

    /// Zero samples appended to the pool, so interpolation may read past any sample's end.
    public static let guardFrames = 64
    /// At most this many regions (preset zones × instrument zones) per bank: a hostile file of a
    /// few kilobytes could otherwise ask for billions.
    public static let maximumRegions = 65_536

    init() {}

    deinit { samples.deallocate() }

    /// The preset for a bank and program (nil: none).
    public func preset(bank: Int, program: Int) -> SF2Preset? {
        presets.first { $0.bank == bank && $0.program == program }
    }
}

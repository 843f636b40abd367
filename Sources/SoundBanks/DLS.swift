// Downloadable Sounds banks (MMA DLS Level 1, 1997, and Level 2.2), as the sampler plays them:
// instruments ('ins ': bank, program, regions, articulation), regions ('rgn '/'rgn2': key and
// velocity ranges, key group, sample info, wave link, articulation), and the wave pool converted
// to Float (8-bit unsigned and 16-bit signed PCM), one run per wave followed by guard zeros.
//
// The values are kept as the file writes them (connection blocks with their 16.16 scales, loop
// points in frames relative to the wave); SamplerSynth's DLS mapping turns them into the voice
// engine's zones. Nothing here is Apple's: AVAudioUnitSampler reads the file and hands the bytes
// to `DLSBank.parse` (DLS+Parse.swift).
//
// Units (DLS Level 1 §1.14, Level 2 §2.10), all scaled by 65536 in a connection's `lScale`:
// time in absolute time cents (1200 × log2(seconds); 0x80000000 means zero time), pitch in
// absolute pitch cents (8.176 Hz at 0, the same origin as SoundFont's absolute cents) or relative
// cents, gain in centibels (1/10 dB; negative attenuates), sustain level and pan in 0.1 %.

/// The connection-block enumerations (DLS Level 1 §1.14.1, Level 2 §2.10): sources, destinations
/// and transforms, with the raw values the headers (dls1.h, dls2.h) define.
public enum DLSConnection {
    // sources
    public static let srcNone: UInt16 = 0x0000, srcLFO: UInt16 = 0x0001, srcKeyOnVelocity: UInt16 = 0x0002
    public static let srcKeyNumber: UInt16 = 0x0003, srcEG1: UInt16 = 0x0004, srcEG2: UInt16 = 0x0005
    public static let srcPitchWheel: UInt16 = 0x0006, srcPolyPressure: UInt16 = 0x0007
    public static let srcChannelPressure: UInt16 = 0x0008, srcVibrato: UInt16 = 0x0009
    public static let srcMonoPressure: UInt16 = 0x000A
    /// MIDI controllers: 0x0080 + the controller number (CC1 0x81, CC7 0x87, CC10 0x8A, CC11 0x8B, CC91 0xDB, CC93 0xDD).
    public static let srcCC0: UInt16 = 0x0080
    /// Registered parameters: 0 pitch-bend range, 1 fine tune, 2 coarse tune.
    public static let srcRPN0: UInt16 = 0x0100, srcRPN1: UInt16 = 0x0101, srcRPN2: UInt16 = 0x0102
    // destinations
    public static let dstNone: UInt16 = 0x0000, dstGain: UInt16 = 0x0001, dstPitch: UInt16 = 0x0003, dstPan: UInt16 = 0x0004
    public static let dstKeyNumber: UInt16 = 0x0005
    public static let dstChorus: UInt16 = 0x0080, dstReverb: UInt16 = 0x0081
    public static let dstLFOFrequency: UInt16 = 0x0104, dstLFODelay: UInt16 = 0x0105
    public static let dstVibratoFrequency: UInt16 = 0x0114, dstVibratoDelay: UInt16 = 0x0115
    public static let dstEG1Attack: UInt16 = 0x0206, dstEG1Decay: UInt16 = 0x0207, dstEG1Release: UInt16 = 0x0209
    public static let dstEG1Sustain: UInt16 = 0x020A, dstEG1Delay: UInt16 = 0x020B, dstEG1Hold: UInt16 = 0x020C
    public static let dstEG1Shutdown: UInt16 = 0x020D
    public static let dstEG2Attack: UInt16 = 0x030A, dstEG2Decay: UInt16 = 0x030B, dstEG2Release: UInt16 = 0x030D
    public static let dstEG2Sustain: UInt16 = 0x030E, dstEG2Delay: UInt16 = 0x030F, dstEG2Hold: UInt16 = 0x0310
    public static let dstFilterCutoff: UInt16 = 0x0500, dstFilterQ: UInt16 = 0x0501
    // transforms (Level 1: the whole field; Level 2: the output transform in bits 0–3, the
    // control's in bits 4–7 with bipolar bit 8 and invert bit 9, the source's in bits 10–13
    // with bipolar bit 14 and invert bit 15)
    public static let transformNone: UInt16 = 0, transformConcave: UInt16 = 1, transformConvex: UInt16 = 2, transformSwitch: UInt16 = 3
}

/// One connection block (`art1`/`art2`): source × control × scale → destination.
public struct DLSConnectionBlock: Hashable, Sendable {
    public var source: UInt16, control: UInt16, destination: UInt16, transform: UInt16
    /// The amount in the destination's unit × 65536.
    public var scale: Int32
    public init(source: UInt16, control: UInt16, destination: UInt16, transform: UInt16, scale: Int32) {
        self.source = source; self.control = control; self.destination = destination; self.transform = transform; self.scale = scale
    }
    /// The scale in the destination's unit.
    public var value: Double { Double(scale) / 65_536 }
}

/// One loop of a `wsmp` chunk (points in frames from the wave's start).
public struct DLSLoop: Hashable, Sendable {
    /// 0 `WLOOP_TYPE_FORWARD` (loops until the voice ends), 1 `WLOOP_TYPE_RELEASE` (Level 2:
    /// loops while the key is held, then plays on to the end).
    public var type: UInt32
    public var start: UInt32, length: UInt32
    public init(type: UInt32, start: UInt32, length: UInt32) { self.type = type; self.start = start; self.length = length }
}

/// A `wsmp` chunk: how a wave is played.
public struct DLSSampleInfo: Hashable, Sendable {
    /// The MIDI key at which the wave plays at its recorded pitch.
    public var unityNote: UInt16
    /// Tuning in cents added to the unity note's pitch.
    public var fineTune: Int16
    /// Gain in 1/655360 dB (centibels × 65536; negative attenuates).
    public var gain: Int32
    /// `F_WSMP_NO_TRUNCATION` (1), `F_WSMP_NO_COMPRESSION` (2): hints; nothing for a software synth.
    public var options: UInt32
    public var loops: [DLSLoop]
    public init(unityNote: UInt16 = 60, fineTune: Int16 = 0, gain: Int32 = 0, options: UInt32 = 0, loops: [DLSLoop] = []) {
        self.unityNote = unityNote; self.fineTune = fineTune; self.gain = gain; self.options = options; self.loops = loops
    }
}

/// A `wlnk` chunk: which wave a region plays.
public struct DLSWaveLink: Hashable, Sendable {
    /// `F_WAVELINK_PHASE_MASTER` (1), `F_WAVELINK_MULTICHANNEL` (2, Level 2).
    public var options: UInt16
    public var phaseGroup: UInt16
    /// The channel mask (1 left/mono, 2 right, …).
    public var channel: UInt32
    /// An index into the pool table (`ptbl`).
    public var tableIndex: UInt32
    public init(options: UInt16 = 0, phaseGroup: UInt16 = 0, channel: UInt32 = 1, tableIndex: UInt32 = 0) {
        self.options = options; self.phaseGroup = phaseGroup; self.channel = channel; self.tableIndex = tableIndex
    }
}

/// One region of an instrument.
public struct DLSRegion: Hashable, Sendable {
    public var keyLow: UInt16, keyHigh: UInt16, velocityLow: UInt16, velocityHigh: UInt16
    /// `F_RGN_OPTION_SELFNONEXCLUSIVE` (1): a note does not cut its own key's earlier note.
    public var options: UInt16
    /// The exclusive class (key group, 1 … 15; 0 none): a note cuts the notes of the same group.
    public var keyGroup: UInt16
    /// Level 2's layer (an editor's grouping; not used for playback).
    public var layer: UInt16
    /// Whether the region list was a Level 2 'rgn2'.
    public var isLevel2: Bool
    /// The region's own `wsmp`, when it has one (else the wave's is used).
    public var sampleInfo: DLSSampleInfo?
    public var waveLink: DLSWaveLink
    /// The region's connection blocks (its `lart`/`lar2` lists, in file order).
    public var connections: [DLSConnectionBlock]
    /// The wave the link resolves to (`DLSBank.waves` index).
    public var wave: Int
    public init(keyLow: UInt16 = 0, keyHigh: UInt16 = 127, velocityLow: UInt16 = 0, velocityHigh: UInt16 = 127, options: UInt16 = 0, keyGroup: UInt16 = 0,
                layer: UInt16 = 0, isLevel2: Bool = false, sampleInfo: DLSSampleInfo? = nil, waveLink: DLSWaveLink = DLSWaveLink(),
                connections: [DLSConnectionBlock] = [], wave: Int = 0) {
        self.keyLow = keyLow; self.keyHigh = keyHigh; self.velocityLow = velocityLow; self.velocityHigh = velocityHigh
        self.options = options; self.keyGroup = keyGroup; self.layer = layer; self.isLevel2 = isLevel2
        self.sampleInfo = sampleInfo; self.waveLink = waveLink; self.connections = connections; self.wave = wave
    }
}

/// One instrument (`ins `).
public struct DLSInstrument: Hashable, Sendable {
    public var name: String
    /// `ulBank`: bits 0–6 the bank-select LSB (CC32), bits 8–14 the MSB (CC0), bit 31 `F_INSTRUMENT_DRUMS`.
    public var bank: UInt32
    /// `ulInstrument`: the program number (bits 0–6).
    public var program: UInt32
    /// The instrument's own connection blocks (its `lart`/`lar2`), which every region starts from.
    public var connections: [DLSConnectionBlock]
    public var regions: [DLSRegion]

    public var isDrum: Bool { bank & 0x8000_0000 != 0 }
    public var bankMSB: Int { Int((bank >> 8) & 0x7F) }
    public var bankLSB: Int { Int(bank & 0x7F) }
    /// The sampler's bank number (the one `AVAudioUnitSampler` matches a bank select against, as
    /// it does a SoundFont preset's): 128 for a drum instrument (Apple's percussion bank MSB
    /// 0x78 selects it); otherwise the MSB, or the LSB when the MSB is 0 (Apple's melodic MSB
    /// 0x79 with that LSB selects it). Apple does not document how its sampler numbers DLS
    /// banks; this follows the way SoundFont banks made from GS/DLS sets number them.
    public var samplerBank: Int { isDrum ? 128 : (bankMSB != 0 ? bankMSB : bankLSB) }
    public var samplerProgram: Int { Int(program & 0x7F) }

    public init(name: String = "", bank: UInt32 = 0, program: UInt32 = 0, connections: [DLSConnectionBlock] = [], regions: [DLSRegion] = []) {
        self.name = name; self.bank = bank; self.program = program; self.connections = connections; self.regions = regions
    }
}

/// One wave of the pool.
public struct DLSWave: Hashable, Sendable {
    public var name: String
    /// `fmt `: WAVE_FORMAT_PCM (1), channels, rate, bits per sample (8 unsigned or 16 signed).
    public var formatTag: UInt16, channels: UInt16, sampleRate: UInt32, bitsPerSample: UInt16
    /// The wave's first frame in `DLSBank.samples` and its frame count (the first channel only).
    public var start: Int, frameCount: Int
    /// The wave's own `wsmp`, used by a region that has none.
    public var sampleInfo: DLSSampleInfo?
    /// The wave's offset in the pool (what `ptbl` entries point at).
    public var poolOffset: Int
}

/// A parsed DLS bank.
public final class DLSBank: @unchecked Sendable {
    /// INFO `INAM`; `vers` (dwVersionMS, dwVersionLS); `colh`'s instrument count as written.
    public internal(set) var name = ""
    public internal(set) var version: (UInt32, UInt32) = (0, 0)
    public internal(set) var declaredInstrumentCount: UInt32 = 0
    public internal(set) var instruments: [DLSInstrument] = []
    /// `ptbl`: each cue's offset into the wave pool.
    public internal(set) var poolTable: [UInt32] = []
    public internal(set) var waves: [DLSWave] = []
    /// Every wave's first channel as Float in −1 … 1, each followed by `DLSBank.guardFrames` zeros
    /// (interpolation may read past a wave's end). Owned by this object.
    public internal(set) var samples = UnsafeMutableBufferPointer<Float>(start: nil, count: 0)

    public static let guardFrames = 64

    init() {}
    deinit { samples.deallocate() }

    /// The instrument for a sampler bank and program (see `DLSInstrument.samplerBank`).
    public func instrument(bank: Int, program: Int) -> DLSInstrument? {
        instruments.first { $0.samplerBank == bank && $0.samplerProgram == program }
    }

    /// Whether the bytes start like a DLS file ('RIFF' … 'DLS ').
    public static func isDLS(_ header: some Collection<UInt8>) -> Bool {
        let h = Array(header.prefix(12))
        return h.count == 12 && h[0..<4].elementsEqual("RIFF".utf8) && h[8..<12].elementsEqual("DLS ".utf8)
    }
}

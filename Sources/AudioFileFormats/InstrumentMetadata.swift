// What an audio file says about playing it as an instrument sample, for a sampler loading audio
// files (`AVAudioUnitSampler.loadAudioFiles(at:)`: Apple's sampler "uses any information in the
// audio file for its placement in the instrument. For example, the root key and key range").
//
// Three chunks carry it, read here from their public descriptions:
// * WAV `smpl` (Microsoft's RIFF sampler chunk): MIDI unity note and pitch fraction (a fraction of
//   a semitone in 1/2³² steps), then sample loops; a loop's end names its last frame (inclusive).
//   No key or velocity range.
// * AIFF/AIFF-C `INST` (Apple's AIFF 1.3): base note, detune in cents (−50 … 50), low and high
//   note and velocity, gain in dB, and a sustain loop whose play mode (0 none, 1 forward,
//   2 forward/backward) and begin/end marker IDs refer to the `MARK` chunk's markers; markers sit
//   between frames, so the end is exclusive.
// * CAF `inst` (Apple's CAF specification, CAFInstrumentChunk): base note as a Float32, low/high
//   note and velocity, gain in dB. Its loops live in `regn` regions, not read here.
//
// Everything is bounded by the bytes present: at most 4,096 chunks are walked, a chunk's payload
// is read only up to what the fields need (WAV: at most 64 loops), and values out of range are
// dropped rather than trusted (a note above 127, a loop outside the file's frames). A file
// without such a chunk, or with one too short, has no instrument information: nil, never an error
// the caller must handle beyond the file's own open.

/// An audio file's instrument placement.
public struct AudioFileInstrumentInfo: Equatable, Sendable {
    /// The MIDI note the recording sounds at unchanged (fractional: WAV's pitch fraction, AIFF's
    /// detune — which raises the playback pitch, so it lowers this —, CAF's Float32 base note).
    public var rootKey: Double
    /// The keys the sample should play on, when the file names them (AIFF, CAF).
    public var keyRange: ClosedRange<UInt8>?
    /// The velocities the sample should play on, when the file names them (AIFF, CAF).
    public var velocityRange: ClosedRange<UInt8>?
    /// Gain to apply, in decibels (AIFF, CAF; 0 otherwise).
    public var gainDecibels: Double = 0
    /// The first forward sustain loop, in frames from the start of the audio (end exclusive).
    public var sustainLoop: Range<Int64>?
    /// Whether the file asked for a forward/backward loop (AIFF play mode 2), played here forward.
    public var loopAlternates = false

    public init(rootKey: Double) { self.rootKey = rootKey }
}

/// Reads the instrument chunk of a WAV, AIFF/AIFF-C or CAF file; nil when the file has none (or
/// is another kind of file). `frames` bounds the loop points (the file's length in frames).
public func readAudioFileInstrumentInfo(path: String, frames: Int64) throws -> AudioFileInstrumentInfo? {
    let file = try RawFile.open(path: path, forWriting: false)
    defer { _ = posixClose(file.fd) }
    let size = try file.size()
    let head = try file.readBytes(at: 0, count: 12)
    guard head.count == 12 else { return nil }
    let ctx = ParseContext(file: file, fileSize: size)
    let magic = Bytes(head, bigEndian: true).fourCC(0)
    switch magic {
    case fcc("RIFF"), fcc("RIFX"):
        guard Bytes(head, bigEndian: true).fourCC(8) == fcc("WAVE") else { return nil }
        return try wavInstrument(ctx, bigEndian: magic == fcc("RIFX"), frames: frames)
    case fcc("FORM"):
        let form = Bytes(head, bigEndian: true).fourCC(8)
        guard form == fcc("AIFF") || form == fcc("AIFC") else { return nil }
        return try aiffInstrument(ctx, frames: frames)
    case fcc("caff"):
        return try cafInstrument(ctx)
    default:
        return nil
    }
}

/// The largest number of chunks walked looking for the instrument chunk.
private let maximumChunksWalked = 4_096

private func wavInstrument(_ ctx: ParseContext, bigEndian: Bool, frames: Int64) throws -> AudioFileInstrumentInfo? {
    var smpl: Bytes?
    var walked = 0
    try walkChunks32(ctx, from: 12, bigEndian: bigEndian) { chunk in
        walked += 1
        if chunk.id == fcc("smpl") && chunk.size >= 36 {
            // 36 bytes of fields, then 24 per loop (the first 64 loops at most).
            let loops = min(Int(Bytes(try ctx.file.readBytes(at: chunk.dataOffset + 28, count: 4), bigEndian: bigEndian).u32(0)), 64)
            let wanted = min(Int64(chunk.size), 36 + 24 * Int64(loops))
            smpl = Bytes(try ctx.file.readBytes(at: chunk.dataOffset, count: Int(wanted)), bigEndian: bigEndian)
            return nil
        }
        return walked < maximumChunksWalked ? Int64(chunk.size) : nil
    }
    guard let smpl, smpl.bytes.count >= 36 else { return nil }
    let unity = smpl.u32(12), fraction = smpl.u32(16)
    guard unity <= 127 else { return nil }
    var info = AudioFileInstrumentInfo(rootKey: Double(unity) + Double(fraction) / 4_294_967_296)
    let loops = min(Int(smpl.u32(28)), (smpl.bytes.count - 36) / 24)
    for i in 0..<loops {
        let at = 36 + 24 * i
        let type = smpl.u32(at + 4), start = Int64(smpl.u32(at + 8)), last = Int64(smpl.u32(at + 12))
        // Type 0 loops forward, 1 alternates, 2 plays backward (not kept: the sampler loops forward).
        guard type <= 1, start < last, last < frames else { continue }
        info.sustainLoop = start..<(last + 1)
        info.loopAlternates = type == 1
        break
    }
    return info
}

private func aiffInstrument(_ ctx: ParseContext, frames: Int64) throws -> AudioFileInstrumentInfo? {
    var inst: Bytes?
    var markers: [UInt16: Int64] = [:]
    var walked = 0
    try walkChunks32(ctx, from: 12, bigEndian: true) { chunk in
        walked += 1
        if chunk.id == fcc("INST") && chunk.size >= 20 {
            inst = Bytes(try ctx.file.readBytes(at: chunk.dataOffset, count: 20), bigEndian: true)
        } else if chunk.id == fcc("MARK") && chunk.size >= 2 {
            // Markers: count, then (id, position, Pascal string padded to even length) each.
            let bytes = try ctx.file.readBytes(at: chunk.dataOffset, count: Int(min(chunk.size, 65_536)))
            let fields = Bytes(bytes, bigEndian: true)
            var at = 2
            for _ in 0..<Int(fields.u16(0)) {
                guard at + 7 <= bytes.count else { break }
                markers[fields.u16(at)] = Int64(fields.u32(at + 2))
                let nameLength = Int(bytes[at + 6])
                at += 6 + (1 + nameLength + 1) / 2 * 2
            }
        }
        return walked < maximumChunksWalked ? Int64(chunk.size) : nil
    }
    guard let inst else { return nil }
    let base = inst.u8(0), detune = Int8(bitPattern: inst.u8(1))
    guard base <= 127 else { return nil }
    // (detune raises the playback pitch when positive — AIFF 1.3 — so the root key moves down)
    var info = AudioFileInstrumentInfo(rootKey: Double(base) - Double(max(-50, min(50, detune))) / 100)
    let lowNote = inst.u8(2), highNote = inst.u8(3), lowVelocity = inst.u8(4), highVelocity = inst.u8(5)
    if lowNote <= highNote && highNote <= 127 { info.keyRange = lowNote...highNote }
    if lowVelocity <= highVelocity && highVelocity <= 127 { info.velocityRange = max(lowVelocity, 1)...max(highVelocity, 1) }
    info.gainDecibels = Double(inst.i16(6))
    // Sustain loop: play mode, begin marker, end marker (bytes 8–13).
    let mode = inst.u16(8)
    if mode == 1 || mode == 2, let start = markers[inst.u16(10)], let end = markers[inst.u16(12)], start < end, end <= frames {
        info.sustainLoop = start..<end
        info.loopAlternates = mode == 2
    }
    return info
}

private func cafInstrument(_ ctx: ParseContext) throws -> AudioFileInstrumentInfo? {
    // CAF: an 8-byte file header, then chunks of a type and a signed 64-bit size (−1 only for a
    // data chunk running to the end, after which nothing can be found).
    var info: AudioFileInstrumentInfo?
    try walkCAFChunks(ctx, limit: maximumChunksWalked) { chunk in
        guard chunk.id == fcc("inst") else { return chunk.size }
        guard chunk.size >= 28 else { return nil }
        let inst = Bytes(try ctx.file.readBytes(at: chunk.dataOffset, count: 28), bigEndian: true)
        guard inst.bytes.count == 28 else { return nil }
        let base = Double(Float(bitPattern: inst.u32(0)))
        guard base.isFinite, base >= 0, base < 128 else { return nil }
        var found = AudioFileInstrumentInfo(rootKey: base)
        let lowNote = inst.u8(4), highNote = inst.u8(5), lowVelocity = inst.u8(6), highVelocity = inst.u8(7)
        if lowNote <= highNote && highNote <= 127 { found.keyRange = lowNote...highNote }
        if lowVelocity <= highVelocity && highVelocity <= 127 { found.velocityRange = max(lowVelocity, 1)...max(highVelocity, 1) }
        let gain = Double(Float(bitPattern: inst.u32(8)))
        if gain.isFinite && abs(gain) <= 96 { found.gainDecibels = gain }
        info = found
        return nil
    }
    return info
}

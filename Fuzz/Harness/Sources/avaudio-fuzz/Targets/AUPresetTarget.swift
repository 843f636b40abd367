// AVAudioUnitSampler.loadInstrument(at:) on the bytes as an AUSampler preset (`.aupreset`), then a
// few cycles of notes through the unit's own render block: the property-list reader (XML and
// binary), the preset model (every key's type and range, zones, envelopes, connections, file
// references), the sample-file search (stored path, next to the preset, TN2283's Sounds rule) and
// the voices on whatever zones the preset describes (key and velocity ranges, loop points,
// start/end, tuning, gain, pan, envelope times at their limits).
//
// A small WAV (`tone.wav`, 0.1 s of 441 Hz with a `smpl` loop) is written next to the input once,
// so presets naming it — as the seeds from Fuzz/make_seeds.py do — reach the zone builder.
//
// Checks beyond "no crash, no hang, no leak, no huge allocation": a load either succeeds or throws
// a readable AVFAudio error; rendering returns noErr and finite samples.
import AVFoundation
#if canImport(Glibc)
import Glibc
#endif

extension FuzzTarget {
    static let aupreset = FuzzTarget(name: "aupreset", structure: nil) { loadAUPreset($0) }
}

/// Writes the tone next to the scratch input, once per process.
private let presetTone: Void = {
    let url = scratchFile([], fileExtension: "aupreset").deletingLastPathComponent().appendingPathComponent("tone.wav")
    func le32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    func le16(_ v: UInt16) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
    let frames = 4_410
    let data = (0..<frames).flatMap { le16(UInt16(bitPattern: Int16(12_000 * sin(2 * Double.pi * Double($0) / 100)))) }
    // smpl: unity note 69, one forward loop over frames 1,000 … 3,999
    let smpl = [0, 0, 22_675, 69, 0, 0, 0, 1, 0, 0, 0, 1_000, 3_999, 0, 0].flatMap { le32(UInt32($0)) }
    var body = Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(1) + le32(44_100) + le32(88_200) + le16(2) + le16(16)
    body += Array("data".utf8) + le32(UInt32(data.count)) + data + Array("smpl".utf8) + le32(UInt32(smpl.count)) + smpl
    let bytes = Array("RIFF".utf8) + le32(UInt32(body.count)) + body
    guard (try? Data(bytes).write(to: url)) != nil else { fuzzFailure("cannot write \(url.path)") }
}()

func loadAUPreset(_ bytes: [UInt8]) {
    _ = presetTone
    let url = scratchFile(bytes, fileExtension: "aupreset")
    let sampler = AVAudioUnitSampler()
    do {
        try sampler.loadInstrument(at: url)
    } catch {
        expectReadableError(error, "AVAudioUnitSampler.loadInstrument(at:) with an .aupreset")
        return
    }
    // notes across the keyboard and velocities, then a release mid-way
    playAndRender(sampler, [[0x90, 60, 100], [0x90, 21, 127], [0x90, 69, 1], [0x90, 108, 64], [0xE0, 0, 0x7F]])
}

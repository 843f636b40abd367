// AVAudioFormat(settings:) with hostile dictionaries, and AVAudioFile(forWriting:settings:) with
// the same dictionary (settings arrive from outside: a preset, a JSON file, a user's choice).
//
// The input decodes into a [String: Any]: entries of (key, type, value), the key one of the keys
// AVFAudio reads or an unknown one, the value of a type the key expects or not (Int, Double, Float,
// UInt32, Int32, Int64, Bool, String, NSNumber, Data, NSNull, arrays), numbers from a table of
// boundary values (NaN, ±infinity, -0, negative, 0, huge, 2^32...) or from raw bits, and
// AudioChannelLayout bytes built field by field for AVChannelLayoutKey.
//
// Checks: no crash, no hang, no leak; a format that is accepted has a positive finite rate and at
// least one channel, round-trips through its own `settings`, and opens a file for writing or
// throws an NSError; what is written reads back with the same length.
import AVFoundation

extension FuzzTarget {
    static let settings = FuzzTarget(name: "settings", structure: nil) { fuzzSettings($0) }
}

let settingsKeys: [String] = [
    AVFormatIDKey, AVSampleRateKey, AVNumberOfChannelsKey, AVLinearPCMBitDepthKey,
    AVLinearPCMIsFloatKey, AVLinearPCMIsBigEndianKey, AVLinearPCMIsNonInterleaved, AVChannelLayoutKey,
    AVAudioFileTypeKey, AVEncoderAudioQualityKey, AVEncoderBitRateKey, AVEncoderBitDepthHintKey,
    AVSampleRateConverterAlgorithmKey, AVSampleRateConverterAudioQualityKey, "AVFuzzUnknownKey", "",
]

let boundaryDoubles: [Double] = [
    .nan, -.nan, .infinity, -.infinity, 0, -0.0, 1, -1, 0.5, 8_000, 44_100, 48_000, 96_000, 192_000,
    10_000_000, 10_000_001, 1e300, -1e300, 1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
    65_535, 65_536, 4_294_967_295, 4_294_967_296, 9.3e18, -9.3e18, 1_024, 1_025, 8, 16, 24, 32, 64, 65,
]

let fourCCs: [UInt32] = [
    kAudioFormatLinearPCM, kAudioFormatULaw, kAudioFormatALaw, kAudioFormatMPEG4AAC, kAudioFormatAppleLossless,
    kAudioFormatMPEGLayer3, kAudioFormatOpus, kAudioFormatFLAC, kAudioFormatMPEG4AAC_HE, 0, 0xFFFF_FFFF,
    kAudioFileWAVEType, kAudioFileAIFFType, kAudioFileAIFCType, kAudioFileCAFType, kAudioFileNextType,
    kAudioFileRF64Type, kAudioFileBW64Type, kAudioFileMP3Type,
]

let layoutTags: [UInt32] = [
    kAudioChannelLayoutTag_Mono, kAudioChannelLayoutTag_Stereo, kAudioChannelLayoutTag_Quadraphonic,
    kAudioChannelLayoutTag_MPEG_5_1_A, kAudioChannelLayoutTag_MPEG_7_1_A, kAudioChannelLayoutTag_AudioUnit_5_0,
    kAudioChannelLayoutTag_UseChannelDescriptions, kAudioChannelLayoutTag_UseChannelBitmap,
    kAudioChannelLayoutTag_DiscreteInOrder | 3, kAudioChannelLayoutTag_DiscreteInOrder | 0xFFFF,
    kAudioChannelLayoutTag_DiscreteInOrder, kAudioChannelLayoutTag_HOA_ACN_SN3D | 4,
    kAudioChannelLayoutTag_HOA_ACN_SN3D | 0xFFFF, 0xFFFF_FFFF, 0, (200 << 16) | 7,
]

/// AudioChannelLayout bytes (native byte order, as AVChannelLayoutKey holds them), field by field.
func layoutData(_ r: inout ByteReader) -> Data {
    var out: [UInt8] = []
    func put(_ v: UInt32) { withUnsafeBytes(of: v) { out += $0 } }
    let tag = r.bool() ? r.pick(layoutTags) : r.u32()
    put(tag)
    put(r.bool() ? r.u32() : UInt32(r.u8() & 0x3F))           // bitmap
    let declared = r.bool() ? r.u32() : UInt32(r.u8() % 10)    // number of descriptions
    put(declared)
    let present = Int(r.u8() % 12)                            // descriptions actually present
    for _ in 0..<present {
        put(r.bool() ? UInt32(r.u8()) : r.u32())               // label
        put(r.u32() & 3)                                       // flags
        for _ in 0..<3 { put(r.u32()) }                        // coordinates (any bits: NaN too)
    }
    if r.bool() { out += r.bytes(Int(r.u8() % 8)) }            // a ragged tail
    return Data(out)
}

func hostileValue(_ r: inout ByteReader) -> Any {
    switch r.u8() % 16 {
    case 0: return Int(truncatingIfNeeded: Int64(bitPattern: r.u64()))
    case 1: return r.pick(boundaryDoubles)
    case 2: return Double(bitPattern: r.u64())
    case 3: return r.u32()
    case 4: return Int32(bitPattern: r.u32())
    case 5: return Float(bitPattern: r.u32())
    case 6: return r.bool()
    case 7: return String(decoding: r.bytes(Int(r.u8() % 16)), as: UTF8.self)
    case 8: return NSNumber(value: r.pick(boundaryDoubles))
    case 9: return NSNumber(value: Int64(bitPattern: r.u64()))
    case 10: return layoutData(&r)
    case 11: return NSNull()
    case 12: return [r.pick(boundaryDoubles), Double(r.u8())]
    case 13: return Int(r.pick(boundaryDoubles).clampedToInt)
    case 14: return r.pick(fourCCs)
    default: return Data(r.bytes(Int(r.u8() % 64)))
    }
}

extension Double {
    var clampedToInt: Int { isNaN ? 0 : self >= 9.2e18 ? Int.max : self <= -9.2e18 ? Int.min : Int(self) }
}

func fuzzSettings(_ bytes: [UInt8]) {
    var r = ByteReader(bytes)
    var settings: [String: Any] = [:]
    let fileExtension = r.pick(["wav", "caf", "aif", "aifc", "au", "rf64", "w64", ""])
    while !r.isAtEnd && settings.count < 24 {
        let key = r.pick(settingsKeys)
        settings[key] = hostileValue(&r)
    }
    guard let format = AVAudioFormat(settings: settings) else { return }
    let rate = format.sampleRate
    guard rate.isFinite, rate > 0, format.channelCount >= 1 else {
        fuzzFailure("AVAudioFormat(settings:) accepted rate \(rate) and \(format.channelCount) channels from \(settings)")
    }
    _ = format.description
    _ = format.streamDescription.pointee
    _ = format.channelLayout?.layoutTag
    _ = format.magicCookie
    let own = format.settings
    guard let again = AVAudioFormat(settings: own) else {
        fuzzFailure("AVAudioFormat(settings:) rejects the settings of its own format \(format): \(own)")
    }
    guard again.sampleRate == format.sampleRate, again.channelCount == format.channelCount,
          again.streamDescription.pointee.mFormatID == format.streamDescription.pointee.mFormatID else {
        fuzzFailure("\(format) round-trips through its settings as \(again)")
    }
    // Opening a file for writing with the same (hostile) dictionary: a file or an NSError.
    guard format.channelCount <= 64 else { return } // the writer's own limit is tested; keep inputs fast
    let url = scratchFile([], fileExtension: fileExtension)
    let file: AVAudioFile
    do {
        file = try AVAudioFile(forWriting: url, settings: settings)
    } catch {
        expectReadableError(error, "AVAudioFile(forWriting:settings:)")
        return
    }
    guard let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 17) else {
        fuzzFailure("no buffer in the processing format \(file.processingFormat) of a file being written")
    }
    buffer.frameLength = 17
    do {
        try file.write(from: buffer)
    } catch {
        expectReadableError(error, "AVAudioFile.write(from:)")
        return
    }
    file.close()
    do {
        let back = try AVAudioFile(forReading: url)
        guard back.length == 17 else { fuzzFailure("wrote 17 frames with \(settings); read back \(back.length)") }
    } catch {
        fuzzFailure("a file written with \(settings) does not open for reading: \(error)")
    }
}

// The audio sample entry in `stsd` (ISO/IEC 14496-12 §12.2.3; QuickTime's sound description
// versions 1 and 2) and the codec configuration box inside it, which becomes the PacketIndex's
// codec and magic cookie:
//
// - `alac` → 'alac': the inner `alac` full box's ALACSpecificConfig (24 bytes: frame length,
//   compatible version, bit depth, pb, mb, kb, channels, max run, max frame bytes, average bit
//   rate, sample rate), followed by the entry's `chan` box when there is one — the layout of
//   Apple's ALAC magic cookie (ALACMagicCookieDescription.txt in Apple's ALAC sources).
// - `fLaC` → 'flac' (kAudioFormatFLAC): the `dfLa` full box's FLAC metadata blocks (STREAMINFO first), as the
//   "FLAC in ISOBMFF" encapsulation specifies them; rate, channels and depth come from STREAMINFO.
// - `mp4a` → 'aac ' (object types 0x40, 0x66–0x68) or '.mp3' (0x69, 0x6B): the `esds`
//   DecoderSpecificInfo (for AAC, the AudioSpecificConfig), as this project's brief asks. (Apple's
//   AudioFile hands out the whole ES descriptor as an AAC file's cookie; the future AAC decoder
//   needs only the AudioSpecificConfig.)
// - `Opus` → 'opus': the `dOps` box's payload (the Opus-in-ISOBMFF encapsulation's
//   OpusSpecificBox: its fields are big-endian, unlike Ogg's OpusHead); its PreSkip is the
//   priming when no edit list says otherwise.
// QuickTime files may wrap the configuration box in a `wave` box; it is looked for there too.
// Any other entry gives its own type as the codec and no cookie, so the registry can name it.

import AudioCodecs

struct MP4AudioEntry {
    var codec: UInt32
    var sampleRate: Double
    var channelCount: Int
    var bitsPerSample: Int
    var cookie: [UInt8]
    /// Opus's PreSkip (frames at 48 kHz), nil for other codecs.
    var preSkip: Int?
}

enum MP4SampleEntryParser {
    static let codecALAC: UInt32 = 0x616C_6163, codecFLAC: UInt32 = 0x666C_6163   // Core Audio's kAudioFormatFLAC 'flac' (the MP4 sample entry is 'fLaC')
    static let codecAAC: UInt32 = 0x6161_6320, codecOpus: UInt32 = 0x6F70_7573, codecMP3: UInt32 = 0x2E6D_7033

    /// Parses the first sample entry of the `stsd` box `stsd` in `bytes`.
    static func parse(_ bytes: [UInt8], stsd: MP4Box) throws -> MP4AudioEntry {
        var c = MP4Cursor(bytes, stsd.payload, box: "stsd")
        _ = try c.versionAndFlags()
        let count = try c.u32()
        guard count >= 1 else { throw MP4Problem("the audio track's stsd box lists no sample entry") }
        guard let entry = try mp4Children(bytes, c.position..<stsd.payload.upperBound, parent: "stsd").first else {
            throw MP4Problem("the audio track's stsd box lists \(count) sample entries but holds none")
        }
        var e = MP4Cursor(bytes, entry.payload, box: entry.name)
        try e.skip(8)                                   // reserved, data_reference_index
        let version = try e.u16()
        try e.skip(6)                                   // revision, vendor
        var channels = try e.u16()
        var bits = try e.u16()
        try e.skip(4)                                   // compression ID, packet size
        var rate = Double(try e.u32()) / 65_536         // 16.16 fixed point
        switch version {
        case 0: break
        case 1: try e.skip(16)                          // samples per packet, bytes per packet/frame/sample
        case 2:
            try e.skip(4)                               // size of struct only
            rate = Double(bitPattern: try e.u64())
            channels = Int(try e.u32())
            try e.skip(4)                               // always 0x7F000000
            bits = Int(try e.u32())
            try e.skip(12)                              // format flags, bytes/frames per packet
        default:
            throw MP4Problem("the \(entry.name) sample entry has version \(version), which is neither ISO (0) nor QuickTime (1, 2)")
        }
        var children = try mp4Children(bytes, e.position..<entry.payload.upperBound, parent: entry.name)
        if let wave = children.first("wave") { children += try mp4Children(bytes, wave.payload, parent: "wave") }
        var result = MP4AudioEntry(codec: entry.type, sampleRate: rate.isFinite && rate > 0 ? rate : 0,
                                   channelCount: channels, bitsPerSample: bits, cookie: [], preSkip: nil)
        switch entry.type {
        case fcc("alac"):
            guard let config = children.first("alac") else { throw MP4Problem("the alac sample entry has no alac configuration box") }
            var a = MP4Cursor(bytes, config.payload, box: "alac")
            _ = try a.versionAndFlags()
            guard a.remaining >= 24 else { throw MP4Problem("the ALACSpecificConfig is \(a.remaining) bytes, not 24") }
            let cookie = try a.take(24)
            var f = MP4Cursor(cookie, 0..<24, box: "alac")
            try f.skip(5)
            result.bitsPerSample = try f.u8()
            try f.skip(3)
            result.channelCount = try f.u8()
            try f.skip(10)
            let cookieRate = try f.u32()
            if cookieRate > 0 { result.sampleRate = Double(cookieRate) }
            result.cookie = cookie
            if let chan = children.first("chan") { result.cookie += bytes[chan.start..<chan.payload.upperBound] }
        case fcc("fLaC"):
            guard let config = children.first("dfLa") else { throw MP4Problem("the fLaC sample entry has no dfLa box") }
            var d = MP4Cursor(bytes, config.payload, box: "dfLa")
            let (v, _) = try d.versionAndFlags()
            guard v == 0 else { throw MP4Problem("the dfLa box has version \(v); only 0 is defined") }
            let blocks = try d.take(d.remaining)
            result.codec = codecFLAC
            let stream = [0x66, 0x4C, 0x61, 0x43] + blocks
            let info: FLACStreamInfo
            do {
                info = try stream.withUnsafeBytes { try FLACStreamHeader.parse($0).info }
            } catch let error as CodecError {
                throw MP4Problem("the dfLa box's FLAC metadata is damaged: \(error.message)")
            }
            result.sampleRate = Double(info.sampleRate)
            result.channelCount = info.channelCount
            result.bitsPerSample = info.bitsPerSample
            result.cookie = blocks
        case fcc("mp4a"):
            guard let esds = children.first("esds") else { throw MP4Problem("the mp4a sample entry has no esds box") }
            let (objectType, info) = try decoderConfig(bytes, esds)
            switch objectType {
            case 0x40, 0x66, 0x67, 0x68: result.codec = codecAAC
            case 0x69, 0x6B: result.codec = codecMP3
            default: result.codec = entry.type
            }
            result.cookie = info
            result.bitsPerSample = 0
        case fcc("Opus"):
            guard let dops = children.first("dOps") else { throw MP4Problem("the Opus sample entry has no dOps box") }
            var d = MP4Cursor(bytes, dops.payload, box: "dOps")
            let v = try d.u8()
            guard v == 0 else { throw MP4Problem("the dOps box has version \(v); only 0 is defined") }
            result.channelCount = try d.u8()
            result.preSkip = try d.u16()
            result.cookie = Array(bytes[dops.payload])
            result.codec = codecOpus
            result.sampleRate = 48_000                  // Opus always decodes at 48 kHz (RFC 7845 §4.2)
            result.bitsPerSample = 0
        default:
            break
        }
        // The widest rate any codec here allows is FLAC's 1,048,575 Hz; more is a damaged field.
        guard result.sampleRate <= 1_048_575 else { throw MP4Problem("the \(entry.name) sample entry's sample rate \(result.sampleRate) Hz is not plausible") }
        guard result.channelCount > 0 else { throw MP4Problem("the \(entry.name) sample entry declares 0 channels") }
        return result
    }

    /// The object type indication and DecoderSpecificInfo bytes of an `esds` box (ISO/IEC
    /// 14496-1 §7.2.6.5: ES_Descriptor tag 3 → DecoderConfigDescriptor tag 4 →
    /// DecoderSpecificInfo tag 5; lengths in 7-bit groups, high bit = more).
    static func decoderConfig(_ bytes: [UInt8], _ esds: MP4Box) throws -> (objectType: Int, info: [UInt8]) {
        var c = MP4Cursor(bytes, esds.payload, box: "esds")
        _ = try c.versionAndFlags()
        func descriptor(_ c: inout MP4Cursor) throws -> (tag: Int, length: Int) {
            let tag = try c.u8()
            var length = 0
            for _ in 0..<4 {
                let b = try c.u8()
                length = length << 7 | (b & 0x7F)
                if b & 0x80 == 0 { break }
            }
            try c.need(length)
            return (tag, length)
        }
        var d = try descriptor(&c)
        guard d.tag == 3 else { throw MP4Problem("the esds box starts with descriptor tag \(d.tag), not an ES_Descriptor (3)") }
        try c.skip(2)                                   // ES_ID
        let flags = try c.u8()
        if flags & 0x80 != 0 { try c.skip(2) }          // dependsOn_ES_ID
        if flags & 0x40 != 0 { try c.skip(try c.u8()) } // URL
        if flags & 0x20 != 0 { try c.skip(2) }          // OCR_ES_Id
        d = try descriptor(&c)
        guard d.tag == 4 else { throw MP4Problem("the esds box has descriptor tag \(d.tag) where the DecoderConfigDescriptor (4) belongs") }
        let configEnd = c.position + d.length
        let objectType = try c.u8()
        try c.skip(12)                                  // stream type, buffer size, max and average bit rate
        guard c.position < configEnd else { return (objectType, []) }
        d = try descriptor(&c)
        guard d.tag == 5 else { return (objectType, []) }
        return (objectType, try c.take(d.length))
    }
}

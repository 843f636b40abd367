// Vorbis behind the registry's AudioPacketDecoder: the three header packets arrive as the magic
// cookie, audio packets one at a time, decoded samples leave as interleaved Float32 (bit
// patterns in the Int32 buffer: see AudioFloatPacketDecoder).
//
// The cookie is the three header packets in Xiph lacing, as Matroska's A_VORBIS CodecPrivate
// stores them (and as ffmpeg's extradata for Vorbis): a byte holding the packet count less one
// (2), the sizes of the first two packets each as a run of 255s and a final byte below 255,
// then the three packets back to back (the last one's size is what remains).
//
// Format ID: Core Audio declares none for Vorbis (Apple's "Audio Format Identifiers" list has
// Opus, FLAC, AMR … and no Vorbis), so this library uses 'vorb' (`vorbisFormatID`). Apple's
// frameworks would not recognise the ID: a settings dictionary carrying it reads as an unknown
// codec there, never as another codec.

/// 'vorb': this library's format ID for Vorbis (Core Audio defines none).
public let vorbisFormatID: UInt32 = 0x766F_7262

public enum VorbisCookie {
    /// The cookie for `headers` (identification, comment, setup).
    public static func make(_ headers: [[UInt8]]) -> [UInt8] {
        guard headers.count == 3 else { return [] }
        var out: [UInt8] = [2]
        for h in headers.prefix(2) {
            var n = h.count
            while n >= 255 { out.append(255); n -= 255 }
            out.append(UInt8(n))
        }
        for h in headers { out += h }
        return out
    }

    /// The three header packets of `cookie`, or nil when it is not a Xiph-laced triple.
    public static func split(_ cookie: [UInt8]) -> [[UInt8]]? {
        guard cookie.first == 2 else { return nil }
        var at = 1
        var sizes: [Int] = []
        for _ in 0..<2 {
            var n = 0
            while true {
                guard at < cookie.count else { return nil }
                let b = Int(cookie[at]); at += 1
                n += b
                if b < 255 { break }
            }
            sizes.append(n)
        }
        guard sizes[0] + sizes[1] <= cookie.count - at else { return nil }
        let first = Array(cookie[at..<(at + sizes[0])])
        let second = Array(cookie[(at + sizes[0])..<(at + sizes[0] + sizes[1])])
        let third = Array(cookie[(at + sizes[0] + sizes[1])...])
        return [first, second, third]
    }
}

public final class VorbisPacketDecoder: AudioFloatPacketDecoder {
    public let decoder: VorbisDecoder
    public var channelCount: Int { decoder.channelCount }
    public var bitsPerSample: Int { 32 }
    public var sampleRate: Double { Double(decoder.sampleRate) }
    public var maximumFramesPerPacket: Int { decoder.maximumFramesPerPacket }
    /// A packet's samples need the packet before it (the overlap).
    public var prerollPackets: Int { 1 }

    public init(setup: AudioStreamSetup) throws {
        guard let headers = VorbisCookie.split(setup.magicCookie) else {
            throw CodecError(.corrupt, "the Vorbis setup (magic cookie) is not the three header packets")
        }
        decoder = try headers[0].withUnsafeBytes { id in
            try headers[2].withUnsafeBytes { s in try VorbisDecoder(identification: id, setup: s) }
        }
    }

    public func decode(_ packet: UnsafeRawBufferPointer, into output: UnsafeMutablePointer<Int32>, frameCapacity: Int) throws -> Int {
        let frames = min(decoder.decode(packet), frameCapacity)
        let channels = channelCount
        let data = decoder.channelData
        output.withMemoryRebound(to: Float.self, capacity: frames * channels) { out in
            if channels == 1 {
                out.update(from: data[0], count: frames)
            } else {
                for c in 0..<channels {
                    let src = data[c]
                    var o = out + c
                    for i in 0..<frames { o.pointee = src[i]; o += channels }
                }
            }
        }
        return frames
    }

    public func reset() { decoder.reset() }
}

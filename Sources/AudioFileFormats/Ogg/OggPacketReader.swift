// Ogg files (`.ogg`, `.oga`) → PacketIndex for their first logical stream and the chained links
// after it that continue it (OggChain.swift): OggDemuxer finds each link's packets, the codec's
// mapping (identified by the first packet) turns them into an index.
// The mappings are FLAC's (OggFLACMapping) and Vorbis's (OggVorbisMapping); Opus and Speex streams are recognised
// and refused with kAudioFileUnsupportedDataFormatError naming the codec.
//
// Seeking: the index is built on open (every page visited once, its CRC checked), not by
// bisection over pages at seek time. PacketFileReader, which reads every container, works from
// a complete packet table — each packet's first frame, so a seek lands on its packet by binary
// search and decodes only that packet, sample-accurately; the exact length (`frameCount`) needs
// the last page's granule position anyway; and the scan is what checks the pages. Its cost is one
// sequential read of the file at open, with a table-driven CRC over every byte.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

public enum OggPacketReader {
    /// True when `head` starts with an Ogg page's capture pattern "OggS".
    public static func sniff(_ head: [UInt8]) -> Bool { OggPage.sniff(head) }

    /// The first logical stream of the Ogg file at `path`. Throws AudioFileFormatError (Apple's
    /// OSStatus and a sentence naming the file) when it cannot be opened, holds no stream, holds a
    /// codec this library does not read, or its headers are damaged.
    public static func packetIndex(path: String) throws -> PacketIndex {
        try wrap(path) { try withStreamBytes(path: path) { try parse(size: $0, read: $1) } }
    }

    /// The same from bytes in memory; `name` stands for the file in messages.
    public static func packetIndex(bytes: [UInt8], name: String = "the Ogg data") throws -> PacketIndex {
        try wrap(name) { try withStreamBytes(bytes) { try parse(size: $0, read: $1) } }
    }

    private static func wrap(_ name: String, _ body: () throws -> PacketIndex) throws -> PacketIndex {
        do { return try body() } catch let problem as StreamProblem {
            throw AudioFileFormatError(code: problem.code, message: "\(quoted(name)) cannot be read as an Ogg file: \(problem.message)")
        }
    }

    static func parse(size: Int64, read: (Int64, Int) throws -> [UInt8]) throws -> PacketIndex {
        try OggChain.packetIndex(size: size, read: read)
    }

    /// The index of one link's stream, through its codec's mapping; throws StreamProblem when the
    /// codec is not one this library reads or its headers are damaged.
    static func linkIndex(_ stream: OggStreamPackets, read: (Int64, Int) throws -> [UInt8]) throws -> PacketIndex {
        guard let first = stream.packets.first else {
            throw StreamProblem("its stream (serial \(stream.serialNumber)) has no complete packet")
        }
        let id = first.prefix
        if OggFLACMapping.identifies(id) { return try OggFLACMapping.packetIndex(stream) }
        let unsupported = AudioFileFormatError.Code.unsupportedDataFormat
        func starts(_ text: String, at k: Int = 0) -> Bool { id.count >= k + text.utf8.count && Array(id[k..<(k + text.utf8.count)]) == Array(text.utf8) }
        if OggVorbisMapping.identifies(id) { return try OggVorbisMapping.packetIndex(stream, read: read) }
        if starts("OpusHead") { throw StreamProblem("it holds Opus audio, which has no decoder in this library yet", code: unsupported) }
        if starts("Speex   ") { throw StreamProblem("it holds Speex audio, which has no decoder in this library", code: unsupported) }
        throw StreamProblem("its first stream's codec is not one this library reads (the identification packet does not start as FLAC's, Vorbis's, Opus's or Speex's)",
                         code: unsupported)
    }
}

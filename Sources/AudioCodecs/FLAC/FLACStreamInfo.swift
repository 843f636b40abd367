// A native FLAC stream's header (RFC 9639 §8): the "fLaC" marker, then metadata blocks, the
// first of which is STREAMINFO. Other blocks (padding, application, seek table, Vorbis comment,
// cue sheet, picture) are skipped here; their byte ranges are kept for whoever wants them.

/// What STREAMINFO says about the stream.
public struct FLACStreamInfo: Equatable {
    public var minimumBlockSize: Int
    public var maximumBlockSize: Int
    /// 0: unknown.
    public var minimumFrameSize: Int
    public var maximumFrameSize: Int
    public var sampleRate: Int
    public var channelCount: Int
    public var bitsPerSample: Int
    /// Interchannel samples in the stream; nil when the encoder did not know.
    public var totalSamples: Int64?
    /// MD5 of the unencoded audio (all zero: not computed by the encoder).
    public var md5: [UInt8]

    public init(minimumBlockSize: Int, maximumBlockSize: Int, minimumFrameSize: Int, maximumFrameSize: Int, sampleRate: Int,
                channelCount: Int, bitsPerSample: Int, totalSamples: Int64?, md5: [UInt8]) {
        self.minimumBlockSize = minimumBlockSize
        self.maximumBlockSize = maximumBlockSize
        self.minimumFrameSize = minimumFrameSize
        self.maximumFrameSize = maximumFrameSize
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bitsPerSample = bitsPerSample
        self.totalSamples = totalSamples
        self.md5 = md5
    }
}

/// A metadata block's type and where its body lies in the stream.
public struct FLACMetadataBlock: Equatable {
    /// 0 STREAMINFO, 1 PADDING, 2 APPLICATION, 3 SEEKTABLE, 4 VORBIS_COMMENT, 5 CUESHEET, 6 PICTURE.
    public var type: Int
    public var offset: Int
    public var length: Int
}

public enum FLACStreamHeader {
    /// Parses the marker and metadata blocks of `bytes`; returns STREAMINFO, every block, and the
    /// offset of the first frame.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws -> (info: FLACStreamInfo, blocks: [FLACMetadataBlock], audioOffset: Int) {
        let p = bytes.bindMemory(to: UInt8.self)
        guard p.count >= 4, p[0] == 0x66, p[1] == 0x4C, p[2] == 0x61, p[3] == 0x43 else {
            throw CodecError(.notThisFormat, "not a FLAC stream (no \"fLaC\" marker at the start)")
        }
        var offset = 4
        var blocks: [FLACMetadataBlock] = []
        var info: FLACStreamInfo?
        var last = false
        while !last {
            guard offset + 4 <= p.count else { throw CodecError(.truncated, "FLAC: the metadata ends before its last block") }
            last = p[offset] & 0x80 != 0
            let type = Int(p[offset] & 0x7F)
            let length = Int(p[offset + 1]) << 16 | Int(p[offset + 2]) << 8 | Int(p[offset + 3])
            offset += 4
            guard type != 127 else { throw CodecError(.corrupt, "FLAC: metadata block type 127 is forbidden") }
            guard offset + length <= p.count else {
                throw CodecError(.truncated, "FLAC: metadata block \(blocks.count) (type \(type)) claims \(length) bytes but the data ends first")
            }
            if blocks.isEmpty {
                guard type == 0 else { throw CodecError(.corrupt, "FLAC: the first metadata block is type \(type), not STREAMINFO") }
                guard length >= 34 else { throw CodecError(.corrupt, "FLAC: STREAMINFO is \(length) bytes, not 34") }
                info = try streamInfo(p.baseAddress! + offset)
            }
            blocks.append(FLACMetadataBlock(type: type, offset: offset, length: length))
            offset += length
        }
        return (info!, blocks, offset)
    }

    static func streamInfo(_ b: UnsafePointer<UInt8>) throws -> FLACStreamInfo {
        var r = FLACBitReader(b, count: 34)
        let minBlock = Int(try r.read(16)), maxBlock = Int(try r.read(16))
        let minFrame = Int(try r.read(24)), maxFrame = Int(try r.read(24))
        let rate = Int(try r.read(20))
        let channels = Int(try r.read(3)) + 1
        let bits = Int(try r.read(5)) + 1
        let total = Int64(try r.read(36))
        let md5 = (0..<16).map { b[18 + $0] }
        guard minBlock >= 16 || minBlock == maxBlock, maxBlock >= 16, minBlock <= maxBlock else {
            throw CodecError(.corrupt, "FLAC: STREAMINFO block sizes \(minBlock)…\(maxBlock) are invalid (16…65535)")
        }
        guard rate > 0 else { throw CodecError(.corrupt, "FLAC: STREAMINFO sample rate is 0") }
        guard bits >= 4 else { throw CodecError(.corrupt, "FLAC: STREAMINFO says \(bits) bits per sample (at least 4)") }
        return FLACStreamInfo(minimumBlockSize: minBlock, maximumBlockSize: maxBlock, minimumFrameSize: minFrame, maximumFrameSize: maxFrame,
                              sampleRate: rate, channelCount: channels, bitsPerSample: bits, totalSamples: total == 0 ? nil : total, md5: md5)
    }
}

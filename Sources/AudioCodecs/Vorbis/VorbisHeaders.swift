// The three Vorbis header packets (Vorbis I specification, section 4.2): identification
// (channels, rate, the two block sizes), comment (skipped here: tags are not decoding state)
// and setup (codebooks, time-domain transforms (placeholders), floors, residues, mappings,
// modes). Every count is checked against the bits the packet has left before anything is
// allocated for it, and every cross-reference (a floor's codebook, a mapping's residue, a
// mode's mapping) against what was declared: a damaged header is a CodecError, never a trap.

/// The identification header.
public struct VorbisIdentification: Sendable, Equatable {
    public var channelCount: Int
    public var sampleRate: Int
    public var bitrateMaximum: Int32, bitrateNominal: Int32, bitrateMinimum: Int32
    /// The short and long block sizes (powers of two, 64 ... 8192, short <= long).
    public var blockSizes: (Int, Int) { (shortBlock, longBlock) }
    public var shortBlock: Int
    public var longBlock: Int

    /// Parses an identification header packet (type 1, "vorbis").
    public init(_ packet: UnsafeRawBufferPointer) throws {
        guard packet.count >= 30, packet[0] == 1, Array(packet[1..<7]) == Array("vorbis".utf8) else {
            throw CodecError(.notThisFormat, "the first packet is not a Vorbis identification header")
        }
        var r = VorbisBitReader(UnsafeRawBufferPointer(rebasing: packet[7...]))
        let version = r.read(32)
        guard version == 0 else { throw CodecError(.unsupported, "the stream declares Vorbis version \(version); only version 0 (Vorbis I) exists") }
        channelCount = r.int(8)
        sampleRate = r.int(32)
        bitrateMaximum = Int32(bitPattern: r.read(32))
        bitrateNominal = Int32(bitPattern: r.read(32))
        bitrateMinimum = Int32(bitPattern: r.read(32))
        shortBlock = 1 << r.int(4)
        longBlock = 1 << r.int(4)
        let framing = r.flag()
        guard channelCount > 0 else { throw CodecError(.corrupt, "the Vorbis identification header declares no channels") }
        guard sampleRate > 0, sampleRate < 1 << 31 else { throw CodecError(.corrupt, "the Vorbis identification header declares a sample rate of \(sampleRate) Hz") }
        guard shortBlock >= 64, longBlock <= 8192, shortBlock <= longBlock else {
            throw CodecError(.corrupt, "the Vorbis identification header declares block sizes \(shortBlock) and \(longBlock) (64 ≤ short ≤ long ≤ 8192 are allowed)")
        }
        guard framing else { throw CodecError(.corrupt, "the Vorbis identification header's framing bit is not set") }
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.channelCount == b.channelCount && a.sampleRate == b.sampleRate && a.shortBlock == b.shortBlock && a.longBlock == b.longBlock
    }
}

struct VorbisMapping {
    /// (magnitude, angle) channel pairs, in the order decoded.
    var coupling: [(magnitude: Int, angle: Int)] = []
    /// The submap of each channel.
    var mux: [Int] = []
    /// Per submap: its floor and residue numbers.
    var submapFloor: [Int] = []
    var submapResidue: [Int] = []
}

struct VorbisMode {
    var longBlock: Bool
    var mapping: Int
}

enum VorbisFloor {
    case zero(VorbisFloor0)
    case one(VorbisFloor1)
}

/// The setup header, ready for decoding.
final class VorbisSetup {
    let codebooks: [VorbisCodebook]
    let floors: [VorbisFloor]
    let residues: [VorbisResidue]
    let mappings: [VorbisMapping]
    let modes: [VorbisMode]

    init(_ packet: UnsafeRawBufferPointer, channels: Int) throws {
        guard packet.count >= 7, packet[0] == 5, Array(packet[1..<7]) == Array("vorbis".utf8) else {
            throw CodecError(.notThisFormat, "the third Vorbis header packet is not a setup header")
        }
        var r = VorbisBitReader(UnsafeRawBufferPointer(rebasing: packet[7...]))
        func truncated() -> CodecError { CodecError(.truncated, "the Vorbis setup header ends early") }

        let codebookCount = r.int(8) + 1
        var codebooks: [VorbisCodebook] = []
        // (each codebook is bounded on its own; an ordered codebook describes millions of entries
        // in a few bits, so a hostile header of 256 of them would claim gigabytes: the setup's
        // codebooks together stay within one codebook's bound — libvorbis's files use thousands)
        var points = 0
        for _ in 0..<codebookCount {
            let book = try VorbisCodebook(&r)
            points += book.entries + book.vectors.count
            guard points <= 2 * VorbisCodebook.maximumEntries else {
                throw CodecError(.unsupported, "the Vorbis setup header's codebooks hold more than \(2 * VorbisCodebook.maximumEntries) entries and vector values together, more than this decoder allows")
            }
            codebooks.append(book)
        }

        let timeCount = r.int(6) + 1
        for _ in 0..<timeCount {
            guard r.read(16) == 0 else { throw CodecError(.corrupt, "the Vorbis setup header has a nonzero time-domain transform type") }
        }

        let floorCount = r.int(6) + 1
        var floors: [VorbisFloor] = []
        for _ in 0..<floorCount {
            switch r.read(16) {
            case 0: floors.append(.zero(try VorbisFloor0(&r, codebooks: codebooks)))
            case 1: floors.append(.one(try VorbisFloor1(&r, codebooks: codebooks)))
            case let t: throw CodecError(.corrupt, "the Vorbis setup header has floor type \(t) (0 and 1 are defined)")
            }
        }

        let residueCount = r.int(6) + 1
        var residues: [VorbisResidue] = []
        for _ in 0..<residueCount {
            let t = Int(r.read(16))
            guard t <= 2 else { throw CodecError(.corrupt, "the Vorbis setup header has residue type \(t) (0, 1 and 2 are defined)") }
            residues.append(try VorbisResidue(type: t, &r, codebooks: codebooks))
        }

        let mappingCount = r.int(6) + 1
        var mappings: [VorbisMapping] = []
        for _ in 0..<mappingCount {
            guard r.read(16) == 0 else { throw CodecError(.corrupt, "the Vorbis setup header has a mapping of a type other than 0") }
            var m = VorbisMapping()
            let submaps = r.flag() ? r.int(4) + 1 : 1
            if r.flag() {
                let steps = r.int(8) + 1
                let bits = vorbisILog(channels - 1)
                for _ in 0..<steps {
                    let magnitude = r.int(bits), angle = r.int(bits)
                    guard magnitude != angle, magnitude < channels, angle < channels else {
                        throw CodecError(.corrupt, "a Vorbis mapping couples channels \(magnitude) and \(angle) of \(channels)")
                    }
                    m.coupling.append((magnitude, angle))
                }
            }
            guard r.read(2) == 0 else { throw CodecError(.corrupt, "a Vorbis mapping's reserved field is not zero") }
            if submaps > 1 {
                for _ in 0..<channels {
                    let s = r.int(4)
                    guard s < submaps else { throw CodecError(.corrupt, "a Vorbis mapping puts a channel in submap \(s) of \(submaps)") }
                    m.mux.append(s)
                }
            } else {
                m.mux = [Int](repeating: 0, count: channels)
            }
            for _ in 0..<submaps {
                _ = r.read(8)
                let f = r.int(8), res = r.int(8)
                guard f < floors.count, res < residues.count else { throw CodecError(.corrupt, "a Vorbis mapping names floor \(f) or residue \(res), beyond those declared") }
                m.submapFloor.append(f)
                m.submapResidue.append(res)
            }
            guard !r.pastEnd else { throw truncated() }
            mappings.append(m)
        }

        let modeCount = r.int(6) + 1
        var modes: [VorbisMode] = []
        for _ in 0..<modeCount {
            let long = r.flag()
            let window = r.read(16), transform = r.read(16)
            let mapping = r.int(8)
            guard window == 0, transform == 0 else { throw CodecError(.corrupt, "a Vorbis mode has window type \(window) and transform type \(transform) (0 is defined)") }
            guard mapping < mappings.count else { throw CodecError(.corrupt, "a Vorbis mode names mapping \(mapping) of \(mappings.count)") }
            modes.append(VorbisMode(longBlock: long, mapping: mapping))
        }
        guard r.flag(), !r.pastEnd else { throw CodecError(.corrupt, "the Vorbis setup header's framing bit is not set (or the header is cut short)") }
        self.codebooks = codebooks
        self.floors = floors
        self.residues = residues
        self.mappings = mappings
        self.modes = modes
    }

    /// Bits of an audio packet's mode number.
    var modeBits: Int { vorbisILog(modes.count - 1) }

    /// Whether audio packet `packet` is a long block: nil when it is not an audio packet or
    /// names a mode that does not exist (the packet decodes to nothing).
    func isLongBlock(_ packet: UnsafeRawBufferPointer) -> Bool? {
        var r = VorbisBitReader(packet)
        guard packet.count > 0, r.read(1) == 0 else { return nil }
        let mode = r.int(modeBits)
        guard mode < modes.count, !r.pastEnd else { return nil }
        return modes[mode].longBlock
    }
}

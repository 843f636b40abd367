// A Vorbis codebook (Vorbis I specification, section 3): a Huffman code over `entries` entries
// given by codeword lengths alone, and optionally a vector-quantisation table (lookup type 1, a
// lattice of `lookupValues`^dimensions points; type 2, one listed vector per entry).
//
// Codewords (section 3.2.1): entries take, in order, the numerically lowest free codeword of
// their length, as a tree filled leftmost-first. `marker[len]` tracks the next free codeword of
// each length; an entry that finds none makes the tree over-full, which the spec forbids.
// Codewords are read from the packet MSB of the codeword first, one bit at a time, so the bits as
// they sit in the LSB-first stream are the codeword reversed: the decode table is indexed by
// the next `tableBits` stream bits (each short codeword's reversal, repeated over every suffix);
// longer codewords fall back to a scan of the long ones, which are rare by construction (they
// are the improbable entries).
//
// VQ vectors are unpacked once at setup into `vectors` (entries × dimensions floats), so residue
// decode adds a row. Its size is bounded (`maximumVectorValues`) since a setup header of a few
// bytes can declare an ordered codebook of 16 million entries.

struct VorbisCodebook {
    let dimensions: Int
    let entries: Int
    /// Codeword length per entry, 0 = unused.
    let lengths: [UInt8]
    /// tableBits-wide lookup: (entry << 8 | length), or -1 for "longer than the table" / invalid.
    private let table: [Int32]
    let tableBits: Int
    /// Codewords longer than tableBits: (reversed codeword, length, entry), by length.
    private let long: [(code: UInt32, length: Int, entry: Int32)]
    /// The only used entry of a one-entry codebook, which decodes without reading a codeword.
    private let single: Int32?
    /// entries × dimensions VQ values; empty when lookup type is 0.
    let vectors: [Float]
    var hasLookup: Bool { !vectors.isEmpty }

    static let maximumVectorValues = 1 << 22
    static let maximumEntries = 1 << 22

    /// Reads one codebook from the setup header.
    init(_ r: inout VorbisBitReader) throws {
        guard r.read(24) == 0x564342 else { throw CodecError(.corrupt, "a Vorbis codebook lacks its sync pattern") }
        dimensions = r.int(16)
        entries = r.int(24)
        guard dimensions > 0, entries > 0 else { throw CodecError(.corrupt, "a Vorbis codebook has \(entries) entries of \(dimensions) dimensions") }
        let ordered = r.flag()
        if !ordered {
            // One bit at least per entry follows: a count beyond the bits left is a lie.
            guard entries <= r.remaining else { throw CodecError(.truncated, "a Vorbis codebook claims \(entries) entries, more than the setup header's bits") }
        }
        guard entries <= Self.maximumEntries else { throw CodecError(.unsupported, "a Vorbis codebook has \(entries) entries, more than this decoder allows (\(Self.maximumEntries))") }
        var lengths = [UInt8](repeating: 0, count: entries)
        if !ordered {
            let sparse = r.flag()
            for i in 0..<entries {
                if sparse && !r.flag() { continue }
                lengths[i] = UInt8(r.read(5) + 1)
            }
        } else {
            var current = 0
            var length = r.int(5) + 1
            while current < entries {
                let number = r.int(vorbisILog(entries - current))
                guard length <= 32, current + number <= entries else { throw CodecError(.corrupt, "a Vorbis codebook's ordered lengths overrun its entries") }
                for i in current..<(current + number) { lengths[i] = UInt8(length) }
                current += number
                length += 1
                if r.pastEnd { break }
            }
        }
        guard !r.pastEnd else { throw CodecError(.truncated, "the Vorbis setup header ends inside a codebook") }
        self.lengths = lengths

        // Vector lookup.
        let lookupType = r.int(4)
        var vectors: [Float] = []
        switch lookupType {
        case 0: break
        case 1, 2:
            let minimum = vorbisFloat32Unpack(r.read(32)), delta = vorbisFloat32Unpack(r.read(32))
            let valueBits = r.int(4) + 1
            let sequence = r.flag()
            let lookupValues: Int
            if lookupType == 1 {
                lookupValues = vorbisLookup1Values(entries: entries, dimensions: dimensions)
            } else {
                let (v, o) = entries.multipliedReportingOverflow(by: dimensions)
                guard !o else { throw CodecError(.corrupt, "a Vorbis codebook's lookup table overflows") }
                lookupValues = v
            }
            guard lookupValues <= r.remaining / valueBits else { throw CodecError(.truncated, "a Vorbis codebook claims \(lookupValues) lookup values, more than the setup header holds") }
            let (total, o) = entries.multipliedReportingOverflow(by: dimensions)
            guard !o, total <= Self.maximumVectorValues else { throw CodecError(.unsupported, "a Vorbis codebook's vector table (\(entries) × \(dimensions)) is larger than this decoder allows") }
            var multiplicands = [UInt32](repeating: 0, count: lookupValues)
            for i in 0..<lookupValues { multiplicands[i] = r.read(valueBits) }
            guard !r.pastEnd else { throw CodecError(.truncated, "the Vorbis setup header ends inside a codebook's lookup table") }
            vectors = [Float](repeating: 0, count: total)
            let entries = self.entries, dimensions = self.dimensions
            vectors.withUnsafeMutableBufferPointer { out in
                for e in 0..<entries {
                    var last: Float = 0
                    var divisor = 1
                    for d in 0..<dimensions {
                        let offset = lookupType == 1 ? (e / divisor) % max(1, lookupValues) : e * dimensions + d
                        let m = lookupValues == 0 ? 0 : Float(multiplicands[offset])
                        let value = m * delta + minimum + last
                        out[e * dimensions + d] = value
                        if sequence { last = value }
                        if lookupType == 1 { divisor = divisor.multipliedReportingOverflow(by: lookupValues).overflow ? Int.max : divisor * lookupValues }
                    }
                }
            }
        default:
            throw CodecError(.corrupt, "a Vorbis codebook has lookup type \(lookupType) (0, 1 or 2 are defined)")
        }
        self.vectors = vectors

        // Codewords.
        var marker = [UInt32](repeating: 0, count: 33)
        var codes = [UInt32](repeating: 0, count: entries)
        var used = 0, lastUsed = 0, maxLength = 0
        for i in 0..<entries where lengths[i] > 0 {
            let length = Int(lengths[i])
            let entry = marker[length]
            if length < 32 && entry >> UInt32(length) != 0 {
                throw CodecError(.corrupt, "a Vorbis codebook's lengths over-fill its Huffman tree")
            }
            codes[i] = entry
            used += 1; lastUsed = i; maxLength = max(maxLength, length)
            var j = length
            while j > 0 {
                if marker[j] & 1 != 0 {
                    marker[j] = j == 1 ? marker[1] + 1 : marker[j - 1] << 1
                    break
                }
                marker[j] += 1
                j -= 1
            }
            var e = entry
            j = length + 1
            while j < 33 {
                if marker[j] >> 1 == e { e = marker[j]; marker[j] = marker[j - 1] << 1 } else { break }
                j += 1
            }
        }
        single = used == 1 ? Int32(lastUsed) : nil
        let bits = min(maxLength, 10)
        tableBits = bits
        var table = [Int32](repeating: -1, count: 1 << bits)
        var long: [(code: UInt32, length: Int, entry: Int32)] = []
        for i in 0..<entries where lengths[i] > 0 {
            let length = Int(lengths[i])
            let reversed = length == 0 ? 0 : codes[i].bitReversed >> UInt32(32 - length)
            if length <= bits {
                var k = Int(reversed)
                while k < 1 << bits { table[k] = Int32(i) << 8 | Int32(length); k += 1 << length }
            } else {
                long.append((reversed, length, Int32(i)))
            }
        }
        long.sort { $0.length < $1.length }
        self.table = table
        self.long = long
    }

    /// The next entry number, or -1 at end of packet (or on a codeword the tree does not hold).
    @inline(__always)
    func decode(_ r: inout VorbisBitReader) -> Int {
        if let single {
            // One used entry: its codeword (all zeros) is consumed, whatever the bits say.
            r.skip(Int(lengths[Int(single)]))
            return r.pastEnd ? -1 : Int(single)
        }
        let bits = r.peek(32)
        let hit = table.withUnsafeBufferPointer { $0[Int(bits & ((1 << UInt32(tableBits)) - 1))] }
        if hit >= 0 {
            r.skip(Int(hit & 0xFF))
            return r.pastEnd ? -1 : Int(hit >> 8)
        }
        for c in long {
            let mask: UInt32 = c.length >= 32 ? ~0 : (1 << UInt32(c.length)) - 1
            if bits & mask == c.code {
                r.skip(c.length)
                return r.pastEnd ? -1 : Int(c.entry)
            }
        }
        r.skip(r.remaining + 1)
        return -1
    }
}

extension UInt32 {
    /// The bits in reverse order.
    var bitReversed: UInt32 {
        var v = self
        v = (v >> 1) & 0x5555_5555 | (v & 0x5555_5555) << 1
        v = (v >> 2) & 0x3333_3333 | (v & 0x3333_3333) << 2
        v = (v >> 4) & 0x0F0F_0F0F | (v & 0x0F0F_0F0F) << 4
        v = (v >> 8) & 0x00FF_00FF | (v & 0x00FF_00FF) << 8
        return v >> 16 | v << 16
    }
}

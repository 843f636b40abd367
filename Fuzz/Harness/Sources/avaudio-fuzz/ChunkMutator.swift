// Structure-aware mutation of chunk-tree files (RIFF/RF64/BW64, IFF/AIFF, CAF).
//
// Why: plain byte flips rarely get past a chunk walker, because a flip that changes a payload's
// length or a chunk's size desynchronises every chunk after it, and one that lands in a size field
// usually just ends the walk. This mutator parses the input into its chunks, changes one thing at
// the level of chunks and fields (a payload's bytes, a field set to a boundary value, a chunk
// deleted, duplicated, moved, renamed or inserted), and writes the tree back with every size field
// consistent — including the RIFF/FORM size and, for RF64/BW64, the 'ds64' sizes. A few mutations
// break consistency on purpose (one size field set to a lie, the file cut short), since readers
// must survive exactly those.
//
// Inputs that do not parse (too short for the file header) fall back to libFuzzer's mutator.

/// The chunk layout of a container family.
enum ChunkStructure {
    /// 'RIFF'/'RIFX'/'RF64'/'BW64' + size + form; chunks: ID, 32-bit size, payload, pad to even.
    case riff
    /// 'FORM' + size + form (AIFF, AIFF-C); chunks as RIFF but big-endian.
    case iff
    /// 'caff' + version + flags; chunks: ID, 64-bit big-endian size, payload, no padding.
    case caf

    var fileHeaderLength: Int { self == .caf ? 8 : 12 }
    var chunkHeaderLength: Int { self == .caf ? 12 : 8 }
    var padsToEven: Bool { self != .caf }

    /// Chunk IDs worth inserting or renaming to: those the readers look at, and common others.
    var knownIDs: [String] {
        switch self {
        case .riff: return ["fmt ", "data", "ds64", "fact", "LIST", "JUNK", "bext", "cue ", "smpl", "PEAK", "iXML", "chna", "axml"]
        case .iff: return ["COMM", "SSND", "FVER", "MARK", "INST", "APPL", "NAME", "ANNO", "COMT", "ID3 ", "CHAN"]
        case .caf: return ["desc", "data", "chan", "kuki", "pakt", "free", "info", "uuid", "strg", "mark", "regn", "ovvw"]
        }
    }
}

/// Values that sit on the boundaries readers check (sizes, counts, rates, bit depths).
let interestingValues: [UInt64] = [
    0, 1, 2, 3, 4, 7, 8, 12, 16, 17, 20, 22, 24, 32, 40, 64, 255, 256, 1024, 1025, 4096,
    0x7FFF, 0x8000, 0xFFFE, 0xFFFF, 0x1_0000, 44_100, 48_000, 10_000_000, 10_000_001,
    0x7FFF_FFFF, 0x8000_0000, 0xFFFF_FFFE, 0xFFFF_FFFF, 0x1_0000_0000,
    0x7FFF_FFFF_FFFF_FFFF, 0x8000_0000_0000_0000, 0xFFFF_FFFF_FFFF_FFFF,
    0x40E5_8880_0000_0000, // 44100.0 as a Float64 bit pattern (CAF's sample rate)
    0x7FF8_0000_0000_0000, // NaN
    0x7FF0_0000_0000_0000, // +infinity
]

struct ChunkMutator {
    let structure: ChunkStructure

    struct Chunk {
        var id: [UInt8]
        var payload: [UInt8]
    }

    struct Tree {
        var header: [UInt8]
        var chunks: [Chunk]
        var bigEndian: Bool
        var is64: Bool
    }

    // MARK: Parsing and writing

    func parse(_ bytes: [UInt8]) -> Tree? {
        let h = structure.fileHeaderLength, ch = structure.chunkHeaderLength
        guard bytes.count >= h else { return nil }
        let magic = String(decoding: bytes[0..<4], as: UTF8.self)
        let bigEndian = structure != .riff || magic == "RIFX"
        var tree = Tree(header: Array(bytes[0..<h]), chunks: [], bigEndian: bigEndian, is64: magic == "RF64" || magic == "BW64")
        var pos = h
        while pos + ch <= bytes.count {
            let id = Array(bytes[pos..<pos + 4])
            let size: UInt64 = structure == .caf
                ? read(bytes, pos + 4, 8, bigEndian: true)
                : read(bytes, pos + 4, 4, bigEndian: bigEndian)
            let start = pos + ch
            let available = UInt64(bytes.count - start)
            let length = Int(min(size, available)) // a size past the end (or -1 in CAF): the rest
            tree.chunks.append(Chunk(id: id, payload: Array(bytes[start..<start + length])))
            pos = start + length + (structure.padsToEven && length & 1 == 1 ? 1 : 0)
        }
        return tree
    }

    func serialize(_ tree: Tree) -> [UInt8] {
        var out = tree.header
        var dataSize: UInt64?
        for chunk in tree.chunks {
            out += chunk.id
            let size = UInt64(chunk.payload.count)
            if structure == .caf {
                out += encode(size, 8, bigEndian: true)
            } else if tree.is64 && chunk.id == Array("data".utf8) {
                dataSize = size
                out += encode(0xFFFF_FFFF, 4, bigEndian: tree.bigEndian)
            } else {
                out += encode(size, 4, bigEndian: tree.bigEndian)
            }
            out += chunk.payload
            if structure.padsToEven && chunk.payload.count & 1 == 1 { out.append(0) }
        }
        if structure != .caf {
            let total = UInt64(out.count - 8)
            if tree.is64 {
                write(&out, 4, 0xFFFF_FFFF, 4, bigEndian: tree.bigEndian)
                // Keep the ds64 chunk's RIFF and data sizes true (its first two 64-bit fields).
                if let ds64 = findChunkOffset(out, id: "ds64"), ds64 + 8 + 16 <= out.count {
                    write(&out, ds64 + 8, total, 8, bigEndian: tree.bigEndian)
                    write(&out, ds64 + 16, dataSize ?? 0, 8, bigEndian: tree.bigEndian)
                }
            } else {
                write(&out, 4, min(total, 0xFFFF_FFFF), 4, bigEndian: tree.bigEndian)
            }
        }
        return out
    }

    // MARK: Mutation

    func mutate(_ input: [UInt8], maxSize: Int, rng: inout SplitMix) -> [UInt8] {
        guard var tree = parse(input) else { return byteMutate(input, maxSize: maxSize) }
        let known = structure.knownIDs.map { Array($0.utf8) }
        func randomChunk() -> Int? { tree.chunks.isEmpty ? nil : rng.next(tree.chunks.count) }

        var lie: (chunk: Int, value: UInt64)?
        var cut = false
        switch rng.next(11) {
        case 0, 1, 2: // mutate one payload's bytes
            if let i = randomChunk() {
                let budget = max(0, maxSize - (input.count - tree.chunks[i].payload.count) - 16)
                tree.chunks[i].payload = byteMutate(tree.chunks[i].payload, maxSize: budget)
            }
        case 3, 4: // one field set to a boundary value
            if let i = randomChunk(), !tree.chunks[i].payload.isEmpty {
                let width = [2, 4, 8][rng.next(3)]
                let count = tree.chunks[i].payload.count
                let offset = rng.next(2) == 0 ? (rng.next(max(1, count / 2)) * 2) : rng.next(count)
                var value = interestingValues[rng.next(interestingValues.count)]
                if rng.next(4) == 0 { value = value &+ UInt64(bitPattern: Int64(rng.next(3) - 1)) }
                if offset + width <= count {
                    write(&tree.chunks[i].payload, offset, value, width, bigEndian: tree.bigEndian)
                }
            }
        case 5: // delete a chunk
            if let i = randomChunk() { tree.chunks.remove(at: i) }
        case 6: // duplicate a chunk to a random place
            if let i = randomChunk() {
                let copy = tree.chunks[i]
                tree.chunks.insert(copy, at: rng.next(tree.chunks.count + 1))
            }
        case 7: // swap two chunks
            if tree.chunks.count >= 2 { tree.chunks.swapAt(rng.next(tree.chunks.count), rng.next(tree.chunks.count)) }
        case 8: // rename a chunk, or insert a new one with a known ID
            if rng.next(2) == 0, let i = randomChunk() {
                tree.chunks[i].id = known[rng.next(known.count)]
            } else {
                var payload = [UInt8](repeating: 0, count: rng.next(48))
                for j in payload.indices { payload[j] = UInt8(truncatingIfNeeded: rng.next()) }
                tree.chunks.insert(Chunk(id: known[rng.next(known.count)], payload: payload), at: rng.next(tree.chunks.count + 1))
            }
        case 9: // resize a payload: shrink, or grow with zeros
            if let i = randomChunk() {
                let count = tree.chunks[i].payload.count
                if rng.next(2) == 0 && count > 0 {
                    tree.chunks[i].payload.removeSubrange(rng.next(count)...)
                } else {
                    tree.chunks[i].payload += [UInt8](repeating: 0, count: 1 + rng.next(64))
                }
            }
        default: // break consistency on purpose: one size lies, or the file is cut short
            if rng.next(2) == 0, let i = randomChunk() {
                lie = (i, interestingValues[rng.next(interestingValues.count)])
            } else {
                cut = true
            }
        }

        var out = serialize(tree)
        if let lie, let offset = chunkHeaderOffset(out, index: lie.chunk) {
            if structure == .caf {
                write(&out, offset + 4, lie.value, 8, bigEndian: true)
            } else {
                write(&out, offset + 4, lie.value & 0xFFFF_FFFF, 4, bigEndian: tree.bigEndian)
            }
        }
        if cut && out.count > structure.fileHeaderLength {
            out.removeSubrange((structure.fileHeaderLength + rng.next(out.count - structure.fileHeaderLength))...)
        }
        if out.count > maxSize { out.removeSubrange(maxSize...) }
        return out
    }

    /// libFuzzer's byte-level mutation of `bytes`, within `maxSize`.
    func byteMutate(_ bytes: [UInt8], maxSize: Int) -> [UInt8] {
        let capacity = max(bytes.count, maxSize, 1)
        var buffer = bytes + [UInt8](repeating: 0, count: capacity - bytes.count)
        let n = buffer.withUnsafeMutableBufferPointer { LLVMFuzzerMutate($0.baseAddress!, bytes.count, max(1, maxSize)) }
        return Array(buffer.prefix(n))
    }

    // MARK: Helpers

    /// Offset of the `index`th chunk's header in serialized bytes.
    func chunkHeaderOffset(_ bytes: [UInt8], index: Int) -> Int? {
        guard let tree = parse(bytes), index < tree.chunks.count else { return nil }
        var pos = structure.fileHeaderLength
        for chunk in tree.chunks.prefix(index) {
            pos += structure.chunkHeaderLength + chunk.payload.count + (structure.padsToEven && chunk.payload.count & 1 == 1 ? 1 : 0)
        }
        return pos
    }

    func findChunkOffset(_ bytes: [UInt8], id: String) -> Int? {
        guard let tree = parse(bytes), let index = tree.chunks.firstIndex(where: { $0.id == Array(id.utf8) }) else { return nil }
        return chunkHeaderOffset(bytes, index: index)
    }
}

func read(_ bytes: [UInt8], _ at: Int, _ width: Int, bigEndian: Bool) -> UInt64 {
    var value: UInt64 = 0
    for i in 0..<width {
        let index = at + (bigEndian ? i : width - 1 - i)
        value = value << 8 | UInt64(index < bytes.count ? bytes[index] : 0)
    }
    return value
}

func encode(_ value: UInt64, _ width: Int, bigEndian: Bool) -> [UInt8] {
    (0..<width).map { i in
        let shift = UInt64(8 * (bigEndian ? width - 1 - i : i))
        return UInt8(truncatingIfNeeded: value >> shift)
    }
}

func write(_ bytes: inout [UInt8], _ at: Int, _ value: UInt64, _ width: Int, bigEndian: Bool) {
    let encoded = encode(value, width, bigEndian: bigEndian)
    for i in 0..<width where at + i < bytes.count { bytes[at + i] = encoded[i] }
}

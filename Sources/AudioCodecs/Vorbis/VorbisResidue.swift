// Residues 0, 1 and 2 (Vorbis I specification, section 8): the spectral fine structure, coded
// as VQ vectors over partitions of the spectrum, in up to eight passes (each partition's class
// says which codebook, if any, each pass uses).
//
// Type 0 interleaves a vector's values across the partition (value j of a codeword goes to
// offset i + j·step); type 1 places them in order; type 2 decodes the channels as one
// interleaved vector with type 1's rule and de-interleaves it. End of packet stops decoding
// where it got to (section 8.6.2): what was decoded stays.

struct VorbisResidue {
    let type: Int
    let begin: Int
    let end: Int
    let partitionSize: Int
    let classifications: Int
    let classbook: Int
    /// books[class * 8 + pass], −1 = none.
    let books: [Int]

    init(type: Int, _ r: inout VorbisBitReader, codebooks: [VorbisCodebook]) throws {
        self.type = type
        begin = r.int(24)
        end = r.int(24)
        partitionSize = r.int(24) + 1
        classifications = r.int(6) + 1
        classbook = r.int(8)
        guard classbook < codebooks.count else { throw CodecError(.corrupt, "a Vorbis residue names codebook \(classbook) of \(codebooks.count)") }
        var cascade: [Int] = []
        for _ in 0..<classifications {
            let low = r.int(3)
            let high = r.flag() ? r.int(5) : 0
            cascade.append(high << 3 | low)
        }
        var books = [Int](repeating: -1, count: classifications * 8)
        for c in 0..<classifications {
            for pass in 0..<8 where cascade[c] & (1 << pass) != 0 {
                let b = r.int(8)
                guard b < codebooks.count else { throw CodecError(.corrupt, "a Vorbis residue names codebook \(b) of \(codebooks.count)") }
                guard codebooks[b].hasLookup else { throw CodecError(.corrupt, "a Vorbis residue uses codebook \(b), which has no vector table") }
                books[c * 8 + pass] = b
            }
        }
        self.books = books
        guard !r.pastEnd else { throw CodecError(.truncated, "the Vorbis setup header ends inside a residue") }
        // The class codeword spells classwordsPerCodeword base-`classifications` digits: the
        // codebook must have entries for them to mean anything; the spec leaves it, so only
        // the dimensions are required to be sane.
        guard codebooks[classbook].dimensions <= 1 << 12 else { throw CodecError(.unsupported, "a Vorbis residue's classification codebook has \(codebooks[classbook].dimensions) dimensions") }
    }

    /// Decodes into `vectors[ch]` (each `n` values, zeroed by the caller) the channels whose
    /// `doNotDecode` is false. `classes` is scratch of `classScratchCount(n:channels:)` Ints;
    /// `interleaved` (type 2) of n × channels Floats.
    func decode(_ r: inout VorbisBitReader, codebooks: UnsafeBufferPointer<VorbisCodebook>, n: Int,
                vectors: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, doNotDecode: UnsafePointer<Bool>, channels: Int,
                classes: UnsafeMutablePointer<Int>, interleaved: UnsafeMutablePointer<Float>) {
        if type == 2 {
            var any = false
            for c in 0..<channels where !doNotDecode[c] { any = true }
            guard any else { return }
            let total = n * channels
            interleaved.initialize(repeating: 0, count: total)
            var one = interleaved
            var no = false
            withUnsafeMutablePointer(to: &one) { vp in
                withUnsafePointer(to: &no) { dp in
                    decodeVectors(&r, codebooks: codebooks, n: total, vectors: vp, doNotDecode: dp, channels: 1, format: 1, classes: classes)
                }
            }
            if channels == 1 {
                for i in 0..<n { vectors[0][i] = interleaved[i] }
            } else if channels == 2 {
                let a = vectors[0], b = vectors[1]
                for i in 0..<n { a[i] = interleaved[2 * i]; b[i] = interleaved[2 * i + 1] }
            } else {
                for c in 0..<channels {
                    let v = vectors[c]
                    for i in 0..<n { v[i] = interleaved[i * channels + c] }
                }
            }
        } else {
            decodeVectors(&r, codebooks: codebooks, n: n, vectors: vectors, doNotDecode: doNotDecode, channels: channels, format: type, classes: classes)
        }
    }

    /// Scratch the classification numbers need: one per partition per channel, plus a
    /// codeword's worth of overrun.
    func classScratchCount(n: Int, channels: Int, codebooks: [VorbisCodebook]) -> Int {
        let total = type == 2 ? n * channels : n
        let perChannel = total / partitionSize + codebooks[classbook].dimensions + 1
        return perChannel * (type == 2 ? 1 : channels)
    }

    private func decodeVectors(_ r: inout VorbisBitReader, codebooks: UnsafeBufferPointer<VorbisCodebook>, n: Int,
                               vectors: UnsafeMutablePointer<UnsafeMutablePointer<Float>>, doNotDecode: UnsafePointer<Bool>,
                               channels: Int, format: Int, classes: UnsafeMutablePointer<Int>) {
        let limitBegin = min(begin, n), limitEnd = min(end, n)
        guard limitEnd > limitBegin else { return }
        let partitionsToRead = (limitEnd - limitBegin) / partitionSize
        guard partitionsToRead > 0 else { return }
        let classbook = codebooks[self.classbook]
        let classwords = classbook.dimensions
        let stride = partitionsToRead + classwords
        for pass in 0..<8 {
            var partition = 0
            while partition < partitionsToRead {
                if pass == 0 {
                    for c in 0..<channels where !doNotDecode[c] {
                        var temp = classbook.decode(&r)
                        if temp < 0 { return }
                        let row = classes + c * stride
                        var i = classwords - 1
                        while i >= 0 {
                            row[i + partition] = temp % classifications
                            temp /= classifications
                            i -= 1
                        }
                    }
                }
                var i = 0
                while i < classwords && partition < partitionsToRead {
                    for c in 0..<channels where !doNotDecode[c] {
                        let vqclass = classes[c * stride + partition]
                        let book = books[vqclass * 8 + pass]
                        if book >= 0 {
                            let ok = decodePartition(&r, codebooks[book], vectors[c], offset: limitBegin + partition * partitionSize, n: n, format: format)
                            if !ok { return }
                        }
                    }
                    partition += 1
                    i += 1
                }
            }
        }
    }

    /// One partition of one vector; false at end of packet.
    @inline(__always)
    private func decodePartition(_ r: inout VorbisBitReader, _ book: VorbisCodebook, _ v: UnsafeMutablePointer<Float>,
                                 offset: Int, n: Int, format: Int) -> Bool {
        let dims = book.dimensions
        let size = min(partitionSize, n - offset)
        return book.vectors.withUnsafeBufferPointer { table -> Bool in
            if format == 0 {
                let step = partitionSize / dims
                for i in 0..<step {
                    let e = book.decode(&r)
                    if e < 0 { return false }
                    let row = table.baseAddress! + e * dims
                    for j in 0..<dims {
                        let at = i + j * step
                        if at < size { v[offset + at] += row[j] }
                    }
                }
            } else {
                var i = 0
                while i < size {
                    let e = book.decode(&r)
                    if e < 0 { return false }
                    let row = table.baseAddress! + e * dims
                    let take = min(dims, size - i)
                    for j in 0..<take { v[offset + i + j] += row[j] }
                    i += dims
                }
            }
            return true
        }
    }
}

// Floor type 0 (Vorbis I specification, section 6): an LSP (line spectral pair) filter's
// amplitude response, sampled on a Bark-scale map. No encoder in use today produces it (libvorbis
// dropped it before 1.0), so it is here for completeness, written from the spec's formulas in
// Double; the curve is not compared against another decoder's (none of our reference tools can
// make such a stream).
//
// End of packet while reading the coefficients makes the floor unused (section 6.2.2).

struct VorbisFloor0 {
    let order: Int
    let rate: Int
    let barkMapSize: Int
    let amplitudeBits: Int
    let amplitudeOffset: Int
    let books: [Int]

    init(_ r: inout VorbisBitReader, codebooks: [VorbisCodebook]) throws {
        order = r.int(8)
        rate = r.int(16)
        barkMapSize = r.int(16)
        amplitudeBits = r.int(6)
        amplitudeOffset = r.int(8)
        let count = r.int(4) + 1
        var books: [Int] = []
        for _ in 0..<count {
            let b = r.int(8)
            guard b < codebooks.count else { throw CodecError(.corrupt, "a Vorbis floor 0 names codebook \(b) of \(codebooks.count)") }
            books.append(b)
        }
        self.books = books
        guard !r.pastEnd else { throw CodecError(.truncated, "the Vorbis setup header ends inside a floor") }
        guard order >= 1, rate > 0, barkMapSize > 0 else { throw CodecError(.corrupt, "a Vorbis floor 0 has order \(order), rate \(rate) and a Bark map of \(barkMapSize)") }
    }

    private static func bark(_ x: Double) -> Double { 13.1 * atan(0.00074 * x) + 2.24 * atan(0.0000000185 * x * x) + 0.0001 * x }

    /// Decodes the floor and writes its curve (n values) into `curve`; false when unused.
    /// `coefficients` is scratch of at least order + the largest codebook dimension values.
    func decode(_ r: inout VorbisBitReader, codebooks: UnsafeBufferPointer<VorbisCodebook>, n: Int,
                curve: UnsafeMutablePointer<Float>, coefficients: UnsafeMutablePointer<Float>) -> Bool {
        let amplitude = r.int(amplitudeBits)
        guard amplitude > 0, !r.pastEnd else { return false }
        let bookNumber = r.int(vorbisILog(books.count))
        guard bookNumber < books.count, !r.pastEnd else { return false }
        let book = codebooks[books[bookNumber]]
        guard book.hasLookup else { return false }
        var count = 0
        var last: Float = 0
        while count < order {
            let e = book.decode(&r)
            if e < 0 { return false }
            let d = book.dimensions
            book.vectors.withUnsafeBufferPointer { v in
                for k in 0..<d { coefficients[count + k] = v[e * d + k] + last }
            }
            count += d
            last = coefficients[count - 1]
        }
        // The curve: the LSP response at each Bark-mapped frequency, held over each run of
        // equal map values.
        let barkScale = Double(barkMapSize) / Self.bark(0.5 * Double(rate))
        var i = 0
        while i < n {
            let map = min(barkMapSize - 1, Int((Self.bark(Double(rate) * Double(i) / (2 * Double(n))) * barkScale).rounded(.down)))
            let omega = Double.pi * Double(map) / Double(barkMapSize)
            let c = cos(omega)
            var p = 1.0, q = 1.0
            if order & 1 == 1 {
                var j = 0
                while 2 * j + 1 < order { let t = cos(Double(coefficients[2 * j + 1])) - c; p *= 4 * t * t; j += 1 }
                j = 0
                while 2 * j < order { let t = cos(Double(coefficients[2 * j])) - c; q *= 4 * t * t; j += 1 }
                p *= 1 - c * c
                q *= 0.25
            } else {
                var j = 0
                while 2 * j + 1 < order { let t = cos(Double(coefficients[2 * j + 1])) - c; p *= 4 * t * t; j += 1 }
                j = 0
                while 2 * j < order { let t = cos(Double(coefficients[2 * j])) - c; q *= 4 * t * t; j += 1 }
                p *= (1 - c) / 2
                q *= (1 + c) / 2
            }
            let value = Float(exp(0.11512925 * (Double(amplitude) * Double(amplitudeOffset)
                / (Double((1 << amplitudeBits) - 1) * (p + q).squareRoot()) - Double(amplitudeOffset))))
            // Hold the value over every index with the same map entry.
            repeat {
                curve[i] = value
                i += 1
            } while i < n && min(barkMapSize - 1, Int((Self.bark(Double(rate) * Double(i) / (2 * Double(n))) * barkScale).rounded(.down))) == map
        }
        return true
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

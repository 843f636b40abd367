// Floor type 1 (Vorbis I specification, section 7): a piecewise-linear curve in a dB-like
// integer domain, given by its Y values at a list of X positions. Decoding reads the Y values
// (entropy-coded per partition class), "unwraps" each one as an offset from the line through
// its already-decoded neighbours (step 2), then draws the lines between the points that ended up
// in use with an integer Bresenham-like rule (step 3, `renderLine`) and maps the integers
// through the inverse dB table. Everything before the table is integer arithmetic, so every
// conforming decoder draws the same curve.
//
// End of packet while reading the Y values makes the floor "unused" (section 7.2.3): the
// channel is then silent in this packet.

/// The 256-entry floor1_inverse_dB_table of section 10.1: 140 dB in 256 steps of 0.546875 dB,
/// 1.0 at index 255, i.e. 10^(−0.546875 (255 − i) / 20). Computed rather than listed; each value
/// lies within one Float32 ulp of the table's printed decimals (checked when written for the
/// first entries).
let vorbisFloor1InverseDB: [Float] = (0..<256).map { Float(exp(-0.546875 * Double(255 - $0) * 0.1151292546497023)) }

struct VorbisFloor1 {
    var partitionClass: [Int] = []
    var classDimensions: [Int] = []
    var classSubclasses: [Int] = []
    var classMasterbook: [Int] = []
    /// subclassBooks[class][k], −1 = none.
    var subclassBooks: [[Int]] = []
    var multiplier = 1
    var xList: [Int] = []
    /// xList indices sorted by X.
    var sortedOrder: [Int] = []
    /// Per point from 2 on: the indices of its low and high neighbours (section 9.2.4/9.2.5).
    var lowNeighbor: [Int] = []
    var highNeighbor: [Int] = []

    init(_ r: inout VorbisBitReader, codebooks: [VorbisCodebook]) throws {
        let partitions = r.int(5)
        var maximumClass = -1
        for _ in 0..<partitions {
            let c = r.int(4)
            partitionClass.append(c)
            maximumClass = max(maximumClass, c)
        }
        if maximumClass >= 0 {
            for _ in 0...maximumClass {
                classDimensions.append(r.int(3) + 1)
                let sub = r.int(2)
                classSubclasses.append(sub)
                var master = -1
                if sub != 0 {
                    master = r.int(8)
                    guard master < codebooks.count else { throw CodecError(.corrupt, "a Vorbis floor names codebook \(master) of \(codebooks.count)") }
                }
                classMasterbook.append(master)
                var books: [Int] = []
                for _ in 0..<(1 << sub) {
                    let b = r.int(8) - 1
                    guard b < codebooks.count else { throw CodecError(.corrupt, "a Vorbis floor names codebook \(b) of \(codebooks.count)") }
                    books.append(b)
                }
                subclassBooks.append(books)
            }
        }
        multiplier = r.int(2) + 1
        let rangeBits = r.int(4)
        xList = [0, 1 << rangeBits]
        for p in partitionClass {
            for _ in 0..<classDimensions[p] {
                xList.append(r.int(rangeBits))
            }
        }
        guard !r.pastEnd else { throw CodecError(.truncated, "the Vorbis setup header ends inside a floor") }
        guard xList.count <= 65 else { throw CodecError(.corrupt, "a Vorbis floor has \(xList.count) points (at most 65 are allowed)") }
        guard Set(xList).count == xList.count else { throw CodecError(.corrupt, "a Vorbis floor lists the same X position twice") }
        sortedOrder = xList.indices.sorted { xList[$0] < xList[$1] }
        lowNeighbor = [0, 0]
        highNeighbor = [0, 0]
        for i in 2..<max(2, xList.count) {
            var low = 0, high = 1
            var lowX = -1, highX = Int.max
            for j in 0..<i {
                let x = xList[j]
                if x < xList[i] && x > lowX { lowX = x; low = j }
                if x > xList[i] && x < highX { highX = x; high = j }
            }
            lowNeighbor.append(low)
            highNeighbor.append(high)
        }
    }

    /// Decodes this floor from the packet and renders its curve into `curve` (n = half the
    /// block size values). Returns false when the floor is unused for this channel (its flag
    /// is 0, or the packet ended), `curve` then untouched. `ys` and `step2` are scratch of at
    /// least 65 entries.
    func decode(_ r: inout VorbisBitReader, codebooks: UnsafeBufferPointer<VorbisCodebook>, n: Int, curve: UnsafeMutablePointer<Float>,
                ys: UnsafeMutablePointer<Int>, step2: UnsafeMutablePointer<Bool>) -> Bool {
        guard r.flag() else { return false }
        let range = [256, 128, 86, 64][multiplier - 1]
        let yBits = vorbisILog(range - 1)
        ys[0] = r.int(yBits)
        ys[1] = r.int(yBits)
        var offset = 2
        for cls in partitionClass {
            let cdim = classDimensions[cls], cbits = classSubclasses[cls]
            let csub = (1 << cbits) - 1
            var cval = 0
            if cbits > 0 {
                cval = codebooks[classMasterbook[cls]].decode(&r)
                if cval < 0 { return false }
            }
            for j in 0..<cdim {
                let book = subclassBooks[cls][cval & csub]
                cval >>= cbits
                if book >= 0 {
                    let v = codebooks[book].decode(&r)
                    if v < 0 { return false }
                    ys[offset + j] = v
                } else {
                    ys[offset + j] = 0
                }
            }
            offset += cdim
        }
        if r.pastEnd { return false }

        // Step 2: amplitude value synthesis (section 7.2.4).
        let count = xList.count
        step2[0] = true; step2[1] = true
        // ys becomes final_Y in place: each point's prediction uses only earlier final values.
        for i in 2..<max(2, count) {
            let lo = lowNeighbor[i], hi = highNeighbor[i]
            let predicted = renderPoint(xList[lo], ys[lo], xList[hi], ys[hi], xList[i])
            let val = ys[i]
            let highroom = range - predicted, lowroom = predicted
            let room = highroom < lowroom ? highroom * 2 : lowroom * 2
            if val != 0 {
                step2[lo] = true; step2[hi] = true; step2[i] = true
                if val >= room {
                    ys[i] = highroom > lowroom ? val - lowroom + predicted : predicted - val + highroom - 1
                } else {
                    ys[i] = val & 1 != 0 ? predicted - (val + 1) / 2 : predicted + val / 2
                }
            } else {
                step2[i] = false
                ys[i] = predicted
            }
        }

        // Step 3: curve synthesis (section 7.2.4, "curve computation").
        var hx = 0, hy = 0, lx = 0
        var ly = ys[sortedOrder[0]] * multiplier
        for k in 1..<count {
            let i = sortedOrder[k]
            if step2[i] {
                hy = ys[i] * multiplier
                hx = xList[i]
                renderLine(lx, ly, hx, hy, curve, n)
                lx = hx; ly = hy
            }
        }
        if hx < n { renderLine(hx, hy, n, hy, curve, n) }
        return true
    }

    @inline(__always)
    private func renderPoint(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ x: Int) -> Int {
        let dy = y1 - y0, adx = x1 - x0
        guard adx != 0 else { return y0 }
        let off = abs(dy) * (x - x0) / adx
        return dy < 0 ? y0 - off : y0 + off
    }

    /// render_line of section 9.2.7, writing inverse-dB values, only at x < n.
    @inline(__always)
    private func renderLine(_ x0: Int, _ y0: Int, _ x1: Int, _ y1: Int, _ v: UnsafeMutablePointer<Float>, _ n: Int) {
        let dy = y1 - y0, adx = x1 - x0
        guard adx > 0 else { return }
        var ady = abs(dy)
        let base = dy / adx
        let sy = dy < 0 ? base - 1 : base + 1
        ady -= abs(base) * adx
        var y = y0, err = 0
        let end = min(x1, n)
        vorbisFloor1InverseDB.withUnsafeBufferPointer { table in
            if x0 < n { v[x0] = table[min(255, max(0, y))] }
            var x = x0 + 1
            while x < end {
                err += ady
                if err >= adx { err -= adx; y += sy } else { y += base }
                v[x] = table[min(255, max(0, y))]
                x += 1
            }
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

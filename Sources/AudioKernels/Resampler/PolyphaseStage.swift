// The fractional stage: a polyphase FIR that evaluates a continuous-time kernel h(t) at any
// output position, for any channel count.
//
// Output m is at position u_m = u_0 + m * step on the input's sample grid:
//     y[m] = sum_k x[n - K/2 + 1 + k] * h(f + K/2 - 1 - k),   n = floor(u_m), f = u_m - n.
// Exact ratios (step = q/p, p phases) use one table row per phase and integer position
// arithmetic, so positions never drift. Other ratios use a table of 2^bits phases per input
// sample with 4-point Lagrange interpolation between rows and a 64-bit fixed-point fraction
// (position error below 2^-64 samples per step), deterministic for any chunking.
//
// Exact ratios precompute, for one period of p outputs, each output's input offset and its
// coefficient row (stored in output order), and compute four outputs at a time with one
// transposed horizontal sum, sharing coefficients between a channel pair. Float64 does this in
// CResamplerKernels (the same loop in C, with AVX2 + FMA when the CPU has them); so does Float32
// on CPUs with AVX2 + FMA (eight taps per instruction, half the loads per multiply-add of the
// four-lane Swift loop, which remains the portable path): 96 -> 44.1 kHz at .high went from
// 0.95x to 1.15x libsoxr HQ's speed (Benchmarks/results/src-latest.md).
//
// Cost per output frame: K multiply-adds per channel (exact) or K * (4 / channels + 1)
// (interpolated), SIMD4; no allocation after init.

internal import CResamplerKernels

struct PolyphaseStage<T: ResamplerScalar> {
    typealias V = SIMD4<T>

    let channels: Int
    /// Taps per output (multiple of 4).
    let taps: Int
    let half: Int
    let exact: Bool
    /// Exact: number of phases p. Interpolated: table phases per sample (2^phaseBits).
    let phases: Int
    let phaseBits: Int
    let stepInt: Int
    let stepNum: Int           // exact: step = stepInt + stepNum / phases
    var stepFrac: UInt64       // interpolated: step = stepInt + stepFrac / 2^64
    let table: AlignedBuffer<T>
    let kernels: UnsafePointer<CRKKernels>

    // position of the next output. Exact ratios: output m = cycle * p + j sits at
    // cycleBase + cycleOffsets[j] with coefficient row j (rows stored in output order), where
    // cycleOffsets[j] = (startNum + j q) / p; j runs to p + 7 so eight outputs never wrap.
    var cycleBase = 0
    var cycleIndex = 0
    let cycleOffsets: AlignedBuffer<Int>
    // interpolated ratios
    var posIntInterp = 0
    var posFrac: UInt64 = 0
    let startInt: Int, startNum: Int, startFrac: UInt64

    // input FIFO: absolute indices [bufStart, bufEnd), channel planes `capacity` apart
    let capacity: Int
    let buffer: AlignedBuffer<T>
    var bufStart = 0
    var bufEnd = 0
    let prepad: Int

    /// - Parameters:
    ///   - kernel: h(t), t in input samples; must vanish for |t| >= taps/2.
    ///   - step: exact (p, q) meaning q/p input samples per output, or nil with `realStep`.
    ///   - start: position of output 0 (input samples, counting the `prepad` zeros).
    init(channels: Int, kernel: ResamplerFilterDesign.Kernel, taps: Int,
         exactStep: (p: Int, q: Int)?, realStep: Double, start: Double,
         capacity: Int, prepad: Int, delta: Bool = false) {
        precondition(taps % 4 == 0)
        self.channels = channels
        self.taps = taps
        half = taps / 2
        self.capacity = capacity
        self.prepad = prepad
        buffer = AlignedBuffer(count: channels * capacity + 8)
        kernels = crk_kernels()
        if let e = exactStep {
            exact = true
            phases = e.p
            phaseBits = 0
            stepInt = e.q / e.p
            stepNum = e.q % e.p
            stepFrac = 0
            // start must be on the 1/p grid
            let s = (start * Double(e.p)).rounded()
            var si = Int(s) / e.p, sn = Int(s) % e.p
            if sn < 0 { sn += e.p; si -= 1 }
            startInt = si; startNum = sn; startFrac = 0
            let rows = e.p + 8
            table = AlignedBuffer(count: rows * taps)
            cycleOffsets = AlignedBuffer(count: rows)
            for j in 0..<rows {
                let num = sn + j * e.q
                cycleOffsets.pointer[j] = num / e.p
                let f = Double(num % e.p) / Double(e.p)
                for k in 0..<taps {
                    table.pointer[j * taps + k] = delta ? (k == half - 1 ? 1 : 0) : T(kernel(f + Double(half - 1 - k)))
                }
            }
        } else {
            exact = false
            // 512 table phases, cubic (Lagrange) interpolation between them. A long kernel is a
            // narrow-band one (K grows with the decimation step, and the kernel's bandwidth
            // shrinks with it), so it varies slowly across one tap and needs fewer phases for the
            // same interpolation error: halve them each time K doubles past 4,072 taps, keeping
            // the table at about 2^21 coefficients (extreme ratios such as 282,055 Hz → 3 Hz need
            // K in the hundreds of thousands; 512 phases of that took seconds and gigabytes).
            var bits = 9
            while bits > 1 && ((1 << bits) + 3) * taps > 1 << 21 { bits -= 1 }
            phaseBits = bits
            phases = 1 << phaseBits
            stepInt = Int(realStep.rounded(.down))
            stepNum = 0
            stepFrac = PolyphaseStage.fraction64(realStep - realStep.rounded(.down))
            let si = start.rounded(.down)
            startInt = Int(si); startNum = 0; startFrac = PolyphaseStage.fraction64(start - si)
            cycleOffsets = AlignedBuffer(count: 1)
            // rows for phase -1 ... phases + 1
            let rows = phases + 3
            table = AlignedBuffer(count: rows * taps)
            for r in 0..<rows {
                let f = Double(r - 1) / Double(phases)
                for k in 0..<taps {
                    table.pointer[r * taps + k] = T(kernel(f + Double(half - 1 - k)))
                }
            }
        }
        reset()
    }

    func deallocate() { table.deallocate(); buffer.deallocate(); cycleOffsets.deallocate() }

    /// Integer part of the next output's position.
    var posInt: Int { exact ? cycleBase &+ cycleOffsets.pointer[cycleIndex] : posIntInterp }

    static func fraction64(_ f: Double) -> UInt64 {
        let x = f * 18_446_744_073_709_551_616.0
        if x >= 18_446_744_073_709_551_615.0 { return .max }
        if x <= 0 { return 0 }
        return UInt64(x)
    }

    mutating func reset() {
        cycleBase = startInt; cycleIndex = 0
        posIntInterp = startInt; posFrac = startFrac
        bufStart = 0
        bufEnd = prepad
        for c in 0..<channels {
            zeroSamples(buffer.pointer + c * capacity, prepad)
        }
    }

    @inline(__always) func plane(_ c: Int) -> UnsafeMutablePointer<T> { buffer.pointer + c * capacity }

    /// Absolute input index up to which (exclusive) input is needed for output `m` positions ahead.
    func inputNeeded(outputsAhead m: Int) -> Int {
        if m <= 0 { return 0 }
        let a = m - 1
        if exact {
            let m = cycleIndex + a
            let c = m / phases, j = m - c * phases
            return cycleBase + c * (stepInt * phases + stepNum) + cycleOffsets.pointer[j] + half + 1
        } else {
            let (hi, lo) = UInt64(a).multipliedFullWidth(by: stepFrac)
            let (_, carry) = lo.addingReportingOverflow(posFrac)
            return posIntInterp + a * stepInt + Int(hi) + (carry ? 1 : 0) + half + 1
        }
    }

    /// Free space at the end of the input FIFO after discarding what no future output needs.
    mutating func makeRoom() -> Int {
        let drop = min(posInt - half + 1, bufEnd) - bufStart
        if drop > 0 {
            let n = bufEnd - bufStart - drop
            if n > 0 {
                for c in 0..<channels {
                    let p = plane(c)
                    moveSamples(p, p + drop, n)
                }
            }
            bufStart += drop
        }
        return capacity - (bufEnd - bufStart)
    }

    /// Pointer to where the next input frame of channel `c` goes.
    @inline(__always) func writePointer(_ c: Int) -> UnsafeMutablePointer<T> { plane(c) + (bufEnd - bufStart) }

    /// Appends zeros (flush).
    mutating func appendZeros(_ n: Int) {
        for c in 0..<channels { zeroSamples(writePointer(c), n) }
        bufEnd += n
    }

    /// Computes up to `maxCount` outputs into `dest[c][offset...]`; returns how many.
    mutating func produce(into dest: UnsafeMutablePointer<UnsafeMutablePointer<T>>, offset: Int, maxCount: Int) -> Int {
        if exact { return produceExact(dest, offset, maxCount) }
        return produceInterpolated(dest, offset, maxCount)
    }

    @inline(__always)
    private mutating func produceExact(_ dest: UnsafeMutablePointer<UnsafeMutablePointer<T>>, _ offset: Int, _ maxCount: Int) -> Int {
        let K = taps
        var count = 0
        var j = cycleIndex, base = cycleBase
        let offs = cycleOffsets.pointer
        let p = phases, q = stepInt &* phases &+ stepNum
        let limit = bufEnd &- half       // output needs position + half < bufEnd
        let base0 = buffer.pointer
        let cap = capacity
        let tab = table.pointer
        let origin = bufStart &+ half &- 1
        if T.self == Double.self {
            let r = ResamplerCKernels.polyExact(kernels, table: UnsafeRawPointer(tab).assumingMemoryBound(to: Double.self),
                                                offsets: offs, taps: K, phases: p, period: q,
                                                buffer: UnsafeRawPointer(base0).assumingMemoryBound(to: Double.self),
                                                capacity: cap, channels: channels, origin: origin, limit: limit,
                                                dest: UnsafeRawPointer(dest).assumingMemoryBound(to: UnsafeMutablePointer<Double>.self),
                                                offset: offset, maxCount: maxCount, cycleIndex: j, cycleBase: base)
            cycleIndex = r.cycleIndex; cycleBase = r.cycleBase
            return r.count
        }
        if T.self == Float.self && kernels.pointee.simd != 0 {
            // AVX2 + FMA: eight taps per instruction in C (the Swift loops below are four wide)
            let r = ResamplerCKernels.polyExact32(kernels, table: UnsafeRawPointer(tab).assumingMemoryBound(to: Float.self),
                                                  offsets: offs, taps: K, phases: p, period: q,
                                                  buffer: UnsafeRawPointer(base0).assumingMemoryBound(to: Float.self),
                                                  capacity: cap, channels: channels, origin: origin, limit: limit,
                                                  dest: UnsafeRawPointer(dest).assumingMemoryBound(to: UnsafeMutablePointer<Float>.self),
                                                  offset: offset, maxCount: maxCount, cycleIndex: j, cycleBase: base)
            cycleIndex = r.cycleIndex; cycleBase = r.cycleBase
            return r.count
        }
        // Float32 mono: eight outputs at a time
        while MemoryLayout<T>.size == 4 && channels == 1 && count &+ 8 <= maxCount {
            if base &+ offs[j &+ 7] >= limit { break }
            let xa = base0 + (base &- origin)
            let c0 = tab + j &* K
            var a0 = V(), a1 = V(), a2 = V(), a3 = V(), a4 = V(), a5 = V(), a6 = V(), a7 = V()
            let x0 = xa + offs[j], x1 = xa + offs[j &+ 1], x2 = xa + offs[j &+ 2], x3 = xa + offs[j &+ 3]
            let x4 = xa + offs[j &+ 4], x5 = xa + offs[j &+ 5], x6 = xa + offs[j &+ 6], x7 = xa + offs[j &+ 7]
            var k = 0
            while k < K {
                let c = c0 + k
                a0 += c.v4(0) * x0.v4(k); a1 += c.v4(K) * x1.v4(k)
                a2 += c.v4(2 &* K) * x2.v4(k); a3 += c.v4(3 &* K) * x3.v4(k)
                a4 += c.v4(4 &* K) * x4.v4(k); a5 += c.v4(5 &* K) * x5.v4(k)
                a6 += c.v4(6 &* K) * x6.v4(k); a7 += c.v4(7 &* K) * x7.v4(k)
                k &+= 4
            }
            dest[0].setV4(offset &+ count, PolyphaseStage.sum4(a0, a1, a2, a3))
            dest[0].setV4(offset &+ count &+ 4, PolyphaseStage.sum4(a4, a5, a6, a7))
            count &+= 8
            j &+= 8
            while j >= p { j &-= p; base &+= q }
        }
        // Float32: four outputs at a time: 8 accumulators per channel pair, one transposed sum each
        while MemoryLayout<T>.size == 4 && count &+ 4 <= maxCount {
            if base &+ offs[j &+ 3] >= limit { break }
            let s0 = base &+ offs[j] &- origin, s1 = base &+ offs[j &+ 1] &- origin
            let s2 = base &+ offs[j &+ 2] &- origin, s3 = base &+ offs[j &+ 3] &- origin
            let c0 = tab + j &* K
            let c1 = c0 + K, c2 = c1 + K, c3 = c2 + K
            var c = 0
            while c &+ 1 < channels {
                let xa = base0 + c &* cap, xb = xa + cap
                var a0 = V(), a1 = V(), a2 = V(), a3 = V()
                var b0 = V(), b1 = V(), b2 = V(), b3 = V()
                var k = 0
                while k < K {
                    let h0 = c0.v4(k), h1 = c1.v4(k), h2 = c2.v4(k), h3 = c3.v4(k)
                    a0 += h0 * xa.v4(s0 &+ k); b0 += h0 * xb.v4(s0 &+ k)
                    a1 += h1 * xa.v4(s1 &+ k); b1 += h1 * xb.v4(s1 &+ k)
                    a2 += h2 * xa.v4(s2 &+ k); b2 += h2 * xb.v4(s2 &+ k)
                    a3 += h3 * xa.v4(s3 &+ k); b3 += h3 * xb.v4(s3 &+ k)
                    k &+= 4
                }
                dest[c].setV4(offset &+ count, PolyphaseStage.sum4(a0, a1, a2, a3))
                dest[c &+ 1].setV4(offset &+ count, PolyphaseStage.sum4(b0, b1, b2, b3))
                c &+= 2
            }
            if c < channels {
                let xa = base0 + c &* cap
                var a0 = V(), a1 = V(), a2 = V(), a3 = V()
                var k = 0
                while k < K {
                    a0 += c0.v4(k) * xa.v4(s0 &+ k)
                    a1 += c1.v4(k) * xa.v4(s1 &+ k)
                    a2 += c2.v4(k) * xa.v4(s2 &+ k)
                    a3 += c3.v4(k) * xa.v4(s3 &+ k)
                    k &+= 4
                }
                dest[c].setV4(offset &+ count, PolyphaseStage.sum4(a0, a1, a2, a3))
            }
            count &+= 4
            j &+= 4
            while j >= p { j &-= p; base &+= q }
        }
        while count < maxCount {
            let pos = base &+ offs[j]
            if pos >= limit { break }
            let start = pos &- origin
            let coef = tab + j &* K
            for c in 0..<channels {
                let x0 = base0 + c &* cap + start
                var a0 = V()
                var k = 0
                while k < K { a0 += coef.v4(k) * x0.v4(k); k &+= 4 }
                dest[c][offset &+ count] = PolyphaseStage.sum4(a0, V(), V(), V())[0]
            }
            count &+= 1
            j &+= 1
            if j >= p { j &-= p; base &+= q }
        }
        cycleIndex = j; cycleBase = base
        return count
    }

    /// (sum a, sum b, sum c, sum d).
    @inline(__always)
    static func sum4(_ a: V, _ b: V, _ c: V, _ d: V) -> V {
        // pairwise: (a0+a2, a1+a3, b0+b2, b1+b3) ...
        let ab = V(a[0], a[1], b[0], b[1]) + V(a[2], a[3], b[2], b[3])
        let cd = V(c[0], c[1], d[0], d[1]) + V(c[2], c[3], d[2], d[3])
        return V(ab[0], ab[2], cd[0], cd[2]) + V(ab[1], ab[3], cd[1], cd[3])
    }

    @inline(__always)
    private mutating func produceInterpolated(_ dest: UnsafeMutablePointer<UnsafeMutablePointer<T>>, _ offset: Int, _ maxCount: Int) -> Int {
        let K = taps
        var count = 0
        var pi = posIntInterp
        var pf = posFrac
        let limit = bufEnd - half
        let base0 = buffer.pointer
        let cap = capacity
        let tab = table.pointer
        let shift = UInt64(64 - phaseBits)
        let mask: UInt64 = (1 << shift) - 1
        let scale = 1.0 / Double(UInt64(1) << shift)
        let sI = stepInt, sF = stepFrac
        while count < maxCount && pi < limit {
            let start = pi - half + 1 - bufStart
            let ph = Int(pf >> shift)
            let w = Double(pf & mask) * scale
            // Lagrange weights for rows ph-1 ... ph+2 (table rows ph ... ph+3)
            let wm1 = T(-w * (w - 1) * (w - 2) / 6)
            let w0 = T((w + 1) * (w - 1) * (w - 2) / 2)
            let w1 = T(-(w + 1) * w * (w - 2) / 2)
            let w2 = T((w + 1) * w * (w - 1) / 6)
            let r0 = tab + ph * K, r1 = r0 + K, r2 = r1 + K, r3 = r2 + K
            var c = 0
            while c + 1 < channels {
                let x0 = base0 + c * cap + start, x1 = x0 + cap
                var a0 = V(), a1 = V()
                var k = 0
                while k < K {
                    let h = r0.v4(k) * wm1 + r1.v4(k) * w0 + r2.v4(k) * w1 + r3.v4(k) * w2
                    a0 += h * x0.v4(k)
                    a1 += h * x1.v4(k)
                    k += 4
                }
                dest[c][offset + count] = a0.sum()
                dest[c + 1][offset + count] = a1.sum()
                c += 2
            }
            if c < channels {
                let x0 = base0 + c * cap + start
                var a0 = V()
                var k = 0
                while k < K {
                    let h = r0.v4(k) * wm1 + r1.v4(k) * w0 + r2.v4(k) * w1 + r3.v4(k) * w2
                    a0 += h * x0.v4(k)
                    k += 4
                }
                dest[c][offset + count] = a0.sum()
            }
            count += 1
            let (nf, carry) = pf.addingReportingOverflow(sF)
            pf = nf
            pi += sI + (carry ? 1 : 0)
        }
        posIntInterp = pi; posFrac = pf
        return count
    }
}

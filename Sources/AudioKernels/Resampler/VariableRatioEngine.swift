// A single-stage converter whose ratio can change while it runs (varispeed).
//
// The kernel is a Kaiser-windowed sinc defined in units of the lower of the two rates
// ("prototype units", where the lower Nyquist is 0.5): pass band pb/2, stop band 0.5. For
// up-sampling it is used as is (units = input samples); for down-sampling by a ratio r < 1 it is
// stretched by 1/r, so the cut-off follows the output's Nyquist frequency and the number of taps
// grows as 1/r (Smith's bandlimited interpolation). The prototype is tabulated at 128 points per
// unit and read with 4-point Lagrange interpolation (error below -160 dB), so any position and
// any stretch can be evaluated. Positions are 64-bit fixed point; the step between output
// frames can glide linearly from one ratio to the next.
//
// Cost per output frame: taps x (about 12 operations + 2 per channel), taps = 2 R / min(1, r).

struct VariableRatioEngine<T: ResamplerScalar> {
    typealias V = SIMD4<T>
    typealias VD = SIMD4<Double>

    let channels: Int
    let inputRate: Double, outputRate: Double
    let priming: ResamplerPriming
    let leadingFrames: Int, trailingFrames: Int, timeOrigin: Int
    var consumedTotal = 0
    var producedTotal = 0
    var flushing = false
    let minRatio: Double, maxRatio: Double
    let radius: Double            // prototype half-width (prototype units)
    let tableScale: Double        // table points per prototype unit
    let table: AlignedBuffer<T>   // h at (i - tableOffset) / tableScale
    let tableOffset: Double
    let tableCount: Int
    let maxTaps: Int
    /// Up-sampling fast path (no stretch: every tap has the same fractional phase): the kernel
    /// in polyphase layout, row r = phase (r - 1) / 128 of `unitTaps` taps, read with Lagrange
    /// interpolation between four rows, vectorised over taps (no gathers).
    let unitTaps: Int
    let phaseTable: AlignedBuffer<T>
    /// The same for a stretched kernel (down-sampling), rebuilt (O(128 x taps), no allocation)
    /// whenever the ratio settles on a new value; while a ramp is under way every output has its
    /// own stretch and the kernel is evaluated tap by tap instead.
    let stretchTable: AlignedBuffer<T>
    var stretchS = 0.0
    var stretchTaps = 0

    // ratio state: step = input frames per output frame
    var ratioNow: Double
    var step: Double
    var rampStep: Double = 0
    var rampLeft = 0
    var targetStep: Double

    // position of the next output (input frames, counting the lead zeros)
    var posInt = 0
    var posFrac: UInt64 = 0
    let startInt: Int, startFrac: UInt64

    // input FIFO
    let capacity: Int
    let buffer: AlignedBuffer<T>
    var bufStart = 0, bufEnd = 0

    let leadZeros: Int
    var zerosToFeed = 0
    var flushEnd = 0.0           // flush: produce while position < flushEnd

    init(inputRate: Double, outputRate: Double, channels: Int, quality: ResamplerQuality,
         priming: ResamplerPriming, range: ClosedRange<Double>) {
        precondition(range.lowerBound > 0 && range.upperBound.isFinite, "SampleRateConverter: invalid ratio range \(range)")
        self.channels = channels
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.priming = priming
        let nominal = outputRate / inputRate
        minRatio = min(range.lowerBound, nominal)
        maxRatio = max(range.upperBound, nominal)
        ratioNow = nominal
        step = 1 / nominal
        targetStep = step

        let design = ResamplerDesign.of(quality)
        let pb = design.passband
        let n = ResamplerFilterDesign.kaiserLength(attenuation: design.attenuation, transition: (1 - pb) / 2)
        radius = Double(n) / 2
        let kernel = ResamplerFilterDesign.Kernel(cutoff: (pb / 2 + 0.5) / 2, radius: radius,
                                                  beta: ResamplerFilterDesign.kaiserBeta(attenuation: design.attenuation))
        tableScale = 128
        // the table covers |t| <= radius + 4 (taps reach radius + 2 s), zero beyond radius
        tableOffset = ((radius + 4) * tableScale).rounded(.up) + 2
        tableCount = Int(2 * tableOffset) + 4
        table = AlignedBuffer(count: tableCount + 8)
        for i in 0..<tableCount {
            table.pointer[i] = T(kernel((Double(i) - tableOffset) / tableScale))
        }
        unitTaps = (Int((2 * radius).rounded(.up)) + 4 + 3) / 4 * 4
        phaseTable = AlignedBuffer(count: (Int(tableScale) + 3) * unitTaps + 8)
        for r in 0..<(Int(tableScale) + 3) {
            let f = Double(r - 1) / tableScale
            for k in 0..<unitTaps {
                phaseTable.pointer[r * unitTaps + k] = T(kernel(f + Double(unitTaps / 2 - 1 - k)))
            }
        }
        let sMin = min(1, minRatio)
        maxTaps = (Int((2 * radius / sMin).rounded(.up)) + 4 + 3) / 4 * 4
        stretchTable = AlignedBuffer(count: minRatio < 1 ? (Int(tableScale) + 3) * maxTaps + 8 : 1)
        capacity = 4 * maxTaps + 4096
        buffer = AlignedBuffer(count: channels * capacity + 8)

        let s0 = min(1, nominal)
        let reach = Int((radius / s0 + 2).rounded(.up))
        let origin = priming == .aligned ? 0 : (priming == .preroll ? reach : -reach)
        leadZeros = maxTaps / 2 + 2 + max(0, -origin)
        startInt = leadZeros + origin
        startFrac = 0
        leadingFrames = reach
        trailingFrames = reach
        timeOrigin = origin
        reset()
    }

    func deallocate() { table.deallocate(); buffer.deallocate(); phaseTable.deallocate(); stretchTable.deallocate() }

    mutating func reset() {
        posInt = startInt; posFrac = startFrac
        bufStart = 0; bufEnd = 0
        zerosToFeed = leadZeros
        consumedTotal = 0; producedTotal = 0
        flushing = false
        step = 1 / (outputRate / inputRate)
        ratioNow = outputRate / inputRate
        targetStep = step
        rampLeft = 0
    }

    var currentRatio: Double { ratioNow }

    mutating func setRatio(_ r: Double, rampFrames: Int) {
        let ratio = Swift.min(Swift.max(r, minRatio), maxRatio)
        targetStep = 1 / ratio
        if rampFrames <= 0 {
            step = targetStep; rampLeft = 0; ratioNow = ratio
        } else {
            rampLeft = rampFrames
            rampStep = (targetStep - step) / Double(rampFrames)
        }
    }

    func outputFrames(forInputFrames frames: Int) -> Int {
        let x = frames - timeOrigin
        if x <= 0 { return 0 }
        return floorToInt(Double(x) * ratioNow + 0.5)
    }

    mutating func beginFlush() {
        if !flushing {
            flushing = true
            // output m exists while its time (from the origin) + step / 2 <= frames, which gives
            // floor(frames x ratio + 1/2) outputs at a constant ratio
            flushEnd = Double(leadZeros + consumedTotal)
        }
    }

    @inline(__always) var position: Double { Double(posInt) + Double(posFrac) * 0x1p-64 }

    /// Consumed input beyond the next output's time (input frame j sits at `leadZeros + j`).
    var pendingInputFrames: Double { Double(leadZeros + consumedTotal - posInt) - Double(posFrac) * 0x1p-64 }

    func inputFramesNeeded(forOutputFrames outputs: Int) -> Int {
        if outputs <= 0 { return 0 }
        // position of the last requested output, with the ramp
        let a = Double(outputs - 1)
        var dist: Double
        if rampLeft > 0 {
            let r = Double(min(rampLeft, outputs - 1))
            dist = r * step + rampStep * r * (r + 1) / 2 + (a - r) * targetStep
        } else {
            dist = a * step
        }
        let s = min(1, 1 / max(step, targetStep))
        let taps = Double(tapCount(s))
        let need = floorToInt(position + dist) + Int(taps / 2) + 2
        return max(0, need - bufEnd - zerosToFeed)
    }

    @inline(__always) func tapCount(_ s: Double) -> Int {
        min(maxTaps, (ceilToInt(2 * radius / s) + 4 + 3) / 4 * 4)
    }

    // MARK: processing

    @inline(__always)
    mutating func process<S: ResamplerScalar>(_ input: UnsafePointer<UnsafePointer<S>>?, _ n: Int,
                                     _ output: UnsafePointer<UnsafeMutablePointer<S>>, _ cap: Int) -> (Int, Int) {
        var consumed = 0, produced = 0
        while produced < cap {
            let got = produce(output, produced, cap - produced)
            if got > 0 { produced += got; continue }
            if flushing && position + step / 2 > flushEnd { break }
            // need input
            let drop = min(posInt - maxTaps / 2 - 2, bufEnd) - bufStart
            if drop > 0 {
                let keep = bufEnd - bufStart - drop
                for c in 0..<channels {
                    let p = buffer.pointer + c * capacity
                    if keep > 0 { moveSamples(p, p + drop, keep) }
                }
                bufStart += drop
            }
            let room = capacity - (bufEnd - bufStart)
            if room <= 0 { break }
            if zerosToFeed > 0 {
                let k = min(room, zerosToFeed)
                appendZeros(k); zerosToFeed -= k
                continue
            }
            if consumed < n, let input = input {
                let k = min(room, n - consumed)
                for c in 0..<channels {
                    let d = buffer.pointer + c * capacity + (bufEnd - bufStart)
                    let s = input[c] + consumed
                    for i in 0..<k { d[i] = T(s[i].doubleValue) }
                }
                bufEnd += k; consumed += k; consumedTotal += k
                continue
            }
            if flushing { appendZeros(room); continue }
            break
        }
        return (consumed, produced)
    }

    private mutating func appendZeros(_ k: Int) {
        for c in 0..<channels { zeroSamples(buffer.pointer + c * capacity + (bufEnd - bufStart), k) }
        bufEnd += k
    }

    /// One output frame from a polyphase table (`taps` coefficients per row), cubic (Lagrange)
    /// interpolation between the four rows around the current phase; returns false when the
    /// input does not reach far enough yet. Shared by the up-sampling and the steady
    /// down-sampling paths, which differ only in their table.
    @inline(__always)
    private func interpolatedPolyphase<S: ResamplerScalar>(rows: UnsafeMutablePointer<T>, taps: Int,
                                                           _ output: UnsafePointer<UnsafeMutablePointer<S>>, _ index: Int) -> Bool {
        let halfTaps = taps / 2
        if posInt + halfTaps >= bufEnd { return false }
        let x = Double(posFrac >> 11) * 0x1p-53 * tableScale
        let ph = Int(x)
        let w = x - Double(ph)
        let wm1 = T(-w * (w - 1) * (w - 2) / 6), w0 = T((w + 1) * (w - 1) * (w - 2) / 2)
        let w1 = T(-(w + 1) * w * (w - 2) / 2), w2 = T((w + 1) * w * (w - 1) / 6)
        let r0 = rows + ph * taps, r1 = r0 + taps, r2 = r1 + taps, r3 = r2 + taps
        let first = posInt - halfTaps + 1 - bufStart
        var c = 0
        while c < channels {
            let pairs = c + 1 < channels
            let x0 = buffer.pointer + c * capacity + first
            let x1 = pairs ? x0 + capacity : x0
            var a0 = V(), a1 = V()
            var k = 0
            while k < taps {
                let h = r0.v4(k) * wm1 + r1.v4(k) * w0 + r2.v4(k) * w1 + r3.v4(k) * w2
                a0 += h * x0.v4(k)
                a1 += h * x1.v4(k)
                k &+= 4
            }
            output[c][index] = S(a0.sum().doubleValue)
            if pairs { output[c + 1][index] = S(a1.sum().doubleValue) }
            c += 2
        }
        return true
    }

    /// Computes outputs while the input covers them.
    @inline(__always)
    private mutating func produce<S: ResamplerScalar>(_ output: UnsafePointer<UnsafeMutablePointer<S>>, _ offset: Int, _ maxCount: Int) -> Int {
        var count = 0
        let tab = table.pointer
        let scale = tableScale
        while count < maxCount {
            if flushing && position + step / 2 > flushEnd { break }
            let s = min(1, 1 / step)
            if s == 1 {
                // up-sampling: polyphase rows, one set of Lagrange weights per output
                guard interpolatedPolyphase(rows: phaseTable.pointer, taps: unitTaps, output, offset + count) else { break }
                count += 1
                producedTotal += 1
                advance()
                continue
            }
            if rampLeft == 0 {
                // steady down-sampling: polyphase rows of the stretched kernel
                if s != stretchS { buildStretchTable(s) }
                guard interpolatedPolyphase(rows: stretchTable.pointer, taps: stretchTaps, output, offset + count) else { break }
                count += 1
                producedTotal += 1
                advance()
                continue
            }
            let taps = tapCount(s)
            let halfTaps = taps / 2
            if posInt + halfTaps >= bufEnd { break }
            let f = Double(posFrac) * 0x1p-64
            // tap k at input index posInt - halfTaps + 1 + k, prototype time s (f + halfTaps - 1 - k)
            let sp = s * scale
            let lane = VD(0, 1, 2, 3)
            let tk = (VD(repeating: f + Double(halfTaps - 1)) - lane) * sp + VD(repeating: tableOffset)
            let dk = VD(repeating: 4 * sp)
            let first = posInt - halfTaps + 1 - bufStart
            let gain = T(s)
            var acc0 = V(), acc1 = V()
            var c = 0
            // channel pairs
            while true {
                let pairs = c + 1 < channels
                let x0 = buffer.pointer + c * capacity + first
                let x1 = pairs ? x0 + capacity : x0
                acc0 = V(); acc1 = V()
                var t = tk
                var k = 0
                while k < taps {
                    let h = VariableRatioEngine.coefficients(tab, t)
                    acc0 += h * x0.v4(k)
                    if pairs { acc1 += h * x1.v4(k) }
                    t -= dk
                    k += 4
                }
                output[c][offset + count] = S((acc0.sum() * gain).doubleValue)
                if pairs { output[c + 1][offset + count] = S((acc1.sum() * gain).doubleValue) }
                c += 2
                if c >= channels { break }
            }
            count += 1
            producedTotal += 1
            advance()
        }
        return count
    }

    @inline(__always)
    private mutating func advance() {
        if rampLeft > 0 {
            step += rampStep
            rampLeft -= 1
            if rampLeft == 0 { step = targetStep }
            ratioNow = 1 / step
        }
        let si = Double(floorToInt(step))
        let sf = PolyphaseStage<T>.fraction64(step - si)
        let (nf, carry) = posFrac.addingReportingOverflow(sf)
        posFrac = nf
        posInt += Int(si) + (carry ? 1 : 0)
    }

    /// Fills `stretchTable` for stretch s: row r = phase (r - 1) / 128, tap k = s h(s (f + half - 1 - k)).
    private mutating func buildStretchTable(_ s: Double) {
        let taps = tapCount(s), half = taps / 2
        let rows = Int(tableScale) + 3
        let tab = table.pointer
        for r in 0..<rows {
            let f = Double(r - 1) / tableScale
            var k = 0
            while k < taps {
                let t = (VD(repeating: f + Double(half - 1 - k)) - VD(0, 1, 2, 3)) * (s * tableScale) + VD(repeating: tableOffset)
                stretchTable.pointer.setV4(r * taps + k, VariableRatioEngine.coefficients(tab, t) * T(s))
                k += 4
            }
        }
        stretchS = s
        stretchTaps = taps
    }

    /// Kernel values at four table positions (table units), 4-point Lagrange interpolation.
    @inline(__always)
    static func coefficients(_ tab: UnsafeMutablePointer<T>, _ t: VD) -> V {
        let i0 = Int(t[0]), i1 = Int(t[1]), i2 = Int(t[2]), i3 = Int(t[3])
        let w = V(T(t[0] - Double(i0)), T(t[1] - Double(i1)), T(t[2] - Double(i2)), T(t[3] - Double(i3)))
        let (ym, y0, y1, y2) = transpose4(tab.v4(i0 - 1), tab.v4(i1 - 1), tab.v4(i2 - 1), tab.v4(i3 - 1))
        let one = V(repeating: 1), two = V(repeating: 2)
        let wm1 = w - one, wm2 = w - two, wp1 = w + one
        let sixth = V(repeating: T(1.0 / 6)), halfV = V(repeating: T(0.5))
        let lm = -(w * wm1 * wm2) * sixth
        let l0 = wp1 * wm1 * wm2 * halfV
        let l1 = -(wp1 * w * wm2) * halfV
        let l2 = wp1 * w * wm1 * sixth
        return lm * ym + l0 * y0 + l1 * y1 + l2 * y2
    }
}

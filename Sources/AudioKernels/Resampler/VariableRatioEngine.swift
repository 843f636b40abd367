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

final class VariableRatioEngine<T: ResamplerScalar> {
    typealias V = SIMD4<T>
    typealias VD = SIMD4<Double>

    let channels: Int
    let inputRate: Double, outputRate: Double
    let minRatio: Double, maxRatio: Double
    let radius: Double            // prototype half-width (prototype units)
    let tableScale: Double        // table points per prototype unit
    let table: AlignedBuffer<T>   // h at (i - tableOffset) / tableScale
    let tableOffset: Double
    let tableCount: Int
    let maxTaps: Int

    // ratio state: step = input frames per output frame
    private(set) var currentRatio: Double
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

    let priming: ResamplerPriming
    let leadingFrames: Int, trailingFrames: Int, timeOrigin: Int
    let leadZeros: Int
    var zerosToFeed = 0
    var consumedTotal = 0
    var producedTotal = 0
    var flushing = false
    var flushEnd = 0.0           // flush: produce while position < flushEnd

    init(inputRate: Double, outputRate: Double, channels: Int, quality: ResamplerQuality,
         priming: ResamplerPriming, range: ClosedRange<Double>) {
        precondition(channels >= 1, "SampleRateConverter: channel count \(channels) must be >= 1")
        precondition(inputRate > 0 && outputRate > 0, "SampleRateConverter: invalid rates \(inputRate) -> \(outputRate)")
        precondition(range.lowerBound > 0 && range.upperBound.isFinite, "SampleRateConverter: invalid ratio range \(range)")
        self.channels = channels
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.priming = priming
        let nominal = outputRate / inputRate
        minRatio = min(range.lowerBound, nominal)
        maxRatio = max(range.upperBound, nominal)
        currentRatio = nominal
        step = 1 / nominal
        targetStep = step

        let design = ResamplerDesign.of(quality)
        let pb = design.passband
        let n = ResamplerFilterDesign.kaiserLength(attenuation: design.attenuation, transition: (1 - pb) / 2)
        radius = Double(n) / 2
        let kernel = ResamplerFilterDesign.Kernel(cutoff: (pb / 2 + 0.5) / 2, radius: radius,
                                                  beta: ResamplerFilterDesign.kaiserBeta(attenuation: design.attenuation))
        tableScale = 128
        tableOffset = (radius * tableScale).rounded(.up) + 8
        tableCount = Int(2 * tableOffset) + 8
        table = AlignedBuffer(count: tableCount + 8)
        for i in 0..<tableCount {
            table.pointer[i] = T(kernel((Double(i) - tableOffset) / tableScale))
        }
        let sMin = min(1, minRatio)
        maxTaps = (Int((2 * radius / sMin).rounded(.up)) + 4 + 3) / 4 * 4
        capacity = 4 * maxTaps + 4096
        buffer = AlignedBuffer(count: channels * capacity + 8)

        let s0 = min(1, nominal)
        let reach = radius / s0 + 2
        trailingFrames = Int(reach.rounded(.up))
        leadingFrames = trailingFrames
        switch priming {
        case .aligned: timeOrigin = 0
        case .preroll: timeOrigin = leadingFrames
        case .delayed: timeOrigin = -trailingFrames
        }
        leadZeros = maxTaps / 2 + 2 + max(0, -timeOrigin)
        let start = Double(leadZeros + timeOrigin)
        startInt = Int(start)
        startFrac = 0
        reset()
    }

    deinit { table.deallocate(); buffer.deallocate() }

    func reset() {
        posInt = startInt; posFrac = startFrac
        bufStart = 0; bufEnd = 0
        zerosToFeed = leadZeros
        consumedTotal = 0; producedTotal = 0
        flushing = false
        step = 1 / (outputRate / inputRate)
        currentRatio = outputRate / inputRate
        targetStep = step
        rampLeft = 0
    }

    func setRatio(_ r: Double, rampFrames: Int) {
        let ratio = Swift.min(Swift.max(r, minRatio), maxRatio)
        targetStep = 1 / ratio
        if rampFrames <= 0 {
            step = targetStep; rampLeft = 0; currentRatio = ratio
        } else {
            rampLeft = rampFrames
            rampStep = (targetStep - step) / Double(rampFrames)
        }
    }

    func outputFrames(forInputFrames frames: Int) -> Int {
        let x = frames - timeOrigin
        if x <= 0 { return 0 }
        return Int((Double(x) * currentRatio + 0.5).rounded(.down))
    }

    func beginFlush() {
        if !flushing {
            flushing = true
            // produce output m while its time (from the origin) < frames + step / 2
            flushEnd = Double(leadZeros + consumedTotal)
        }
    }

    @inline(__always) var position: Double { Double(posInt) + Double(posFrac) * 0x1p-64 }

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
        let need = Int((position + dist).rounded(.down)) + Int(taps / 2) + 2
        return max(0, need - bufEnd - zerosToFeed)
    }

    @inline(__always) func tapCount(_ s: Double) -> Int {
        min(maxTaps, (Int((2 * radius / s).rounded(.up)) + 4 + 3) / 4 * 4)
    }

    // MARK: processing

    func process<S: ResamplerScalar>(input: UnsafePointer<UnsafePointer<S>>?, inputFrames n: Int,
                                     output: UnsafePointer<UnsafeMutablePointer<S>>, outputCapacity cap: Int) -> (Int, Int) {
        var consumed = 0, produced = 0
        while produced < cap {
            let got = produce(output, produced, cap - produced)
            if got > 0 { produced += got; continue }
            if flushing && position >= flushEnd + step / 2 { break }
            // need input
            let drop = min(posInt - maxTaps / 2 - 2, bufEnd) - bufStart
            if drop > 0 {
                let keep = bufEnd - bufStart - drop
                for c in 0..<channels {
                    let p = buffer.pointer + c * capacity
                    if keep > 0 { p.update(from: p + drop, count: keep) }
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

    private func appendZeros(_ k: Int) {
        for c in 0..<channels { (buffer.pointer + c * capacity + (bufEnd - bufStart)).update(repeating: 0, count: k) }
        bufEnd += k
    }

    /// Computes outputs while the input covers them.
    @inline(__always)
    private func produce<S: ResamplerScalar>(_ output: UnsafePointer<UnsafeMutablePointer<S>>, _ offset: Int, _ maxCount: Int) -> Int {
        var count = 0
        let tab = table.pointer
        let scale = tableScale
        while count < maxCount {
            if flushing && position >= flushEnd + step / 2 { break }
            let s = min(1, 1 / step)
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
    private func advance() {
        if rampLeft > 0 {
            step += rampStep
            rampLeft -= 1
            if rampLeft == 0 { step = targetStep }
            currentRatio = 1 / step
        }
        let si = step.rounded(.down)
        let sf = PolyphaseStage<T>.fraction64(step - si)
        let (nf, carry) = posFrac.addingReportingOverflow(sf)
        posFrac = nf
        posInt += Int(si) + (carry ? 1 : 0)
    }

    /// Kernel values at four table positions (table units), 4-point Lagrange interpolation.
    @inline(__always)
    static func coefficients(_ tab: UnsafeMutablePointer<T>, _ t: VD) -> V {
        let i0 = Int(t[0]), i1 = Int(t[1]), i2 = Int(t[2]), i3 = Int(t[3])
        let w = V(T(t[0] - Double(i0)), T(t[1] - Double(i1)), T(t[2] - Double(i2)), T(t[3] - Double(i3)))
        let (ym, y0, y1, y2) = PermutedFFT<T>.transpose(tab.v4(i0 - 1), tab.v4(i1 - 1), tab.v4(i2 - 1), tab.v4(i3 - 1))
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

// A constant-ratio conversion pipeline in the spirit of libsoxr: the steep filtering happens at
// twice the lower rate in an `OctaveStage` (fast convolution), and a short `PolyphaseStage`
// does the fractional part, where the transition band is wide (the signal is oversampled 2x).
//
//   upsampling   (out > in):  x --OctaveStage x2--> w (2 in) --Polyphase--> y (out)
//   downsampling (out < in):  x --Polyphase--> v (2 out) --OctaveStage /2--> y (out)
//   same rate:                copy
//
// Output frame m is the band-limited input at input time t0 + m * in/out (input frames), with
// t0 set by the priming mode. Streams are cut into blocks at fixed positions, so the output
// never depends on how the caller chunks the input.
//
// Design (all in Float64 at init):
// * steep filter: Kaiser-windowed sinc at 2 x low rate, pass band edge pb x low/2, stop band
//   edge exactly low/2 (nothing aliases into the output band); beta and length from Kaiser's
//   formulas for the level's attenuation; optionally made minimum phase (cepstrum).
// * fractional kernel: a continuous Kaiser-windowed sinc whose stop band starts at 1.5 x low
//   (the first image of the 2x-oversampled signal), with as few taps as keep its response at
//   low/2 above 0.7 (12 taps at .high, 16 at .max instead of 20 and 28 for a flat one). Its
//   pass-band droop is undone by convolving the steep filter with a 25-tap zero-phase equaliser
//   1/H (least squares, error ~1e-10), so the cascade is flat to 1e-9.
// * exact rational ratios get exact phase tables (up to 4096 phases); others interpolate.

/// Per-quality design constants.
struct ResamplerDesign {
    let attenuation: Double      // dB, both stages
    let passband: Double         // fraction of the lower Nyquist kept flat
    let useDouble: Bool

    static func of(_ q: ResamplerQuality) -> ResamplerDesign {
        switch q {
        case .min: return ResamplerDesign(attenuation: 85, passband: 0.80, useDouble: false)
        case .low: return ResamplerDesign(attenuation: 105, passband: 0.87, useDouble: false)
        case .medium: return ResamplerDesign(attenuation: 125, passband: 0.90, useDouble: false)
        case .high: return ResamplerDesign(attenuation: 145, passband: 0.913, useDouble: false)
        case .max: return ResamplerDesign(attenuation: 180, passband: 0.913, useDouble: true)
        }
    }
}

/// Exact rational form of out/in when both rates are integers (or integer multiples of a
/// common unit), reduced.
func exactRatio(_ a: Double, _ b: Double) -> (num: Int, den: Int)? {
    // scale by up to 1000 to allow rates like 11025.5
    for s in [1.0, 10, 100, 1000] {
        let x = a * s, y = b * s
        if x == x.rounded(), y == y.rounded(), x < 1e12, y < 1e12, x > 0, y > 0 {
            let xi = Int(x), yi = Int(y)
            var g = xi, h = yi
            while h != 0 { (g, h) = (h, g % h) }
            return (xi / g, yi / g)
        }
    }
    return nil
}

struct FixedRatioEngine<T: ResamplerScalar> {
    let channels: Int
    let inputRate: Double, outputRate: Double
    let priming: ResamplerPriming
    /// Input frames before / after an output's time that it depends on.
    let leadingFrames: Int
    let trailingFrames: Int
    /// Output time origin in input frames: 0, leadingFrames (.preroll) or -trailingFrames (.delayed).
    let timeOrigin: Int
    var consumedTotal = 0
    var producedTotal = 0
    var flushing = false

    let up: Bool
    /// out/in as an exact fraction, when the rates allow.
    let ratio: (num: Int, den: Int)?
    var octave: OctaveStage<T>
    var poly: PolyphaseStage<T>
    /// Zeros fed into the first stage before the input (so the first outputs have history).
    let leadZeros: Int

    // scratch (per channel) between stages and for sample-type conversion
    let scratchFrames = 512
    let scratch: AlignedBuffer<T>
    let scratchPointers: AlignedBuffer<UnsafeMutablePointer<T>>
    let stagePointers: AlignedBuffer<UnsafeMutablePointer<T>>
    // down: octave-stage output waiting to be delivered
    let pending: AlignedBuffer<T>
    let pendingPointers: AlignedBuffer<UnsafeMutablePointer<T>>
    var pendingStart = 0, pendingEnd = 0

    // stream state
    var zerosToFeed = 0
    var flushTarget = 0

    init(inputRate: Double, outputRate: Double, channels: Int, quality: ResamplerQuality,
         phase: ResamplerPhase, priming: ResamplerPriming) {
        precondition(inputRate != outputRate)
        self.channels = channels
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.priming = priming
        ratio = exactRatio(outputRate, inputRate)
        let design = ResamplerDesign.of(quality)
        scratch = AlignedBuffer(count: channels * 512)
        scratchPointers = AlignedBuffer(count: channels)
        stagePointers = AlignedBuffer(count: channels)
        for c in 0..<channels { scratchPointers.pointer[c] = scratch.pointer + c * 512 }

        let up = outputRate > inputRate
        self.up = up
        let lowRate = min(inputRate, outputRate)

        let pb = design.passband
        let att = design.attenuation
        let beta = ResamplerFilterDesign.kaiserBeta(attenuation: att)

        // ---- fractional stage kernel: stop band from 1.5 x low (Hz), where the first image of
        // the 2x-oversampled signal starts. Its pass band need not be flat: the steep stage
        // equalises it (below). So K is the smallest multiple of 4 whose response at the lower
        // Nyquist frequency is still >= 0.7 (at most the flat design's K).
        let inB = up ? 2 * inputRate : inputRate
        let fp = pb * lowRate / 2 / inB
        let fs = 1.5 * lowRate / inB
        let edge = lowRate / 2 / inB
        // a continuous kernel of support K reaches Kaiser's attenuation for N - 1 = K intervals
        var flatK = ResamplerFilterDesign.kaiserLength(attenuation: att, transition: fs - fp) - 1
        flatK = max(4, (flatK + 3) / 4 * 4)
        // Kaiser's formula gives the attenuation well inside the stop band; at its edge the
        // kernel is ~8 dB short, so design for 10 dB more (the flat design has margin from
        // rounding K up to a multiple of 4)
        let attB = att + 10
        let betaB = ResamplerFilterDesign.kaiserBeta(attenuation: attB)
        func kaiserKernel(_ k: Int) -> ResamplerFilterDesign.Kernel {
            let transition = (attB - 7.95) / (2.285 * 2 * ResamplerMath.pi * Double(k))
            return ResamplerFilterDesign.Kernel(cutoff: fs - transition / 2, radius: Double(k) / 2, beta: betaB)
        }
        var k = flatK
        var kernel = ResamplerFilterDesign.Kernel(cutoff: (fp + fs) / 2, radius: Double(flatK) / 2, beta: beta)
        func acceptable(_ candidate: ResamplerFilterDesign.Kernel) -> Bool {
            let r = ResamplerFilterDesign.response(of: candidate, at: [0, edge])
            return r[0] > 0.99 && r[1] >= 0.7
        }
        // The smallest K that passes, scanning multiples of 4. Each trial evaluates the kernel's
        // response (up to 4,097 kernel samples), so a plain scan is quadratic in K: for extreme
        // ratios (282,055 Hz → 3 Hz: K in the hundreds of thousands) it took seconds, found by
        // fuzzing the converter. Ordinary ratios pass below 256 and keep the scan (the same K as
        // always); beyond it the search bisects between the last K that failed and the flat
        // design's, which passes by construction. Longer kernels only widen the pass band towards
        // the fixed stop-band edge, so the test is monotonic in K and bisection finds the scan's K.
        var trial = 4
        var found = false
        while trial < min(flatK, 256) {
            let candidate = kaiserKernel(trial)
            if acceptable(candidate) { k = trial; kernel = candidate; found = true; break }
            trial += 4
        }
        if !found && trial < flatK {
            var failing = trial - 4, passing = flatK   // multiples of 4; `passing` is the flat design
            while passing - failing > 4 {
                let middle = (failing + passing) / 8 * 4
                if acceptable(kaiserKernel(middle)) { passing = middle } else { failing = middle }
            }
            if passing < flatK { k = passing; kernel = kaiserKernel(passing) }
        }

        // step in stage-input samples per stage output, and its exact form
        let step: Double
        var exactStep: (p: Int, q: Int)?
        if up {
            step = 2 * inputRate / outputRate
            if let r = ratio {   // 2 in / out = 2 den / num
                var g = 2 * r.den, h = r.num
                while h != 0 { (g, h) = (h, g % h) }
                exactStep = (r.num / g, 2 * r.den / g)
            }
        } else {
            step = inputRate / (2 * outputRate)
            if let r = ratio {   // in / (2 out) = den / (2 num)
                var g = r.den, h = 2 * r.num
                while h != 0 { (g, h) = (h, g % h) }
                exactStep = (2 * r.num / g, r.den / g)
            }
        }
        if let e = exactStep, e.p > 4096 || e.p * k > 1 << 20 { exactStep = nil }
        let useDeltaKernel = exactStep.map { $0.p == 1 && $0.q == 1 } ?? false

        // ---- steep stage: low-pass at 2 x lowRate, pass band pb/4, stop band 1/4 (cycles/sample),
        // convolved with a 25-tap zero-phase equaliser G ~ 1/H of the fractional stage's kernel
        // (least-squares cosine series on 0 ... 1/4, error ~1e-10), so the cascade is flat. G
        // grows in the stop band (up to ~10x), so the low-pass is designed with that much more
        // attenuation (almost free: only the overlap of the fast convolution grows).
        let needsEqualizer = !useDeltaKernel && k < flatK
        var equalizer: [Double] = [1]
        var stopBoost = 1.0
        if needsEqualizer {
            let grid = (0..<400).map { 0.25 * Double($0) / 399 }
            let h = ResamplerFilterDesign.response(of: kernel, at: grid.map { $0 * 2 * lowRate / inB })
            equalizer = ResamplerFilterDesign.cosineFit(freqs: grid, target: h.map { 1 / $0 }, taps: 12)
            let stop = (0..<200).map { 0.25 + 0.25 * Double($0) / 199 }
            stopBoost = ResamplerFilterDesign.cosineSeries(equalizer, at: stop).map { abs($0) }.max() ?? 1
        }
        let attA = att + 20 * ResamplerMath.log(max(1, stopBoost)) / ResamplerMath.log(10)
        var n = ResamplerFilterDesign.kaiserLength(attenuation: attA, transition: (1 - pb) / 4)
        if n % 2 == 0 { n += 1 }
        var filter = ResamplerFilterDesign.lowpass(length: n, cutoff: (pb / 4 + 0.25) / 2,
                                                   beta: ResamplerFilterDesign.kaiserBeta(attenuation: attA), gain: 1)
        if needsEqualizer {
            let l = equalizer.count - 1
            let g = (-l...l).map { equalizer[abs($0)] }
            var c = [Double](repeating: 0, count: n + 2 * l)
            for i in 0..<n { for j in 0..<g.count { c[i + j] += filter[i] * g[j] } }
            filter = c
            n = c.count
        }
        var delay = Double(n - 1) / 2      // in taps at 2 x lowRate
        if phase == .minimum {
            let mp = ResamplerFilterDesign.minimumPhase(filter)
            filter = mp.filter
            delay = mp.delay
        }
        let lp = (n + 1) / 2
        // transform size: minimise transform work per output frame, with a penalty once a plane
        // exceeds 16 KB (4096 Float or 2048 Float64 samples: the four work planes then outgrow
        // the L1 cache; measured, Float64 runs 5-8% faster at 2048 than at 4096 points)
        var best = 0, bestCost = Double.infinity
        var msize = 16
        while msize < 2 * lp { msize *= 2 }
        for _ in 0..<5 {
            let cost = (3 * 4.25 * Double(msize) * Double(msize.trailingZeroBitCount) + 14 * Double(msize))
                / Double(msize - lp + 1) * (msize * MemoryLayout<T>.size > 16384 ? 1.15 : 1)
            if cost < bestCost { bestCost = cost; best = msize }
            msize *= 2
        }
        let oct = OctaveStage<T>(up: up, channels: channels, filter: filter, transformSize: best)

        // the steep filter's delay, as an offset on the polyphase stage's grid: output k of the
        // octave stage is at position k + dEff (see OctaveStage). Exact phases need the start on
        // the 1/p grid, so a fractional (minimum-phase) delay is rounded to 1/p (up) or 1/q (down).
        var dEff = Double(n - 1) - delay
        if let e = exactStep {
            let grid = Double(up ? e.p : e.q)
            dEff = (dEff * grid).rounded() / grid
            delay = Double(n - 1) - dEff
        }
        let kernelTaps = useDeltaKernel ? 4 : k
        let useDelta = useDeltaKernel

        // ---- latency bookkeeping (input frames)
        let half = Double(kernelTaps / 2)
        let lookahead: Double, history: Double
        if up {
            // w index u <-> x' time (u + dEff) / 2; w[k] needs x'[k/2 ... k/2 + lp - 1]
            lookahead = (Double(lp - 1) - dEff / 2) + half / 2 + 1
            history = dEff / 2 + half / 2 + 1
        } else {
            // v'[i] <-> time t0 + (i - dEff) step; output j uses v'[2j ... 2j + n - 1]
            lookahead = delay * step + half + 1
            history = dEff * step + half + 1
        }
        let trailing = Int(lookahead.rounded(.up))
        let leading = Int(history.rounded(.up))
        let t0: Double
        switch priming {
        case .aligned: t0 = 0
        case .preroll: t0 = Double(leading)
        case .delayed: t0 = Double(-trailing)
        }
        // zeros in front so that the first output's taps are all inside the stream
        let start: Double, z: Int
        if up {
            // u_0 = 2 (z + t0) - dEff >= half - 1
            z = max(0, Int(((half - 1 + dEff) / 2 - t0).rounded(.up)) + 1)
            start = 2 * (Double(z) + t0) - dEff
        } else {
            // u_0 = z + t0 - dEff * step >= half - 1
            z = max(0, Int((half - 1 + dEff * step - t0).rounded(.up)) + 1)
            start = Double(z) + t0 - dEff * step
        }
        leadZeros = z
        let capacity = up ? 2 * oct.block + 2 * kernelTaps + 64 : 4096 + 2 * kernelTaps
        let deltaKernel = ResamplerFilterDesign.Kernel(cutoff: 0, radius: 0, beta: 0)
        let ps = PolyphaseStage<T>(channels: channels, kernel: useDelta ? deltaKernel : kernel, taps: kernelTaps,
                                   exactStep: exactStep, realStep: step, start: start,
                                   capacity: capacity, prepad: 0, delta: useDelta)
        octave = oct
        poly = ps
        pending = AlignedBuffer(count: up ? 1 : channels * oct.block)
        pendingPointers = AlignedBuffer(count: channels)
        if !up { for c in 0..<channels { pendingPointers.pointer[c] = pending.pointer + c * oct.block } }
        leadingFrames = leading
        trailingFrames = trailing
        timeOrigin = Int(t0)
        reset()
    }

    func deallocate() {
        scratch.deallocate(); scratchPointers.deallocate(); stagePointers.deallocate()
        pending.deallocate(); pendingPointers.deallocate()
        octave.deallocate(); poly.deallocate()
    }

    mutating func reset() {
        octave.reset()
        poly.reset()
        zerosToFeed = leadZeros
        consumedTotal = 0
        producedTotal = 0
        pendingStart = 0; pendingEnd = 0
        flushing = false
        flushTarget = 0
    }

    /// Output frames for a whole stream of `frames` input frames (see `SampleRateConverter`).
    func outputFrames(forInputFrames frames: Int) -> Int {
        let x = frames - timeOrigin
        if x <= 0 { return 0 }
        if let r = ratio {
            // round half up of x * num / den, in 128-bit arithmetic
            let (hi, lo) = (2 * x).multipliedFullWidth(by: r.num)
            let (sum, carry) = lo.addingReportingOverflow(UInt(r.den))
            let (q, _) = (2 * r.den).dividingFullWidth((high: hi + (carry ? 1 : 0), low: sum))
            return q
        }
        return floorToInt(Double(x) * outputRate / inputRate + 0.5)
    }

    // MARK: processing

    mutating func beginFlush() {
        if !flushing {
            flushing = true
            flushTarget = outputFrames(forInputFrames: consumedTotal)
        }
    }

    /// Converts; returns (consumed, produced).
    @inline(__always)
    mutating func process<S: ResamplerScalar>(_ input: UnsafePointer<UnsafePointer<S>>?, _ n: Int,
                                              _ output: UnsafePointer<UnsafeMutablePointer<S>>, _ cap: Int) -> (Int, Int) {
        up ? processUp(input, n, output, cap) : processDown(input, n, output, cap)
    }

    @inline(__always)
    func outputLimit(_ capacity: Int, _ produced: Int) -> Int {
        let room = capacity - produced
        if flushing { return min(room, flushTarget - producedTotal) }
        return room
    }

    private mutating func processUp<S: ResamplerScalar>(_ input: UnsafePointer<UnsafePointer<S>>?, _ n: Int,
                                               _ output: UnsafePointer<UnsafeMutablePointer<S>>, _ cap: Int) -> (Int, Int) {
        var consumed = 0, produced = 0
        while true {
            let want = outputLimit(cap, produced)
            if want <= 0 { break }
            // 1. outputs from the fractional stage
            let got: Int
            if S.self == T.self {
                for c in 0..<channels {
                    stagePointers.pointer[c] = UnsafeMutableRawPointer(output[c] + produced).assumingMemoryBound(to: T.self)
                }
                got = poly.produce(into: stagePointers.pointer, offset: 0, maxCount: want)
            } else {
                got = poly.produce(into: scratchPointers.pointer, offset: 0, maxCount: min(want, scratchFrames))
                for c in 0..<channels { convert(scratchPointers.pointer[c], output[c] + produced, got) }
            }
            if got > 0 { produced += got; producedTotal += got; continue }
            // 2. run a block of the steep stage
            if octave.blockReady {
                let room = poly.makeRoom()
                precondition(room >= 2 * octave.block)
                for c in 0..<channels { stagePointers.pointer[c] = poly.writePointer(c) }
                octave.runUp(dest: stagePointers.pointer)
                poly.bufEnd += 2 * octave.block
                continue
            }
            // 3. feed the steep stage
            let space = octave.spaceUp
            if zerosToFeed > 0 {
                let k = min(space, zerosToFeed)
                for c in 0..<channels { zeroSamples(octave.channelPlane(c) + octave.fill, k) }
                octave.fill += k; zerosToFeed -= k
                continue
            }
            if consumed < n, let input = input {
                let k = min(space, n - consumed)
                for c in 0..<channels { convert(input[c] + consumed, octave.channelPlane(c) + octave.fill, k) }
                octave.fill += k; consumed += k; consumedTotal += k
                continue
            }
            if flushing {
                for c in 0..<channels { zeroSamples(octave.channelPlane(c) + octave.fill, space) }
                octave.fill += space
                continue
            }
            break
        }
        return (consumed, produced)
    }

    private mutating func processDown<S: ResamplerScalar>(_ input: UnsafePointer<UnsafePointer<S>>?, _ n: Int,
                                                 _ output: UnsafePointer<UnsafeMutablePointer<S>>, _ cap: Int) -> (Int, Int) {
        var consumed = 0, produced = 0
        while true {
            let want = outputLimit(cap, produced)
            if want <= 0 { break }
            // 1. deliver the steep stage's output
            if pendingEnd > pendingStart {
                let k = min(want, pendingEnd - pendingStart)
                for c in 0..<channels { convert(pendingPointers.pointer[c] + pendingStart, output[c] + produced, k) }
                pendingStart += k; produced += k; producedTotal += k
                continue
            }
            // 2. run a block: straight into the output when it fits, else into `pending`
            if octave.fill == octave.window {
                if S.self == T.self && want >= octave.block {
                    for c in 0..<channels {
                        stagePointers.pointer[c] = UnsafeMutableRawPointer(output[c] + produced).assumingMemoryBound(to: T.self)
                    }
                    octave.runDown(dest: stagePointers.pointer)
                    produced += octave.block; producedTotal += octave.block
                } else {
                    octave.runDown(dest: pendingPointers.pointer)
                    pendingStart = 0; pendingEnd = octave.block
                }
                continue
            }
            // 3. fractional stage output -> steep stage input
            let need = min(octave.neededDown, scratchFrames)
            let got = poly.produce(into: scratchPointers.pointer, offset: 0, maxCount: need)
            if got > 0 {
                let taken = octave.appendDown(scratchPointers.pointer, offset: 0, count: got)
                precondition(taken == got)
                continue
            }
            // 4. feed the fractional stage
            let room = poly.makeRoom()
            if zerosToFeed > 0 {
                let k = min(room, zerosToFeed)
                poly.appendZeros(k); zerosToFeed -= k
                continue
            }
            if consumed < n, let input = input {
                let k = min(room, n - consumed)
                for c in 0..<channels { convert(input[c] + consumed, poly.writePointer(c), k) }
                poly.bufEnd += k; consumed += k; consumedTotal += k
                continue
            }
            if flushing {
                poly.appendZeros(room)
                continue
            }
            break
        }
        return (consumed, produced)
    }

    // MARK: pull-model arithmetic

    /// Further input frames needed before `outputs` more output frames can be produced.
    func inputFramesNeeded(forOutputFrames outputs: Int) -> Int {
        if outputs <= 0 { return 0 }
        if up {
            let a = octave, b = poly
            let needW = b.inputNeeded(outputsAhead: outputs)
            if needW <= b.bufEnd { return 0 }
            let blocks = (needW - b.bufEnd + 2 * a.block - 1) / (2 * a.block)
            var x = a.blockReady ? (blocks - 1) * a.block : (a.window - a.fill) + (blocks - 1) * a.block
            if a.blockReady && blocks == 1 { x = 0 }
            return max(0, x - zerosToFeed)
        } else {
            let a = octave, b = poly
            let ready = pendingEnd - pendingStart
            if outputs <= ready { return 0 }
            let blocks = (outputs - ready + a.block - 1) / a.block
            let v = a.neededDown + (blocks - 1) * 2 * a.block
            let needX = b.inputNeeded(outputsAhead: v)
            return max(0, needX - b.bufEnd - zerosToFeed)
        }
    }

    @inline(__always)
    func convert<A: ResamplerScalar, B: ResamplerScalar>(_ src: UnsafePointer<A>, _ dst: UnsafeMutablePointer<B>, _ n: Int) {
        if n <= 0 { return }
        if A.self == B.self {
            UnsafeMutableRawPointer(dst).copyMemory(from: src, byteCount: n * MemoryLayout<A>.stride)
        } else if A.self == Float.self {
            let s = UnsafeRawPointer(src).assumingMemoryBound(to: Float.self)
            let d = UnsafeMutableRawPointer(dst).assumingMemoryBound(to: Double.self)
            for i in 0..<n { d[i] = Double(s[i]) }
        } else {
            let s = UnsafeRawPointer(src).assumingMemoryBound(to: Double.self)
            let d = UnsafeMutableRawPointer(dst).assumingMemoryBound(to: Float.self)
            for i in 0..<n { d[i] = Float(s[i]) }
        }
    }

    @inline(__always)
    func convert<A: ResamplerScalar, B: ResamplerScalar>(_ src: UnsafeMutablePointer<A>, _ dst: UnsafeMutablePointer<B>, _ n: Int) {
        convert(UnsafePointer(src), dst, n)
    }
}

// A streaming time stretcher and pitch shifter: a phase vocoder with identity phase locking
// (Laroche & Dolson 1999), transient preservation by phase reset, and a varispeed resampler
// after it for pitch.
//
// Time stretch. Frames of N samples (Hann window, N ~ 85 ms: 4096 at 44.1/48 kHz) are analysed
// every Ha input frames and resynthesised every Hs output frames (Hs = N / overlap; Ha follows
// Hs x rate / pitch, tracking the exact ideal input position so the duration is exact). In each
// frame the spectral peaks (local maxima over +-2 bins) get the phase a sinusoid at their
// instantaneous frequency would have after Hs frames; every other bin keeps its phase relation
// to the peak whose region (between valleys) it lies in, so a frame is the analysed frame with
// each partial rotated as a whole: a steady tone comes out as a steady tone, with no phasiness.
// The overlap-add is normalised by the sum of the windows, so any hop (and any change of hop)
// reconstructs without amplitude modulation.
//
// Transients. A detector looks at the input as it enters the analysis window (high-passed
// energy per block of N/32 frames): a rise of 10 dB over the previous eight blocks is an onset, a
// fall of 20 dB an abrupt end. At either the vocoder resets: that frame, and the next ones while
// the event is within the first three quarters of the window, are copied unmodified (synthesis
// phases = analysis phases) with Ha = Hs, so the overlap-add around the attack reconstructs the
// input exactly and the attack stays sharp, with no pre-echo. The reset frame is moved (by up to
// N/2) so the event comes out exactly where the ideal time line puts it; the frames after it
// catch up with the time line (hop within 0.5 ... 1.5 of the nominal one). Events are ignored
// while the time line is off by more than N/4, so a dense attack train cannot drift.
//
// Pitch. The vocoder stretches by pitch / rate and a SampleRateConverter (variable ratio,
// out/in = 1/pitch) resamples back. It is engaged the first time the pitch differs from 0 cents
// (from then on it stays, at ratio 1 for 0 cents), primed with the vocoder's previous output, so
// the switch is seamless.
//
// Timing. Output sample t is input time t x rate - N/2 (the analysis window's half: the
// latency). The caller asks `inputFramesNeeded(forOutputFrames:)` and feeds that many frames;
// the first call asks for about one window more than rate x frames.
//
// Real-time safety: `process`, `inputFramesNeeded`, the parameter setters and `reset` allocate
// nothing, lock nothing; everything is allocated in `init`.

public final class TimeStretcher {
    public let sampleRate: Double
    public let channels: Int
    /// Analysis/synthesis frame size N (a power of two).
    public let fftSize: Int
    /// The most output frames one `process` call may ask for.
    public let maximumOutputFrames: Int

    public static let rateRange: ClosedRange<Double> = (1.0 / 32)...32
    public static let pitchScaleRange: ClosedRange<Double> = 0.25...4
    public static let overlapRange: ClosedRange<Double> = 3...32

    /// Input frames per output frame (2: twice as fast).
    public private(set) var rate: Double = 1
    /// Frequency scale factor (2: an octave up).
    public private(set) var pitchScale: Double = 1
    /// Frames per window length at the synthesis side (8: Hs = N/8).
    public private(set) var overlap: Double = 8
    /// Whether onsets reset the phases (on by default).
    public var preservesTransients = true
    /// Whether bins follow their region's peak (identity phase locking, on by default); off, every
    /// bin continues its own phase (a plain phase vocoder: phasier, and slower).
    public var peakLocking = true

    /// Output delay, in input frames (the analysis window's half).
    public var latencyFrames: Int { m }

    // sizes
    private let n: Int, m: Int, bins: Int
    // (the render path reaches the DSP objects through `Unmanaged`, with no reference counting;
    // the `...Storage` properties own them)
    private let fftStorage: RealFFT<Float>
    private let fftRef: Unmanaged<RealFFT<Float>>
    /// The FFT's packed input buffers (even / odd samples of the frame), cached: reading them
    /// through the generic plan on the render path is not proven lock-free by the compiler.
    private let fftEven: UnsafeMutablePointer<Float>, fftOdd: UnsafeMutablePointer<Float>
    private let winEven: UnsafeMutablePointer<Float>, winOdd: UnsafeMutablePointer<Float>
    private let synWindow: UnsafeMutablePointer<Float>
    private let winSquared: UnsafeMutablePointer<Float>

    // input FIFO: input position u (u = input time + 1.5 n) at index u - fifoStart
    private let fifoCapacity: Int
    private let fifo: UnsafeMutablePointer<Float>
    private var fifoStart = 0, fifoEnd = 0

    // overlap-add: output position v at index v - olaBase
    private let olaCapacity: Int
    private let acc: UnsafeMutablePointer<Float>
    private let wsum: UnsafeMutablePointer<Float>
    private var olaBase = 0, olaUsedEnd = 0
    /// Output below this is final (normalised).
    private var finalEnd = 0
    /// Next vocoder output handed out directly / fed to the resampler.
    private var readPos = 0, feedPos = 0

    // frame positions
    private var nextA = 0, lastA = 0, nextS = 0, lastS = 0
    private var idealA = 0.0
    private var framesDone = 0
    private var nextIsCopy = false
    private var transientUntil = Int.min

    // spectra (per channel, `bins` each): analysis, previous analysis, synthesis, previous synthesis
    private var xRe: UnsafeMutablePointer<Float>, xIm: UnsafeMutablePointer<Float>
    private var pRe: UnsafeMutablePointer<Float>, pIm: UnsafeMutablePointer<Float>
    private var yRe: UnsafeMutablePointer<Float>, yIm: UnsafeMutablePointer<Float>
    private var qRe: UnsafeMutablePointer<Float>, qIm: UnsafeMutablePointer<Float>
    private let mag2: UnsafeMutablePointer<Float>
    private let peaks: UnsafeMutablePointer<Int>
    private let peakRc: UnsafeMutablePointer<Float>, peakRs: UnsafeMutablePointer<Float>

    // onset detector
    private let block: Int
    private let history: UnsafeMutablePointer<Float>
    private let historyCount = 8
    private var historyIndex = 0
    private var detectPos = 0
    private let lastSample: UnsafeMutablePointer<Float>
    private var pendingOnset = Int.min

    // pitch resampler
    private let resamplerStorage: SampleRateConverter
    private let resamplerRef: Unmanaged<SampleRateConverter>
    private let resamplerHistory: Int
    private var resamplerEngaged = false
    private let inPtrs: UnsafeMutablePointer<UnsafePointer<Float>>
    private let outPtrs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    /// The frame size used at a sample rate: about 85 ms, a power of two (4096 at 44.1/48 kHz).
    public static func frameSize(sampleRate: Double) -> Int {
        var size = 256
        while Double(size) * 1.5 < sampleRate * 0.0853 { size *= 2 }
        return size
    }

    public init(sampleRate: Double, channels: Int, maximumOutputFrames: Int, fftSize: Int? = nil) {
        precondition(channels >= 1, "TimeStretcher: channel count \(channels) must be >= 1")
        precondition(sampleRate > 0 && sampleRate.isFinite, "TimeStretcher: invalid sample rate \(sampleRate)")
        self.sampleRate = sampleRate
        self.channels = channels
        self.maximumOutputFrames = max(1, maximumOutputFrames)
        let size = fftSize ?? TimeStretcher.frameSize(sampleRate: sampleRate)
        precondition(size >= 256 && size & (size - 1) == 0, "TimeStretcher: frame size \(size) must be a power of two >= 256")
        self.fftSize = size
        n = size
        m = size / 2
        bins = m + 1
        fftStorage = RealFFT<Float>(count: size)
        fftRef = Unmanaged.passUnretained(fftStorage)
        fftEven = fftStorage.packedEven
        fftOdd = fftStorage.packedOdd

        // windows: periodic Hann, analysis packed in the FFT's even/odd layout (rotated by N/2)
        let hann = UnsafeMutablePointer<Float>.allocate(capacity: size)
        defer { hann.deallocate() }
        for i in 0..<size {
            let s = StretchMath.sincos(StretchMath.pi * Double(i) / Double(size)).sin
            hann[i] = Float(s * s)
        }
        winEven = .allocate(capacity: m); winOdd = .allocate(capacity: m)
        for j in 0..<m {
            winEven[j] = hann[(2 * j + m) % size]
            winOdd[j] = hann[(2 * j + 1 + m) % size]
        }
        synWindow = .allocate(capacity: size)
        winSquared = .allocate(capacity: size)
        for i in 0..<size {
            synWindow[i] = hann[i] / Float(size)  // the inverse FFT gives N x the frame
            winSquared[i] = hann[i] * hann[i]
        }

        resamplerStorage = SampleRateConverter(inputRate: sampleRate, outputRate: sampleRate, channels: channels, quality: .min,
                                               priming: .preroll, variableRatio: 0.25...4)
        resamplerRef = Unmanaged.passUnretained(resamplerStorage)
        resamplerHistory = resamplerStorage.leadingFrames

        // capacities: the most input one call can need (rate 32, catch-up hops), and the most
        // vocoder output (pitch +2 octaves: 4 x the output) plus windows in progress
        fifoCapacity = maximumStretchInput(outputFrames: self.maximumOutputFrames, n: size) + 2 * size + 1024
        fifo = .allocate(capacity: channels * fifoCapacity)
        fifo.initialize(repeating: 0, count: channels * fifoCapacity)
        olaCapacity = resamplerHistory + 4 * self.maximumOutputFrames + 4 * (resamplerStorage.leadingFrames + resamplerStorage.trailingFrames) + 4 * size + 4096
        acc = .allocate(capacity: channels * olaCapacity)
        acc.initialize(repeating: 0, count: channels * olaCapacity)
        wsum = .allocate(capacity: olaCapacity)
        wsum.initialize(repeating: 0, count: olaCapacity)

        let spectrumSize = channels * (size / 2 + 1) + 8
        func spectrum() -> UnsafeMutablePointer<Float> {
            let p = UnsafeMutablePointer<Float>.allocate(capacity: spectrumSize)
            p.initialize(repeating: 0, count: spectrumSize)
            return p
        }
        xRe = spectrum(); xIm = spectrum(); pRe = spectrum(); pIm = spectrum()
        yRe = spectrum(); yIm = spectrum(); qRe = spectrum(); qIm = spectrum()
        mag2 = .allocate(capacity: bins + 8)
        mag2.initialize(repeating: 0, count: bins + 8)
        peaks = .allocate(capacity: bins + 4)
        peakRc = .allocate(capacity: bins + 4); peakRs = .allocate(capacity: bins + 4)

        block = max(16, size / 32)
        history = .allocate(capacity: 8)
        lastSample = .allocate(capacity: channels)
        inPtrs = .allocate(capacity: channels)
        outPtrs = .allocate(capacity: channels)
        reset()
    }

    deinit {
        winEven.deallocate(); winOdd.deallocate(); synWindow.deallocate(); winSquared.deallocate()
        fifo.deallocate(); acc.deallocate(); wsum.deallocate()
        xRe.deallocate(); xIm.deallocate(); pRe.deallocate(); pIm.deallocate()
        yRe.deallocate(); yIm.deallocate(); qRe.deallocate(); qIm.deallocate()
        mag2.deallocate(); peaks.deallocate(); peakRc.deallocate(); peakRs.deallocate()
        history.deallocate(); lastSample.deallocate(); inPtrs.deallocate(); outPtrs.deallocate()
    }

    /// An upper bound of `inputFramesNeeded(forOutputFrames:)` over all parameter values.
    public func maximumInputFrames(forOutputFrames frames: Int) -> Int {
        maximumStretchInput(outputFrames: frames, n: n)
    }

    // MARK: parameters (take effect at the next frame)

    public func setRate(_ value: Double) {
        rate = min(max(value.isFinite ? value : 1, 1.0 / 32), 32)
    }

    public func setOverlap(_ value: Double) {
        overlap = min(max(value.isFinite ? value : 8, 3), 32)
    }

    /// Sets the pitch scale (2^(cents/1200)); the resampler glides to it over one hop.
    public func setPitchScale(_ value: Double) {
        let p = min(max(value.isFinite ? value : 1, 0.25), 4)
        if p == pitchScale { return }
        pitchScale = p
        if !resamplerEngaged {
            // engage: prime with the output already handed out, start at ratio 1, glide
            resamplerRef._withUnsafeGuaranteedRef { $0.reset() }
            resamplerEngaged = true
            feedPos = readPos - resamplerHistory
        }
        let ramp = currentHop()
        resamplerRef._withUnsafeGuaranteedRef { $0.setRatio(1 / p, rampFrames: ramp) }
    }

    /// The synthesis hop for the current parameters: N / overlap, smaller when the analysis hop
    /// would exceed N/4 (very fast rates), so the phase estimate stays unambiguous.
    @inline(__always)
    private func currentHop() -> Int {
        let nominal = max(1, StretchMath.roundToInt(Double(n) / overlap))
        let speed = rate / pitchScale
        let limit = max(1, Int(Double(n) / 4 / speed))
        return min(nominal, limit)
    }

    /// Forgets the stream (as if new), keeping the parameters.
    public func reset() {
        StretchMath.zero(fifo, channels * fifoCapacity)
        StretchMath.zero(acc, channels * olaCapacity)
        StretchMath.zero(wsum, olaCapacity)
        for p in 0..<channels * bins {
            xRe[p] = 0; xIm[p] = 0; pRe[p] = 0; pIm[p] = 0; yRe[p] = 0; yIm[p] = 0; qRe[p] = 0; qIm[p] = 0
        }
        // 1.5 N zeros before the input (input position u = input time + 1.5 N); the first frame is
        // centred N/2 before the input (the latency), with room for a transient to move a frame
        // back by N/2 at the very start
        fifoStart = 0
        fifoEnd = n + m
        nextA = n
        lastA = n
        idealA = Double(n)
        nextS = 0
        lastS = 0
        framesDone = 0
        nextIsCopy = false
        transientUntil = Int.min
        olaBase = -m - resamplerHistory - 8
        olaUsedEnd = olaBase
        finalEnd = -m
        readPos = 0
        detectPos = n + m
        historyIndex = 0
        for i in 0..<historyCount { history[i] = 0 }
        for c in 0..<channels { lastSample[c] = 0 }
        pendingOnset = Int.min
        resamplerRef._withUnsafeGuaranteedRef { $0.reset() }
        resamplerEngaged = pitchScale != 1
        feedPos = resamplerEngaged ? -resamplerHistory : 0
        if resamplerEngaged {
            let ratio = 1 / pitchScale
            resamplerRef._withUnsafeGuaranteedRef { $0.setRatio(ratio, rampFrames: 0) }
        }
    }

    // MARK: pulling

    /// Input frames to feed before `process` can produce `frames` more output frames.
    ///
    /// `margin`: ask for that many frames beyond the requirement, counting what is already
    /// buffered beyond it (so asking with the same margin every call keeps at most `margin`
    /// spare frames queued: the FIFO never grows). For callers that change parameters while
    /// producing the frames and so cannot know the exact requirement in advance.
    public func inputFramesNeeded(forOutputFrames frames: Int, margin: Int = 0) -> Int {
        if frames <= 0 { return margin > 0 ? max(0, nextA + m + jumpReserve + margin - fifoEnd) : 0 }
        let vocoderFrames = resamplerEngaged ? resamplerRef._withUnsafeGuaranteedRef { $0.inputFramesNeeded(forOutputFrames: frames) } : frames
        let target = (resamplerEngaged ? feedPos : readPos) + vocoderFrames
        if finalEnd >= target { return margin > 0 ? max(0, nextA + m + jumpReserve + margin - fifoEnd) : 0 }
        let hs = currentHop()
        let count = (target - finalEnd + hs - 1) / hs
        let last = nextA + (count - 1) * maximumHop(hs)
        return max(0, last + m + jumpReserve + max(0, margin) - fifoEnd)
    }

    @inline(__always)
    private func maximumHop(_ hs: Int) -> Int {
        let h = Double(hs) * rate / pitchScale
        return max(hs, Int(1.5 * h) + 1)
    }

    // MARK: processing

    /// Appends `inputFrames` frames of `input` (nil: silence) and writes up to `outputFrames`
    /// frames to `output`; returns the frames written (fewer only when the input ran short; the
    /// rest of the output is then silence).
    @discardableResult
    public func process(input: UnsafePointer<UnsafePointer<Float>>?, inputFrames: Int,
                        output: UnsafePointer<UnsafeMutablePointer<Float>>, outputFrames: Int) -> Int {
        compactInput()
        compactOutput()
        // append the input
        let take = min(max(0, inputFrames), fifoCapacity - (fifoEnd - fifoStart))
        if take > 0 {
            for c in 0..<channels {
                let dst = fifo + c * fifoCapacity + (fifoEnd - fifoStart)
                if let input { StretchMath.copy(dst, input[c], take) } else { StretchMath.zero(dst, take) }
            }
            fifoEnd += take
        }
        let wanted = min(outputFrames, maximumOutputFrames)
        var produced = 0
        if !resamplerEngaged {
            synthesize(until: readPos + wanted)
            produced = min(wanted, finalEnd - readPos)
            if produced > 0 {
                for c in 0..<channels {
                    StretchMath.copy(output[c], acc + c * olaCapacity + (readPos - olaBase), produced)
                }
                readPos += produced
            }
        } else {
            var stalls = 0
            while produced < wanted {
                if stalls >= 2 { break }
                let remaining = wanted - produced
                let need = resamplerRef._withUnsafeGuaranteedRef { $0.inputFramesNeeded(forOutputFrames: remaining) }
                synthesize(until: feedPos + need)
                let available = max(0, finalEnd - feedPos)
                for c in 0..<channels {
                    inPtrs[c] = UnsafePointer(acc + c * olaCapacity + (feedPos - olaBase))
                    outPtrs[c] = output[c] + produced
                }
                let inputs = UnsafeBufferPointer(start: UnsafePointer(inPtrs), count: channels)
                let outputs = UnsafeBufferPointer(start: UnsafePointer(outPtrs), count: channels)
                let capacity = wanted - produced
                let r = resamplerRef._withUnsafeGuaranteedRef {
                    $0.process(input: inputs, inputFrames: available, output: outputs, outputCapacity: capacity)
                }
                feedPos += r.consumed
                produced += r.produced
                stalls = r.produced == 0 ? stalls + 1 : 0
            }
            readPos = feedPos
        }
        if produced < outputFrames {
            for c in 0..<channels { StretchMath.zero((output[c] + produced), outputFrames - produced) }
        }
        return produced
    }

    /// Synthesises frames until the final output reaches `target` or the input runs out.
    /// Input beyond a frame's window that must be there before it is processed: a transient may
    /// move the frame forward by up to this much (only when the vocoder compresses time).
    private var jumpReserve: Int { pitchScale < rate ? m : 0 }

    private func synthesize(until target: Int) {
        while finalEnd < target {
            if nextA + m + jumpReserve > fifoEnd { return }
            if nextS + m - olaBase > olaCapacity { return }
            processFrame()
        }
    }

    private func compactInput() {
        // (half a window of history: a transient may move a frame back that far)
        let keep = min(nextA - n, detectPos)
        let shift = keep - fifoStart
        if shift <= 0 { return }
        let length = fifoEnd - keep
        for c in 0..<channels {
            let p = fifo + c * fifoCapacity
            if length > 0 { StretchMath.copy(p, p + shift, length) }
        }
        fifoStart = keep
    }

    private func compactOutput() {
        let keep = min((resamplerEngaged ? feedPos : readPos) - resamplerHistory - 8, nextS - m)
        let shift = keep - olaBase
        if shift <= 0 { return }
        let length = olaUsedEnd - keep
        let used = olaUsedEnd - olaBase
        for c in 0..<channels {
            let p = acc + c * olaCapacity
            if length > 0 { StretchMath.copy(p, p + shift, length) }
            StretchMath.zero((p + max(0, length)), used - max(0, length))
        }
        if length > 0 { StretchMath.copy(wsum, wsum + shift, length) }
        StretchMath.zero((wsum + max(0, length)), used - max(0, length))
        olaBase = keep
        olaUsedEnd = max(olaUsedEnd, olaBase)
    }

    // MARK: one frame

    private func processFrame() {
        var a = nextA
        let s = nextS
        detectOnsets(upTo: a + m)
        let isCopy = nextIsCopy
        var reset = framesDone == 0
        if pendingOnset != Int.min {
            let q = pendingOnset
            pendingOnset = Int.min
            let drift = abs(Double(a) - idealA)
            var accept = isCopy
            if !accept { accept = drift < Double(n) / 4 }
            if !preservesTransients { accept = false }
            if accept {
                if !isCopy {
                    reset = true
                    // From here the frames are copied at stretch 1 (Ha = Hs): choose this frame's
                    // position so the transient comes out where the ideal time line puts it.
                    let aligned = Double(q) - (Double(q) - idealA) * (pitchScale / rate)
                    a = min(max(max(StretchMath.roundToInt(aligned), a - m), m), a + jumpReserve)
                }
                transientUntil = max(transientUntil, q + n / 4)
            }
        }
        let ha = a - lastA, hs = s - lastS
        if ha <= 0 || hs <= 0 { reset = true }
        let copy = reset || isCopy
        for c in 0..<channels {
            analyse(channel: c, at: a)
            if copy {
                let o = c * bins
                StretchMath.copy((yRe + o), xRe + o, bins)
                StretchMath.copy((yIm + o), xIm + o, bins)
            } else {
                lockPhases(channel: c, ha: ha, hs: hs)
            }
            synthesise(channel: c, at: s)
        }
        let w = wsum + (s - m - olaBase)
        for i in 0..<n { w[i] += winSquared[i] }
        olaUsedEnd = max(olaUsedEnd, s + m)
        swap(&xRe, &pRe); swap(&xIm, &pIm)
        swap(&yRe, &qRe); swap(&yIm, &qIm)
        framesDone += 1
        lastA = a
        lastS = s

        // the next frame
        let hsNext = currentHop()
        let h = Double(hsNext) * rate / pitchScale
        idealA += h
        nextS = s + hsNext
        let until = transientUntil
        if copy && a + hsNext <= until {
            nextIsCopy = true
            nextA = a + hsNext
        } else {
            nextIsCopy = false
            let lo = max(1, Int(0.5 * h)), hi = max(lo, Int(1.5 * h) + 1)
            nextA = a + min(max(StretchMath.roundToInt(idealA) - a, lo), hi)
        }
        // output below the next frame's start is final
        let newFinal = nextS - m
        if newFinal > finalEnd {
            let start = finalEnd - olaBase, count = newFinal - finalEnd
            for c in 0..<channels {
                let p = acc + c * olaCapacity + start
                for i in 0..<count {
                    let sum = wsum[start + i]
                    p[i] = sum > 1e-3 ? p[i] / sum : 0
                }
            }
            finalEnd = newFinal
        }
    }

    /// Windows the frame centred at input position `a` and transforms it into xRe/xIm.
    @inline(__always)
    private func analyse(channel c: Int, at a: Int) {
        let src = UnsafePointer(fifo + c * fifoCapacity + (a - m - fifoStart))
        let re = fftEven, im = fftOdd
        let quarter = m / 2
        // packed[j] = rotated[2j], rotated[i] = frame[(i + N/2) mod N]
        var j = 0
        while j < quarter {
            let f = 2 * j + m
            let s0 = SIMD4<Float>(src + f), s1 = SIMD4<Float>(src + f + 4)
            (SIMD4(s0[0], s0[2], s1[0], s1[2]) * SIMD4<Float>(winEven + j)).store(re + j)
            (SIMD4(s0[1], s0[3], s1[1], s1[3]) * SIMD4<Float>(winOdd + j)).store(im + j)
            j += 4
        }
        while j < m {
            let f = 2 * j - m
            let s0 = SIMD4<Float>(src + f), s1 = SIMD4<Float>(src + f + 4)
            (SIMD4(s0[0], s0[2], s1[0], s1[2]) * SIMD4<Float>(winEven + j)).store(re + j)
            (SIMD4(s0[1], s0[3], s1[1], s1[3]) * SIMD4<Float>(winOdd + j)).store(im + j)
            j += 4
        }
        let outRe = xRe + c * bins, outIm = xIm + c * bins
        fftRef._withUnsafeGuaranteedRef { $0.forwardPacked(re: outRe, im: outIm) }
    }

    /// Inverse-transforms yRe/yIm and overlap-adds it, windowed, centred at output position `s`.
    @inline(__always)
    private func synthesise(channel c: Int, at s: Int) {
        let inRe = UnsafePointer(yRe + c * bins), inIm = UnsafePointer(yIm + c * bins)
        let (even, odd) = fftRef._withUnsafeGuaranteedRef { $0.inversePacked(re: inRe, im: inIm) }
        let dst = acc + c * olaCapacity + (s - m - olaBase)
        let quarter = m / 2
        var j = 0
        while j < m {
            // rotated index 2j -> frame index (2j + N/2) mod N
            let f = j < quarter ? 2 * j + m : 2 * j - m
            let e = SIMD4<Float>(even + j), o = SIMD4<Float>(odd + j)
            let lo = SIMD4(e[0], o[0], e[1], o[1]), hi = SIMD4(e[2], o[2], e[3], o[3])
            (SIMD4<Float>(dst + f) + lo * SIMD4<Float>(synWindow + f)).store(dst + f)
            (SIMD4<Float>(dst + f + 4) + hi * SIMD4<Float>(synWindow + f + 4)).store(dst + f + 4)
            j += 4
        }
    }

    /// Identity phase locking: rotates each peak's region so the peak continues its phase.
    private func lockPhases(channel c: Int, ha: Int, hs: Int) {
        // locals: the conditions below must not capture self (no reference counting)
        let mag2 = self.mag2, peaks = self.peaks, peakRc = self.peakRc, peakRs = self.peakRs
        let bins = self.bins, n = self.n, peakLocking = self.peakLocking
        let o = c * bins
        let xr = xRe + o, xi = xIm + o, pr = pRe + o, pi = pIm + o
        let yr = yRe + o, yi = yIm + o, qr = qRe + o, qi = qIm + o
        var maxMag: Float = 0
        for k in 0..<bins {
            let v = xr[k] * xr[k] + xi[k] * xi[k]
            mag2[k] = v
            maxMag = max(maxMag, v)
        }
        // peaks: local maxima over +-2 bins within 70 dB of the frame's strongest bin (weaker bins
        // follow the region they lie in)
        let threshold = max(maxMag * 1e-7, Float.leastNormalMagnitude)
        var count = 0
        if maxMag > 0 {
            var k = 1
            while k < bins - 1 {
                let v = mag2[k]
                if !peakLocking {
                    if v > threshold { peaks[count] = k; count += 1 }
                    k += 1
                    continue
                }
                if v > threshold && v > mag2[k - 1] && v >= mag2[k + 1]
                    && (k < 2 || v > mag2[k - 2]) && (k + 2 >= bins || v >= mag2[k + 2]) {
                    peaks[count] = k
                    count += 1
                    k += 2
                    continue
                }
                k += 1
            }
        }
        if count == 0 {
            StretchMath.copy(yr, xr, bins)
            StretchMath.copy(yi, xi, bins)
            return
        }
        // the rotation of each peak, four at a time
        let twoPiOverN = StretchMath.twoPi / Double(n)
        let scale = Float(Double(hs) / Double(ha))
        let mask = n - 1
        let last = peaks[count - 1]
        var i = 0
        while i < count {
            var k = SIMD4<Int>(repeating: last)
            var base = SIMD4<Float>(), expected = SIMD4<Float>()
            var ar = SIMD4<Float>(), ai = SIMD4<Float>(), br = SIMD4<Float>(), bi = SIMD4<Float>()
            var sr = SIMD4<Float>(), si = SIMD4<Float>()
            for l in 0..<4 {
                let kk = i + l < count ? peaks[i + l] : last
                k[l] = kk
                ar[l] = xr[kk]; ai[l] = xi[kk]; br[l] = pr[kk]; bi[l] = pi[kk]; sr[l] = qr[kk]; si[l] = qi[kk]
                expected[l] = Float(twoPiOverN * Double((kk * ha) & mask))
                base[l] = Float(twoPiOverN * Double((kk * hs) & mask))
            }
            let (rc, rs) = StretchMath.peakRotations(ar: ar, ai: ai, br: br, bi: bi, sr: sr, si: si,
                                                     expected: expected, base: base, scale: scale)
            rc.store(peakRc + i)
            rs.store(peakRs + i)
            i += 4
        }
        // regions: each peak owns the bins down to the lowest bin between it and its neighbours
        var start = 0
        for i in 0..<count {
            var end = bins
            if !peakLocking {
                if i + 1 < count { end = peaks[i] + 1 }
            } else if i + 1 < count {
                var low = peaks[i] + 1
                var k = low + 1
                while k < peaks[i + 1] {
                    if mag2[k] < mag2[low] { low = k }
                    k += 1
                }
                end = low + 1
            }
            let rc = peakRc[i], rs = peakRs[i]
            var b = start
            while b < end {
                let a = xr[b], d = xi[b]
                yr[b] = a * rc - d * rs
                yi[b] = a * rs + d * rc
                b += 1
            }
            start = end
        }
    }

    // MARK: onsets

    /// Examines complete blocks of input below `limit` and notes the first onset.
    private func detectOnsets(upTo limit: Int) {
        while detectPos + block <= min(limit, fifoEnd) {
            var energy: Float = 0
            for c in 0..<channels {
                let p = fifo + c * fifoCapacity + (detectPos - fifoStart)
                var previous = lastSample[c]
                var e: Float = 0
                for i in 0..<block {
                    let x = p[i]
                    let d = x - previous
                    e += d * d
                    previous = x
                }
                lastSample[c] = previous
                energy += e
            }
            var mean: Float = 0
            for i in 0..<historyCount { mean += history[i] }
            mean *= 1 / Float(historyCount)
            let floor = Float(block * channels) * 1e-9
            // an onset (10 dB up on the last eight blocks) or an abrupt end (20 dB down)
            let free = pendingOnset == Int.min
            let rise = energy > 10 * mean && energy > floor
            let fall = energy * 100 < mean && mean > 100 * floor
            if free && (rise || fall) {
                pendingOnset = detectPos
            }
            history[historyIndex] = energy
            historyIndex = (historyIndex + 1) % historyCount
            detectPos += block
        }
    }
}

/// The most input one call can need: rate 32 with catch-up hops of 1.5 x nominal, plus windows
/// and hops of slack.
private func maximumStretchInput(outputFrames: Int, n: Int) -> Int {
    48 * outputFrames + 3 * n + 1024
}

// The public sample-rate converter.

/// A streaming sample-rate converter for deinterleaved Float32 (or Float64) audio, any channel
/// count and any pair of rates (8 kHz ... 384 kHz and beyond, integer or not).
///
/// The design follows libsoxr: a long, steep low-pass filter runs at twice the lower of the two
/// rates by fast convolution, and a short polyphase filter does the fractional rate change where
/// the signal is oversampled, so the work per frame is small even at 175 dB of attenuation.
///
/// Guarantees:
/// * **Aligned output** (the default `.aligned` priming): output frame m is the band-limited
///   input at time m x inputRate / outputRate; the steep filter's delay is compensated.
/// * **Exact length**: a stream of N input frames, fed and then flushed, gives exactly
///   `outputFrames(forInputFrames: N)` = floor(N x outputRate / inputRate + 1/2) frames (computed
///   with integers when the rates are integers; with `.preroll`, N excludes the `leadingFrames`;
///   with `.delayed`, N includes `trailingFrames`).
/// * **Deterministic**: the output is bit-identical however the input is chunked.
/// * **Real-time safe**: `process`, `flush`, `reset` and the queries allocate nothing, take no
///   lock and make no system call; all tables and buffers are allocated in `init`.
///
/// Example (offline, whole buffers; `left`, `right` are `[Float]` of `n` frames):
/// ```swift
/// let src = SampleRateConverter(inputRate: 44_100, outputRate: 48_000, channels: 2)
/// let total = src.outputFrames(forInputFrames: n)          // exact output length
/// let outL = UnsafeMutablePointer<Float>.allocate(capacity: total)
/// let outR = UnsafeMutablePointer<Float>.allocate(capacity: total)
/// left.withUnsafeBufferPointer { l in
///     right.withUnsafeBufferPointer { r in
///         let ins = [l.baseAddress!, r.baseAddress!], outs = [outL, outR]
///         ins.withUnsafeBufferPointer { i in
///             outs.withUnsafeBufferPointer { o in
///                 var consumed = 0, produced = 0
///                 while consumed < n {                      // stops early only if the output is full
///                     let step = src.process(input: i, offset: consumed, inputFrames: n - consumed,
///                                            output: o, offset: produced, outputCapacity: total - produced)
///                     consumed += step.consumed; produced += step.produced
///                 }
///                 while produced < total {                  // the tail: input followed by silence
///                     produced += src.flush(output: o, offset: produced, outputCapacity: total - produced)
///                 }
///             }
///         }
///     }
/// }
/// ```
/// Pull model (a converter that asks an input callback for data, output capacity `cap`):
/// ```swift
/// var produced = 0
/// while produced < cap {
///     let need = src.inputFramesNeeded(forOutputFrames: cap - produced)   // 0: enough inside
///     let (ins, got, endOfStream) = pullInput(need)        // may supply fewer frames
///     produced += src.process(input: ins, inputFrames: got, output: outs, offset: produced,
///                             outputCapacity: cap - produced).produced   // consumes all `got`
///     if endOfStream {
///         produced += src.flush(output: outs, offset: produced, outputCapacity: cap - produced)
///         break
///     }
/// }
/// ```
/// Feeding exactly `inputFramesNeeded(forOutputFrames: k)` frames yields at least k frames and
/// consumes all of them, so a caller can implement "pull what you need" with no internal queue.
/// There is no maximum input size: `process` takes any number of frames and stops consuming
/// when the output is full (the frames it did not consume are reported back).
///
/// Mapping to a converter's options: quality min/low/medium/high/max -> the levels of the same
/// names; a "mastering" algorithm -> `.max`; a "minimum phase" algorithm -> `phase: .minimum`;
/// prime methods pre/normal/none -> priming `.preroll`/`.aligned`/`.delayed` with the prime
/// info (leadingFrames, trailingFrames) = (`leadingFrames`, `trailingFrames`).
///
/// Complexity: O(frames) per call with a small constant: at `.high`, about 10 ns per stereo
/// output frame for 44.1 <-> 48/96 kHz on a 2024 x86-64 core (2000x realtime); `.max` (Float64)
/// about the same on CPUs with AVX2 + FMA (its hot loops are C kernels chosen at run time),
/// about twice that without. Creation is O(filter length x ratio denominator), a few milliseconds;
/// memory is a few hundred KB of tables and buffers.
public final class SampleRateConverter {
    public let inputRate: Double
    public let outputRate: Double
    public let channels: Int
    public let quality: ResamplerQuality
    public let phase: ResamplerPhase
    public let priming: ResamplerPriming

    // Exactly one engine exists. The engines are structs behind pointers allocated here, so the
    // render path reaches them with static dispatch and no reference counting (see
    // ResamplerRealTimeSafety.swift).
    enum Kind { case copy, single, double, variableSingle, variableDouble }
    let kind: Kind
    private let single: UnsafeMutablePointer<FixedRatioEngine<Float>>?
    private let double: UnsafeMutablePointer<FixedRatioEngine<Double>>?
    private let variableSingle: UnsafeMutablePointer<VariableRatioEngine<Float>>?
    private let variableDouble: UnsafeMutablePointer<VariableRatioEngine<Double>>?
    // copy engine state
    private var copyConsumed = 0
    private var copyFlushing = false
    private let inPointers: UnsafeMutablePointer<UnsafePointer<Float>>
    private let outPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let inPointersD: UnsafeMutablePointer<UnsafePointer<Double>>
    private let outPointersD: UnsafeMutablePointer<UnsafeMutablePointer<Double>>

    /// Creates a converter. Allocates every table and buffer it will use.
    ///
    /// - Parameters:
    ///   - inputRate, outputRate: sample rates in Hz (any positive values).
    ///   - channels: number of deinterleaved channels, processed independently.
    ///   - quality: filter quality (see `ResamplerQuality`); `.max` computes in Float64.
    ///   - phase: `.linear` (default) or `.minimum` phase steep filter.
    ///   - priming: time alignment (see `ResamplerPriming`).
    ///   - variableRatio: if not nil, the conversion ratio can be changed while running with
    ///     `setRatio(_:rampFrames:)` within this range of out/in ratios (a varispeed). Uses a
    ///     single-stage interpolating filter whose cut-off follows the ratio.
    public init(inputRate: Double, outputRate: Double, channels: Int, quality: ResamplerQuality = .high,
                phase: ResamplerPhase = .linear, priming: ResamplerPriming = .aligned,
                variableRatio: ClosedRange<Double>? = nil) {
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
        self.quality = quality
        self.phase = phase
        self.priming = priming
        precondition(channels >= 1, "SampleRateConverter: channel count \(channels) must be >= 1")
        precondition(inputRate > 0 && outputRate > 0 && inputRate.isFinite && outputRate.isFinite,
                     "SampleRateConverter: invalid rates \(inputRate) -> \(outputRate)")
        let design = ResamplerDesign.of(quality)
        if variableRatio != nil {
            kind = design.useDouble ? .variableDouble : .variableSingle
        } else if inputRate == outputRate {
            kind = .copy
        } else {
            kind = design.useDouble ? .double : .single
        }
        func box<E>(_ e: E) -> UnsafeMutablePointer<E> {
            let p = UnsafeMutablePointer<E>.allocate(capacity: 1)
            p.initialize(to: e)
            return p
        }
        let range = variableRatio ?? 1...1
        single = kind == .single ? box(FixedRatioEngine<Float>(inputRate: inputRate, outputRate: outputRate, channels: channels,
                                                               quality: quality, phase: phase, priming: priming)) : nil
        double = kind == .double ? box(FixedRatioEngine<Double>(inputRate: inputRate, outputRate: outputRate, channels: channels,
                                                                quality: quality, phase: phase, priming: priming)) : nil
        variableSingle = kind == .variableSingle ? box(VariableRatioEngine<Float>(inputRate: inputRate, outputRate: outputRate,
                                                                                  channels: channels, quality: quality,
                                                                                  priming: priming, range: range)) : nil
        variableDouble = kind == .variableDouble ? box(VariableRatioEngine<Double>(inputRate: inputRate, outputRate: outputRate,
                                                                                   channels: channels, quality: quality,
                                                                                   priming: priming, range: range)) : nil
        inPointers = .allocate(capacity: channels)
        outPointers = .allocate(capacity: channels)
        inPointersD = .allocate(capacity: channels)
        outPointersD = .allocate(capacity: channels)
    }

    deinit {
        if let e = single { e.pointee.deallocate(); e.deinitialize(count: 1); e.deallocate() }
        if let e = double { e.pointee.deallocate(); e.deinitialize(count: 1); e.deallocate() }
        if let e = variableSingle { e.pointee.deallocate(); e.deinitialize(count: 1); e.deallocate() }
        if let e = variableDouble { e.pointee.deallocate(); e.deinitialize(count: 1); e.deallocate() }
        inPointers.deallocate(); outPointers.deallocate(); inPointersD.deallocate(); outPointersD.deallocate()
    }

    // MARK: converting

    /// Converts up to `inputFrames` frames from `input[c][offset...]` into `output[c][offset...]`.
    ///
    /// Consumes input only as far as needed to fill the output: returns how many input frames were
    /// consumed and how many output frames were written. Any `inputFrames` (including 0) and any
    /// `outputCapacity` are valid. Input that is consumed but not yet reflected in the output is
    /// held inside (at most one filter block). O(frames), no allocation.
    @discardableResult
    public func process(input: UnsafeBufferPointer<UnsafePointer<Float>>, offset inputOffset: Int = 0, inputFrames: Int,
                        output: UnsafeBufferPointer<UnsafeMutablePointer<Float>>, offset outputOffset: Int = 0,
                        outputCapacity: Int) -> (consumed: Int, produced: Int) {
        let channels = self.channels   // (a precondition's autoclosure must not capture self)
        precondition(input.count >= channels && output.count >= channels,
                     "SampleRateConverter.process: fewer channel pointers than channels")
        precondition(inputFrames >= 0 && outputCapacity >= 0, "SampleRateConverter.process: negative frame count")
        for c in 0..<channels { inPointers[c] = input[c] + inputOffset; outPointers[c] = output[c] + outputOffset }
        let r = run(UnsafePointer(inPointers), inputFrames, UnsafePointer(outPointers), outputCapacity)
        return (r.0, r.1)
    }

    /// Float64 variant of `process`.
    @discardableResult
    public func process(input: UnsafeBufferPointer<UnsafePointer<Double>>, offset inputOffset: Int = 0, inputFrames: Int,
                        output: UnsafeBufferPointer<UnsafeMutablePointer<Double>>, offset outputOffset: Int = 0,
                        outputCapacity: Int) -> (consumed: Int, produced: Int) {
        let channels = self.channels   // (a precondition's autoclosure must not capture self)
        precondition(input.count >= channels && output.count >= channels,
                     "SampleRateConverter.process: fewer channel pointers than channels")
        precondition(inputFrames >= 0 && outputCapacity >= 0, "SampleRateConverter.process: negative frame count")
        for c in 0..<channels { inPointersD[c] = input[c] + inputOffset; outPointersD[c] = output[c] + outputOffset }
        let r = run(UnsafePointer(inPointersD), inputFrames, UnsafePointer(outPointersD), outputCapacity)
        return (r.0, r.1)
    }

    /// Ends the stream: produces the remaining output (the input is taken to be followed by
    /// silence) into `output[c][offset...]`. Call until it returns 0; the total output is then
    /// exactly `outputFrames(forInputFrames:)` of the frames consumed. After the flush, call
    /// `reset()` before converting another stream.
    public func flush(output: UnsafeBufferPointer<UnsafeMutablePointer<Float>>, offset outputOffset: Int = 0,
                      outputCapacity: Int) -> Int {
        let channels = self.channels
        precondition(output.count >= channels, "SampleRateConverter.flush: fewer channel pointers than channels")
        for c in 0..<channels { outPointers[c] = output[c] + outputOffset }
        beginFlush()
        return run(nil as UnsafePointer<UnsafePointer<Float>>?, 0, UnsafePointer(outPointers), outputCapacity).1
    }

    /// Float64 variant of `flush`.
    public func flush(output: UnsafeBufferPointer<UnsafeMutablePointer<Double>>, offset outputOffset: Int = 0,
                      outputCapacity: Int) -> Int {
        let channels = self.channels
        precondition(output.count >= channels, "SampleRateConverter.flush: fewer channel pointers than channels")
        for c in 0..<channels { outPointersD[c] = output[c] + outputOffset }
        beginFlush()
        return run(nil as UnsafePointer<UnsafePointer<Double>>?, 0, UnsafePointer(outPointersD), outputCapacity).1
    }

    /// Forgets the stream: clears all history, as if newly created. O(buffer size), no allocation.
    public func reset() {
        switch kind {
        case .copy: copyConsumed = 0; copyFlushing = false
        case .single: single.unsafelyUnwrapped.pointee.reset()
        case .double: double.unsafelyUnwrapped.pointee.reset()
        case .variableSingle: variableSingle.unsafelyUnwrapped.pointee.reset()
        case .variableDouble: variableDouble.unsafelyUnwrapped.pointee.reset()
        }
    }

    // MARK: queries

    /// The total number of output frames for a stream of `frames` input frames:
    /// floor((frames - origin) x outputRate / inputRate + 1/2), where origin is 0 for `.aligned`,
    /// `leadingFrames` for `.preroll` and -`trailingFrames` for `.delayed`. Exact integer
    /// arithmetic when both rates are integers (or have at most three decimals).
    public func outputFrames(forInputFrames frames: Int) -> Int {
        switch kind {
        case .copy: return max(0, frames)
        case .single: return single.unsafelyUnwrapped.pointee.outputFrames(forInputFrames: frames)
        case .double: return double.unsafelyUnwrapped.pointee.outputFrames(forInputFrames: frames)
        case .variableSingle: return variableSingle.unsafelyUnwrapped.pointee.outputFrames(forInputFrames: frames)
        case .variableDouble: return variableDouble.unsafelyUnwrapped.pointee.outputFrames(forInputFrames: frames)
        }
    }

    /// How many more input frames `process` needs before it can write `outputFrames` more
    /// output frames (0 if the converter already holds enough). Feeding exactly this many
    /// guarantees at least `outputFrames` of output. O(1).
    public func inputFramesNeeded(forOutputFrames outputFrames: Int) -> Int {
        switch kind {
        case .copy: return max(0, outputFrames)
        case .single: return single.unsafelyUnwrapped.pointee.inputFramesNeeded(forOutputFrames: outputFrames)
        case .double: return double.unsafelyUnwrapped.pointee.inputFramesNeeded(forOutputFrames: outputFrames)
        case .variableSingle: return variableSingle.unsafelyUnwrapped.pointee.inputFramesNeeded(forOutputFrames: outputFrames)
        case .variableDouble: return variableDouble.unsafelyUnwrapped.pointee.inputFramesNeeded(forOutputFrames: outputFrames)
        }
    }

    /// Input frames before an output's time that influence it (the history a `.preroll` caller
    /// supplies; "leading frames" of a converter's prime info).
    public var leadingFrames: Int {
        switch kind {
        case .copy: return 0
        case .single: return single.unsafelyUnwrapped.pointee.leadingFrames
        case .double: return double.unsafelyUnwrapped.pointee.leadingFrames
        case .variableSingle: return variableSingle.unsafelyUnwrapped.pointee.leadingFrames
        case .variableDouble: return variableDouble.unsafelyUnwrapped.pointee.leadingFrames
        }
    }

    /// Input frames after an output's time that it depends on (the look-ahead; "trailing frames"
    /// of a converter's prime info). This is the latency of `.delayed` priming.
    public var trailingFrames: Int {
        switch kind {
        case .copy: return 0
        case .single: return single.unsafelyUnwrapped.pointee.trailingFrames
        case .double: return double.unsafelyUnwrapped.pointee.trailingFrames
        case .variableSingle: return variableSingle.unsafelyUnwrapped.pointee.trailingFrames
        case .variableDouble: return variableDouble.unsafelyUnwrapped.pointee.trailingFrames
        }
    }

    /// Delay of the output relative to the input, in seconds: 0 for `.aligned` and `.preroll`,
    /// trailingFrames / inputRate for `.delayed`.
    public var latency: Double { priming == .delayed ? Double(trailingFrames) / inputRate : 0 }

    /// Total input frames consumed and output frames produced since creation or `reset()`.
    public var framesConsumed: Int {
        switch kind {
        case .copy: return copyConsumed
        case .single: return single.unsafelyUnwrapped.pointee.consumedTotal
        case .double: return double.unsafelyUnwrapped.pointee.consumedTotal
        case .variableSingle: return variableSingle.unsafelyUnwrapped.pointee.consumedTotal
        case .variableDouble: return variableDouble.unsafelyUnwrapped.pointee.consumedTotal
        }
    }

    public var framesProduced: Int {
        switch kind {
        case .copy: return copyConsumed
        case .single: return single.unsafelyUnwrapped.pointee.producedTotal
        case .double: return double.unsafelyUnwrapped.pointee.producedTotal
        case .variableSingle: return variableSingle.unsafelyUnwrapped.pointee.producedTotal
        case .variableDouble: return variableDouble.unsafelyUnwrapped.pointee.producedTotal
        }
    }

    /// How far the input consumed so far reaches beyond the time of the next output frame, in
    /// input frames (fractional): the input the converter holds that is not yet turned into
    /// output, its filter's look-ahead included. Input frame j lies at time j − origin (origin
    /// as in `outputFrames(forInputFrames:)`), so this is `framesConsumed` − origin − the next
    /// output's time. A caller that keeps audio in a queue in front of the converter gets its
    /// true latency as the queue's length plus this: it moves by exactly the frames written and
    /// the output frames taken (times the step), however the converter's input was chunked. With a
    /// variable ratio the time is the converter's own position (ramps included); with a fixed
    /// ratio, `framesProduced` × inputRate / outputRate. Negative while a `.preroll` converter
    /// has not yet received its pre-roll.
    public var pendingInputFrames: Double {
        switch kind {
        case .copy: return 0   // (input passes straight through)
        case .single: return Self.pending(single.unsafelyUnwrapped.pointee.consumedTotal, single.unsafelyUnwrapped.pointee.timeOrigin,
                                          single.unsafelyUnwrapped.pointee.producedTotal, inputRate / outputRate)
        case .double: return Self.pending(double.unsafelyUnwrapped.pointee.consumedTotal, double.unsafelyUnwrapped.pointee.timeOrigin,
                                          double.unsafelyUnwrapped.pointee.producedTotal, inputRate / outputRate)
        case .variableSingle: return variableSingle.unsafelyUnwrapped.pointee.pendingInputFrames
        case .variableDouble: return variableDouble.unsafelyUnwrapped.pointee.pendingInputFrames
        }
    }

    private static func pending(_ consumed: Int, _ origin: Int, _ produced: Int, _ step: Double) -> Double {
        Double(consumed - origin) - Double(produced) * step
    }

    // MARK: variable ratio

    /// The current conversion ratio (output frames per input frame).
    public var ratio: Double {
        switch kind {
        case .variableSingle: return variableSingle.unsafelyUnwrapped.pointee.currentRatio
        case .variableDouble: return variableDouble.unsafelyUnwrapped.pointee.currentRatio
        default: return outputRate / inputRate
        }
    }

    /// Changes the ratio (output frames per input frame) of a converter created with
    /// `variableRatio`. The step between output frames moves linearly from the current ratio to
    /// the new one over the next `rampFrames` output frames (0: at once), so pitch glides
    /// without clicks. The ratio is clamped to the range given at creation. O(1), no allocation.
    public func setRatio(_ ratio: Double, rampFrames: Int = 0) {
        switch kind {
        case .variableSingle: variableSingle.unsafelyUnwrapped.pointee.setRatio(ratio, rampFrames: rampFrames)
        case .variableDouble: variableDouble.unsafelyUnwrapped.pointee.setRatio(ratio, rampFrames: rampFrames)
        default: preconditionFailure("SampleRateConverter.setRatio: the converter was created without variableRatio")
        }
    }

    // MARK: private

    private func beginFlush() {
        switch kind {
        case .copy: copyFlushing = true
        case .single: single.unsafelyUnwrapped.pointee.beginFlush()
        case .double: double.unsafelyUnwrapped.pointee.beginFlush()
        case .variableSingle: variableSingle.unsafelyUnwrapped.pointee.beginFlush()
        case .variableDouble: variableDouble.unsafelyUnwrapped.pointee.beginFlush()
        }
    }


    @inline(__always)
    private func run<S: ResamplerScalar>(_ input: UnsafePointer<UnsafePointer<S>>?, _ n: Int,
                                         _ output: UnsafePointer<UnsafeMutablePointer<S>>, _ cap: Int) -> (Int, Int) {
        switch kind {
        case .copy:
            if copyFlushing { return (0, 0) }
            let k = min(n, cap)
            if let input = input, k > 0 {
                for c in 0..<channels { moveSamples(output[c], input[c], k) }
            }
            copyConsumed += k
            return (k, k)
        case .single: return single.unsafelyUnwrapped.pointee.process(input, n, output, cap)
        case .double: return double.unsafelyUnwrapped.pointee.process(input, n, output, cap)
        case .variableSingle: return variableSingle.unsafelyUnwrapped.pointee.process(input, n, output, cap)
        case .variableDouble: return variableDouble.unsafelyUnwrapped.pointee.process(input, n, output, cap)
        }
    }
}

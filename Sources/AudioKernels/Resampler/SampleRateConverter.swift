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
/// Example (offline, whole buffers):
/// ```swift
/// let src = SampleRateConverter(inputRate: 44_100, outputRate: 48_000, channels: 2)
/// var produced = 0
/// input.withChannelPointers { ins in                 // UnsafeBufferPointer<UnsafePointer<Float>>
///     output.withChannelPointers { outs in           // capacity: src.outputFrames(forInputFrames: n)
///         var consumed = 0
///         while consumed < n {                        // process() stops when the output is full
///             let r = src.process(input: ins, offset: consumed, inputFrames: n - consumed,
///                                 output: outs, offset: produced, outputCapacity: cap - produced)
///             consumed += r.consumed; produced += r.produced
///         }
///         while case let k = src.flush(output: outs, offset: produced, outputCapacity: cap - produced), k > 0 {
///             produced += k
///         }
///     }
/// }
/// ```
/// Pull model (as in a converter that asks an input callback for data):
/// ```swift
/// while produced < capacity {
///     let need = src.inputFramesNeeded(forOutputFrames: capacity - produced)
///     let got = pullInput(max(need, 1))                // may return fewer; 0 at end of stream
///     if got == 0 { produced += src.flush(...); break }
///     feed `got` frames with process(...)              // consumes all of them unless the output fills
/// }
/// ```
///
/// Complexity: per output frame and channel, about 80-100 floating-point operations at `.high`
/// (independent of the ratio for up-sampling; proportional to in/out for heavy down-sampling in
/// the polyphase part); memory: a few hundred KB of tables and buffers.
public final class SampleRateConverter {
    public let inputRate: Double
    public let outputRate: Double
    public let channels: Int
    public let quality: ResamplerQuality
    public let phase: ResamplerPhase
    public let priming: ResamplerPriming

    enum Core {
        case single(FixedRatioEngine<Float>)
        case double(FixedRatioEngine<Double>)
        case variableSingle(VariableRatioEngine<Float>)
        case variableDouble(VariableRatioEngine<Double>)
    }
    let core: Core
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
        let design = ResamplerDesign.of(quality)
        if let range = variableRatio {
            if design.useDouble {
                core = .variableDouble(VariableRatioEngine(inputRate: inputRate, outputRate: outputRate, channels: channels,
                                                           quality: quality, priming: priming, range: range))
            } else {
                core = .variableSingle(VariableRatioEngine(inputRate: inputRate, outputRate: outputRate, channels: channels,
                                                           quality: quality, priming: priming, range: range))
            }
        } else if design.useDouble {
            core = .double(FixedRatioEngine(inputRate: inputRate, outputRate: outputRate, channels: channels,
                                            quality: quality, phase: phase, priming: priming))
        } else {
            core = .single(FixedRatioEngine(inputRate: inputRate, outputRate: outputRate, channels: channels,
                                            quality: quality, phase: phase, priming: priming))
        }
        inPointers = .allocate(capacity: channels)
        outPointers = .allocate(capacity: channels)
        inPointersD = .allocate(capacity: channels)
        outPointersD = .allocate(capacity: channels)
    }

    deinit {
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
        precondition(input.count >= channels && output.count >= channels,
                     "SampleRateConverter.process: \(channels) channels expected, got \(input.count) in, \(output.count) out")
        precondition(inputFrames >= 0 && outputCapacity >= 0, "SampleRateConverter.process: negative frame count")
        for c in 0..<channels { inPointers[c] = input[c] + inputOffset; outPointers[c] = output[c] + outputOffset }
        return run(UnsafePointer(inPointers), inputFrames, UnsafePointer(outPointers), outputCapacity)
    }

    /// Float64 variant of `process`.
    @discardableResult
    public func process(input: UnsafeBufferPointer<UnsafePointer<Double>>, offset inputOffset: Int = 0, inputFrames: Int,
                        output: UnsafeBufferPointer<UnsafeMutablePointer<Double>>, offset outputOffset: Int = 0,
                        outputCapacity: Int) -> (consumed: Int, produced: Int) {
        precondition(input.count >= channels && output.count >= channels,
                     "SampleRateConverter.process: \(channels) channels expected, got \(input.count) in, \(output.count) out")
        precondition(inputFrames >= 0 && outputCapacity >= 0, "SampleRateConverter.process: negative frame count")
        for c in 0..<channels { inPointersD[c] = input[c] + inputOffset; outPointersD[c] = output[c] + outputOffset }
        return run(UnsafePointer(inPointersD), inputFrames, UnsafePointer(outPointersD), outputCapacity)
    }

    /// Ends the stream: produces the remaining output (the input is taken to be followed by
    /// silence) into `output[c][offset...]`. Call until it returns 0; the total output is then
    /// exactly `outputFrames(forInputFrames:)` of the frames consumed. After the flush, call
    /// `reset()` before converting another stream.
    public func flush(output: UnsafeBufferPointer<UnsafeMutablePointer<Float>>, offset outputOffset: Int = 0,
                      outputCapacity: Int) -> Int {
        precondition(output.count >= channels, "SampleRateConverter.flush: \(channels) channels expected, got \(output.count)")
        for c in 0..<channels { outPointers[c] = output[c] + outputOffset }
        beginFlush()
        return run(nil as UnsafePointer<UnsafePointer<Float>>?, 0, UnsafePointer(outPointers), outputCapacity).1
    }

    /// Float64 variant of `flush`.
    public func flush(output: UnsafeBufferPointer<UnsafeMutablePointer<Double>>, offset outputOffset: Int = 0,
                      outputCapacity: Int) -> Int {
        precondition(output.count >= channels, "SampleRateConverter.flush: \(channels) channels expected, got \(output.count)")
        for c in 0..<channels { outPointersD[c] = output[c] + outputOffset }
        beginFlush()
        return run(nil as UnsafePointer<UnsafePointer<Double>>?, 0, UnsafePointer(outPointersD), outputCapacity).1
    }

    /// Forgets the stream: clears all history, as if newly created. O(buffer size), no allocation.
    public func reset() {
        switch core {
        case .single(let e): e.reset()
        case .double(let e): e.reset()
        case .variableSingle(let e): e.reset()
        case .variableDouble(let e): e.reset()
        }
    }

    // MARK: queries

    /// The total number of output frames for a stream of `frames` input frames:
    /// floor((frames - origin) x outputRate / inputRate + 1/2), where origin is 0 for `.aligned`,
    /// `leadingFrames` for `.preroll` and -`trailingFrames` for `.delayed`. Exact integer
    /// arithmetic when both rates are integers (or have at most three decimals).
    public func outputFrames(forInputFrames frames: Int) -> Int {
        switch core {
        case .single(let e): return e.outputFrames(forInputFrames: frames)
        case .double(let e): return e.outputFrames(forInputFrames: frames)
        case .variableSingle(let e): return e.outputFrames(forInputFrames: frames)
        case .variableDouble(let e): return e.outputFrames(forInputFrames: frames)
        }
    }

    /// How many more input frames `process` needs before it can write `outputFrames` more
    /// output frames (0 if the converter already holds enough). Feeding exactly this many
    /// guarantees at least `outputFrames` of output. O(1).
    public func inputFramesNeeded(forOutputFrames outputFrames: Int) -> Int {
        switch core {
        case .single(let e): return e.inputFramesNeeded(forOutputFrames: outputFrames)
        case .double(let e): return e.inputFramesNeeded(forOutputFrames: outputFrames)
        case .variableSingle(let e): return e.inputFramesNeeded(forOutputFrames: outputFrames)
        case .variableDouble(let e): return e.inputFramesNeeded(forOutputFrames: outputFrames)
        }
    }

    /// Input frames before an output's time that influence it (the history a `.preroll` caller
    /// supplies; "leading frames" of a converter's prime info).
    public var leadingFrames: Int {
        switch core {
        case .single(let e): return e.leadingFrames
        case .double(let e): return e.leadingFrames
        case .variableSingle(let e): return e.leadingFrames
        case .variableDouble(let e): return e.leadingFrames
        }
    }

    /// Input frames after an output's time that it depends on (the look-ahead; "trailing frames"
    /// of a converter's prime info). This is the latency of `.delayed` priming.
    public var trailingFrames: Int {
        switch core {
        case .single(let e): return e.trailingFrames
        case .double(let e): return e.trailingFrames
        case .variableSingle(let e): return e.trailingFrames
        case .variableDouble(let e): return e.trailingFrames
        }
    }

    /// Delay of the output relative to the input, in seconds: 0 for `.aligned` and `.preroll`,
    /// trailingFrames / inputRate for `.delayed`.
    public var latency: Double { priming == .delayed ? Double(trailingFrames) / inputRate : 0 }

    /// Total input frames consumed and output frames produced since creation or `reset()`.
    public var framesConsumed: Int {
        switch core {
        case .single(let e): return e.consumedTotal
        case .double(let e): return e.consumedTotal
        case .variableSingle(let e): return e.consumedTotal
        case .variableDouble(let e): return e.consumedTotal
        }
    }

    public var framesProduced: Int {
        switch core {
        case .single(let e): return e.producedTotal
        case .double(let e): return e.producedTotal
        case .variableSingle(let e): return e.producedTotal
        case .variableDouble(let e): return e.producedTotal
        }
    }

    // MARK: variable ratio

    /// The current conversion ratio (output frames per input frame).
    public var ratio: Double {
        switch core {
        case .variableSingle(let e): return e.currentRatio
        case .variableDouble(let e): return e.currentRatio
        default: return outputRate / inputRate
        }
    }

    /// Changes the ratio (output frames per input frame) of a converter created with
    /// `variableRatio`. The step between output frames moves linearly from the current ratio to
    /// the new one over the next `rampFrames` output frames (0: at once), so pitch glides
    /// without clicks. The ratio is clamped to the range given at creation. O(1), no allocation.
    public func setRatio(_ ratio: Double, rampFrames: Int = 0) {
        switch core {
        case .variableSingle(let e): e.setRatio(ratio, rampFrames: rampFrames)
        case .variableDouble(let e): e.setRatio(ratio, rampFrames: rampFrames)
        default: preconditionFailure("SampleRateConverter.setRatio: the converter was created without variableRatio")
        }
    }

    // MARK: private

    private func beginFlush() {
        switch core {
        case .single(let e): e.beginFlush()
        case .double(let e): e.beginFlush()
        case .variableSingle(let e): e.beginFlush()
        case .variableDouble(let e): e.beginFlush()
        }
    }

    @inline(__always)
    private func run<S: ResamplerScalar>(_ input: UnsafePointer<UnsafePointer<S>>?, _ n: Int,
                                         _ output: UnsafePointer<UnsafeMutablePointer<S>>, _ cap: Int) -> (consumed: Int, produced: Int) {
        switch core {
        case .single(let e): return e.process(input: input, inputFrames: n, output: output, outputCapacity: cap)
        case .double(let e): return e.process(input: input, inputFrames: n, output: output, outputCapacity: cap)
        case .variableSingle(let e): return e.process(input: input, inputFrames: n, output: output, outputCapacity: cap)
        case .variableDouble(let e): return e.process(input: input, inputFrames: n, output: output, outputCapacity: cap)
        }
    }
}

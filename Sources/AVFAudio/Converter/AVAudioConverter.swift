// AVAudioConverter: converts between PCM formats — sample type, interleaving, channel count and
// layout, and sample rate — in one streaming object.
//
//     let converter = AVAudioConverter(from: fileFormat, to: outputFormat)!
//     var fed = false
//     let status = converter.convert(to: output, error: &error) { _, status in
//         if fed { status.pointee = .endOfStream; return nil }
//         fed = true
//         status.pointee = .haveData
//         return input
//     }
//
// Pipeline (each stage skipped when it has nothing to do):
//
//     input buffer ──► Float32 planar ──► channel matrix ──► resampler ──► output format
//     (any common PCM)   (AudioKernels)    (ChannelMixPlan)   (AudioKernels)  (+ TPDF dither)
//
// Without a rate change and without mixing, samples go from the input format to the output format
// in one kernel call, so Int32 and Float64 keep their full precision. With mixing or resampling
// the intermediate is Float32 (the resampler's `.max` quality computes in Float64 internally).
//
// Pull model: `convert(to:error:withInputFrom:)` fills the output buffer up to its capacity,
// asking the block for input as needed. Input the block returns beyond what this call needs is
// kept (by reference) and used by the next call. A block that returns `.haveData` forever still
// ends each call when the output is full.
import AudioKernels

/// An object that converts streams of audio between formats.
open class AVAudioConverter: NSObject {
    /// The format of the input buffers.
    public let inputFormat: AVAudioFormat
    /// The format of the output buffers.
    public let outputFormat: AVAudioFormat

    /// Which input channel feeds each output channel (negative: silent). Setting it overrides the
    /// mapping implied by the formats' layouts and `downmix`.
    open var channelMap: [NSNumber] {
        didSet { matrix = ChannelMixPlan.matrix(from: inputFormat, to: outputFormat, downmix: downmix, channelMap: channelMap.map(\.intValue)) }
    }
    /// When true, channel-count changes mix channels (ITU-R BS.775 coefficients) instead of remapping.
    open var downmix = false {
        didSet { matrix = ChannelMixPlan.matrix(from: inputFormat, to: outputFormat, downmix: downmix, channelMap: explicitMap) }
    }
    /// When true, float → integer quantisation adds TPDF dither (±1 LSB).
    open var dither = false
    /// Codec data for compressed formats (none are supported yet; kept for API compatibility).
    open var magicCookie: Data?
    /// Priming behaviour of the sample-rate converter; see `AVAudioConverterPrimeMethod`.
    open var primeMethod: AVAudioConverterPrimeMethod = .normal
    /// The sample-rate converter's priming frames: how much input before the first output frame
    /// (with `.pre`) and after the last one its filter uses. Zero without a rate change.
    /// (Settable for compatibility; the converter's filter determines the values it reports.)
    open var primeInfo: AVAudioConverterPrimeInfo {
        get {
            guard let src = rateStage() else { return storedPrimeInfo }
            return AVAudioConverterPrimeInfo(leadingFrames: AVAudioFrameCount(src.leadingFrames), trailingFrames: AVAudioFrameCount(src.trailingFrames))
        }
        set { storedPrimeInfo = newValue }
    }
    private var storedPrimeInfo = AVAudioConverterPrimeInfo()
    /// Sample-rate converter quality, an `AVAudioQuality` raw value (default `.high`).
    open var sampleRateConverterQuality: Int = AVAudioQuality.high.rawValue
    /// Sample-rate converter algorithm (`AVSampleRateConverterAlgorithm_Normal` by default).
    open var sampleRateConverterAlgorithm: String? = AVSampleRateConverterAlgorithm_Normal
    /// Encoder bit rate (compressed output only; not applicable to PCM).
    open var bitRate: Int = 0
    /// Encoder bit-rate strategy (compressed output only).
    open var bitRateStrategy: String?

    /// The largest output packet, in bytes: one frame of the output format for PCM.
    open var maximumOutputPacketSize: Int { Int(outputFormat.streamDescription.pointee.mBytesPerPacket) }

    /// Encoder properties: nil for PCM output, as on Apple platforms.
    open var applicableEncodeBitRates: [NSNumber]? { nil }
    open var availableEncodeBitRates: [NSNumber]? { nil }
    open var applicableEncodeSampleRates: [NSNumber]? { nil }
    open var availableEncodeSampleRates: [NSNumber]? { nil }
    open var availableEncodeChannelLayoutTags: [NSNumber]? { nil }

    // MARK: State

    private var matrix: ChannelMatrix
    private var explicitMap: [Int]? { channelMap.isEmpty ? nil : channelMap.map(\.intValue) }
    private var ditherState = TPDFDither()
    /// Input returned by the block and not yet consumed.
    private var heldInput: AVAudioPCMBuffer?
    private var heldOffset = 0
    private var endOfStreamSeen = false
    /// Scratch: input as Float32 planar, and after channel mixing.
    private lazy var inputScratch = PlanarFloatBuffer(channels: Int(inputFormat.channelCount), capacity: AVAudioConverter.chunkFrames)
    private lazy var mixScratch = PlanarFloatBuffer(channels: Int(outputFormat.channelCount), capacity: AVAudioConverter.chunkFrames)

    /// The sample-rate converter (created on first use, from the quality, algorithm and prime
    /// method in effect then; `reset()` re-creates it if they changed).
    private var resampler: SampleRateConverter?
    /// Mixed input waiting for the resampler: frames `mixStart ..< mixStart + mixCount` of mixScratch.
    private var mixStart = 0
    private var mixCount = 0
    private lazy var rateScratch = PlanarFloatBuffer(channels: Int(outputFormat.channelCount), capacity: AVAudioConverter.chunkFrames)
    private var inputPointerScratch = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: 1)

    var changesRate: Bool { inputFormat.sampleRate != outputFormat.sampleRate }

    /// The resampler, built on first use.
    private func rateStage() -> SampleRateConverter? {
        guard changesRate else { return nil }
        if let resampler { return resampler }
        let quality: ResamplerQuality
        switch sampleRateConverterQuality {
        case ..<AVAudioQuality.low.rawValue: quality = .min
        case ..<AVAudioQuality.medium.rawValue: quality = .low
        case ..<AVAudioQuality.high.rawValue: quality = .medium
        case ..<AVAudioQuality.max.rawValue: quality = .high
        default: quality = .max
        }
        let priming: ResamplerPriming
        switch primeMethod {
        case .pre: priming = .preroll
        case .normal: priming = .aligned
        case .none: priming = .delayed
        }
        let phase: ResamplerPhase = sampleRateConverterAlgorithm == AVSampleRateConverterAlgorithm_MinimumPhase ? .minimum : .linear
        let src = SampleRateConverter(inputRate: inputFormat.sampleRate, outputRate: outputFormat.sampleRate,
                                      channels: Int(outputFormat.channelCount), quality: quality, phase: phase, priming: priming)
        resampler = src
        inputPointerScratch.deallocate()
        inputPointerScratch = .allocate(capacity: max(1, Int(outputFormat.channelCount)))
        return src
    }

    deinit { inputPointerScratch.deallocate() }

    /// The largest sample-rate ratio, either way, a converter accepts: 1 kHz ↔ 384 kHz, the
    /// widest an engine connection carries. Designing the filter takes time in proportion to a
    /// down-sampling ratio (measured in a debug build: 384:1 about 4 s, 1024:1 10 s, 4096:1 25 s).
    static let maximumRateRatio: Double = 384

    /// Frames per internal conversion step: 4096 frames keep each stage's scratch in L1/L2.
    static let chunkFrames = 4096

    /// Creates a converter, or returns nil when either format is not PCM (compressed formats
    /// arrive with the codec work) or the formats cannot be converted.
    public init?(from fromFormat: AVAudioFormat, to toFormat: AVAudioFormat) {
        guard fromFormat.isPCM, toFormat.isPCM,
              fromFormat.processingSampleType != nil, toFormat.processingSampleType != nil else { return nil }
        // A rate ratio beyond this has no resampler designable in bounded time and memory (the
        // filter grows with the ratio; 1 GHz → 1 Hz would need about a billion taps): nil, which
        // Apple's failable initializer allows (it documents no limit).
        let ratio = max(fromFormat.sampleRate / toFormat.sampleRate, toFormat.sampleRate / fromFormat.sampleRate)
        guard ratio <= AVAudioConverter.maximumRateRatio else { return nil }
        inputFormat = fromFormat
        outputFormat = toFormat
        channelMap = []
        matrix = ChannelMixPlan.matrix(from: fromFormat, to: toFormat, downmix: false, channelMap: nil)
        super.init()
    }

    /// Forgets buffered input and the end-of-stream state, so the converter can start a new stream.
    open func reset() {
        heldInput = nil
        heldOffset = 0
        endOfStreamSeen = false
        ditherState = TPDFDither()
        resampler = nil
        mixStart = 0
        mixCount = 0
    }

    private var ditherActive: Bool {
        dither && inputFormat.processingSampleType.map(isFloat) == true && outputFormat.processingSampleType.map(isFloat) == false
    }

    private func isFloat(_ t: ProcessingSampleType) -> Bool { t == .float32 || t == .float64 }

    // MARK: Simple conversion

    /// Converts a whole buffer with no sample-rate change: `outputBuffer.frameLength` becomes
    /// `inputBuffer.frameLength`. Throws when the formats do not match the converter's, when the
    /// output is too small, or when the converter changes the sample rate.
    open func convert(to outputBuffer: AVAudioPCMBuffer, from inputBuffer: AVAudioPCMBuffer) throws {
        guard inputFormat.sampleRate == outputFormat.sampleRate else {
            // Apple reports NSOSStatusErrorDomain -50 here, whatever the output capacity (measured
            // on the iOS simulator; see Types/AVAudioErrors.swift).
            throw converterError(kAudio_ParamError,
                                 "convert(to:from:) cannot change the sample rate (\(inputFormat.sampleRate) Hz → \(outputFormat.sampleRate) Hz); use convert(to:error:withInputFrom:)")
        }
        try checkInput(inputBuffer)
        try checkOutput(outputBuffer)
        let frames = Int(inputBuffer.frameLength)
        guard outputBuffer.frameCapacity >= inputBuffer.frameLength else {
            throw converterError(kAudioConverterErr_InvalidOutputSize,
                                 "the output buffer holds \(outputBuffer.frameCapacity) frames but the input has \(frames)")
        }
        var done = 0
        while done < frames {
            let n = min(AVAudioConverter.chunkFrames, frames - done)
            convertChunk(from: inputBuffer, at: done, frames: n, to: outputBuffer, at: done)
            done += n
        }
        outputBuffer.frameLength = AVAudioFrameCount(frames)
    }

    /// Converts `frames` frames without rate change: directly, or through Float32 and the matrix.
    private func convertChunk(from input: AVAudioPCMBuffer, at inFrame: Int, frames: Int, to output: AVAudioPCMBuffer, at outFrame: Int) {
        if matrix.isIdentity {
            if ditherActive {
                SampleConversion.convert(frameCount: frames, from: input.processingBufferPointer, atFrame: inFrame,
                                         to: output.processingBufferPointer, atFrame: outFrame, dither: &ditherState)
            } else {
                SampleConversion.convert(frameCount: frames, from: input.processingBufferPointer, atFrame: inFrame,
                                         to: output.processingBufferPointer, atFrame: outFrame)
            }
            return
        }
        SampleConversion.convert(frameCount: frames, from: input.processingBufferPointer, atFrame: inFrame,
                                 to: inputScratch.processing, atFrame: 0)
        matrix.apply(frames: frames, input: inputScratch.readPointers, output: mixScratch.readPointers)
        writeOutput(from: mixScratch, frames: frames, to: output, at: outFrame)
    }

    private func writeOutput(from scratch: PlanarFloatBuffer, frames: Int, to output: AVAudioPCMBuffer, at outFrame: Int) {
        if dither && outputFormat.processingSampleType.map(isFloat) == false {
            SampleConversion.convert(frameCount: frames, from: scratch.processing, atFrame: 0,
                                     to: output.processingBufferPointer, atFrame: outFrame, dither: &ditherState)
        } else {
            SampleConversion.convert(frameCount: frames, from: scratch.processing, atFrame: 0,
                                     to: output.processingBufferPointer, atFrame: outFrame)
        }
    }

    // MARK: Streaming conversion

    /// Fills `outputBuffer` (up to its capacity), pulling input from `inputBlock` as needed.
    ///
    /// Returns `.haveData` when the output holds frames and more may follow, `.inputRanDry`
    /// when the block reported `.noDataNow`, `.endOfStream` once every frame of a finished stream
    /// has been delivered (the output then holds none; the previous call returned the last ones),
    /// and `.error` (with `outError` set) when the block returns a buffer in the wrong format or
    /// the output buffer does not match. After `.endOfStream` the block is not called again
    /// until `reset()`.
    open func convert(to outputBuffer: AVAudioBuffer, error outError: NSErrorPointer,
                      withInputFrom inputBlock: AVAudioConverterInputBlock) -> AVAudioConverterOutputStatus {
        guard let output = outputBuffer as? AVAudioPCMBuffer else {
            outError?.pointee = converterError(kAudioConverterErr_FormatNotSupported, "the output buffer must be an AVAudioPCMBuffer (compressed output is not supported yet)")
            return .error
        }
        do { try checkOutput(output) } catch {
            outError?.pointee = error as NSError
            return .error
        }
        output.frameLength = 0
        if changesRate {
            return convertWithRateChange(to: output, error: outError, withInputFrom: inputBlock)
        }
        let capacity = Int(output.frameCapacity)
        var produced = 0
        while produced < capacity {
            if let held = heldInput, heldOffset < Int(held.frameLength) {
                let n = min(Int(held.frameLength) - heldOffset, capacity - produced, AVAudioConverter.chunkFrames)
                convertChunk(from: held, at: heldOffset, frames: n, to: output, at: produced)
                heldOffset += n
                produced += n
                continue
            }
            heldInput = nil
            heldOffset = 0
            if endOfStreamSeen {
                output.frameLength = AVAudioFrameCount(produced)
                return produced > 0 ? .haveData : .endOfStream
            }
            if let stop = pullInput(inputBlock, frames: capacity - produced, error: outError) {
                output.frameLength = AVAudioFrameCount(produced)
                return stop
            }
        }
        output.frameLength = AVAudioFrameCount(produced)
        return .haveData
    }

    /// The pull loop with a resampler: input → Float32 → channel matrix → resampler → output.
    private func convertWithRateChange(to output: AVAudioPCMBuffer, error outError: NSErrorPointer,
                                       withInputFrom inputBlock: AVAudioConverterInputBlock) -> AVAudioConverterOutputStatus {
        let src = rateStage()!
        let channels = Int(outputFormat.channelCount)
        let capacity = Int(output.frameCapacity)
        var produced = 0
        let rateOut = UnsafeBufferPointer(start: rateScratch.pointers, count: channels)
        while produced < capacity {
            // 1. Feed buffered, mixed input to the resampler.
            if mixCount > 0 {
                for c in 0..<channels { inputPointerScratch[c] = UnsafePointer(mixScratch.pointers[c]) }
                let r = src.process(input: UnsafeBufferPointer(start: inputPointerScratch, count: channels), offset: mixStart,
                                    inputFrames: mixCount, output: rateOut, offset: 0,
                                    outputCapacity: min(AVAudioConverter.chunkFrames, capacity - produced))
                mixStart += r.consumed
                mixCount -= r.consumed
                if r.produced > 0 {
                    writeOutput(from: rateScratch, frames: r.produced, to: output, at: produced)
                    produced += r.produced
                }
                if r.consumed > 0 || r.produced > 0 { continue }
            }
            // 2. Convert and mix the next piece of held input.
            if let held = heldInput, heldOffset < Int(held.frameLength) {
                let n = min(Int(held.frameLength) - heldOffset, AVAudioConverter.chunkFrames)
                SampleConversion.convert(frameCount: n, from: held.processingBufferPointer, atFrame: heldOffset,
                                         to: inputScratch.processing, atFrame: 0)
                matrix.apply(frames: n, input: inputScratch.readPointers, output: mixScratch.readPointers)
                heldOffset += n
                mixStart = 0
                mixCount = n
                continue
            }
            heldInput = nil
            heldOffset = 0
            // 3. End of stream: drain the filter's tail.
            if endOfStreamSeen {
                let k = src.flush(output: rateOut, outputCapacity: min(AVAudioConverter.chunkFrames, capacity - produced))
                if k == 0 {
                    output.frameLength = AVAudioFrameCount(produced)
                    return produced > 0 ? .haveData : .endOfStream
                }
                writeOutput(from: rateScratch, frames: k, to: output, at: produced)
                produced += k
                continue
            }
            // 4. Ask the client for input.
            let needed = max(1, src.inputFramesNeeded(forOutputFrames: capacity - produced))
            if let stop = pullInput(inputBlock, frames: needed, error: outError) {
                output.frameLength = AVAudioFrameCount(produced)
                return stop
            }
        }
        output.frameLength = AVAudioFrameCount(produced)
        return .haveData
    }

    /// Calls the input block once for `frames` frames and takes what it returns: a buffer becomes
    /// the held input; returns the status the conversion must stop with, or nil to continue.
    ///
    /// `.haveData` without a buffer, or with an empty one, is treated as `.noDataNow`, so a
    /// misbehaving block cannot spin the loop forever. A buffer returned with `.endOfStream`
    /// still counts as input.
    private func pullInput(_ inputBlock: AVAudioConverterInputBlock, frames: Int, error outError: NSErrorPointer) -> AVAudioConverterOutputStatus? {
        var status = AVAudioConverterInputStatus.haveData
        let buffer = inputBlock(AVAudioPacketCount(clamping: frames), &status)
        switch status {
        case .haveData:
            guard let buffer else { return .inputRanDry }
            guard let pcm = buffer as? AVAudioPCMBuffer else {
                outError?.pointee = converterError(kAudioConverterErr_FormatNotSupported, "the input block returned a compressed buffer; the input format is \(inputFormat)")
                return .error
            }
            do { try checkInput(pcm) } catch {
                outError?.pointee = error as NSError
                return .error
            }
            if pcm.frameLength == 0 { return .inputRanDry }
            heldInput = pcm
            heldOffset = 0
            return nil
        case .noDataNow:
            return .inputRanDry
        case .endOfStream:
            endOfStreamSeen = true
            if let pcm = buffer as? AVAudioPCMBuffer, pcm.frameLength > 0, (try? checkInput(pcm)) != nil {
                heldInput = pcm
                heldOffset = 0
            }
            return nil
        }
    }

    // MARK: Checks and errors

    private func checkInput(_ buffer: AVAudioPCMBuffer) throws {
        let f = buffer.format
        guard f.commonFormat == inputFormat.commonFormat, f.isInterleaved == inputFormat.isInterleaved,
              f.channelCount == inputFormat.channelCount else {
            throw converterError(kAudioConverterErr_FormatNotSupported, "input buffer in \(f) does not match the converter's input format \(inputFormat)")
        }
    }

    private func checkOutput(_ buffer: AVAudioPCMBuffer) throws {
        let f = buffer.format
        guard f.commonFormat == outputFormat.commonFormat, f.isInterleaved == outputFormat.isInterleaved,
              f.channelCount == outputFormat.channelCount else {
            throw converterError(kAudioConverterErr_FormatNotSupported, "output buffer in \(f) does not match the converter's output format \(outputFormat)")
        }
    }

    private func converterError(_ code: OSStatus, _ message: String) -> NSError {
        NSError(domain: NSOSStatusErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: "AVAudioConverter: " + message])
    }

    open override var description: String {
        "<AVAudioConverter: \(inputFormat) → \(outputFormat)>"
    }
}

// AVAudioConverter: converts between PCM formats — sample type, interleaving, channel count and
// layout, and sample rate — in one streaming object; with a codec stage on either side it also
// encodes PCM into compressed packets and decodes packets into PCM (AVAudioConverter+Codec.swift,
// +Encoding.swift, +Decoding.swift: the PCM pipeline below then runs between the client's PCM
// format and the codec's own integer format).
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
        didSet { matrix = ChannelMixPlan.matrix(from: pcmInputFormat, to: pcmOutputFormat, downmix: downmix, channelMap: channelMap.map(\.intValue)) }
    }
    /// When true, channel-count changes mix channels (ITU-R BS.775 coefficients) instead of remapping.
    open var downmix = false {
        didSet { matrix = ChannelMixPlan.matrix(from: pcmInputFormat, to: pcmOutputFormat, downmix: downmix, channelMap: explicitMap) }
    }
    /// When true, float → integer quantisation adds TPDF dither (±1 LSB).
    open var dither = false
    /// The codec's setup bytes. An encoding converter returns its encoder's cookie (what a
    /// container stores for decoders: CAF's 'kuki', MP4's sample entry); a decoding converter needs
    /// the stream's cookie set here before its first conversion (Apple's clients take it from
    /// AVAudioFile or ExtAudioFile). Nil for PCM ↔ PCM. See AVAudioConverter+Codec.swift.
    open var magicCookie: Data? {
        get { codecMagicCookie }
        set { setCodecMagicCookie(newValue) }
    }
    /// What `magicCookie` was set to (a decoding converter's cookie; kept as given for PCM).
    var storedMagicCookie: Data?
    /// Priming behaviour of the sample-rate converter; see `AVAudioConverterPrimeMethod`.
    open var primeMethod: AVAudioConverterPrimeMethod = .normal
    /// The sample-rate converter's priming frames: how much input before the first output frame
    /// (with `.pre`) and after the last one its filter uses. Zero without a rate change. The
    /// lossless codecs (Apple Lossless, FLAC) add none: their packets decode to exactly the frames
    /// encoded, with no encoder delay, so a codec converter reports only its resampler's.
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
    /// Encoder bit rate, for encoders with a bit-rate setting. The lossless encoders have none:
    /// they report 0 and ignore a value set (see AVAudioConverter+Codec.swift); a PCM converter
    /// keeps what is set.
    open var bitRate: Int {
        get { encodeStage == nil ? storedBitRate : 0 }
        set { if encodeStage == nil { storedBitRate = newValue } }
    }
    private var storedBitRate = 0
    /// Encoder bit-rate strategy (`AVAudioBitRateStrategy_*`), for encoders with a bit-rate
    /// setting: nil for the lossless encoders, kept as set for a PCM converter.
    open var bitRateStrategy: String? {
        get { encodeStage == nil ? storedBitRateStrategy : nil }
        set { if encodeStage == nil { storedBitRateStrategy = newValue } }
    }
    private var storedBitRateStrategy: String?

    /// Packets between consecutive sync packets (independently decodable packets that refresh the
    /// decoder), for encoders with sync packets (Apple's APAC). Apple: "only supported when
    /// compressing audio to formats which support it". No encoder here has sync packets — every
    /// ALAC and FLAC packet decodes alone — so a codec converter reports 0 and ignores a value
    /// set, as it does for `bitRate`; a PCM converter keeps what is set. (Apple documents no
    /// default; 0, "not set", is the value of an unset Core Audio property.)
    open var audioSyncPacketFrequency: Int {
        get { encodeStage == nil ? storedSyncPacketFrequency : 0 }
        set { if encodeStage == nil { storedSyncPacketFrequency = newValue } }
    }
    private var storedSyncPacketFrequency = 0
    /// The kind of content being encoded, for encoders that record it (APAC, xHE-AAC): reported
    /// `.unspecified` by this library's encoders, which store no such metadata (a value set is
    /// ignored); kept as set for a PCM converter. `.unspecified` (−1) is the default: the value
    /// Apple's enum names for content not described.
    open var contentSource: AVAudioContentSource {
        get { encodeStage == nil ? storedContentSource : .unspecified }
        set { if encodeStage == nil { storedContentSource = newValue } }
    }
    private var storedContentSource = AVAudioContentSource.unspecified
    /// The dynamic range control configuration, for encoders with DRC metadata (xHE-AAC):
    /// `.none` for this library's encoders, which apply none (a value set is ignored); kept as
    /// set for a PCM converter.
    open var dynamicRangeControlConfiguration: AVAudioDynamicRangeControlConfiguration {
        get { encodeStage == nil ? storedDRC : .none }
        set { if encodeStage == nil { storedDRC = newValue } }
    }
    private var storedDRC = AVAudioDynamicRangeControlConfiguration.none

    /// The largest output packet, in bytes: one frame of the output format for PCM, the
    /// encoder's bound for compressed output (the size to give AVAudioCompressedBuffer).
    open var maximumOutputPacketSize: Int {
        if let encodeStage { return encodeStage.encoder.maximumPacketSize }
        return Int(outputFormat.streamDescription.pointee.mBytesPerPacket)
    }

    /// Encoder properties: nil for PCM output, as on Apple platforms; for the lossless encoders
    /// see AVAudioConverter+Codec.swift.
    open var applicableEncodeBitRates: [NSNumber]? { nil }
    open var availableEncodeBitRates: [NSNumber]? { nil }
    open var applicableEncodeSampleRates: [NSNumber]? { nil }
    open var availableEncodeSampleRates: [NSNumber]? { nil }
    open var availableEncodeChannelLayoutTags: [NSNumber]? { codecChannelLayoutTags }

    /// The PCM side of the pipeline: the client's formats for PCM ↔ PCM; for a codec converter
    /// one of them is the codec's integer format (AVAudioConverter+Codec.swift).
    let pcmInputFormat: AVAudioFormat
    let pcmOutputFormat: AVAudioFormat
    /// The codec stage, when the output (encoding) or the input (decoding) is compressed.
    var encodeStage: CodecEncodeStage?
    var decodeStage: CodecDecodeStage?

    // MARK: State

    private var matrix: ChannelMatrix
    private var explicitMap: [Int]? { channelMap.isEmpty ? nil : channelMap.map(\.intValue) }
    private var ditherState = TPDFDither()
    /// Input returned by the block and not yet consumed.
    private var heldInput: AVAudioPCMBuffer?
    private var heldOffset = 0
    private var endOfStreamSeen = false
    /// Scratch: input as Float32 planar, and after channel mixing.
    private lazy var inputScratch = PlanarFloatBuffer(channels: Int(pcmInputFormat.channelCount), capacity: AVAudioConverter.chunkFrames)
    private lazy var mixScratch = PlanarFloatBuffer(channels: Int(pcmOutputFormat.channelCount), capacity: AVAudioConverter.chunkFrames)

    /// The sample-rate converter (created on first use, from the quality, algorithm and prime
    /// method in effect then; `reset()` re-creates it if they changed).
    private var resampler: SampleRateConverter?
    /// Mixed input waiting for the resampler: frames `mixStart ..< mixStart + mixCount` of mixScratch.
    private var mixStart = 0
    private var mixCount = 0
    private lazy var rateScratch = PlanarFloatBuffer(channels: Int(pcmOutputFormat.channelCount), capacity: AVAudioConverter.chunkFrames)
    private var inputPointerScratch = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: 1)

    var changesRate: Bool { pcmInputFormat.sampleRate != pcmOutputFormat.sampleRate }

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
        let src = SampleRateConverter(inputRate: pcmInputFormat.sampleRate, outputRate: pcmOutputFormat.sampleRate,
                                      channels: Int(pcmOutputFormat.channelCount), quality: quality, phase: phase, priming: priming)
        resampler = src
        inputPointerScratch.deallocate()
        inputPointerScratch = .allocate(capacity: max(1, Int(pcmOutputFormat.channelCount)))
        return src
    }

    deinit { inputPointerScratch.deallocate() }

    /// The largest sample-rate ratio, either way, a converter accepts: 1 kHz ↔ 384 kHz, the
    /// widest an engine connection carries. Designing the filter takes time in proportion to a
    /// down-sampling ratio (measured in a debug build: 384:1 about 4 s, 1024:1 10 s, 4096:1 25 s).
    static let maximumRateRatio: Double = 384

    /// Frames per internal conversion step: 4096 frames keep each stage's scratch in L1/L2.
    static let chunkFrames = 4096

    /// Creates a converter, or returns nil when the formats cannot be converted: PCM ↔ PCM, PCM →
    /// a codec with an encoder in this library, or such a codec's packets → PCM (Apple Lossless and
    /// FLAC today; the codec stage is in AVAudioConverter+Codec.swift). Compressed ↔ compressed is nil.
    public init?(from fromFormat: AVAudioFormat, to toFormat: AVAudioFormat) {
        var pcmIn = fromFormat, pcmOut = toFormat
        if fromFormat.isPCM && toFormat.isPCM {
        } else if fromFormat.isPCM, let stage = CodecEncodeStage(from: fromFormat, to: toFormat) {
            encodeStage = stage
            pcmOut = stage.pcmFormat
        } else if toFormat.isPCM, let stage = CodecDecodeStage(from: fromFormat) {
            decodeStage = stage
            pcmIn = stage.pcmFormat
        } else {
            return nil
        }
        guard pcmIn.processingSampleType != nil, pcmOut.processingSampleType != nil else { return nil }
        // A rate ratio beyond this has no resampler designable in bounded time and memory (the
        // filter grows with the ratio; 1 GHz → 1 Hz would need about a billion taps): nil, which
        // Apple's failable initializer allows (it documents no limit).
        let ratio = max(pcmIn.sampleRate / pcmOut.sampleRate, pcmOut.sampleRate / pcmIn.sampleRate)
        guard ratio <= AVAudioConverter.maximumRateRatio else { return nil }
        inputFormat = fromFormat
        outputFormat = toFormat
        pcmInputFormat = pcmIn
        pcmOutputFormat = pcmOut
        channelMap = []
        matrix = ChannelMixPlan.matrix(from: pcmIn, to: pcmOut, downmix: false, channelMap: nil)
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
        encodeStage?.reset()
        decodeStage?.reset()
    }

    private var ditherActive: Bool {
        dither && pcmInputFormat.processingSampleType.map(isFloat) == true && pcmOutputFormat.processingSampleType.map(isFloat) == false
    }

    private func isFloat(_ t: ProcessingSampleType) -> Bool { t == .float32 || t == .float64 }

    // MARK: Simple conversion

    /// Converts a whole buffer with no sample-rate change: `outputBuffer.frameLength` becomes
    /// `inputBuffer.frameLength`. Throws when the formats do not match the converter's, when the
    /// output is too small, or when the converter changes the sample rate.
    open func convert(to outputBuffer: AVAudioPCMBuffer, from inputBuffer: AVAudioPCMBuffer) throws {
        guard encodeStage == nil && decodeStage == nil else {
            // Apple documents this method as "a basic conversion between audio formats that
            // doesn't involve converting codecs or sample rates"; -50 as for the rate change
            // below (measured there; for codecs it is this implementation's choice).
            throw converterError(kAudio_ParamError,
                                 "convert(to:from:) does not encode or decode (\(inputFormat) → \(outputFormat)); use convert(to:error:withInputFrom:)")
        }
        guard pcmInputFormat.sampleRate == pcmOutputFormat.sampleRate else {
            // Apple reports NSOSStatusErrorDomain -50 here, whatever the output capacity (measured
            // on the iOS simulator; see Types/AVAudioErrors.swift).
            throw converterError(kAudio_ParamError,
                                 "convert(to:from:) cannot change the sample rate (\(pcmInputFormat.sampleRate) Hz → \(pcmOutputFormat.sampleRate) Hz); use convert(to:error:withInputFrom:)")
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
        if dither && pcmOutputFormat.processingSampleType.map(isFloat) == false {
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
        if let encodeStage { return encode(encodeStage, to: outputBuffer, error: outError, withInputFrom: inputBlock) }
        if let decodeStage { return decode(decodeStage, to: outputBuffer, error: outError, withInputFrom: inputBlock) }
        guard let output = outputBuffer as? AVAudioPCMBuffer else {
            outError?.pointee = converterError(kAudioConverterErr_FormatNotSupported, "a PCM → PCM converter fills an AVAudioPCMBuffer, not an AVAudioCompressedBuffer")
            return .error
        }
        do { try checkOutput(output) } catch {
            outError?.pointee = error as NSError
            return .error
        }
        output.frameLength = 0
        return fillPCM(output, upTo: Int(output.frameCapacity), error: outError, withInputFrom: inputBlock)
    }

    /// The PCM pipeline's pull loop: appends frames to `output` (in `pcmOutputFormat`) after its
    /// `frameLength`, up to `limit` frames, pulling `pcmInputFormat` buffers from `inputBlock`.
    /// Returns as `convert(to:error:withInputFrom:)` does; `.endOfStream` when the stream has
    /// ended and this call appended nothing.
    func fillPCM(_ output: AVAudioPCMBuffer, upTo limit: Int, error outError: NSErrorPointer,
                 withInputFrom inputBlock: AVAudioConverterInputBlock) -> AVAudioConverterOutputStatus {
        if changesRate {
            return convertWithRateChange(to: output, upTo: limit, error: outError, withInputFrom: inputBlock)
        }
        let capacity = limit
        let start = Int(output.frameLength)
        var produced = start
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
                return produced > start ? .haveData : .endOfStream
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
    private func convertWithRateChange(to output: AVAudioPCMBuffer, upTo limit: Int, error outError: NSErrorPointer,
                                       withInputFrom inputBlock: AVAudioConverterInputBlock) -> AVAudioConverterOutputStatus {
        let src = rateStage()!
        let channels = Int(pcmOutputFormat.channelCount)
        let capacity = limit
        let start = Int(output.frameLength)
        var produced = start
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
                    return produced > start ? .haveData : .endOfStream
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
        guard f.commonFormat == pcmInputFormat.commonFormat, f.isInterleaved == pcmInputFormat.isInterleaved,
              f.channelCount == pcmInputFormat.channelCount else {
            throw converterError(kAudioConverterErr_FormatNotSupported, "input buffer in \(f) does not match the converter's input format \(inputFormat)")
        }
    }

    func checkOutput(_ buffer: AVAudioPCMBuffer) throws {
        let f = buffer.format
        guard f.commonFormat == pcmOutputFormat.commonFormat, f.isInterleaved == pcmOutputFormat.isInterleaved,
              f.channelCount == pcmOutputFormat.channelCount else {
            throw converterError(kAudioConverterErr_FormatNotSupported, "output buffer in \(f) does not match the converter's output format \(outputFormat)")
        }
    }

    func converterError(_ code: OSStatus, _ message: String) -> NSError {
        NSError(domain: NSOSStatusErrorDomain, code: Int(code), userInfo: [NSLocalizedDescriptionKey: "AVAudioConverter: " + message])
    }

    open override var description: String {
        "<AVAudioConverter: \(inputFormat) → \(outputFormat)>"
    }
}

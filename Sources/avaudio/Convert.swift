// `avaudio convert IN OUT [options]`: rewrite an audio file in another container, sample format,
// sample rate and/or channel count, like macOS's afconvert.
//
//     avaudio convert take.wav take.caf --bits 24
//     avaudio convert take.wav take.aifc --float --bits 64
//     avaudio convert take.wav phone.au --ulaw --rate 8000 --channels 1 --downmix
//     avaudio convert take.caf out.bin --format wav
//     avaudio convert master.wav cd.wav --rate 44100 --bits 16 --dither --quality max
//
// Two paths, both streaming the file in chunks of 65536 frames:
//
//  * Same sample rate and channel count, no dither: AVAudioFile reads into Float32 buffers (or
//    Float64 ones when either side holds more than 24 bits of precision: 32-bit integers, 64-bit
//    floats) and AVAudioFile writes them; the file encodings do the rest, so every conversion that
//    can be exact is.
//  * Otherwise an AVAudioConverter sits between the two files:
//
//        input file ──► Float32 standard ──► AVAudioConverter ──► Float32 standard ──► output file
//        (any encoding)  (AVAudioFile)        rate, channels       (new rate/channels)   (its encoding)
//
//    pulled through `convert(to:error:withInputFrom:)`: the input block reads the next chunk of
//    the file and reports `.endOfStream` at its end, after which the converter drains its
//    filter's tail, so N input frames become exactly round(N × out/in) output frames.
//    With --dither the converter's output is the integer processing format of the output file
//    instead (see `ditherCommonFormat`).
import AVFoundation
import ArgumentParser

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert an audio file to another container, sample format, sample rate or channel count.",
        discussion: """
            The output container comes from --format, else from OUT's extension (.wav, .aif/.aiff, \
            .aifc, .caf, .au/.snd, .flac, .m4a, .mp4, .oga/.ogg). The sample format defaults to the input's (bit depth, integer \
            or float, µ-law/A-law; FLAC keeps integer depths and stores float input as 24-bit, \
            --level 0–8 choosing its compression; .oga/.ogg hold FLAC in Ogg; \
            .m4a/.mp4 hold Apple Lossless, or FLAC with --flac; \
            --alac writes Apple Lossless into .caf); flags \
            override it. Sample rate and channel count are kept \
            unless --rate or --channels change them, through AVAudioConverter.

            Channel count changes remap channels by their layout labels (stereo → mono keeps the \
            left channel; mono → stereo copies it to both), or with --downmix mix them \
            (ITU-R BS.775: stereo → mono is the average of left and right; 5.1 → stereo folds the \
            centre and surrounds in at -3 dB). Outputs of more than two channels get a layout: \
            3 MPEG_3_0_A, 4 Quadraphonic, 5 MPEG_5_0_A, 6 MPEG_5_1_A, 7 MPEG_6_1_A, 8 MPEG_7_1_C, \
            others DiscreteInOrder.
            """
    )

    static let chunkFrames: AVAudioFrameCount = 65_536

    /// Sample-rate converter quality, as `AVAudioQuality`.
    enum Quality: String, CaseIterable, ExpressibleByArgument {
        case min, low, medium, high, max

        var avQuality: AVAudioQuality {
            switch self {
            case .min: return .min
            case .low: return .low
            case .medium: return .medium
            case .high: return .high
            case .max: return .max
            }
        }
    }

    @Argument(help: "The file to read.")
    var input: String

    @Argument(help: "The file to write (replaced if it exists).")
    var output: String

    @Option(help: "Output container: wav, aiff, aifc, caf, au, flac, m4a, mp4 or ogg (FLAC in Ogg; OUT must end in .oga or .ogg) (default: from OUT's extension).")
    var format: Container?

    @Option(help: "Bits per sample: 8, 16, 24 or 32 for integers; 32 or 64 with --float.")
    var bits: Int?

    @Option(help: "FLAC compression level, 0 (fastest) to 8 (smallest); default 5.")
    var level: Int?

    @Flag(help: "Write Apple Lossless (ALAC) into a .caf file (16, 20, 24 or 32 bits; default the input's depth, 24 for float input); .m4a and .mp4 files hold it by default.")
    var alac = false

    @Flag(help: "Write FLAC packets into an .m4a or .mp4 file instead of Apple Lossless (FLAC in ISO base media).")
    var flac = false

    @Flag(help: "Write floating-point samples (32-bit unless --bits 64).")
    var float = false

    @Flag(name: .customLong("big-endian"), help: "Write big-endian samples (CAF and AIFF-C; AIFF and AU always are).")
    var bigEndian = false

    @Flag(name: .customLong("little-endian"), help: "Write little-endian samples (CAF and AIFF-C 'sowt'; WAV always is).")
    var littleEndian = false

    @Flag(help: "Write G.711 µ-law.")
    var ulaw = false

    @Flag(help: "Write G.711 A-law.")
    var alaw = false

    @Option(help: "Output sample rate in Hz (default: the input's).")
    var rate: Double?

    @Option(help: "Sample-rate converter quality: min, low, medium, high or max (max also selects the mastering algorithm).")
    var quality: Quality = .high

    @Option(help: "Output channel count (default: the input's).")
    var channels: Int?

    @Flag(help: "Mix channels when changing the channel count, instead of remapping them.")
    var downmix = false

    @Flag(help: "Add TPDF dither when quantising to 16- or 32-bit integers.")
    var dither = false

    @Flag(help: "Show a progress bar on standard error even when it is not a terminal.")
    var progress = false

    @Flag(name: .shortAndLong, help: "Print a summary of the conversion.")
    var verbose = false

    @OptionGroup(title: "Effects (rendered through an offline AVAudioEngine, in this order: tempo/pitch, EQ, distortion, delay, reverb)")
    var effects: EffectOptions

    func validate() throws {
        if let bits, ![8, 16, 24, 32, 64].contains(bits) {
            throw ValidationError("--bits must be 8, 16, 24 or 32 (or 32 or 64 with --float), not \(bits)")
        }
        if float, let bits, bits != 32, bits != 64 {
            throw ValidationError("floating-point samples are 32 or 64 bits, not \(bits)")
        }
        if !float, bits == 64 {
            throw ValidationError("64-bit samples must be floating point: add --float")
        }
        if ulaw && alaw { throw ValidationError("--ulaw and --alaw are exclusive") }
        if (ulaw || alaw) && (float || bits != nil) {
            throw ValidationError("--\(ulaw ? "ulaw" : "alaw") cannot be combined with --float or --bits (G.711 samples are 8-bit)")
        }
        if bigEndian && littleEndian { throw ValidationError("--big-endian and --little-endian are exclusive") }
        if let channels, channels < 1 || channels > 64 { throw ValidationError("--channels must be between 1 and 64, not \(channels)") }
        if let rate, !(rate >= 1 && rate <= 3_072_000) {
            throw ValidationError("--rate must be a sample rate in Hz between 1 and 3072000, not \(rate)")
        }
        if dither && float { throw ValidationError("--dither applies when writing integers, not with --float") }
        if dither && (ulaw || alaw) { throw ValidationError("--dither applies when writing linear integers, not G.711") }
        if dither && effects.any { throw ValidationError("--dither cannot be combined with effects") }
        let container = format ?? Container(fileExtension: fileURL(output).pathExtension)
        if alac && flac { throw ValidationError("--alac and --flac are exclusive") }
        if container == .ogg, !["oga", "ogg"].contains(fileURL(output).pathExtension.lowercased()) {
            // Apple declares no Ogg file type constant: AVAudioFile writes Ogg from the extension.
            throw ValidationError("--format ogg writes FLAC in Ogg, which AVAudioFile picks from the extension: give OUT the .oga or .ogg extension")
        }
        if flac && !(container?.isMPEG4 ?? false) && container != .flac && container != .ogg {
            throw ValidationError("--flac writes FLAC into MPEG-4: give OUT the .m4a or .mp4 extension (a .flac file holds FLAC already)")
        }
        if alac || (container?.isMPEG4 ?? false) && !flac {
            guard container == .caf || (container?.isMPEG4 ?? false) else {
                throw ValidationError("--alac writes Apple Lossless into CAF or MPEG-4: give OUT the .caf, .m4a or .mp4 extension")
            }
            if float || ulaw || alaw { throw ValidationError("Apple Lossless stores integer samples: drop --\(float ? "float" : ulaw ? "ulaw" : "alaw")") }
            if bigEndian || littleEndian { throw ValidationError("Apple Lossless has no byte order to choose: drop --\(bigEndian ? "big" : "little")-endian") }
            if dither { throw ValidationError("--dither is not available for Apple Lossless output yet") }
            if let bits, ![16, 20, 24, 32].contains(bits) { throw ValidationError("Apple Lossless stores 16, 20, 24 or 32 bits, not \(bits)") }
        }
        if container == .flac || container == .ogg || flac {
            if float || ulaw || alaw { throw ValidationError("FLAC stores integer samples: drop --\(float ? "float" : ulaw ? "ulaw" : "alaw")") }
            if bigEndian || littleEndian { throw ValidationError("FLAC has no byte order to choose: drop --\(bigEndian ? "big" : "little")-endian") }
            if dither { throw ValidationError("--dither is not available for FLAC output yet") }
            if let level, !(0...8).contains(level) { throw ValidationError("--level must be between 0 and 8, not \(level)") }
        } else if level != nil {
            throw ValidationError("--level applies to FLAC output (a .flac, .oga or .ogg file, --format flac, or --flac)")
        }
    }

    /// What the conversion does, decided once the input has been opened.
    struct Plan {
        var inFacts: FormatFacts
        var settings: [String: Any]
        var outRate: Double
        var outChannels: Int
        var changesRate: Bool { outRate != inFacts.sampleRate }
        var changesChannels: Bool { outChannels != inFacts.channels }
        /// The integer processing format the converter dithers to, when dithering.
        var ditherFormat: AVAudioCommonFormat?
        /// Why --dither was not applied (the conversion is exact), for --verbose.
        var ditherSkipped: String?
        var usesConverter: Bool { changesRate || changesChannels || ditherFormat != nil }
    }

    mutating func run() throws {
        let inURL = fileURL(input)
        let outURL = fileURL(output)
        if inURL.standardizedFileURL.resolvingSymlinksInPath().path == outURL.standardizedFileURL.resolvingSymlinksInPath().path {
            reportError(ToolError("'\(output)' is the input file; choose another output path"))
            throw ExitCode.failure
        }

        do {
            // Opened once to learn the file format; reopened below in the processing format we pick.
            let probe = try AVAudioFile(forReading: inURL)
            let plan: Plan
            do {
                plan = try makePlan(for: probe.fileFormat)
            } catch {
                probe.close()
                throw error
            }
            probe.close()
            if effects.any {
                let inFile = try AVAudioFile(forReading: inURL, commonFormat: .pcmFormatFloat32, interleaved: false)
                try renderEffects(inFile, to: outURL, plan: plan)
            } else if plan.usesConverter {
                // The converter works in Float32 whenever it resamples or mixes; a dither-only
                // conversion goes straight from the read format to the dithered integers.
                let common: AVAudioCommonFormat = !plan.changesRate && !plan.changesChannels && precision(of: plan.inFacts) > 24
                    ? .pcmFormatFloat64 : .pcmFormatFloat32
                let inFile = try AVAudioFile(forReading: inURL, commonFormat: common, interleaved: false)
                try convertWithConverter(inFile, to: outURL, plan: plan)
            } else {
                let common: AVAudioCommonFormat = max(precision(of: plan.inFacts), outputPrecision(plan.settings)) > 24 ? .pcmFormatFloat64 : .pcmFormatFloat32
                let inFile = try AVAudioFile(forReading: inURL, commonFormat: common, interleaved: false)
                try copySamples(inFile, to: outURL, plan: plan)
            }
        } catch let error as ExitCode {
            throw error
        } catch {
            reportError(error, path: input)
            throw ExitCode.failure
        }
    }

    func makePlan(for inFormat: AVAudioFormat) throws -> Plan {
        let inFacts = FormatFacts(inFormat)
        let outRate = rate ?? inFacts.sampleRate
        let outChannels = channels ?? inFacts.channels
        let settings = outputSettings(for: inFormat, sampleRate: outRate, channels: outChannels)
        var plan = Plan(inFacts: inFacts, settings: settings, outRate: outRate, outChannels: outChannels)
        if dither {
            // Dither belongs where the samples are rounded to the file's integers, at the file's
            // LSB. AVAudioConverter dithers to its *output* format's LSB, so the converter must
            // produce the file's own integers: Int16 for 16-bit files, Int32 for 32-bit ones, which
            // AVAudioFile then stores unchanged. No processing format has 8 or 24 bits: dithering to
            // Int16/Int32 there would be 256 times too small and the file would still round
            // undithered, so those depths are refused rather than silently not dithered.
            guard let depth = outputIntegerDepth(settings) else {
                throw ToolError("--dither applies when writing integers; '\(output)' would hold \(sampleKind(settings)) samples (the input's format; choose integers with --bits)")
            }
            guard depth == 16 || depth == 32 else {
                throw ToolError("--dither needs 16- or 32-bit integer output (AVAudioConverter dithers to Int16 or Int32, the processing formats of those depths), not \(depth)-bit: add --bits 16")
            }
            // Rounding is needed only when samples leave the output's grid: resampling, mixing
            // channels, or more precision in than out. A remap or a widening copy is exact.
            if plan.changesRate || (plan.changesChannels && downmix) || precision(of: inFacts) > depth {
                plan.ditherFormat = depth == 16 ? .pcmFormatInt16 : .pcmFormatInt32
            } else {
                plan.ditherSkipped = "every \(precision(of: inFacts))-bit input sample is exact in \(depth) bits"
            }
        }
        return plan
    }

    // MARK: Copy (same rate and channels)

    /// Streams `inFile` into a new file at `outURL`, sample for sample.
    private func copySamples(_ inFile: AVAudioFile, to outURL: URL, plan: Plan) throws {
        defer { inFile.close() }
        guard let buffer = AVAudioPCMBuffer(pcmFormat: inFile.processingFormat, frameCapacity: Convert.chunkFrames) else {
            throw ToolError("cannot allocate a \(Convert.chunkFrames)-frame buffer in \(inFile.processingFormat)")
        }
        var read: Int64 = 0
        let (written, format) = try stream(to: outURL, settings: plan.settings, commonFormat: inFile.processingFormat.commonFormat,
                                           total: inFile.length) {
            try inFile.read(into: buffer)
            read += Int64(buffer.frameLength)
            return buffer.frameLength == 0 ? nil : (buffer, read)
        }
        if verbose {
            var line = "\(input) → \(output): \(written) frames, \(FormatFacts(format).summary)"
            if let skipped = plan.ditherSkipped { line += "; no dither needed (\(skipped))" }
            print(line)
        }
    }

    // MARK: AVAudioConverter (rate, channels, dither)

    /// Streams `inFile` through an AVAudioConverter into a new file at `outURL`.
    private func convertWithConverter(_ inFile: AVAudioFile, to outURL: URL, plan: Plan) throws {
        defer { inFile.close() }
        let inFormat = inFile.processingFormat
        let outCommon = plan.ditherFormat ?? .pcmFormatFloat32
        let outFormat: AVAudioFormat
        if let layout = outputLayout(channels: plan.outChannels, input: inFormat) {
            outFormat = AVAudioFormat(commonFormat: outCommon, sampleRate: plan.outRate, interleaved: false, channelLayout: layout)
        } else if let format = AVAudioFormat(commonFormat: outCommon, sampleRate: plan.outRate,
                                             channels: AVAudioChannelCount(plan.outChannels), interleaved: false) {
            outFormat = format
        } else {
            throw ToolError("cannot describe \(plan.outChannels) channels at \(formatRate(plan.outRate)) Hz")
        }
        guard let converter = AVAudioConverter(from: inFormat, to: outFormat) else {
            throw ToolError("AVAudioConverter cannot convert \(inFormat) to \(outFormat)")
        }
        converter.sampleRateConverterQuality = quality.avQuality.rawValue
        if quality == .max { converter.sampleRateConverterAlgorithm = AVSampleRateConverterAlgorithm_Mastering }
        converter.downmix = downmix
        converter.dither = plan.ditherFormat != nil

        guard let inBuffer = AVAudioPCMBuffer(pcmFormat: inFormat, frameCapacity: Convert.chunkFrames),
              let outBuffer = AVAudioPCMBuffer(pcmFormat: outFormat, frameCapacity: Convert.chunkFrames) else {
            throw ToolError("cannot allocate \(Convert.chunkFrames)-frame buffers in \(inFormat) and \(outFormat)")
        }
        var read: Int64 = 0
        var inputFinished = false
        var readError: Error?
        let (written, format) = try stream(to: outURL, settings: plan.settings, commonFormat: outCommon, total: inFile.length) {
            var convertError: NSError?
            // The converter calls the block only once it has taken in the previous buffer's
            // frames, so one input buffer can be refilled each time.
            let status = converter.convert(to: outBuffer, error: &convertError) { _, inputStatus in
                if inputFinished {
                    inputStatus.pointee = .endOfStream
                    return nil
                }
                do {
                    try inFile.read(into: inBuffer)
                } catch {
                    readError = error
                    inputFinished = true
                    inputStatus.pointee = .endOfStream
                    return nil
                }
                if inBuffer.frameLength == 0 {
                    inputFinished = true
                    inputStatus.pointee = .endOfStream
                    return nil
                }
                read += Int64(inBuffer.frameLength)
                inputStatus.pointee = .haveData
                return inBuffer
            }
            if let readError { throw readError }
            switch status {
            case .haveData, .inputRanDry:
                // The block never reports .noDataNow, so running dry with nothing is a converter fault.
                guard outBuffer.frameLength > 0 || status == .haveData else {
                    throw ToolError("AVAudioConverter ran dry converting \(inFormat) to \(outFormat)")
                }
                return (outBuffer, read)
            case .endOfStream:
                return outBuffer.frameLength > 0 ? (outBuffer, read) : nil
            case .error:
                throw convertError ?? ToolError("AVAudioConverter failed converting \(inFormat) to \(outFormat)")
            }
        }
        // The converter's guarantee: N frames in, round(N × out/in) out (exactly N × out/in + ½,
        // rounded down, computed in integers when both rates are whole numbers).
        let expected = expectedOutputFrames(read, from: plan.inFacts.sampleRate, to: plan.outRate)
        if written != expected {
            writeStandardError("avaudio: warning: wrote \(written) frames to '\(output)', expected \(expected) (\(read) × \(formatRate(plan.outRate)) / \(formatRate(plan.inFacts.sampleRate)))\n")
        }
        if verbose {
            var steps: [String] = []
            if plan.changesRate {
                var text = "\(formatRate(plan.inFacts.sampleRate)) → \(formatRate(plan.outRate)) Hz (quality \(quality.rawValue)"
                if quality == .max { text += ", mastering" }
                steps.append(text + ")")
            }
            if plan.changesChannels {
                steps.append("\(plan.inFacts.channels) → \(plan.outChannels) channels (\(downmix ? "downmix" : "remap"))")
            }
            if plan.ditherFormat != nil { steps.append("TPDF dither") }
            print("\(input) → \(output): \(read) → \(written) frames, \(steps.joined(separator: ", ")); \(FormatFacts(format).summary)")
        }
    }

    /// round(frames × outRate / inRate), halves up, exactly when the rates are whole numbers.
    private func expectedOutputFrames(_ frames: Int64, from inRate: Double, to outRate: Double) -> Int64 {
        if inRate == inRate.rounded(), outRate == outRate.rounded(), inRate < 1e9, outRate < 1e9 {
            let i = Int64(inRate), o = Int64(outRate)
            let (product, overflow) = frames.multipliedReportingOverflow(by: 2 * o)
            if !overflow { return (product + i) / (2 * i) }
        }
        return Int64((Double(frames) * outRate / inRate + 0.5).rounded(.down))
    }

    // MARK: Streaming

    /// Creates the output file and writes every buffer `next` returns (with the input frames read
    /// so far, for the progress bar) until it returns nil. On failure the output file is removed.
    /// Returns the frames written and the file's format.
    func stream(to outURL: URL, settings: [String: Any], commonFormat: AVAudioCommonFormat, total: Int64,
                        next: () throws -> (AVAudioPCMBuffer, Int64)?) throws -> (Int64, AVAudioFormat) {
        let outFile: AVAudioFile
        do {
            outFile = try AVAudioFile(forWriting: outURL, settings: settings, commonFormat: commonFormat, interleaved: false)
        } catch {
            reportError(error, path: output)
            throw ExitCode.failure
        }
        let showProgress = progress || (ProgressBar.standardErrorIsTerminal && total > 8 * Int64(Convert.chunkFrames))
        var bar = showProgress ? ProgressBar(total: total, label: (output as NSString).lastPathComponent) : nil
        var written: Int64 = 0
        var shown: Int64 = -1
        do {
            while let (buffer, done) = try next() {
                if buffer.frameLength > 0 {
                    do {
                        try outFile.write(from: buffer)
                    } catch {
                        reportError(error, path: output)
                        throw ExitCode.failure
                    }
                    written += Int64(buffer.frameLength)
                }
                if done != shown {
                    bar?.update(done)
                    shown = done
                }
            }
        } catch {
            bar?.finish()
            outFile.close()
            try? FileManager.default.removeItem(at: outURL)
            throw error
        }
        bar?.finish()
        let format = outFile.fileFormat
        outFile.close()
        return (written, format)
    }

    // MARK: Formats

    /// The layout of an output with `channels` channels: the input's when the count is kept, none
    /// for mono and stereo (implied), else the usual layout of that many channels.
    func outputLayout(channels: Int, input: AVAudioFormat) -> AVAudioChannelLayout? {
        if channels == Int(input.channelCount) { return input.channelLayout }
        if channels <= 2 { return nil }
        let tag: AudioChannelLayoutTag
        switch channels {
        case 3: tag = kAudioChannelLayoutTag_MPEG_3_0_A
        case 4: tag = kAudioChannelLayoutTag_Quadraphonic
        case 5: tag = kAudioChannelLayoutTag_MPEG_5_0_A
        case 6: tag = kAudioChannelLayoutTag_MPEG_5_1_A
        case 7: tag = kAudioChannelLayoutTag_MPEG_6_1_A
        case 8: tag = kAudioChannelLayoutTag_MPEG_7_1_C
        default: tag = kAudioChannelLayoutTag_DiscreteInOrder | AudioChannelLayoutTag(channels)
        }
        return AVAudioChannelLayout(layoutTag: tag)
    }

    /// The settings of the output file: the requested (else the input's) sample rate, channels and
    /// layout; the sample format from the flags, defaulting to the input's.
    private func outputSettings(for inFormat: AVAudioFormat, sampleRate: Double, channels: Int) -> [String: Any] {
        let facts = FormatFacts(inFormat)
        var settings: [String: Any] = [
            AVSampleRateKey: sampleRate,
            AVNumberOfChannelsKey: channels,
        ]
        if let layout = outputLayout(channels: channels, input: inFormat),
           let data = AVAudioFormat(standardFormatWithSampleRate: sampleRate, channelLayout: layout).settings[AVChannelLayoutKey] {
            settings[AVChannelLayoutKey] = data
        }
        let container = format ?? Container(fileExtension: fileURL(output).pathExtension)
        if let type = format?.fileTypeID { settings[AVAudioFileTypeKey] = type }

        if alac || (container?.isMPEG4 ?? false) && !flac {
            // Apple Lossless stores 16, 20, 24 or 32 bits: the input's integer depth rounded up to
            // one of those, 24 for floating point, 16 for G.711.
            let source = facts.isLinearPCM && !facts.isFloat ? facts.bitsPerChannel : facts.isFloat ? 24 : 16
            settings[AVFormatIDKey] = kAudioFormatAppleLossless
            settings[AVEncoderBitDepthHintKey] = bits ?? [16, 20, 24, 32].first { $0 >= source } ?? 32
            return settings
        }
        if container == .flac || container == .ogg || flac {
            // FLAC (native, in Ogg or in MPEG-4) stores integers: the input's depth when it holds integers, else 24 bits for
            // floating point (what a float source keeps of its 24-bit mantissa) and 16 for G.711.
            settings[AVFormatIDKey] = kAudioFormatFLAC
            settings[AVEncoderBitDepthHintKey] = bits ?? (facts.isLinearPCM && !facts.isFloat ? facts.bitsPerChannel : facts.isFloat ? 24 : 16)
            settings[_FLACCompressionLevelKey] = level ?? 5
            return settings
        }
        let keepsG711 = !float && bits == nil && (facts.isULaw || facts.isALaw)
        if ulaw || (keepsG711 && facts.isULaw && !alaw) {
            settings[AVFormatIDKey] = kAudioFormatULaw
            return settings
        }
        if alaw || (keepsG711 && facts.isALaw) {
            settings[AVFormatIDKey] = kAudioFormatALaw
            return settings
        }
        let isFloat: Bool
        let depth: Int
        if float {
            isFloat = true
            depth = bits ?? (facts.isFloat ? facts.bitsPerChannel : 32)
        } else if let bits {
            isFloat = false
            depth = bits
        } else if facts.isLinearPCM {
            isFloat = facts.isFloat
            depth = facts.bitsPerChannel
        } else {
            // A compressed or G.711 input asked for linear PCM with no depth given.
            isFloat = false
            depth = 16
        }
        let big = bigEndian || (!littleEndian && (container?.prefersBigEndian ?? false))
        settings[AVFormatIDKey] = kAudioFormatLinearPCM
        settings[AVLinearPCMBitDepthKey] = depth
        settings[AVLinearPCMIsFloatKey] = isFloat
        settings[AVLinearPCMIsBigEndianKey] = big
        settings[AVLinearPCMIsNonInterleaved] = false
        return settings
    }

    /// Significant bits a file format carries (decides Float32 versus Float64 buffers).
    private func precision(of facts: FormatFacts) -> Int {
        if facts.isULaw || facts.isALaw { return 14 }
        if facts.isFloat { return facts.bitsPerChannel == 64 ? 53 : 24 }
        return facts.bitsPerChannel
    }

    private func outputPrecision(_ settings: [String: Any]) -> Int {
        if [kAudioFormatFLAC, kAudioFormatAppleLossless].contains(settings[AVFormatIDKey] as? AudioFormatID) { return settings[AVEncoderBitDepthHintKey] as? Int ?? 16 }
        guard let id = settings[AVFormatIDKey] as? AudioFormatID, id == kAudioFormatLinearPCM,
              let depth = settings[AVLinearPCMBitDepthKey] as? Int else { return 14 }
        if settings[AVLinearPCMIsFloatKey] as? Bool == true { return depth == 64 ? 53 : 24 }
        return depth
    }

    /// "32-bit float", "µ-law", "A-law" or "16-bit integer" for output settings.
    private func sampleKind(_ settings: [String: Any]) -> String {
        switch settings[AVFormatIDKey] as? AudioFormatID {
        case kAudioFormatULaw?: return "µ-law"
        case kAudioFormatALaw?: return "A-law"
        case kAudioFormatFLAC?: return "\(settings[AVEncoderBitDepthHintKey] as? Int ?? 16)-bit FLAC"
        case kAudioFormatAppleLossless?: return "\(settings[AVEncoderBitDepthHintKey] as? Int ?? 16)-bit Apple Lossless"
        default:
            let depth = settings[AVLinearPCMBitDepthKey] as? Int ?? 0
            return "\(depth)-bit " + (settings[AVLinearPCMIsFloatKey] as? Bool == true ? "float" : "integer")
        }
    }

    /// The bit depth of integer linear PCM output settings, or nil for float and G.711.
    private func outputIntegerDepth(_ settings: [String: Any]) -> Int? {
        guard let id = settings[AVFormatIDKey] as? AudioFormatID, id == kAudioFormatLinearPCM,
              settings[AVLinearPCMIsFloatKey] as? Bool != true else { return nil }
        return settings[AVLinearPCMBitDepthKey] as? Int
    }
}

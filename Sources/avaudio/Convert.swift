// `avaudio convert IN OUT [options]`: rewrite an audio file in another container and/or sample
// format, like macOS's afconvert (without sample-rate or channel-count conversion, which arrive
// with AVAudioConverter).
//
//     avaudio convert take.wav take.caf --bits 24
//     avaudio convert take.wav take.aifc --float --bits 64
//     avaudio convert take.wav phone.au --ulaw
//     avaudio convert take.caf out.bin --format wav
//
// The file is streamed in chunks of 65536 frames. Samples travel through Float32 buffers, or
// Float64 ones when either side holds more than 24 bits of precision (32-bit integers, 64-bit
// floats), so every conversion that can be exact is.
import AVFoundation
import ArgumentParser

struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert an audio file to another container or sample format.",
        discussion: """
            The output container comes from --format, else from OUT's extension (.wav, .aif/.aiff, \
            .aifc, .caf, .au/.snd). The sample format defaults to the input's (bit depth, integer \
            or float, µ-law/A-law); flags override it. Sample rate and channel count are kept.
            """
    )

    static let chunkFrames: AVAudioFrameCount = 65_536

    @Argument(help: "The file to read.")
    var input: String

    @Argument(help: "The file to write (replaced if it exists).")
    var output: String

    @Option(help: "Output container: wav, aiff, aifc, caf or au (default: from OUT's extension).")
    var format: Container?

    @Option(help: "Bits per sample: 8, 16, 24 or 32 for integers; 32 or 64 with --float.")
    var bits: Int?

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

    @Option(help: "Output channel count (must equal the input's for now).")
    var channels: Int?

    @Flag(help: "Show a progress bar on standard error even when it is not a terminal.")
    var progress = false

    @Flag(name: .shortAndLong, help: "Print a summary of the conversion.")
    var verbose = false

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
        if let channels, channels < 1 { throw ValidationError("--channels must be at least 1") }
    }

    mutating func run() throws {
        let inURL = fileURL(input)
        let outURL = fileURL(output)
        if inURL.standardizedFileURL.resolvingSymlinksInPath().path == outURL.standardizedFileURL.resolvingSymlinksInPath().path {
            reportError(ToolError("'\(output)' is the input file; choose another output path"))
            throw ExitCode.failure
        }

        let inFile: AVAudioFile
        do {
            // Opened once to learn the file format; reopened below in the processing format we pick.
            let probe = try AVAudioFile(forReading: inURL)
            let inFacts = FormatFacts(probe.fileFormat)
            if let channels, channels != inFacts.channels {
                probe.close()
                throw ToolError("cannot write \(channels) channel\(channels == 1 ? "" : "s") from '\(input)', which has \(inFacts.channels): channel count conversion arrives with AVAudioConverter")
            }
            let settings = outputSettings(for: probe.fileFormat)
            let common: AVAudioCommonFormat = max(precision(of: inFacts), outputPrecision(settings)) > 24 ? .pcmFormatFloat64 : .pcmFormatFloat32
            probe.close()
            inFile = try AVAudioFile(forReading: inURL, commonFormat: common, interleaved: false)
            try convert(inFile, to: outURL, settings: settings)
        } catch let error as ExitCode {
            throw error
        } catch {
            reportError(error, path: input)
            throw ExitCode.failure
        }
    }

    /// Streams `inFile` into a new file at `outURL`.
    private func convert(_ inFile: AVAudioFile, to outURL: URL, settings: [String: Any]) throws {
        defer { inFile.close() }
        let outFile: AVAudioFile
        do {
            outFile = try AVAudioFile(forWriting: outURL, settings: settings,
                                      commonFormat: inFile.processingFormat.commonFormat, interleaved: false)
        } catch {
            reportError(error, path: output)
            throw ExitCode.failure
        }
        guard let buffer = AVAudioPCMBuffer(pcmFormat: inFile.processingFormat, frameCapacity: Convert.chunkFrames) else {
            outFile.close()
            try? FileManager.default.removeItem(at: outURL)
            throw ToolError("cannot allocate a \(Convert.chunkFrames)-frame buffer in \(inFile.processingFormat)")
        }
        let total = inFile.length
        let showProgress = progress || (ProgressBar.standardErrorIsTerminal && total > 8 * Int64(Convert.chunkFrames))
        var bar = showProgress ? ProgressBar(total: total, label: (output as NSString).lastPathComponent) : nil
        var done: Int64 = 0
        do {
            while true {
                try inFile.read(into: buffer)
                if buffer.frameLength == 0 { break }
                do {
                    try outFile.write(from: buffer)
                } catch {
                    reportError(error, path: output)
                    throw ExitCode.failure
                }
                done += Int64(buffer.frameLength)
                bar?.update(done)
            }
        } catch {
            bar?.finish()
            outFile.close()
            try? FileManager.default.removeItem(at: outURL)
            throw error
        }
        bar?.finish()
        let written = outFile.fileFormat
        outFile.close()
        if verbose {
            print("\(input) → \(output): \(done) frames, \(FormatFacts(written).summary)")
        }
    }

    /// The settings of the output file: the input's sample rate, channels and layout; the sample
    /// format from the flags, defaulting to the input's.
    private func outputSettings(for inFormat: AVAudioFormat) -> [String: Any] {
        let facts = FormatFacts(inFormat)
        var settings: [String: Any] = [
            AVSampleRateKey: facts.sampleRate,
            AVNumberOfChannelsKey: facts.channels,
        ]
        if let layout = inFormat.settings[AVChannelLayoutKey] {
            settings[AVChannelLayoutKey] = layout
        }
        let container = format ?? Container(fileExtension: fileURL(output).pathExtension)
        if let format { settings[AVAudioFileTypeKey] = format.fileTypeID }

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
        guard let id = settings[AVFormatIDKey] as? AudioFormatID, id == kAudioFormatLinearPCM,
              let depth = settings[AVLinearPCMBitDepthKey] as? Int else { return 14 }
        if settings[AVLinearPCMIsFloatKey] as? Bool == true { return depth == 64 ? 53 : 24 }
        return depth
    }
}

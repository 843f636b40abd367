// Helpers shared by the subcommands: error reporting, container sniffing, human-readable format
// descriptions, level measurement and the progress bar.
//
// Everything here uses the public AVFAudio API only, as any client would: the tool is also a
// real-world client of the framework.
import AVFoundation
import ArgumentParser
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - Output and errors

/// Writes `text` to standard error (no newline added).
func writeStandardError(_ text: String) {
    FileHandle.standardError.write(Data(text.utf8))
}

/// The message to show for an error: an NSError's `localizedDescription` (the framework's errors
/// name the file and the problem), prefixed with `path` when the message does not already name it.
func errorMessage(_ error: Error, path: String? = nil) -> String {
    let message: String
    if let error = error as? ToolError {
        message = error.message
    } else {
        message = (error as NSError).localizedDescription
    }
    if let path, !message.contains(path), !message.contains((path as NSString).lastPathComponent) {
        return "\(path): \(message)"
    }
    return message
}

/// Prints `avaudio: <message>` on standard error.
func reportError(_ error: Error, path: String? = nil) {
    writeStandardError("avaudio: \(errorMessage(error, path: path))\n")
}

/// An error the tool itself detects (bad option combination, unsupported request).
struct ToolError: Error, CustomStringConvertible {
    var message: String
    init(_ message: String) { self.message = message }
    var description: String { message }
}

// MARK: - Containers

/// The containers the tool writes, with their Core Audio file type IDs.
enum Container: String, CaseIterable, ExpressibleByArgument {
    case wav, aiff, aifc, caf, au, flac, m4a, mp4, ogg

    /// The `AudioFileTypeID` to pass as `AVAudioFileTypeKey`; nil for Ogg, for which Apple
    /// declares no file type constant (an Ogg file is written from its `.oga`/`.ogg` extension).
    var fileTypeID: AudioFileTypeID? {
        switch self {
        case .ogg: return nil
        case .wav: return kAudioFileWAVEType
        case .aiff: return kAudioFileAIFFType
        case .aifc: return kAudioFileAIFCType
        case .caf: return kAudioFileCAFType
        case .au: return kAudioFileNextType
        case .flac: return kAudioFileFLACType
        case .m4a: return kAudioFileM4AType
        case .mp4: return kAudioFileMPEG4Type
        }
    }

    /// The short name used in tables ("WAV", "AIFF-C", ...).
    var displayName: String {
        switch self {
        case .wav: return "WAV"
        case .aiff: return "AIFF"
        case .aifc: return "AIFF-C"
        case .caf: return "CAF"
        case .au: return "AU"
        case .flac: return "FLAC"
        case .m4a: return "M4A"
        case .mp4: return "MPEG-4"
        case .ogg: return "Ogg"
        }
    }

    /// The usual file extension.
    var fileExtension: String {
        switch self {
        case .aiff: return "aif"
        case .ogg: return "oga"
        default: return rawValue
        }
    }

    /// Whether the container holds only compressed packets (MPEG-4: Apple Lossless or FLAC here).
    var isMPEG4: Bool { self == .m4a || self == .mp4 }

    /// Whether the container stores integer samples big-endian unless told otherwise.
    var prefersBigEndian: Bool {
        switch self {
        case .aiff, .aifc, .au: return true
        case .wav, .caf, .flac, .m4a, .mp4, .ogg: return false
        }
    }

    /// The container a file extension names, or nil.
    init?(fileExtension ext: String) {
        switch ext.lowercased() {
        case "wav", "wave", "bwf": self = .wav
        case "aif", "aiff": self = .aiff
        case "aifc": self = .aifc
        case "caf": self = .caf
        case "au", "snd": self = .au
        case "flac": self = .flac
        case "m4a": self = .m4a
        case "mp4": self = .mp4
        case "oga", "ogg": self = .ogg
        default: return nil
        }
    }
}

/// What the first bytes of a file say about its container.
struct ContainerInfo {
    /// A name for the container ("WAVE", "RF64", "AIFF", "AIFF-C", "CAF", "NeXT/Sun AU"), or a
    /// guess from the extension when the magic is not recognised.
    var name: String
    /// The Core Audio file type ID as a four-character code ('WAVE', 'AIFC', 'caff', 'NeXT', ...).
    var fileTypeID: String?
    /// For AIFF-C, the compression type of the COMM chunk ('NONE', 'sowt', 'fl32', 'ulaw', ...).
    var aifcCompression: String?
}

/// Reads up to `count` bytes from the start of a file.
private func readPrefix(of url: URL, count: Int) -> [UInt8] {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return [] }
    defer { try? handle.close() }
    guard let data = try? handle.read(upToCount: count) else { return [] }
    return [UInt8](data)
}

/// Identifies a file's container from its magic number (falling back to the extension).
func sniffContainer(_ url: URL) -> ContainerInfo {
    let bytes = readPrefix(of: url, count: 64 * 1024)
    func text(_ range: Range<Int>) -> String? {
        guard bytes.count >= range.upperBound else { return nil }
        return String(decoding: bytes[range], as: UTF8.self)
    }
    switch (text(0..<4), text(8..<12)) {
    case ("RIFF"?, "WAVE"?), ("RIFX"?, "WAVE"?): return ContainerInfo(name: "WAVE", fileTypeID: "WAVE")
    case ("RF64"?, "WAVE"?): return ContainerInfo(name: "RF64", fileTypeID: "RF64")
    case ("BW64"?, "WAVE"?): return ContainerInfo(name: "BW64", fileTypeID: "BW64")
    case ("FORM"?, "AIFF"?): return ContainerInfo(name: "AIFF", fileTypeID: "AIFF")
    case ("FORM"?, "AIFC"?):
        return ContainerInfo(name: "AIFF-C", fileTypeID: "AIFC", aifcCompression: aifcCompressionType(bytes))
    case ("caff"?, _): return ContainerInfo(name: "CAF", fileTypeID: "caff")
    case (".snd"?, _): return ContainerInfo(name: "NeXT/Sun AU", fileTypeID: "NeXT")
    case ("fLaC"?, _): return ContainerInfo(name: "FLAC", fileTypeID: "flac")
    // Apple declares no Ogg file type constant (its runtime's 'Oggf' is undocumented): no ID.
    case ("OggS"?, _): return ContainerInfo(name: "Ogg", fileTypeID: nil)
    default:
        // ISO base media: `ftyp` at offset 4, its major brand at 8 ('M4A ' → Apple's M4A type
        // 'm4af', 'qt  ' → QuickTime, others → MPEG-4 'mp4f').
        if text(4..<8) == "ftyp", let brand = text(8..<12) {
            switch brand {
            case "M4A ", "M4B ", "M4P ": return ContainerInfo(name: "MPEG-4 audio (M4A)", fileTypeID: "m4af")
            case "qt  ": return ContainerInfo(name: "QuickTime", fileTypeID: nil)
            default: return ContainerInfo(name: "MPEG-4", fileTypeID: "mp4f")
            }
        }
        if let guess = Container(fileExtension: url.pathExtension) {
            return ContainerInfo(name: guess.displayName + " (by extension)", fileTypeID: guess.fileTypeID.map(fourCC))
        }
        return ContainerInfo(name: "unknown", fileTypeID: nil)
    }
}

/// The compression type in an AIFF-C file's COMM chunk, found by walking the chunks in `bytes`.
private func aifcCompressionType(_ bytes: [UInt8]) -> String? {
    func u32(_ o: Int) -> Int { Int(bytes[o]) << 24 | Int(bytes[o + 1]) << 16 | Int(bytes[o + 2]) << 8 | Int(bytes[o + 3]) }
    var offset = 12
    while offset + 8 <= bytes.count {
        let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
        let size = u32(offset + 4)
        if id == "COMM" {
            // numChannels(2) numSampleFrames(4) sampleSize(2) sampleRate(10) compressionType(4)
            let at = offset + 8 + 18
            guard size >= 22, at + 4 <= bytes.count else { return nil }
            return String(decoding: bytes[at..<at + 4], as: UTF8.self)
        }
        offset += 8 + size + (size & 1)
    }
    return nil
}

/// A four-character code as text ('lpcm' → "lpcm"); codes that are not printable ASCII as hex.
func fourCC(_ code: UInt32) -> String {
    let bytes = [UInt8(code >> 24), UInt8(code >> 16 & 0xFF), UInt8(code >> 8 & 0xFF), UInt8(code & 0xFF)]
    if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return String(decoding: bytes, as: UTF8.self) }
    return hex32(code)
}

/// `0x0065_0002` → "0x00650002".
func hex32(_ value: UInt32) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return "0x" + String(repeating: "0", count: max(0, 8 - digits.count)) + digits
}

// MARK: - Channel layouts

/// The channel labels of a layout given channel by channel (`kAudioChannelLayoutTag_UseChannelDescriptions`),
/// read from the AudioChannelLayout structure; nil for layouts given by a tag or a bitmap.
func channelDescriptionLabels(_ layout: AVAudioChannelLayout) -> [AudioChannelLabel]? {
    let acl = layout.layout
    guard acl.pointee.mChannelLayoutTag == kAudioChannelLayoutTag_UseChannelDescriptions else { return nil }
    let offset = MemoryLayout<AudioChannelLayout>.offset(of: \AudioChannelLayout.mChannelDescriptions)!
    let first = (UnsafeRawPointer(acl) + offset).assumingMemoryBound(to: AudioChannelDescription.self)
    return (0..<Int(acl.pointee.mNumberChannelDescriptions)).map { first[$0].mChannelLabel }
}

/// "tag 0x00790006, 6 channels", or for a layout given channel by channel
/// "channel descriptions (labels 1 2 3 4 10 11), 6 channels".
func describeLayout(_ layout: AVAudioChannelLayout) -> String {
    let count = "\(layout.channelCount) channel\(layout.channelCount == 1 ? "" : "s")"
    if let labels = channelDescriptionLabels(layout) {
        return "channel descriptions (labels \(labels.map(String.init).joined(separator: " "))), \(count)"
    }
    if layout.layoutTag == kAudioChannelLayoutTag_UseChannelBitmap {
        return "channel bitmap \(hex32(layout.layout.pointee.mChannelBitmap.rawValue)), \(count)"
    }
    return "tag \(hex32(layout.layoutTag)), \(count)"
}

// MARK: - Formats

/// The facts about a file's data format that `info` and `demo` report, read from the format's
/// AudioStreamBasicDescription.
struct FormatFacts {
    var formatID: AudioFormatID
    var formatFlags: AudioFormatFlags
    var framesPerPacket: Int
    var sampleRate: Double
    var channels: Int
    var bitsPerChannel: Int
    var bytesPerFrame: Int
    var isFloat: Bool
    var isSignedInteger: Bool
    var isBigEndian: Bool
    var isInterleaved: Bool
    var isPacked: Bool

    init(_ format: AVAudioFormat) {
        let d = format.streamDescription.pointee
        formatID = d.mFormatID
        formatFlags = d.mFormatFlags
        framesPerPacket = Int(d.mFramesPerPacket)
        sampleRate = d.mSampleRate
        channels = Int(d.mChannelsPerFrame)
        bitsPerChannel = Int(d.mBitsPerChannel)
        bytesPerFrame = Int(d.mBytesPerFrame)
        let isPCM = d.mFormatID == kAudioFormatLinearPCM
        isFloat = isPCM && d.mFormatFlags & kAudioFormatFlagIsFloat != 0
        isSignedInteger = isPCM && d.mFormatFlags & kAudioFormatFlagIsSignedInteger != 0
        isBigEndian = d.mFormatFlags & kAudioFormatFlagIsBigEndian != 0
        isInterleaved = format.isInterleaved
        isPacked = d.mFormatFlags & kAudioFormatFlagIsPacked != 0
    }

    var isLinearPCM: Bool { formatID == kAudioFormatLinearPCM }
    var isULaw: Bool { formatID == kAudioFormatULaw }
    var isALaw: Bool { formatID == kAudioFormatALaw }

    /// Bytes one sample of one channel occupies in the file.
    var bytesPerSample: Int {
        isInterleaved ? bytesPerFrame / max(1, channels) : bytesPerFrame
    }

    /// "16-bit little-endian signed integer", "32-bit big-endian float", "8-bit µ-law", ...
    var encodingDescription: String {
        if isULaw { return "8-bit µ-law (G.711)" }
        if isALaw { return "8-bit A-law (G.711)" }
        if formatID == kAudioFormatFLAC || formatID == kAudioFormatAppleLossless {
            // afinfo's wording: "'flac' (0x00000001) from 16-bit source, 4096 frames/packet"
            let source = [1: 16, 2: 20, 3: 24, 4: 32][Int(formatFlags)].map { " from \($0)-bit source" } ?? ""
            let hex = String(formatFlags, radix: 16)
            return "(0x" + String(repeating: "0", count: max(0, 8 - hex.count)) + hex + ")" + source + ", \(framesPerPacket) frames/packet"
        }
        guard isLinearPCM else { return "'\(fourCC(formatID))'" }
        var parts = ["\(bitsPerChannel)-bit"]
        if bytesPerSample > 1 { parts.append(isBigEndian ? "big-endian" : "little-endian") }
        if isFloat {
            parts.append("float")
        } else {
            parts.append(isSignedInteger ? "signed integer" : "unsigned integer")
        }
        if !isPacked && bytesPerSample * 8 != bitsPerChannel { parts.append("in \(bytesPerSample * 8)-bit containers") }
        return parts.joined(separator: " ")
    }

    /// afinfo's "Data format" line: "2 ch, 48000 Hz, 'lpcm' 16-bit little-endian signed integer, interleaved".
    var summary: String {
        var text = "\(channels) ch, \(formatRate(sampleRate)) Hz, '\(fourCC(formatID))' \(encodingDescription)"
        if channels > 1 && (isLinearPCM || isULaw || isALaw) { text += isInterleaved ? ", interleaved" : ", deinterleaved" }
        return text
    }
}

/// 48000 → "48000", 22050.5 → "22050.5".
func formatRate(_ rate: Double) -> String {
    rate.rounded() == rate && abs(rate) < 1e15 ? String(Int64(rate)) : String(rate)
}

/// A number with a fixed count of decimals (String(format:) without its CVarArg pitfalls).
func fixed(_ value: Double, _ decimals: Int) -> String {
    guard value.isFinite else { return value.isNaN ? "nan" : (value < 0 ? "-inf" : "inf") }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (abs(value) * scale).rounded() / scale
    var text = String(Int64(rounded))
    if decimals > 0 {
        let fraction = Int64(((rounded - rounded.rounded(.down)) * scale).rounded())
        var digits = String(fraction)
        digits = String(repeating: "0", count: max(0, decimals - digits.count)) + digits
        text += "." + digits
    }
    return (value < 0 && rounded != 0 ? "-" : "") + text
}

/// Linear amplitude → dBFS (nil for silence).
func dBFS(_ amplitude: Double) -> Double? {
    amplitude > 0 ? 20 * log10(amplitude) : nil
}

/// A dBFS value for humans: "-6.02", or "-inf" for silence.
func dBText(_ value: Double?) -> String {
    guard let value else { return "-inf" }
    return fixed(value, 2)
}

// MARK: - Levels

/// Peak and RMS amplitude of each channel (linear, full scale = 1).
struct ChannelLevels {
    var peak: [Double]
    var rms: [Double]
}

/// Reads a whole file from the start in chunks of `chunkFrames` frames, in the standard
/// processing format, and measures each channel's peak and RMS level. The file's position is
/// left at the end.
func measureLevels(of file: AVAudioFile, chunkFrames: AVAudioFrameCount = 65_536) throws -> ChannelLevels {
    let channels = Int(file.processingFormat.channelCount)
    guard let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: chunkFrames),
          let data = buffer.floatChannelData else {
        throw ToolError("cannot allocate a \(chunkFrames)-frame buffer in \(file.processingFormat)")
    }
    var peak = [Double](repeating: 0, count: channels)
    var sumOfSquares = [Double](repeating: 0, count: channels)
    var frames: Int64 = 0
    file.framePosition = 0
    while true {
        try file.read(into: buffer)
        let n = Int(buffer.frameLength)
        if n == 0 { break }
        for c in 0..<channels {
            let samples = data[c]
            var p: Float = 0
            var sum: Double = 0
            for i in 0..<n {
                let x = samples[i]
                p = max(p, abs(x))
                sum += Double(x) * Double(x)
            }
            peak[c] = max(peak[c], Double(p))
            sumOfSquares[c] += sum
        }
        frames += Int64(n)
    }
    let rms = sumOfSquares.map { frames > 0 ? ($0 / Double(frames)).squareRoot() : 0 }
    return ChannelLevels(peak: peak, rms: rms)
}

// MARK: - Files

/// The size of a file in bytes, or nil.
func sizeOfFile(_ url: URL) -> Int64? {
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
          let size = attributes[.size] as? NSNumber else { return nil }
    return size.int64Value
}

/// A URL for a command-line path (relative paths against the current directory).
func fileURL(_ path: String) -> URL {
    URL(fileURLWithPath: path)
}

// MARK: - Progress

/// A one-line progress bar on standard error, redrawn at most ten times a second.
struct ProgressBar {
    let total: Int64
    let label: String
    private var lastDraw: UInt64 = 0
    private var drawn = false

    init(total: Int64, label: String) {
        self.total = max(1, total)
        self.label = label
    }

    /// Whether standard error is a terminal.
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) != 0 }

    mutating func update(_ done: Int64) {
        let now = DispatchTime.now().uptimeNanoseconds
        if drawn && now - lastDraw < 100_000_000 && done < total { return }
        lastDraw = now
        drawn = true
        let fraction = min(1, Double(done) / Double(total))
        let width = 30
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        writeStandardError("\r\(label) [\(bar)] \(fixed(fraction * 100, 0))%")
    }

    mutating func finish() {
        if drawn { writeStandardError("\n") }
    }
}

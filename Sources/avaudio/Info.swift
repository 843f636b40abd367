// `avaudio info FILE... [--json]`: what macOS's afinfo prints, plus per-channel peak and RMS levels.
//
//     $ avaudio info tone.wav
//     File:           tone.wav
//     Container:      WAVE ('WAVE')
//     Data format:    2 ch, 48000 Hz, 'lpcm' 16-bit little-endian signed integer, interleaved
//     Channel layout: none stored (stereo implied)
//     Length:         24000 frames
//     Duration:       0.500000 s
//     File size:      96044 bytes
//     Levels (dBFS):  ch 1 peak -6.02 RMS -9.03; ch 2 peak -12.04 RMS -15.05
import AVFoundation
import ArgumentParser

struct Info: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe audio files (container, data format, channel layout, length and levels) and MIDI files (tracks, events, tempo map, length).",
        discussion: "Levels are measured by reading the whole file in the standard Float32 processing format."
    )

    @Argument(help: "The audio files to describe.")
    var files: [String]

    @Flag(help: "Print one JSON object per file (one per line) instead of text.")
    var json = false

    mutating func run() throws {
        var failed = false
        for (index, path) in files.enumerated() {
            do {
                if MIDIFileReport.isMIDI(path: path) {
                    let report = try MIDIFileReport(path: path)
                    if json { print(try report.jsonLine()) } else { if index > 0 { print("") }; print(report.text) }
                    continue
                }
                if MPEGStreamReport.isStream(path: path) {
                    let report = try MPEGStreamReport(path: path)
                    if json { print(try report.jsonLine()) } else { if index > 0 { print("") }; print(report.text) }
                    continue
                }
                let report = try FileReport(path: path)
                if json {
                    print(try report.jsonLine())
                } else {
                    if index > 0 { print("") }
                    print(report.text)
                }
            } catch {
                reportError(error, path: path)
                failed = true
            }
        }
        if failed { throw ExitCode.failure }
    }
}

/// Everything `info` reports about one file.
struct FileReport: Encodable {
    struct Layout: Encodable {
        var tag: String
        var tagValue: UInt32
        var channelCount: Int
        /// The channel labels, for a layout given channel by channel (tag 0).
        var labels: [UInt32]?
        /// How `info` prints it.
        var text: String

        enum CodingKeys: String, CodingKey { case tag, tagValue, channelCount, labels }

        func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(tag, forKey: .tag)
            try c.encode(tagValue, forKey: .tagValue)
            try c.encode(channelCount, forKey: .channelCount)
            try c.encode(labels, forKey: .labels)
        }
    }

    var file: String
    var container: String
    var fileTypeID: String?
    var aifcCompression: String?
    var formatID: String
    var sampleRate: Double
    var channels: Int
    var bitsPerChannel: Int
    var bytesPerFrame: Int
    var isFloat: Bool
    var isSignedInteger: Bool
    var isBigEndian: Bool
    var isInterleaved: Bool
    var encoding: String
    var dataFormat: String
    var channelLayout: Layout?
    var frames: Int64
    var duration: Double
    var fileSize: Int64?
    var peak: [Double]
    var rms: [Double]
    var peakDBFS: [Double?]
    var rmsDBFS: [Double?]
    /// For a compressed file: codec, bit rate, compression (InfoCodec.swift); nil for PCM.
    var codec: CodecReport?

    init(path: String) throws {
        let url = fileURL(path)
        let audioFile = try AVAudioFile(forReading: url)
        defer { audioFile.close() }
        let container = sniffContainer(url)
        let facts = FormatFacts(audioFile.fileFormat)
        file = path
        self.container = container.name
        fileTypeID = container.fileTypeID
        aifcCompression = container.aifcCompression
        formatID = fourCC(facts.formatID)
        sampleRate = facts.sampleRate
        channels = facts.channels
        bitsPerChannel = facts.bitsPerChannel
        bytesPerFrame = facts.bytesPerFrame
        isFloat = facts.isFloat
        isSignedInteger = facts.isSignedInteger
        isBigEndian = facts.isBigEndian
        isInterleaved = facts.isInterleaved
        encoding = facts.encodingDescription
        dataFormat = facts.summary
        if let layout = audioFile.fileFormat.channelLayout {
            channelLayout = Layout(tag: hex32(layout.layoutTag), tagValue: layout.layoutTag, channelCount: Int(layout.channelCount),
                                   labels: channelDescriptionLabels(layout), text: describeLayout(layout))
        }
        frames = audioFile.length
        duration = facts.sampleRate > 0 ? Double(frames) / facts.sampleRate : 0
        fileSize = sizeOfFile(url)
        codec = CodecReport(facts: facts, frames: frames, fileSize: fileSize, url: url)
        let levels = try measureLevels(of: audioFile)
        peak = levels.peak
        rms = levels.rms
        peakDBFS = levels.peak.map(dBFS)
        rmsDBFS = levels.rms.map(dBFS)
    }

    enum CodingKeys: String, CodingKey {
        case file, container, fileTypeID, aifcCompression, formatID, sampleRate, channels, bitsPerChannel, bytesPerFrame
        case isFloat, isSignedInteger, isBigEndian, isInterleaved, encoding, dataFormat, channelLayout
        case frames, duration, fileSize, peak, rms, peakDBFS, rmsDBFS, codec
    }

    /// Encodes every key, writing `null` for absent values (synthesised Encodable would omit them).
    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(file, forKey: .file)
        try c.encode(container, forKey: .container)
        try c.encode(fileTypeID, forKey: .fileTypeID)
        try c.encode(aifcCompression, forKey: .aifcCompression)
        try c.encode(formatID, forKey: .formatID)
        try c.encode(sampleRate, forKey: .sampleRate)
        try c.encode(channels, forKey: .channels)
        try c.encode(bitsPerChannel, forKey: .bitsPerChannel)
        try c.encode(bytesPerFrame, forKey: .bytesPerFrame)
        try c.encode(isFloat, forKey: .isFloat)
        try c.encode(isSignedInteger, forKey: .isSignedInteger)
        try c.encode(isBigEndian, forKey: .isBigEndian)
        try c.encode(isInterleaved, forKey: .isInterleaved)
        try c.encode(encoding, forKey: .encoding)
        try c.encode(dataFormat, forKey: .dataFormat)
        try c.encode(channelLayout, forKey: .channelLayout)
        try c.encode(frames, forKey: .frames)
        try c.encode(duration, forKey: .duration)
        try c.encode(fileSize, forKey: .fileSize)
        try c.encode(peak, forKey: .peak)
        try c.encode(rms, forKey: .rms)
        try c.encode(peakDBFS, forKey: .peakDBFS)
        try c.encode(rmsDBFS, forKey: .rmsDBFS)
        try c.encode(codec, forKey: .codec)
    }

    /// The report as one line of JSON.
    func jsonLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }

    /// The report as afinfo-style text.
    var text: String {
        var lines: [(String, String)] = [
            ("File", file),
            ("Container", container + (fileTypeID.map { " ('\($0)')" } ?? "") + (aifcCompression.map { ", compression '\($0)'" } ?? "")),
            ("Data format", dataFormat),
        ]
        if let channelLayout {
            lines.append(("Channel layout", channelLayout.text))
        } else {
            let implied = channels == 1 ? " (mono implied)" : channels == 2 ? " (stereo implied)" : ""
            lines.append(("Channel layout", "none stored" + implied))
        }
        lines.append(("Length", "\(frames) frames"))
        lines.append(("Duration", fixed(duration, 6) + " s"))
        if let fileSize { lines.append(("File size", "\(fileSize) bytes")) }
        if let codec { lines += codec.lines }
        for c in 0..<channels {
            lines.append(("Channel \(c + 1)", "peak \(dBText(peakDBFS[c])) dBFS, RMS \(dBText(rmsDBFS[c])) dBFS"))
        }
        let width = lines.map { $0.0.count }.max()! + 2
        return lines.map { ($0.0 + ":").padding(toLength: width, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n")
    }
}

// Apple Lossless keeps each channel under its label when the writer's layout is not ALAC's own
// order (AVAudioFile+ALACChannelOrder.swift): a 5.1 in a WAV's order (MPEG_5_1_A: L R C LFE Ls
// Rs) with a different tone on every channel is written to ALAC in CAF and in M4A; read back,
// every channel's samples are its label's tone exactly; and ffmpeg's decoding of the same files
// (its own ALAC decoder, which names the channels by ALAC's fixed order) puts each tone on the
// channel ffmpeg names for that label. Skips the ffmpeg half visibly without ffmpeg.
import Foundation
import Testing
import AVFoundation
import CoreAudioTypes

@Suite struct AVAudioFileALACChannelOrderTests {
    static let rate = 48_000.0
    static let frames = 10_000
    /// A frequency per label (all different, none a multiple of another within the set).
    static let tones: [AudioChannelLabel: Double] = [
        kAudioChannelLabel_Left: 310, kAudioChannelLabel_Right: 530, kAudioChannelLabel_Center: 770,
        kAudioChannelLabel_LFEScreen: 90, kAudioChannelLabel_LeftSurround: 1130, kAudioChannelLabel_RightSurround: 1370,
    ]
    /// ffmpeg's channel names for Apple's labels (ffmpeg's "5.1": FL FR FC LFE BL BR).
    static let ffmpegNames: [String: AudioChannelLabel] = [
        "FL": kAudioChannelLabel_Left, "FR": kAudioChannelLabel_Right, "FC": kAudioChannelLabel_Center,
        "LFE": kAudioChannelLabel_LFEScreen, "BL": kAudioChannelLabel_LeftSurround, "BR": kAudioChannelLabel_RightSurround,
        "SL": kAudioChannelLabel_LeftSurround, "SR": kAudioChannelLabel_RightSurround,
    ]

    /// The tone of `label` at frame `i`, on the 16-bit grid (so it survives 16-bit ALAC exactly).
    static func sample(_ label: AudioChannelLabel, _ i: Int) -> Float {
        let x = 0.5 * sin(2 * Double.pi * tones[label]! * Double(i) / rate)
        return Float((x * 32767).rounded()) / 32768
    }

    static func labels(_ layout: AVAudioChannelLayout?) -> [AudioChannelLabel] {
        guard let layout else { return [] }
        return channelLabels(forLayoutTag: layout.layout.pointee.mChannelLayoutTag) ?? []
    }

    /// Runs ffmpeg or ffprobe; returns its status and standard output.
    static func run(_ tool: String, _ args: [String]) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = [tool, "-hide_banner", "-loglevel", "error"] + args
        let pipe = Pipe()
        p.standardOutput = pipe
        try p.run()
        let out = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: out, as: UTF8.self))
    }

    @Test(arguments: ["caf", "m4a"])
    func fiveOneInWAVOrderKeepsEveryChannelOnItsLabel(_ ext: String) throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("alac-order-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("six.\(ext)")
        let layout = AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_A)!
        let written = Self.labels(layout)
        #expect(written == [kAudioChannelLabel_Left, kAudioChannelLabel_Right, kAudioChannelLabel_Center,
                            kAudioChannelLabel_LFEScreen, kAudioChannelLabel_LeftSurround, kAudioChannelLabel_RightSurround])
        let settings: [String: Any] = [
            AVFormatIDKey: kAudioFormatAppleLossless, AVSampleRateKey: Self.rate, AVNumberOfChannelsKey: 6, AVEncoderBitDepthHintKey: 16,
            AVChannelLayoutKey: withExtendedLifetime(layout) { Data(bytes: layout.layout, count: MemoryLayout<AudioChannelLayout>.size) },
        ]
        let file = try AVAudioFile(forWriting: url, settings: settings)
        #expect(Self.labels(file.processingFormat.channelLayout) == written)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(Self.frames))!
        buffer.frameLength = AVAudioFrameCount(Self.frames)
        for c in 0..<6 { for i in 0..<Self.frames { buffer.floatChannelData![c][i] = Self.sample(written[c], i) } }
        try file.write(from: buffer)
        file.close()

        // Read back: each channel holds its label's tone, whatever order the layout lists them in.
        let back = try AVAudioFile(forReading: url)
        let read = Self.labels(back.processingFormat.channelLayout)
        #expect(Set(read) == Set(written), "read back as \(read)")
        #expect(read == written, "the file keeps the settings' layout (CAF: its chan chunk; M4A: the sample entry's chan box)")
        let again = AVAudioPCMBuffer(pcmFormat: back.processingFormat, frameCapacity: AVAudioFrameCount(Self.frames))!
        try back.read(into: again)
        #expect(Int(again.frameLength) == Self.frames)
        for (c, label) in read.enumerated() {
            var wrong = 0
            for i in 0..<Int(again.frameLength) where again.floatChannelData![c][i] != Self.sample(label, i) { wrong += 1 }
            #expect(wrong == 0, "channel \(c) (label \(label)) differs from its tone in \(wrong) samples")
        }

        // ffmpeg: its layout's channel names, and each named channel's samples.
        guard (try? Self.run("ffmpeg", ["-version"]))?.0 == 0 else { print("SKIP ALAC 5.1 order against ffmpeg: ffmpeg is not installed"); return }
        let (probeStatus, probe) = try Self.run("ffprobe", ["-show_entries", "stream=channel_layout", "-of", "csv=p=0", url.path])
        #expect(probeStatus == 0)
        let names: [String]
        switch probe.trimmingCharacters(in: .whitespacesAndNewlines) {
        case "5.1": names = ["FL", "FR", "FC", "LFE", "BL", "BR"]
        case "5.1(side)": names = ["FL", "FR", "FC", "LFE", "SL", "SR"]
        default: Issue.record("ffmpeg reports an unexpected layout '\(probe)'"); return
        }
        let raw = dir.appendingPathComponent("ff.raw")
        #expect(try Self.run("ffmpeg", ["-y", "-i", url.path, "-f", "s16le", "-c:a", "pcm_s16le", raw.path]).0 == 0)
        let decoded = try Data(contentsOf: raw).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(decoded.count == Self.frames * 6)
        for (k, name) in names.enumerated() {
            let label = Self.ffmpegNames[name]!
            var wrong = 0
            for i in 0..<min(Self.frames, decoded.count / 6) where Float(decoded[i * 6 + k]) / 32768 != Self.sample(label, i) { wrong += 1 }
            #expect(wrong == 0, "ffmpeg's \(name) differs from the \(label) tone in \(wrong) samples")
        }
    }
}

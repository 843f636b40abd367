import Testing
import Foundation
import AVFoundation
import Synchronization

/// Bad input to AVAudioEngine and its nodes.
///
/// What it rests on: Apple's engine raises an exception ("required condition is false") for
/// programmer errors in the graph API (connect, installTap) — a trap here, with a message naming
/// the node, the bus and the format (checked in child processes: Swift Testing's exit tests).
/// `enableManualRenderingMode` and `renderOffline` are declared `throws`: their bad input is an
/// NSError in "com.apple.coreaudio.avfaudio" (codes in Sources/AVFAudio/Types/AVAudioErrors.swift).
/// Apple documents that installTap's `bufferSize` is a request ("the implementation may choose
/// another size"; the newer tap API's supported range is 100–400 ms): an absurd size is clamped.
@Suite struct BadInputEngineTests {
    static let stereo = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!

    static func message(_ result: ExitTest.Result?) -> String { BadInput.message(result) }

    static func expectError(code: Int, _ text: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        BadInput.expectError(domain: "com.apple.coreaudio.avfaudio", code: code, text, sourceLocation: sourceLocation, body)
    }

    // MARK: connect

    @Test func connectingWithAnAbsurdSampleRateTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let engine = AVAudioEngine()
            let player = AVAudioPlayerNode()
            engine.attach(player)
            engine.connect(player, to: engine.mainMixerNode, format: AVAudioFormat(standardFormatWithSampleRate: 1e9, channels: 2)!)
        }
        let text = Self.message(result)
        #expect(text.contains("AVAudioPlayerNode") && text.contains("bus 0"), "\(text)")
        #expect(text.contains("1000000000 Hz") && text.contains("has a sample rate outside 1000–768000 Hz"), "\(text)")
    }

    @Test func connectingWithATinySampleRateTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let engine = AVAudioEngine()
            let player = AVAudioPlayerNode()
            engine.attach(player)
            engine.connect(player, to: engine.mainMixerNode, format: AVAudioFormat(standardFormatWithSampleRate: 0.5, channels: 2)!)
        }
        let text = Self.message(result)
        #expect(text.contains("AVAudioPlayerNode") && text.contains("0.5 Hz"), "\(text)")
    }

    @Test func connectingWithAnAbsurdChannelCountTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let engine = AVAudioEngine()
            let player = AVAudioPlayerNode()
            engine.attach(player)
            engine.connect(player, to: engine.mainMixerNode, format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 100_000)!)
        }
        let text = Self.message(result)
        #expect(text.contains("AVAudioPlayerNode") && text.contains("bus 0"), "\(text)")
        #expect(text.contains("100000 ch") && text.contains("has more than 1024 channels"), "\(text)")
    }

    /// A connection format that is not PCM (a settings-built AAC format) traps, as before.
    @Test func connectingWithACompressedFormatTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let engine = AVAudioEngine()
            let player = AVAudioPlayerNode()
            engine.attach(player)
            engine.connect(player, to: engine.mainMixerNode,
                           format: AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2])!)
        }
        #expect(Self.message(result).contains("is not a PCM common format"), "\(Self.message(result))")
    }

    // MARK: Manual rendering

    @Test func manualRenderingWithAnInvalidMaximumFrameCountThrows() throws {
        let engine = AVAudioEngine()
        Self.expectError(code: -80800, "maximumFrameCount must be positive") {
            try engine.enableManualRenderingMode(.offline, format: Self.stereo, maximumFrameCount: 0)
        }
        for count: AVAudioFrameCount in [1 << 31, .max] {
            Self.expectError(code: -50, "maximumFrameCount \(count) exceeds") {
                try engine.enableManualRenderingMode(.offline, format: Self.stereo, maximumFrameCount: count)
            }
        }
        #expect(!engine.isInManualRenderingMode)
        // The engine is still usable.
        try engine.enableManualRenderingMode(.offline, format: Self.stereo, maximumFrameCount: 512)
        try engine.start()
        let out = AVAudioPCMBuffer(pcmFormat: Self.stereo, frameCapacity: 512)!
        #expect(try engine.renderOffline(512, to: out) == .success)
        engine.stop()
    }

    @Test func renderOfflineWithBadBuffersThrows() throws {
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: Self.stereo, maximumFrameCount: 256)
        let out = AVAudioPCMBuffer(pcmFormat: Self.stereo, frameCapacity: 256)!
        Self.expectError(code: -80802, "not running") { _ = try engine.renderOffline(256, to: out) }
        try engine.start()
        Self.expectError(code: -50, "exceed the maximum frame count 256") { _ = try engine.renderOffline(257, to: out) }
        let small = AVAudioPCMBuffer(pcmFormat: Self.stereo, frameCapacity: 100)!
        Self.expectError(code: -50, "exceed the buffer's capacity 100") { _ = try engine.renderOffline(200, to: small) }
        let mono = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!, frameCapacity: 256)!
        Self.expectError(code: -50, "differs from the manual rendering format") { _ = try engine.renderOffline(256, to: mono) }
        #expect(try engine.renderOffline(256, to: out) == .success)
        engine.stop()
    }

    // MARK: Taps

    @Test func tapWithZeroBufferSizeTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let engine = AVAudioEngine()
            engine.mainMixerNode.installTap(onBus: 0, bufferSize: 0, format: nil) { _, _ in }
        }
        let text = Self.message(result)
        #expect(text.contains("AVAudioMixerNode.installTap(onBus: 0): bufferSize must be positive"), "\(text)")
    }

    @Test func tapOnAMissingBusTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let engine = AVAudioEngine()
            engine.mainMixerNode.installTap(onBus: 7, bufferSize: 4096, format: nil) { _, _ in }
        }
        let text = Self.message(result)
        #expect(text.contains("AVAudioMixerNode.installTap(onBus: 7): the node has 1 output bus(es)"), "\(text)")
    }

    @Test func tapOnANegativeBusTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let engine = AVAudioEngine()
            engine.mainMixerNode.installTap(onBus: -1, bufferSize: 4096, format: nil) { _, _ in }
        }
        #expect(Self.message(result).contains("installTap(onBus: -1)"), "\(Self.message(result))")
    }

    /// bufferSize 2^32 − 1: clamped to 2^20 frames (the ring used to be sized for four such
    /// buffers: 128 GiB for stereo, and the allocation killed the process), and the tap delivers
    /// buffers of that size.
    @Test func tapWithAnAbsurdBufferSizeIsClamped() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Self.stereo)
        try engine.enableManualRenderingMode(.offline, format: Self.stereo, maximumFrameCount: 4096)
        let sizes = Mutex<[AVAudioFrameCount]>([])
        engine.mainMixerNode.installTap(onBus: 0, bufferSize: .max, format: nil) { buffer, _ in
            sizes.withLock { $0.append(buffer.frameLength) }
        }
        try engine.start()
        let out = AVAudioPCMBuffer(pcmFormat: Self.stereo, frameCapacity: 4096)!
        let limit = 1 << 20
        for _ in 0..<(limit / 4096 + 1) { _ = try engine.renderOffline(4096, to: out) }
        engine.stop()
        #expect(sizes.withLock { $0 } == [AVAudioFrameCount(limit)])
    }

    @Test func audioTapAPIThrowsOnBadInput() throws {
        let engine = AVAudioEngine()
        let mixer = engine.mainMixerNode
        Self.expectError(code: -50, "bufferSize must be positive") {
            try mixer.installAudioTap(onBus: 0, bufferSize: 0, format: nil) { _, _ in }
        }
        Self.expectError(code: -50, "output bus(es)") {
            try mixer.installAudioTap(onBus: 3, bufferSize: 4800, format: nil) { _, _ in }
        }
        Self.expectError(code: -50, "sample rate") {
            try mixer.installAudioTap(onBus: 0, bufferSize: 4800,
                                      format: AVAudioFormat(standardFormatWithSampleRate: 1e9, channels: 2)!) { _, _ in }
        }
        try mixer.installAudioTap(onBus: 0, bufferSize: .max, format: nil) { _, _ in }
        mixer.removeTap(onBus: 0)
    }
}

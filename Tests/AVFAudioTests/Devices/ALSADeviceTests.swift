// The ALSA backend against alsa-lib itself, no sound card: a private ALSA configuration
// (ALSA_CONFIG_PATH) defines `file` PCMs that write the raw interleaved samples the engine
// renders into a file, over the `null` PCM. What the engine renders must reach the file
// bit-exactly, at 64-, 128- and 256-frame periods, and with a period above the engine's
// 4096-frame cycle (served in several engine cycles).
import Testing
import AudioAnalysis
import Foundation
import AVFoundation
import AudioDevices

@Suite(.serialized)
struct ALSADeviceTests {
    /// One configuration for the whole process (alsa-lib keeps one global configuration tree).
    static let configuration: URL? = DeviceTestALSAConfiguration.install()

    @Test("The engine's output reaches an ALSA file PCM bit-exactly", .enabled(if: DeviceComponents.alsa, "libasound.so.2 (Debian libasound2) is not installed"),
          arguments: [64, 128, 256, 8192])
    func fileBitExact(period: Int) throws {
        let directory = try #require(Self.configuration)
        let path = directory.appendingPathComponent("out-\(period).raw").path
        try? FileManager.default.removeItem(atPath: path)
        let engine = AVAudioEngine()
        try engine._setAudioDevice("alsa:avaudio_file_\(period)", periodFrames: period)
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let source = CounterSignal.sourceNode(format: format)
        engine.attach(source)
        engine.connect(source, to: engine.outputNode, format: format)
        try engine.start()
        let name = engine._audioDeviceName ?? ""
        #expect(name.contains("ALSA avaudio_file_\(period)"))
        #expect(name.contains("\(period)-frame periods"), "the PCM gave another period: \(name)")
        let wanted = 3 * 48_000   // frames; the null PCM does not block, so this comes fast
        let deadline = Date().addingTimeInterval(20)
        while (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 < wanted * 8, Date() < deadline {
            usleep(10_000)
        }
        engine.stop()
        #expect(engine._audioDeviceXrunCount == 0)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try #require(data.count >= wanted * 8, "the file PCM received \(data.count) bytes")
        data.withUnsafeBytes { raw in
            let samples = raw.bindMemory(to: Float.self)
            var mismatches = 0
            var first: Int?
            for i in 0..<wanted where samples[2 * i] != CounterSignal.left(i) || samples[2 * i + 1] != -CounterSignal.left(i) {
                mismatches += 1
                if first == nil { first = i }
            }
            #expect(mismatches == 0, "first differing frame \(first ?? -1) of \(wanted)")
        }
    }

    @Test("A missing PCM throws an NSError naming it", .enabled(if: DeviceComponents.alsa, "libasound.so.2 is not installed"))
    func missingPCM() throws {
        _ = Self.configuration
        let engine = AVAudioEngine()
        try engine._setAudioDevice("alsa:no_such_pcm_here")
        engine.attach(AVAudioPlayerNode())
        do {
            try engine.start()
            Issue.record("start() should have thrown")
            engine.stop()
        } catch let error as NSError {
            #expect(error.domain == "com.apple.coreaudio.avfaudio")
            #expect(error.localizedDescription.contains("no_such_pcm_here"), "\(error.localizedDescription)")
        }
    }

    @Test("Selectors parse as AVAUDIO_BACKEND documents")
    func selectors() throws {
        #expect(try AudioDeviceSelection(parsing: "null") == .null)
        #expect(try AudioDeviceSelection(parsing: "alsa") == .alsa(pcm: "default"))
        #expect(try AudioDeviceSelection(parsing: "alsa:hw:0") == .alsa(pcm: "hw:0"))
        #expect(try AudioDeviceSelection(parsing: "alsa:plughw:1,0") == .alsa(pcm: "plughw:1,0"))
        #expect(try AudioDeviceSelection(parsing: "alsa:plughw:1,0|hw:2") == .alsa(pcm: "plughw:1,0", capture: "hw:2"))
        #expect(try AudioDeviceSelection(parsing: "pulse") == .pulse(sink: nil, source: nil, server: nil))
        #expect(try AudioDeviceSelection(parsing: "pulse:nullsink") == .pulse(sink: "nullsink", source: nil, server: nil))
        #expect(try AudioDeviceSelection(parsing: "pulse:a:b.monitor@unix:/tmp/x/native")
                == .pulse(sink: "a", source: "b.monitor", server: "unix:/tmp/x/native"))
        #expect(try AudioDeviceSelection(parsing: "") == .automatic)
        #expect(throws: AudioDeviceError.self) { try AudioDeviceSelection(parsing: "oss") }
    }
}

/// One private ALSA configuration per test process, the same for every suite (AudioAnalysis's
/// ALSATestConfiguration: alsa-lib keeps one global configuration tree).
enum DeviceTestALSAConfiguration {
    static func install() -> URL? {
        guard DeviceComponents.alsa else { return nil }
        return ALSATestConfiguration.install()
    }

    /// Where the jack tests build their control plugin.
    static func jackPluginPath(in directory: URL) -> URL { ALSATestConfiguration.jackPluginPath(in: directory) }
}

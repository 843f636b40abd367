// Input and output on two ALSA PCMs (`alsa:PLAYBACK|CAPTURE`), against alsa-lib itself with no
// sound card: the capture PCMs are `file` plugins whose `infile` is a known 1 kHz sine (raw
// Float32 stereo, at 48 or 44.1 kHz), the playback PCMs `file` plugins that keep what the engine
// played (ALSADeviceTests.swift writes the configuration). What reaches the playback file must be
// that sine: its frequency within 0.1 Hz, its level within 0.1 dB, its phase continuous (no
// dropout, no skipped or repeated frame) once the bridge has primed. The measurement: the left
// channel cut into 0.1 s blocks (exactly 100 cycles at 48 kHz), each block's amplitude and phase
// by quadrature against 1 kHz; the frequency is the slope of the phase over the blocks, a
// dropout or a skipped frame shows as a phase step (one frame is 0.13 rad) or a low amplitude.
//
// The `null` PCM under both never blocks, so the device thread runs as fast as it can and the
// capture always has a full buffer waiting: ALSABridgedCapture then holds its bridge full, a
// level the controller sees as two clocks in step (a real drift is InputClockBridgeTests'
// subject). An overrun cannot be provoked here: the null PCM never overruns.
import Testing
import Foundation
import AVFoundation
import AudioDevices
import AudioAnalysis

@Suite(.serialized)
struct ALSADuplexTests {
    static var configuration: URL? { ALSADeviceTests.configuration }

    @Test("Selectors name a separate capture PCM with `|` outside quotes")
    func selectors() throws {
        #expect(try AudioDeviceSelection(parsing: "alsa:hw:0|plughw:1,0") == .alsa(pcm: "hw:0", capture: "plughw:1,0"))
        #expect(try AudioDeviceSelection(parsing: "alsa:|hw:1") == .alsa(pcm: "default", capture: "hw:1"))
        #expect(try AudioDeviceSelection(parsing: "alsa:hw:1|") == .alsa(pcm: "hw:1", capture: "default"))
        #expect(try AudioDeviceSelection(parsing: "alsa:hw:0|hw:0") == .alsa(pcm: "hw:0"))
        // the `file` plugin's pipe, quoted: part of the PCM name
        #expect(try AudioDeviceSelection(parsing: "alsa:file:'|cat >/dev/null',raw") == .alsa(pcm: "file:'|cat >/dev/null',raw"))
        #expect(try AudioDeviceSelection(parsing: "alsa:file:\"|a\"|hw:2") == .alsa(pcm: "file:\"|a\"", capture: "hw:2"))
        let selection = AudioDeviceSelection.alsa(pcm: "hw:0", capture: "plughw:1,0")
        #expect(selection.description == "alsa:hw:0|plughw:1,0")
        #expect(try AudioDeviceSelection(parsing: selection.description) == selection)
    }

    @Test("inputNode → mainMixerNode → outputNode across two ALSA PCMs carries the input", .enabled(if: DeviceComponents.alsa, "libasound.so.2 is not installed"))
    func engineAcrossTwoPCMs() throws {
        let directory = try #require(Self.configuration)
        let path = directory.appendingPathComponent("out-duplex.raw").path
        try? FileManager.default.removeItem(atPath: path)
        let engine = AVAudioEngine()
        try engine._setAudioDevice("alsa:avaudio_file_duplex|avaudio_sine_in_48000", periodFrames: 256)
        engine.connect(engine.inputNode, to: engine.mainMixerNode, format: nil)
        try engine.start()
        let name = engine._audioDeviceName ?? ""
        #expect(name.contains("ALSA avaudio_file_duplex | avaudio_sine_in_48000"), "\(name)")
        #expect(engine.inputNode.outputFormat(forBus: 0).sampleRate == 48_000)
        #expect(engine.inputNode.outputFormat(forBus: 0).channelCount == 2)
        let wanted = 6 * 48_000
        try Self.waitForFile(path, frames: wanted)
        engine.stop()
        #expect(engine._audioDeviceXrunCount == 0)
        try Self.checkSine(path, frames: wanted, label: "48 kHz → 48 kHz")
    }

    @Test("A 44.1 kHz capture PCM reaches a 48 kHz playback PCM resampled", .enabled(if: DeviceComponents.alsa, "libasound.so.2 is not installed"))
    func captureAtAnotherRate() throws {
        let directory = try #require(Self.configuration)
        let path = directory.appendingPathComponent("out-duplex44.raw").path
        try? FileManager.default.removeItem(atPath: path)
        var request = AudioDeviceRequest(direction: .duplex, sampleRate: 48_000, outputChannels: 2, inputChannels: 2, periodFrames: 256, periods: 2)
        request.inputSampleRate = 44_100
        let device = try AudioDevices.open(AudioDeviceSelection(parsing: "alsa:avaudio_file_duplex44|avaudio_sine_in_44100"), request: request)
        #expect(device.sampleRate == 48_000)
        #expect(device.name.contains("capture 44100 Hz"), "\(device.name)")
        #expect(device.inputLatency > 0)
        try device.start { cycle in
            // the input as it reaches the render: copied to the output
            guard let input = cycle.input else { return }
            for c in 0..<2 { cycle.output[c].update(from: input[c], count: cycle.frames) }
        }
        let wanted = 6 * 48_000
        defer { device.stop() }
        try Self.waitForFile(path, frames: wanted)
        device.stop()
        #expect(device.xrunCount == 0)
        try Self.checkSine(path, frames: wanted, label: "44.1 kHz → 48 kHz")
    }

    @Test("A capture PCM that does not exist: start() throws an NSError naming it", .enabled(if: DeviceComponents.alsa, "libasound.so.2 is not installed"))
    func missingCapturePCM() throws {
        _ = Self.configuration
        let engine = AVAudioEngine()
        try engine._setAudioDevice("alsa:avaudio_file_duplex|no_such_capture_pcm")
        do {
            engine.connect(engine.inputNode, to: engine.mainMixerNode, format: nil)
            try engine.start()
            Issue.record("start() should have thrown")
            engine.stop()
        } catch let error as NSError {
            #expect(error.domain == "com.apple.coreaudio.avfaudio")
            #expect(error.localizedDescription.contains("no_such_capture_pcm"), "\(error.localizedDescription)")
        }
    }

    // MARK: support

    static func waitForFile(_ path: String, frames: Int) throws {
        let deadline = Date().addingTimeInterval(30)
        while (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0 < (frames + 48_000) * 8, Date() < deadline {
            usleep(10_000)
        }
    }

    /// Checks that the playback file holds the 1 kHz sine, after its leading silence.
    static func checkSine(_ path: String, frames: Int, label: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let total = data.count / 8
        try #require(total >= frames, "\(label): the playback PCM received \(total) frames")
        let left: [Float] = data.withUnsafeBytes { raw in
            let s = raw.bindMemory(to: Float.self)
            return (0..<total).map { s[2 * $0] }
        }
        let right: [Float] = data.withUnsafeBytes { raw in
            let s = raw.bindMemory(to: Float.self)
            return (0..<total).map { s[2 * $0 + 1] }
        }
        // Start-up: silence until the bridge has primed (and the resampler's filter has filled).
        let onset = try #require(left.firstIndex { abs($0) > 0.01 }, "\(label): no signal in \(total) frames")
        let start = onset + 4_800
        let block = 4_800
        // (the `null` PCMs run faster than real time: the file goes on past the input's 20 s;
        // `frames` after the start are measured)
        let blocks = min(total - start, frames) / block
        try #require(blocks >= 40, "\(label): only \(blocks) blocks after the onset at \(onset)")
        let w = 2 * Double.pi * ALSATestSine.frequency / 48_000
        var phases: [Double] = [], amplitudes: [Double] = []
        for b in 0..<blocks {
            var i = 0.0, q = 0.0
            for n in 0..<block {
                let x = Double(left[start + b * block + n])
                let t = Double(start + b * block + n)
                i += x * cos(w * t)
                q += x * sin(w * t)
            }
            amplitudes.append(2 * hypot(i, q) / Double(block))
            phases.append(atan2(q, i))
        }
        // Unwrap, fit a line: slope = 2π × frequency error × block duration.
        for k in 1..<phases.count {
            while phases[k] - phases[k - 1] > .pi { phases[k] -= 2 * .pi }
            while phases[k] - phases[k - 1] < -.pi { phases[k] += 2 * .pi }
        }
        let n = Double(phases.count)
        let mx = (n - 1) / 2, my = phases.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for (k, p) in phases.enumerated() { sxy += (Double(k) - mx) * (p - my); sxx += (Double(k) - mx) * (Double(k) - mx) }
        let slope = sxy / sxx
        let frequencyError = slope / (2 * .pi * Double(block) / 48_000)
        // A dropout or a skipped frame is a step in the phase: a change in its block-to-block
        // increment (one frame at 1 kHz: 0.13 rad). The controller's slow ratio changes move the
        // increment by far less (a 10 ppm correction: 0.006 rad a block, over seconds).
        var phaseStep = 0.0, worstFrequency = 0.0
        for k in 1..<phases.count {
            worstFrequency = max(worstFrequency, abs((phases[k] - phases[k - 1]) / (2 * .pi * Double(block) / 48_000)))
            if k >= 2 { phaseStep = max(phaseStep, abs(phases[k] - 2 * phases[k - 1] + phases[k - 2])) }
        }
        let levels = amplitudes.map { 20 * log10($0 / Double(ALSATestSine.amplitude)) }
        let worstLevel = levels.map(abs).max() ?? 0
        // Runs of (near) zeros: at 48 samples a cycle and amplitude 0.5 no two neighbours are.
        var longestQuiet = 0, run = 0
        for x in left[start..<(start + blocks * block)] {
            run = abs(x) < 1e-4 ? run + 1 : 0
            longestQuiet = max(longestQuiet, run)
        }
        var rightMismatch = 0
        for k in start..<(start + blocks * block) where right[k] != -left[k] { rightMismatch += 1 }
        print("\(label): onset \(onset) frames, \(blocks) blocks, frequency error \(frequencyError) Hz (worst block \(worstFrequency) Hz), level error \(worstLevel) dB, largest phase step \(phaseStep) rad, longest quiet run \(longestQuiet)")
        #expect(abs(frequencyError) < 0.1, "\(label): frequency off by \(frequencyError) Hz")
        #expect(worstFrequency < 0.1, "\(label): frequency off by \(worstFrequency) Hz in a 0.1 s block")
        #expect(worstLevel < 0.1, "\(label): level off by up to \(worstLevel) dB")
        #expect(phaseStep < 0.01, "\(label): the phase steps by \(phaseStep) rad")
        #expect(longestQuiet <= 1, "\(label): \(longestQuiet) quiet samples in a row")
        #expect(rightMismatch == 0, "\(label): \(rightMismatch) right samples are not the left's negative")
    }
}

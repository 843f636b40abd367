// The PulseAudio backend against a real PulseAudio server: each test starts its own user-mode
// server with a null sink (its own temporary directory and socket) and stops only that process.
// The engine plays the counter signal; the sink's monitor is recorded — by `parec` (an
// independent client) or by the engine's own input node (duplex) — and the recording must hold
// one unbroken run of counter frames: none dropped, none repeated, values bit-exact (the sink
// and its monitor are float32le at 48 kHz at 100 % volume, so the server only copies).
import Testing
import Foundation
import AVFoundation
import AudioDevices

@Suite(.serialized)
struct PulseAudioDeviceTests {
    static let seconds = 6.0

    @Test("Engine output through PulseAudio arrives at the sink with no dropped or repeated frame",
          .enabled(if: DeviceComponents.pulse, "pulseaudio, parec or libpulse.so.0 (Debian pulseaudio, pulseaudio-utils, libpulse0) is not installed"))
    func playbackRecordedByParec() throws {
        let server = try PrivatePulseServer()
        defer { server.stop() }
        let recording = server.directory.appendingPathComponent("monitor.raw")
        let parec = try ChildProcess(DeviceComponents.executable("parec")!,
                                     ["-d", "nullsink.monitor", "--format=float32le", "--rate=48000", "--channels=2", "--raw", "--latency-msec=200"],
                                     environment: server.clientEnvironment, stdout: recording.path)
        defer { parec.stop() }
        usleep(300_000)

        let engine = AVAudioEngine()
        try engine._setAudioDevice("pulse:nullsink@\(server.server)", periodFrames: 1024)
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let source = CounterSignal.sourceNode(format: format)
        engine.attach(source)
        engine.connect(source, to: engine.outputNode, format: format)
        try engine.start()
        #expect(engine._audioDeviceName?.contains("PulseAudio nullsink") == true)
        let latency = engine.outputNode.presentationLatency
        usleep(UInt32(Self.seconds * 1e6))
        let measuredLatency = engine.outputNode.presentationLatency
        let xruns = engine._audioDeviceXrunCount
        engine.stop()
        usleep(300_000)
        parec.stop()
        #expect(latency > 0 && latency < 0.5, "output latency \(latency) s")
        #expect(measuredLatency > 0 && measuredLatency < 0.5, "measured output latency \(measuredLatency) s")

        let data = try Data(contentsOf: recording)
        let frames = data.count / 8
        var left = [Float](repeating: 0, count: frames)
        var right = [Float](repeating: 0, count: frames)
        data.withUnsafeBytes { raw in
            let samples = raw.bindMemory(to: Float.self)
            for i in 0..<frames { left[i] = samples[2 * i]; right[i] = samples[2 * i + 1] }
        }
        let run = left.withUnsafeBufferPointer { l in right.withUnsafeBufferPointer { r in counterRun(l, right: r) } }
        #expect(run.firstBreak == nil, "the counter breaks at frame \(run.firstBreak ?? -1): \(run.breakDetail) (run starts at \(run.start), \(run.frames) frames)")
        // (The null sink is clocked by the server's timer thread, which is not real-time here: on a
        // loaded machine it consumes fewer than 48 000 frames per wall-clock second.)
        #expect(Double(run.frames) > 2 * 48_000, "only \(run.frames) counter frames reached the sink")
        // Silence inside the signal is an underrun, which the backend counts.
        #expect(run.gaps <= xruns, "\(run.gaps) silent gaps (\(run.gapFrames) frames) but \(xruns) xruns reported")
        print("PulseAudio playback: \(run.frames) frames in \(Self.seconds) s, \(run.gaps) underrun gaps (\(run.gapFrames) frames; \(run.skippedFrames) frames skipped by the server on resuming), \(xruns) xruns, latency \(latency) s estimated, \(measuredLatency) s measured")
    }

    @Test("Duplex: the input node records the sink's monitor while the engine plays into the sink",
          .enabled(if: DeviceComponents.pulse, "pulseaudio or libpulse.so.0 is not installed"))
    func duplexLoopback() throws {
        // (AVAudioApplication input muting is process-wide: no test mutes while this one captures)
        InputMuteTestLock.lock.lock()
        defer { InputMuteTestLock.lock.unlock() }
        let server = try PrivatePulseServer()
        defer { server.stop() }
        let engine = AVAudioEngine()
        try engine._setAudioDevice("pulse:nullsink:nullsink.monitor@\(server.server)", periodFrames: 1024)
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let source = CounterSignal.sourceNode(format: format)
        engine.attach(source)
        engine.connect(source, to: engine.outputNode, format: format)

        final class Capture: @unchecked Sendable {
            let capacity = Int(PulseAudioDeviceTests.seconds + 4) * 48_000
            let left: UnsafeMutablePointer<Float>
            let right: UnsafeMutablePointer<Float>
            var count = 0
            init() {
                left = .allocate(capacity: capacity); left.initialize(repeating: 0, count: capacity)
                right = .allocate(capacity: capacity); right.initialize(repeating: 0, count: capacity)
            }
            deinit { left.deallocate(); right.deallocate() }
        }
        let capture = Capture()
        let sink = AVAudioSinkNode { _, frames, list in
            // (on the device thread: preallocated storage, no allocation)
            let buffers = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: list))
            let n = min(Int(frames), capture.capacity - capture.count)
            guard n > 0, buffers.count == 2 else { return noErr }
            (capture.left + capture.count).update(from: buffers[0].mData!.assumingMemoryBound(to: Float.self), count: n)
            (capture.right + capture.count).update(from: buffers[1].mData!.assumingMemoryBound(to: Float.self), count: n)
            capture.count += n
            return noErr
        }
        engine.attach(sink)
        engine.connect(engine.inputNode, to: sink, format: nil)
        try engine.start()
        #expect(engine.inputNode.outputFormat(forBus: 0).channelCount == 2)
        #expect(engine.inputNode.outputFormat(forBus: 0).sampleRate == 48_000)
        usleep(UInt32(Self.seconds * 1e6))
        let inputLatency = engine.inputNode.presentationLatency
        let xruns = engine._audioDeviceXrunCount
        engine.stop()
        #expect(inputLatency > 0 && inputLatency < 0.5, "input latency \(inputLatency) s")
        let run = counterRun(UnsafeBufferPointer(start: capture.left, count: capture.count),
                             right: UnsafeBufferPointer(start: capture.right, count: capture.count))
        #expect(run.firstBreak == nil, "the recorded counter breaks at frame \(run.firstBreak ?? -1): \(run.breakDetail) (run starts at \(run.start), \(run.frames) frames)")
        #expect(Double(run.frames) > 2 * 48_000, "only \(run.frames) counter frames came back")
        #expect(run.gaps <= xruns, "\(run.gaps) silent gaps (\(run.gapFrames) frames) but \(xruns) xruns reported")
        print("PulseAudio duplex: \(run.frames) frames in \(Self.seconds) s, \(run.gaps) gaps (\(run.gapFrames) frames; \(run.skippedFrames) skipped on resuming), \(xruns) xruns, input latency \(inputLatency) s")
    }

    @Test("Enumeration lists the private server's null sink and its monitor",
          .enabled(if: DeviceComponents.pulse, "pulseaudio or libpulse.so.0 is not installed"))
    func enumeration() throws {
        let server = try PrivatePulseServer()
        defer { server.stop() }
        let devices = AudioDevices.enumerate(pulseServer: server.server)
        let sink = devices.first { $0.backend == "pulse" && $0.id == "nullsink" }
        #expect(sink?.outputChannels == 2)
        #expect(sink?.nominalSampleRate == 48_000)
        #expect(sink?.name == "NullSink")
        #expect(devices.contains { $0.backend == "pulse" && $0.id == "nullsink.monitor" && $0.inputChannels == 2 })
        #expect(devices.contains { $0.backend == "null" })
    }

    @Test("No server at the address: start() throws an NSError saying so",
          .enabled(if: DeviceComponents.library("libpulse.so.0"), "libpulse.so.0 is not installed"))
    func noServer() throws {
        let engine = AVAudioEngine()
        try engine._setAudioDevice("pulse@unix:/nonexistent/avaudio/native")
        engine.attach(AVAudioPlayerNode())
        do {
            try engine.start()
            Issue.record("start() should have thrown")
            engine.stop()
        } catch let error as NSError {
            #expect(error.domain == "com.apple.coreaudio.avfaudio")
            #expect(error.localizedDescription.contains("PulseAudio"), "\(error.localizedDescription)")
        }
    }

    @Test("The server dies mid-stream: the engine stops and posts a configuration change, stop() returns, start() works once the server is back",
          .enabled(if: DeviceComponents.pulse, "pulseaudio or libpulse.so.0 is not installed"))
    func serverDiesMidStream() throws {
        let server = try PrivatePulseServer()
        defer { server.stop() }
        let engine = AVAudioEngine()
        try engine._setAudioDevice("pulse:nullsink@\(server.server)", periodFrames: 1024)
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let source = CounterSignal.sourceNode(format: format)
        engine.attach(source)
        engine.connect(source, to: engine.outputNode, format: format)
        let changed = DispatchSemaphore(value: 0)
        let observer = NotificationCenter.default.addObserver(forName: .AVAudioEngineConfigurationChange, object: engine, queue: nil) { _ in
            changed.signal()
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try engine.start()
        usleep(500_000)
        server.crash()
        #expect(changed.wait(timeout: .now() + 10) == .success, "no .AVAudioEngineConfigurationChange within 10 s of the server dying")
        #expect(!engine.isRunning)
        // stop() returns (watchdog) and start() fails cleanly while no server answers.
        let stopped = DispatchSemaphore(value: 0)
        let engineRef = UncheckedEngine(engine)
        Thread.detachNewThread { engineRef.engine.stop(); stopped.signal() }
        #expect(stopped.wait(timeout: .now() + 10) == .success, "stop() hung after the server died")
        #expect(throws: NSError.self) { try engine.start() }

        // The server comes back at the same address: start() opens a new device and plays again.
        let restarted = try PrivatePulseServer(directory: server.directory)
        defer { restarted.stop() }
        try engine.start()
        usleep(300_000)
        #expect(engine.isRunning)
        #expect(engine._audioDeviceName?.contains("PulseAudio nullsink") == true)
        engine.stop()
    }
}

extension PulseAudioDeviceTests {
    @Test("The default sink is switched while an engine plays on the default: the engine stops and posts a configuration change (as Core Audio does when the default output changes), keeps its graph, and start() plays on the new default",
          .enabled(if: DeviceComponents.pulse && DeviceComponents.executable("pactl") != nil && DeviceComponents.executable("parec") != nil,
                   "pulseaudio, pactl/parec or libpulse.so.0 is not installed"))
    func defaultSinkSwitched() throws {
        let server = try PrivatePulseServer()
        defer { server.stop() }
        func pactl(_ arguments: [String]) throws {
            let process = try ChildProcess(DeviceComponents.executable("pactl")!, arguments, environment: server.clientEnvironment)
            #expect(waitUntil(10) { !process.isRunning }, "pactl \(arguments) did not finish")
        }
        try pactl(["load-module", "module-null-sink", "sink_name=second", "rate=48000", "channels=2", "format=float32le"])
        try pactl(["set-default-sink", "nullsink"])
        let engine = AVAudioEngine()
        try engine._setAudioDevice("pulse@\(server.server)", periodFrames: 1024)   // the server's default sink
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let source = CounterSignal.sourceNode(format: format)
        engine.attach(source)
        engine.connect(source, to: engine.mainMixerNode, format: format)
        let changes = Counter()
        let observer = NotificationCenter.default.addObserver(forName: .AVAudioEngineConfigurationChange, object: engine, queue: nil) { _ in
            changes.add(1)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        try engine.start()
        usleep(300_000)
        #expect(changes.value == 0, "a configuration change before anything changed")
        try pactl(["set-default-sink", "second"])
        #expect(waitUntil(5) { changes.value >= 1 }, "no .AVAudioEngineConfigurationChange within 5 s of the default sink switching")
        #expect(waitUntil(2) { !engine.isRunning }, "the engine still runs after the default output changed")
        // The graph is kept: the same source feeds the mixer, and start() opens the new default.
        #expect(engine.attachedNodes.contains(source))
        #expect(engine.inputConnectionPoint(for: engine.mainMixerNode, inputBus: 0)?.node === source)
        let recording = server.directory.appendingPathComponent("second.raw")
        let parec = try ChildProcess(DeviceComponents.executable("parec")!,
                                     ["-d", "second.monitor", "--format=float32le", "--rate=48000", "--channels=2", "--raw", "--latency-msec=20"],
                                     environment: server.clientEnvironment, stdout: recording.path)
        usleep(300_000)
        try engine.start()
        #expect(waitUntil(5) { ((try? Data(contentsOf: recording))?.count ?? 0) > 48_000 * 8 / 2 })
        usleep(200_000)
        engine.stop()
        parec.stop()
        let data = try Data(contentsOf: recording)
        let nonzero = data.withUnsafeBytes { raw in raw.bindMemory(to: Float.self).filter { $0 != 0 }.count }
        #expect(nonzero > 10_000, "the restarted engine's signal did not reach the new default sink (\(nonzero) nonzero samples)")
        #expect(changes.value == 1, "one switch, one configuration change (\(changes.value))")
    }
}

/// Hands an engine to a watchdog thread.
struct UncheckedEngine: @unchecked Sendable {
    let engine: AVAudioEngine
    init(_ engine: AVAudioEngine) { self.engine = engine }
}

// AVAudioSession, AVAudioApplication and AVAudioRoutingArbiter through the public API: Apple's
// raw values, the category rules, and — against a private PulseAudio server with a null sink —
// the route and inputs listing the real devices, preferences applied to an engine's device and
// read back, route changes when the null sink is unloaded and loaded, and interruptions when the
// server dies and comes back. One serialized suite: the session is one object per process.
import Testing
import Foundation
import AVFoundation

/// Collects the notifications of one name.
final class NotificationLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _items: [Notification] = []
    private var token: NSObjectProtocol?
    init(_ name: Notification.Name) {
        token = NotificationCenter.default.addObserver(forName: name, object: nil, queue: nil) { [weak self] note in
            guard let self else { return }
            self.lock.lock(); self._items.append(note); self.lock.unlock()
        }
    }
    var items: [Notification] { lock.lock(); defer { lock.unlock() }; return _items }
    deinit { if let token { NotificationCenter.default.removeObserver(token) } }
}

@Suite(.serialized)
struct AVAudioSessionTests {
    @Test("Raw values match Apple's headers (option bits, reasons, four-character codes, strings)")
    func rawValues() {
        #expect(AVAudioSession.CategoryOptions.mixWithOthers.rawValue == 1)
        #expect(AVAudioSession.CategoryOptions.defaultToSpeaker.rawValue == 8)
        #expect(AVAudioSession.CategoryOptions.allowBluetoothA2DP.rawValue == 0x20)
        #expect(AVAudioSession.CategoryOptions.interruptSpokenAudioAndMixWithOthers.rawValue == 0x11)
        #expect(AVAudioSession.RouteChangeReason.routeConfigurationChange.rawValue == 8)
        #expect(AVAudioSession.InterruptionReason.routeDisconnected.rawValue == 4)
        #expect(AVAudioSession.PortOverride.speaker.rawValue == 0x7370_6B72)
        #expect(AVAudioApplication.recordPermission.granted.rawValue == 1_735_552_628)   // 'grnt'
        #expect(AVAudioApplication.recordPermission.denied.rawValue == 1_684_369_017)
        #expect(AVAudioApplication.recordPermission.undetermined.rawValue == 1_970_168_948)
        #expect(AVAudioSession.Category.playAndRecord.rawValue == "AVAudioSessionCategoryPlayAndRecord")
        #expect(AVAudioSession.Port.builtInMic.rawValue == "MicrophoneBuiltIn")
        #expect(AVAudioSession.Port.bluetoothA2DP.rawValue == "BluetoothA2DPOutput")
        #expect(AVAudioSession.routeChangeNotification.rawValue == "AVAudioSessionRouteChangeNotification")
        #expect(AVAudioSessionRouteChangeReasonKey == "AVAudioSessionRouteChangeReasonKey")
        #expect(AVAudioSession.sharedInstance() === AVAudioSession.sharedInstance())
    }

    @Test("Categories, modes and options: kept as set; an option the category does not allow throws paramErr (−50); permission granted; the arbiter reports no change")
    func categoriesAndRules() async throws {
        let session = AVAudioSession.sharedInstance()
        let categories = NotificationLog(AVAudioSession.routeChangeNotification)
        try session.setCategory(.playAndRecord, mode: .voiceChat, options: [.defaultToSpeaker, .allowBluetooth])
        #expect(session.category == .playAndRecord && session.mode == .voiceChat && session.categoryOptions == [.defaultToSpeaker, .allowBluetooth])
        do {
            try session.setCategory(.playback, options: .defaultToSpeaker)
            Issue.record("defaultToSpeaker with playback should throw")
        } catch let error as NSError {
            #expect(error.domain == NSOSStatusErrorDomain && error.code == -50)
            #expect(error.localizedDescription.contains("defaultToSpeaker"))
        }
        #expect(session.category == .playAndRecord, "a refused setCategory changes nothing")
        try session.overrideOutputAudioPort(.speaker)
        try session.setCategory(.playback, mode: .default, policy: .longFormAudio, options: [.mixWithOthers])
        #expect(session.routeSharingPolicy == .longFormAudio)
        #expect(throws: NSError.self) { try session.overrideOutputAudioPort(.speaker) }
        #expect(waitUntil(2) { categories.items.contains { ($0.userInfo?[AVAudioSessionRouteChangeReasonKey] as? NSNumber)?.uintValue == AVAudioSession.RouteChangeReason.categoryChange.rawValue } },
                "changing the category posts a route change with reason categoryChange")
        try session.setCategory(.soloAmbient, mode: .default, options: [])
        #expect(session.recordPermission == .granted)
        #expect(AVAudioApplication.shared.recordPermission == .granted)
        #expect(await AVAudioApplication.requestRecordPermission())
        #expect(session.inputDataSources == nil && !session.isInputGainSettable)
        #expect(throws: NSError.self) { try session.setInputGain(0.5) }
        #expect(try await AVAudioRoutingArbiter.shared.begin(category: .playback) == false)
        AVAudioRoutingArbiter.shared.leave()
    }

    @Test("AVAudioApplication.setInputMuted posts inputMuteStateChangeNotification with muteStateKey; a refusing handler keeps the state")
    func inputMute() throws {
        InputMuteTestLock.lock.lock()
        defer { InputMuteTestLock.lock.unlock() }
        let app = AVAudioApplication.shared
        let log = NotificationLog(AVAudioApplication.inputMuteStateChangeNotification)
        try app.setInputMuted(true)
        #expect(app.isInputMuted)
        try app.setInputMuted(false)
        #expect(!app.isInputMuted)
        let values = log.items.compactMap { ($0.userInfo?[AVAudioApplication.muteStateKey] as? NSNumber)?.boolValue }
        #expect(values == [true, false])
        try app.setInputMuteStateChangeHandler { _ in false }
        #expect(throws: NSError.self) { try app.setInputMuted(true) }
        #expect(!app.isInputMuted)
        try app.setInputMuteStateChangeHandler(nil)
    }

    @Test("Against a PulseAudio null sink: the route and inputs list the real devices; preferred rate and IO buffer duration reach an engine's device and read back; a muted app records silence",
          .enabled(if: DeviceComponents.pulse, "pulseaudio or libpulse.so.0 is not installed"))
    func routesAndPreferences() throws {
        let server = try PrivatePulseServer()
        defer { server.stop() }
        let session = AVAudioSession.sharedInstance()
        defer {
            try? session.setActive(false)
            try? session._setDeviceSelector(nil)
            try? session.setPreferredSampleRate(0)
            try? session.setPreferredIOBufferDuration(0)
            try? session.setCategory(.soloAmbient)
        }
        try session._setDeviceSelector("pulse@\(server.server)")
        try session.setCategory(.playAndRecord)
        try session.setActive(true)
        let route = session.currentRoute
        let output = try #require(route.outputs.first)
        #expect(route.outputs.count == 1)
        #expect(output.uid == "pulse:nullsink@\(server.server)")
        #expect(output.portType == .virtual && output.portName == "NullSink")
        #expect(output.channels?.count == 2 && output.channels?.first?.channelLabel == kAudioChannelLabel_Left)
        let input = try #require(route.inputs.first)
        #expect(input.uid == "pulse::nullsink.monitor@\(server.server)" && input.portType == .virtual)
        #expect(session.availableInputs?.contains(input) == true)
        #expect(session.sampleRate == 48_000)
        #expect(session.outputNumberOfChannels == 2 && session.inputNumberOfChannels == 2 && session.maximumOutputNumberOfChannels == 2)
        #expect(abs(session.outputVolume - 1) < 1e-6, "the null sink at 100 %: \(session.outputVolume)")
        #expect(session.outputLatency > 0 && session.outputLatency < 0.5)

        try session.setPreferredSampleRate(44_100)
        try session.setPreferredIOBufferDuration(0.005)
        #expect(session.preferredSampleRate == 44_100 && session.preferredIOBufferDuration == 0.005)
        #expect(session.sampleRate == 44_100, "the device grants 44.1 kHz: \(session.sampleRate)")
        #expect(abs(session.ioBufferDuration - 221.0 / 44_100) < 1e-9, "period \(session.ioBufferDuration * 44_100) frames")
        #expect(throws: NSError.self) { try session.setPreferredOutputNumberOfChannels(9) }

        // An engine on the session's server runs at the preferred rate and period.
        let engine = AVAudioEngine()
        try engine._setAudioDevice("pulse@\(server.server)")
        engine.attach(AVAudioPlayerNode())
        try engine.start()
        #expect(engine.outputNode.outputFormat(forBus: 0).sampleRate == 44_100)
        #expect(engine._audioDeviceName?.contains("221-frame periods") == true, "\(engine._audioDeviceName ?? "")")
        engine.stop()
        // An engine naming another backend is left alone.
        let other = AVAudioEngine()
        try other._setAudioDevice("null")
        other.attach(AVAudioPlayerNode())
        try other.start()
        #expect(other.outputNode.outputFormat(forBus: 0).sampleRate == 48_000)
        other.stop()
        try session.setPreferredSampleRate(0)
        try session.setPreferredIOBufferDuration(0)

        // Input muting: a recorder on the session's default input (the monitor) records zeros.
        let awake = try AwakeNullSink(server)
        defer { awake.stop() }
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let player = try AVAudioPlayer(contentsOf: try PlayerTestFiles.sine(dir.appendingPathComponent("tone.wav"), seconds: 1, amplitude: 0.5))
        player.numberOfLoops = -1
        #expect(player.play(), "a player with no device of its own plays on the session's server")
        defer { player.stop() }
        InputMuteTestLock.lock.lock()
        defer { InputMuteTestLock.lock.unlock() }
        try AVAudioApplication.shared.setInputMuted(true)
        defer { try? AVAudioApplication.shared.setInputMuted(false) }
        let url = dir.appendingPathComponent("muted.wav")
        let recorder = try AVAudioRecorder(url: url, settings: [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true])
        #expect(recorder.record(forDuration: 0.5))
        #expect(waitUntil(10) { !recorder.isRecording })
        try AVAudioApplication.shared.setInputMuted(false)
        let muted = try AVAudioFile(forReading: url)
        let buffer = AVAudioPCMBuffer(pcmFormat: muted.processingFormat, frameCapacity: AVAudioFrameCount(muted.length))!
        try muted.read(into: buffer)
        #expect(muted.length == 24_000)
        let peak = (0..<Int(buffer.frameLength)).map { abs(buffer.floatChannelData![0][$0]) }.max() ?? 1
        #expect(peak == 0, "muted input recorded a peak of \(peak)")
        // Unmuted, the same recorder setup hears the tone.
        let url2 = dir.appendingPathComponent("unmuted.wav")
        let recorder2 = try AVAudioRecorder(url: url2, settings: [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true])
        #expect(recorder2.record(forDuration: 0.5))
        #expect(waitUntil(10) { !recorder2.isRecording })
        let unmuted = try AVAudioFile(forReading: url2)
        let buffer2 = AVAudioPCMBuffer(pcmFormat: unmuted.processingFormat, frameCapacity: AVAudioFrameCount(unmuted.length))!
        try unmuted.read(into: buffer2)
        let peak2 = (0..<Int(buffer2.frameLength)).map { abs(buffer2.floatChannelData![0][$0]) }.max() ?? 0
        #expect(peak2 > 0.3, "unmuted input recorded a peak of \(peak2)")
    }

    @Test("isOtherAudioPlaying: true while another process plays to the session's PulseAudio server (pacat), false when it stops and while only this process plays (an AVAudioPlayer)",
          .enabled(if: DeviceComponents.pulse && DeviceComponents.executable("pacat") != nil, "pulseaudio, pacat or libpulse.so.0 is not installed"))
    func otherAudioPlaying() throws {
        let server = try PrivatePulseServer()
        defer { server.stop() }
        let session = AVAudioSession.sharedInstance()
        defer { try? session._setDeviceSelector(nil) }
        try session._setDeviceSelector("pulse@\(server.server)")
        #expect(!session.isOtherAudioPlaying)

        // Another process: pacat playing zeros to the null sink.
        let other = try ChildProcess(DeviceComponents.executable("pacat")!, ["--raw", "/dev/zero"], environment: server.clientEnvironment)
        #expect(waitUntil(5) { session.isOtherAudioPlaying }, "pacat's stream was not seen")
        other.stop()
        #expect(waitUntil(5) { !session.isOtherAudioPlaying }, "pacat's stream was still seen after it ended")

        // This process playing is not "other audio".
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = try PlayerTestFiles.sine(dir.appendingPathComponent("a.wav"), seconds: 3)
        let player = try AVAudioPlayer(contentsOf: url)
        player.currentDevice = "pulse@\(server.server)"
        #expect(player.play())
        defer { player.stop() }
        usleep(300_000)
        #expect(player.isPlaying)
        // The server does list a stream of this process (pactl's view), and it is not "other".
        let listing = dir.appendingPathComponent("sink-inputs.txt")
        let pactl = try ChildProcess(DeviceComponents.executable("pactl")!, ["list", "sink-inputs"], environment: server.clientEnvironment,
                                     stdout: listing.path)
        #expect(waitUntil(10) { !pactl.isRunning })
        let text = (try? String(contentsOf: listing, encoding: .utf8)) ?? ""
        #expect(text.contains("application.process.id = \"\(getpid())\""), "pactl list sink-inputs: \(text.prefix(400))")
        #expect(!session.isOtherAudioPlaying)
    }

    @Test("Route changes when the null sink is unloaded (oldDeviceUnavailable, previous route given) and loaded again (newDeviceAvailable), the default switched (routeConfigurationChange); interruptions when the server dies (began) and returns (ended, shouldResume)",
          .enabled(if: DeviceComponents.pulse && DeviceComponents.executable("pactl") != nil, "pulseaudio or pactl is not installed"))
    func routeChangesAndInterruptions() throws {
        let server = try PrivatePulseServer()
        var restarted: PrivatePulseServer?
        defer { restarted?.stop(); server.stop() }
        let session = AVAudioSession.sharedInstance()
        defer { try? session.setActive(false); try? session._setDeviceSelector(nil) }
        try session._setDeviceSelector("pulse@\(server.server)")
        try session.setCategory(.playback)
        defer { try? session.setCategory(.soloAmbient) }
        try session.setActive(true)
        #expect(session.currentRoute.outputs.first?.portName == "NullSink")
        let routes = NotificationLog(AVAudioSession.routeChangeNotification)
        let interruptions = NotificationLog(AVAudioSession.interruptionNotification)
        func pactl(_ arguments: [String]) throws {
            let process = try ChildProcess(DeviceComponents.executable("pactl")!, arguments, environment: server.clientEnvironment)
            _ = waitUntil(10) { !process.isRunning }
        }
        func reason(_ note: Notification) -> AVAudioSession.RouteChangeReason? {
            (note.userInfo?[AVAudioSessionRouteChangeReasonKey] as? NSNumber).flatMap { AVAudioSession.RouteChangeReason(rawValue: $0.uintValue) }
        }
        try pactl(["unload-module", "module-null-sink"])
        #expect(waitUntil(5) { routes.items.contains { reason($0) == .oldDeviceUnavailable } }, "no route change after unloading the sink: \(routes.items.map { reason($0).map { "\($0)" } ?? "?" })")
        let lost = routes.items.first { reason($0) == .oldDeviceUnavailable }
        let previous = lost?.userInfo?[AVAudioSessionRouteChangePreviousRouteKey] as? AVAudioSessionRouteDescription
        #expect(previous?.outputs.first?.portName == "NullSink")
        #expect(session.currentRoute.outputs.allSatisfy { $0.portName != "NullSink" })
        try pactl(["load-module", "module-null-sink", "sink_name=nullsink", "rate=48000", "channels=2", "sink_properties=device.description=NullSink"])
        #expect(waitUntil(5) { routes.items.contains { reason($0) == .newDeviceAvailable } }, "no route change after loading the sink")
        #expect(waitUntil(2) { session.currentRoute.outputs.first?.portName == "NullSink" })

        // The default output switched to another device that was already there.
        try pactl(["load-module", "module-null-sink", "sink_name=other", "sink_properties=device.description=Other"])
        usleep(700_000)
        let before = routes.items.count
        try pactl(["set-default-sink", "other"])
        #expect(waitUntil(5) { routes.items.count > before && reason(routes.items.last!) == .routeConfigurationChange },
                "no routeConfigurationChange after switching the default sink: \(routes.items.map { reason($0).map { "\($0)" } ?? "?" })")
        #expect(session.currentRoute.outputs.first?.portName == "Other")

        server.crash()
        #expect(waitUntil(5) { interruptions.items.count >= 1 }, "no interruption when the server died")
        let began = interruptions.items.first
        #expect((began?.userInfo?[AVAudioSessionInterruptionTypeKey] as? NSNumber)?.uintValue == AVAudioSession.InterruptionType.began.rawValue)
        restarted = try PrivatePulseServer(directory: server.directory)
        #expect(waitUntil(5) { interruptions.items.count >= 2 }, "no interruption end when the server came back")
        let ended = interruptions.items.dropFirst().first
        #expect((ended?.userInfo?[AVAudioSessionInterruptionTypeKey] as? NSNumber)?.uintValue == AVAudioSession.InterruptionType.ended.rawValue)
        #expect((ended?.userInfo?[AVAudioSessionInterruptionOptionKey] as? NSNumber)?.uintValue == AVAudioSession.InterruptionOptions.shouldResume.rawValue)
    }
}

// The iOS 26 and 27 additions to AVAudioSession, in the serialized session suite (the session is
// one object per process): raw values and strings against Apple's AVAudioSessionTypes.h and
// AVAudioSession.h of the current SDK; output muting (the notification, the playAndRecord rule, and
// a player on a private PulseAudio server's null sink recorded from the sink's monitor: zeros while
// muted, the tone when not); the activation notifications and their contexts, including the
// system deactivation when the private server dies and the resumption recommendation when it returns.
import Testing
import Foundation
import AVFoundation
import AudioDevices

extension AVAudioSessionTests {
    @Test("iOS 26/27 raw values, notification names and user-info keys are Apple's (AVAudioSessionTypes.h)")
    func activationAndMuteRawValues() {
        #expect(AVAudioSessionDeactivationOptions.notifyOthersOnDeactivation.rawValue == 1)
        #expect(AVAudioSession.SoundStageSize.automatic.rawValue == 0)
        #expect(AVAudioSession.SoundStageSize.small.rawValue == 1)
        #expect(AVAudioSession.SoundStageSize.medium.rawValue == 2)
        #expect(AVAudioSession.SoundStageSize.large.rawValue == 3)
        #expect(AVAudioSession.outputMuteStateChangeNotification.rawValue == "AVAudioSessionOutputMuteStateChangeNotification")
        #expect(AVAudioSession.userIntentToUnmuteOutputNotification.rawValue == "AVAudioSessionUserIntentToUnmuteOutputNotification")
        #expect(AVAudioSession.muteStateKey == "AVAudioSessionMuteStateKey")
        #expect(AVAudioSession.didBecomeActiveNotification.rawValue == "AVAudioSessionDidBecomeActiveNotification")
        #expect(AVAudioSession.didBecomeInactiveNotification.rawValue == "AVAudioSessionDidBecomeInactiveNotification")
        #expect(AVAudioSession.resumptionRecommendationNotification.rawValue == "AVAudioSessionResumptionRecommendationNotification")
        #expect(AVAudioSession.deactivationContextKey == "AVAudioSessionDeactivationContextKey")
        #expect(AVAudioSession.resumptionContextKey == "AVAudioSessionResumptionContextKey")
    }

    @Test("setOutputMuted posts outputMuteStateChangeNotification with muteStateKey; playAndRecord mutes only in the default mode (else '!cat'), and a non-default mode unmutes")
    func outputMuteRules() throws {
        let session = AVAudioSession.sharedInstance()
        defer { try? session.setOutputMuted(false); try? session.setCategory(.soloAmbient, mode: .default, options: []) }
        let log = NotificationLog(AVAudioSession.outputMuteStateChangeNotification)
        func states() -> [Bool] { log.items.compactMap { ($0.userInfo?[AVAudioSession.muteStateKey] as? NSNumber)?.boolValue } }
        #expect(!session.isOutputMuted)
        try session.setCategory(.playback)
        try session.setOutputMuted(true)
        #expect(session.isOutputMuted)
        try session.setOutputMuted(true)   // no change, no notification
        try session.setOutputMuted(false)
        #expect(!session.isOutputMuted)
        #expect(states() == [true, false])
        try session.setCategory(.playAndRecord, mode: .voiceChat)
        do {
            try session.setOutputMuted(true)
            Issue.record("muting playAndRecord in voiceChat did not throw")
        } catch let error as NSError {
            #expect(error.domain == NSOSStatusErrorDomain && error.code == AVAudioSession.ErrorCode.incompatibleCategory.rawValue)
        }
        #expect(!session.isOutputMuted)
        try session.setCategory(.playAndRecord, mode: .default)
        try session.setOutputMuted(true)
        try session.setMode(.videoChat)   // AVAudioSession.h: a non-default mode with playAndRecord unmutes
        #expect(!session.isOutputMuted)
        #expect(states() == [true, false, true, false])
    }

    @Test("setActive posts didBecomeActive (no user info) and didBecomeInactive (a DeactivationContext from the app) on a change of state only; deactivate(options:completionHandler:) deactivates")
    func activationNotifications() async throws {
        let session = AVAudioSession.sharedInstance()
        try session._setDeviceSelector("null")
        defer { try? session.setActive(false); try? session._setDeviceSelector(nil) }
        let active = NotificationLog(AVAudioSession.didBecomeActiveNotification)
        let inactive = NotificationLog(AVAudioSession.didBecomeInactiveNotification)
        let typed = SessionMessageLog(session)
        defer { typed.stop() }
        try session.setActive(true)
        try session.setActive(true)
        #expect(active.items.count == 1)
        #expect(active.items.first?.userInfo == nil)
        try session.setActive(false)
        try session.setActive(false)
        #expect(inactive.items.count == 1)
        let context = inactive.items.first?.userInfo?[AVAudioSession.deactivationContextKey] as? AVAudioSession.DeactivationContext
        #expect(context?.source == .app)
        #expect(context?.interruptionContext == nil)

        try session.setActive(true)
        #expect(active.items.count == 2)
        let done = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Bool, Error>) in
            session.deactivate(options: .notifyOthersOnDeactivation) { ok, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: ok) }
            }
        }
        #expect(done)
        #expect(inactive.items.count == 2)
        try session.setActive(true)
        #expect(try await session.deactivate())
        #expect(inactive.items.count == 3)
        #expect((inactive.items.last?.userInfo?[AVAudioSession.deactivationContextKey] as? AVAudioSession.DeactivationContext)?.source == .app)
        // The typed messages (iOS 27): each event once, on the main actor, in order.
        let expected = ["active", "inactive app", "active", "inactive app", "active", "inactive app"]
        #expect(waitUntil(5) { typed.items.count >= expected.count })
        usleep(100_000)
        #expect(typed.items == expected)
        #expect(typed.offMainActor == 0)
    }

    @Test("The sound server dying deactivates the session: didBecomeInactive from the system with an interruption context (reason default), and its return recommends resuming; setActive(true) reactivates",
          .enabled(if: DeviceComponents.pulse, "pulseaudio or libpulse.so.0 is not installed"))
    func systemDeactivationAndResumption() throws {
        let server = try PrivatePulseServer()
        var restarted: PrivatePulseServer?
        defer { restarted?.stop(); server.stop() }
        let session = AVAudioSession.sharedInstance()
        defer { try? session.setActive(false); try? session._setDeviceSelector(nil) }
        try session._setDeviceSelector("pulse@\(server.server)")
        try session.setActive(true)
        let active = NotificationLog(AVAudioSession.didBecomeActiveNotification)
        let inactive = NotificationLog(AVAudioSession.didBecomeInactiveNotification)
        let resumption = NotificationLog(AVAudioSession.resumptionRecommendationNotification)
        let interruptions = NotificationLog(AVAudioSession.interruptionNotification)
        DispatchQueue.main.sync {}   // the typed message of the activation above is delivered before the log starts
        let typed = SessionMessageLog(session)
        defer { typed.stop() }
        server.crash()
        #expect(waitUntil(5) { inactive.items.count >= 1 }, "no didBecomeInactive when the server died")
        let context = inactive.items.first?.userInfo?[AVAudioSession.deactivationContextKey] as? AVAudioSession.DeactivationContext
        #expect(context?.source == .system)
        #expect(context?.interruptionContext?.reason == .default)
        // The deprecated interruption notification still comes, with the same reason.
        #expect((interruptions.items.first?.userInfo?[AVAudioSessionInterruptionReasonKey] as? NSNumber)?.uintValue
                == AVAudioSession.InterruptionReason.default.rawValue)
        restarted = try PrivatePulseServer(directory: server.directory)
        #expect(waitUntil(5) { resumption.items.count >= 1 }, "no resumption recommendation when the server came back")
        let resume = resumption.items.first?.userInfo?[AVAudioSession.resumptionContextKey] as? AVAudioSession.ResumptionContext
        #expect(resume?.recommendation == .shouldResume)
        #expect(inactive.items.count == 1)
        // Reactivating after the interruption is a change of state again.
        try session.setActive(true)
        #expect(active.items.count == 1)
        try session.setActive(false)
        #expect(inactive.items.count == 2, "deactivating the reactivated session posts didBecomeInactive once more")
        // The typed messages: the system interruption with its context, the recommendation, then
        // the app's own reactivation and deactivation.
        let expected = ["inactive system default", "resume shouldResume", "active", "inactive app"]
        #expect(waitUntil(5) { typed.items.count >= expected.count })
        usleep(100_000)
        #expect(typed.items == expected)
        #expect(typed.offMainActor == 0)
    }

    @Test("visionOS's intended spatial experience: set as client code writes it (.headTracked, .fixed, .bypassed) and read back with its parameters; the default is head-tracked with the system's choices")
    func intendedSpatialExperience() throws {
        let session = AVAudioSession.sharedInstance()
        defer { try? session.setIntendedSpatialExperience(.headTracked(soundStageSize: .automatic, anchoringStrategy: .automatic)) }
        let initial = try #require(session.intendedSpatialExperience as? AVAudioSession.HeadTrackedSpatialExperience)
        #expect(initial.soundStageSize == .automatic && initial.anchoringStrategy == .automatic)
        try session.setIntendedSpatialExperience(.headTracked(soundStageSize: .large, anchoringStrategy: .scene(identifier: "main")))
        let tracked = try #require(session.intendedSpatialExperience as? AVAudioSession.HeadTrackedSpatialExperience)
        #expect(tracked == .headTracked(soundStageSize: .large, anchoringStrategy: .scene(identifier: "main")))
        #expect(tracked.anchoringStrategy != .scene(identifier: "other"))
        try session.setIntendedSpatialExperience(.fixed(soundStageSize: .small))
        #expect((session.intendedSpatialExperience as? AVAudioSession.FixedSpatialExperience)?.soundStageSize == .small)
        try session.setIntendedSpatialExperience(.bypassed)
        #expect(session.intendedSpatialExperience is AVAudioSession.BypassedSpatialExperience)
    }

    @Test("Typed messages convert to and from their notifications as Apple's makeMessage/makeNotification do (the deactivation context, the resumption context)")
    @MainActor func messageNotificationConversion() throws {
        let activeMessage = try #require(AVAudioSession.DidBecomeActiveMessage.makeMessage(Notification(name: AVAudioSession.didBecomeActiveNotification)))
        let active = AVAudioSession.DidBecomeActiveMessage.makeNotification(activeMessage)
        #expect(active.name == AVAudioSession.didBecomeActiveNotification && active.userInfo == nil)
        #expect(AVAudioSession.DidBecomeActiveMessage.makeMessage(Notification(name: AVAudioSession.didBecomeInactiveNotification)) == nil)

        // A notification without its context makes no message.
        #expect(AVAudioSession.DidBecomeInactiveMessage.makeMessage(Notification(name: AVAudioSession.didBecomeInactiveNotification)) == nil)
        #expect(AVAudioSession.ResumptionRecommendationMessage.makeMessage(Notification(name: AVAudioSession.resumptionRecommendationNotification)) == nil)

        // Round trips through the notifications the session posts (the contexts are the
        // session's to make, so the messages come from a session's notifications).
        let session = AVAudioSession.sharedInstance()
        try session._setDeviceSelector("null")
        defer { try? session.setActive(false); try? session._setDeviceSelector(nil) }
        let inactive = NotificationLog(AVAudioSession.didBecomeInactiveNotification)
        try session.setActive(true)
        try session.setActive(false)
        let posted = try #require(inactive.items.first)
        let message = try #require(AVAudioSession.DidBecomeInactiveMessage.makeMessage(posted))
        guard case .appDeactivated = message.deactivationResult else { Issue.record("an app deactivation read as \(message.deactivationResult)"); return }
        let back = AVAudioSession.DidBecomeInactiveMessage.makeNotification(message)
        #expect(back.name == AVAudioSession.didBecomeInactiveNotification)
        #expect((back.userInfo?[AVAudioSession.deactivationContextKey] as? AVAudioSession.DeactivationContext)?.source == .app)
    }

    @Test("Output muting on a private PulseAudio server: a player's tone, recorded from the null sink's monitor, is zeros while the session's output is muted and the tone when not",
          .enabled(if: DeviceComponents.pulse, "pulseaudio or libpulse.so.0 is not installed"))
    func outputMuteSilencesThePlayer() throws {
        // It records from a sink's monitor through the session's device selection: not while
        // another suite mutes the app's input or changes that selection.
        InputMuteTestLock.lock.lock()
        defer { InputMuteTestLock.lock.unlock() }
        SharedSessionTestLock.lock.lock()
        defer { SharedSessionTestLock.lock.unlock() }
        let server = try PrivatePulseServer()
        defer { server.stop() }
        let session = AVAudioSession.sharedInstance()
        defer { try? session.setOutputMuted(false); try? session.setActive(false); try? session._setDeviceSelector(nil); try? session.setCategory(.soloAmbient, mode: .default, options: []) }
        try session._setDeviceSelector("pulse@\(server.server)")
        try session.setCategory(.playAndRecord)
        try session.setActive(true)
        let awake = try AwakeNullSink(server)
        defer { awake.stop() }
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let player = try AVAudioPlayer(contentsOf: try PlayerTestFiles.sine(dir.appendingPathComponent("tone.wav"), seconds: 1, amplitude: 0.5))
        player.numberOfLoops = -1
        #expect(player.play())
        defer { player.stop() }
        func recordedPeak(_ name: String) throws -> Float {
            let url = dir.appendingPathComponent(name)
            let recorder = try AVAudioRecorder(url: url, settings: [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true])
            #expect(recorder.record(forDuration: 0.5))
            #expect(waitUntil(10) { !recorder.isRecording })
            let file = try AVAudioFile(forReading: url)
            let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))!
            try file.read(into: buffer)
            #expect(file.length == 24_000)
            return (0..<Int(buffer.frameLength)).map { abs(buffer.floatChannelData![0][$0]) }.max() ?? -1
        }
        try session.setOutputMuted(true)
        usleep(500_000)   // what the sink already holds drains (PulseAudio buffers well under 0.5 s here)
        let muted = try recordedPeak("muted.wav")
        #expect(muted == 0, "muted output recorded a peak of \(muted)")
        try session.setOutputMuted(false)
        usleep(500_000)
        let unmuted = try recordedPeak("unmuted.wav")
        #expect(unmuted > 0.3, "unmuted output recorded a peak of \(unmuted)")
    }

    @Test("userIntentToUnmuteOutputNotification on a private PulseAudio server: posted while the output is muted and the user raises the output device's volume or turns its mute switch off; not for turning it down or muting, and not while the output is not muted",
          .enabled(if: DeviceComponents.pulse && DeviceComponents.executable("pactl") != nil, "pulseaudio or pactl is not installed"))
    func userIntentToUnmuteFromTheSinkVolume() throws {
        SharedSessionTestLock.lock.lock()
        defer { SharedSessionTestLock.lock.unlock() }
        let server = try PrivatePulseServer()
        defer { server.stop() }
        func pactl(_ arguments: [String]) throws {
            let process = try ChildProcess(DeviceComponents.executable("pactl")!, arguments, environment: server.clientEnvironment)
            #expect(waitUntil(10) { !process.isRunning }, "pactl \(arguments) did not finish")
        }
        // The device layer reads the sink's mute switch (pa_sink_info.mute) and volume.
        func nullSink() -> AudioDeviceInfo? {
            AudioDevices.enumerate(pulseServer: server.server).first { $0.backend == "pulse" && $0.id == "nullsink" }
        }
        try pactl(["set-sink-volume", "nullsink", "50%"])
        try pactl(["set-sink-mute", "nullsink", "1"])
        #expect(nullSink()?.isMuted == true)
        #expect(abs((nullSink()?.volume ?? 0) - 0.5) < 0.01, "volume \(nullSink()?.volume ?? -1)")
        try pactl(["set-sink-mute", "nullsink", "0"])
        #expect(nullSink()?.isMuted == false)

        let session = AVAudioSession.sharedInstance()
        defer { try? session.setOutputMuted(false); try? session.setActive(false); try? session._setDeviceSelector(nil); try? session.setCategory(.soloAmbient, mode: .default, options: []) }
        try session._setDeviceSelector("pulse@\(server.server)")
        try session.setCategory(.playback)
        try session.setActive(true)
        let intents = NotificationLog(AVAudioSession.userIntentToUnmuteOutputNotification)
        let settle: useconds_t = 800_000   // three of the monitor's 250 ms reads

        // Not muted: the volume keys are only volume.
        try pactl(["set-sink-volume", "nullsink", "70%"])
        usleep(settle)
        #expect(intents.items.isEmpty, "posted while the output was not muted")

        try session.setOutputMuted(true)
        try pactl(["set-sink-volume", "nullsink", "40%"])   // turned down
        try pactl(["set-sink-mute", "nullsink", "1"])       // muted
        usleep(settle)
        #expect(intents.items.isEmpty, "posted for turning the volume down or muting: \(intents.items.count)")

        try pactl(["set-sink-mute", "nullsink", "0"])       // the mute switch turned off
        #expect(waitUntil(5) { intents.items.count == 1 }, "not posted when the sink was unmuted")
        usleep(settle)
        try pactl(["set-sink-volume", "nullsink", "60%"])   // turned up
        #expect(waitUntil(5) { intents.items.count == 2 }, "not posted when the volume was raised (\(intents.items.count))")
        #expect(intents.items.allSatisfy { $0.userInfo == nil && $0.object as? AVAudioSession === session })
        #expect(session.isOutputMuted, "the hint does not unmute: the app decides")

        // Unmuted by the app: the same gesture posts nothing.
        try session.setOutputMuted(false)
        usleep(settle)
        try pactl(["set-sink-volume", "nullsink", "80%"])
        usleep(settle)
        #expect(intents.items.count == 2, "posted after the app unmuted its output")
    }

    @Test("AVAudioApplication.requestMicrophoneInjectionPermission(completionHandler:) answers serviceDisabled, as the async form and the property do")
    func microphoneInjectionPermissionHandler() async {
        let answer = await withCheckedContinuation { (continuation: CheckedContinuation<AVAudioApplication.MicrophoneInjectionPermission, Never>) in
            AVAudioApplication.requestMicrophoneInjectionPermission { continuation.resume(returning: $0) }
        }
        #expect(answer == .serviceDisabled)
        #expect(await AVAudioApplication.requestMicrophoneInjectionPermission() == .serviceDisabled)
        #expect(AVAudioApplication.shared.microphoneInjectionPermission == .serviceDisabled)
        #expect(AVAudioApplication.MicrophoneInjectionPermission.serviceDisabled.rawValue == 1_936_876_659)   // 'srds'
    }
}

/// Observes a session's three typed messages (iOS 27) and records them as short strings, with a
/// count of deliveries that did not run on the main queue (the main actor's executor; under an
/// async `main` on Linux, libdispatch drains the main queue from a worker thread once the main
/// thread has handed it over, so `Thread.isMainThread` is not the test of main-actor delivery).
final class SessionMessageLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _items: [String] = []
    private var _offMain = 0
    private var tokens: [NotificationCenter.ObservationToken] = []

    static let mainQueueKey: DispatchSpecificKey<Bool> = {
        let key = DispatchSpecificKey<Bool>()
        DispatchQueue.main.setSpecific(key: key, value: true)
        return key
    }()

    init(_ session: AVAudioSession) {
        _ = SessionMessageLog.mainQueueKey
        tokens.append(NotificationCenter.default.addObserver(of: session, for: .didBecomeActive) { [self] _ in record("active") })
        tokens.append(NotificationCenter.default.addObserver(of: session, for: .didBecomeInactive) { [self] message in
            switch message.deactivationResult {
            case .appDeactivated: record("inactive app")
            case .systemInterruption(let context): record("inactive system \(context.reason)")
            }
        })
        tokens.append(NotificationCenter.default.addObserver(of: session, for: .resumptionRecommendation) { [self] message in
            record("resume \(message.recommendation == .shouldResume ? "shouldResume" : "shouldNotResume")")
        })
    }

    private func record(_ item: String) {
        lock.lock(); defer { lock.unlock() }
        _items.append(item)
        if DispatchQueue.getSpecific(key: SessionMessageLog.mainQueueKey) != true { _offMain += 1 }
    }

    var items: [String] { lock.lock(); defer { lock.unlock() }; return _items }
    var offMainActor: Int { lock.lock(); defer { lock.unlock() }; return _offMain }
    func stop() { for token in tokens { NotificationCenter.default.removeObserver(token) } }
}

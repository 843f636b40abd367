// Jacks on an ALSA card without a sound server: the card's jack controls read through alsa-lib's
// control API, and the session's route following them. No sound card here: the card is an
// alsa-lib external control plugin built by the test (ALSATestJackPlugin.swift) behind the tests'
// private ALSA configuration, whose jack values the test changes by rewriting a state file.
//
// What Apple documents and these tests hold the session to: plugging wired headphones in posts
// `routeChangeNotification` with `.newDeviceAvailable`, unplugging them `.oldDeviceUnavailable`
// (AVAudioSession.RouteChangeReason's documentation and "Responding to audio route changes"),
// each with the route before the change under `AVAudioSessionRouteChangePreviousRouteKey`;
// the current route's output is then `.headphones` (or back to the speaker). A wired microphone
// is `.headsetMic`, Apple's only wired-microphone port.
import Testing
import Foundation
import AVFoundation
import AudioDevices

extension AVAudioSessionTests {
    /// The jack test's state file, written with the given jack values (plus a phantom jack and a
    /// mixer switch that are not jacks the route depends on).
    @discardableResult
    private static func writeJacks(headphones: Int, mic: Int, lineIn: Int = 0, volume: Int = 64, switchOn: Int = 1) throws -> URL {
        let directory = try #require(ALSADeviceTests.configuration).appendingPathComponent("jacks")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let state = directory.appendingPathComponent("jacks.state")
        // (a PCM volume the main one outranks, as HD-Audio cards have both)
        try ALSATestJackPlugin.writeState([(0, "Headphone Jack", headphones, nil), (0, "Mic Jack", mic, nil),
                                           (0, "Line Jack", lineIn, nil), (0, "Speaker Phantom Jack", 1, nil),
                                           (2, "PCM Playback Volume", 255, 0...255),
                                           (2, "Master Playback Volume", volume, 0...87),
                                           (2, "Master Playback Switch", switchOn, nil)], to: state)
        return state
    }

    @Test("ALSA jacks: a card's jack controls are read through alsa-lib (names, kinds, values; mixer controls are not jacks); a PCM's control device is hw:CARD or its own name",
          .enabled(if: ALSATestJackPlugin.canBuild, "needs libasound.so.2 (Debian libasound2) and a C compiler (cc, clang or gcc) to build the test's control plugin"))
    func alsaJacksRead() throws {
        _ = try ALSATestJackPlugin.built.get()
        try Self.writeJacks(headphones: 1, mic: 0)
        let jacks = AudioDevices.alsaJacks(control: "avaudio_jacks")
        #expect(jacks.map(\.name) == ["Headphone Jack", "Mic Jack", "Line Jack", "Speaker Phantom Jack"])
        #expect(jacks.map(\.isPluggedIn) == [true, false, false, true])
        #expect(jacks.map(\.kind) == [.headphones, .microphone, .lineIn, .other])
        try Self.writeJacks(headphones: 0, mic: 1)
        #expect(AudioDevices.alsaJacks(control: "avaudio_jacks").map(\.isPluggedIn) == [false, true, false, true])
        #expect(AudioDevices.alsaJacks(control: "no_such_control").isEmpty)

        // Watched through the control's events: a change is reported as soon as it is made, not
        // when a timeout runs out; nothing while nothing changes.
        let monitor = try #require(ALSAJackMonitor(control: "avaudio_jacks"))
        #expect(monitor.isWatching, "the control device gives poll descriptors")
        #expect(!monitor.waitForChange(timeout: 0.2), "no change, no report")
        try Self.writeJacks(headphones: 1, mic: 1)
        let start = Date()
        #expect(monitor.waitForChange(timeout: 10), "the plug was not reported")
        #expect(Date().timeIntervalSince(start) < 5, "reported only after \(Date().timeIntervalSince(start)) s")
        #expect(monitor.jacks.map(\.isPluggedIn) == [true, true, false, true])

        #expect(AudioDevices.alsaControlName(forPCM: "hw:0,0") == "hw:0")
        #expect(AudioDevices.alsaControlName(forPCM: "plughw:1") == "hw:1")
        #expect(AudioDevices.alsaControlName(forPCM: "plughw:CARD=PCH,DEV=0") == "hw:PCH")
        #expect(AudioDevices.alsaControlName(forPCM: "sysdefault:CARD=PCH") == "hw:PCH")
        #expect(AudioDevices.alsaControlName(forPCM: "front:CARD=Device,DEV=0") == "hw:Device")
        #expect(AudioDevices.alsaControlName(forPCM: "front:1,0") == "hw:1", "CARD and DEV by position, for any plugin that takes them")
        #expect(AudioDevices.alsaControlName(forPCM: "avaudio_jacks") == "avaudio_jacks", "a PCM with a ctl of its name")
        #expect(AudioDevices.alsaControlName(forPCM: "avaudio_file_64") == nil, "no ctl.avaudio_file_64 in the configuration")
        #expect(AudioDevices.alsaControlName(forPCM: "pulse") == nil, "a server's plugin is not asked")
        #expect(AudioDevices.alsaControlName(forPCM: "dmix") == nil)

        // The names HD-Audio and ASoC drivers give.
        #expect(ALSAJack.kind(ofControl: "Front Headphone Jack") == .headphones)
        #expect(ALSAJack.kind(ofControl: "Headset Mic Jack") == .microphone)
        #expect(ALSAJack.kind(ofControl: "Headphone Mic Jack") == .microphone)
        #expect(ALSAJack.kind(ofControl: "Headset Jack") == .headset)
        #expect(ALSAJack.kind(ofControl: "Line Out Jack") == .lineOut)
        #expect(ALSAJack.kind(ofControl: "HDMI/DP,pcm=3 Jack") == .hdmi)
        #expect(ALSAJack.kind(ofControl: "Internal Mic Phantom Jack") == .other)
    }

    @Test("ALSA jacks and the route: headphones plugged in post newDeviceAvailable at once and the output becomes headphones; a microphone makes the input headsetMic; unplugging posts oldDeviceUnavailable with the previous route; an inactive session posts nothing",
          .enabled(if: ALSATestJackPlugin.canBuild, "needs libasound.so.2 (Debian libasound2) and a C compiler (cc, clang or gcc) to build the test's control plugin"))
    func alsaJacksFollowTheRoute() throws {
        _ = try ALSATestJackPlugin.built.get()
        try Self.writeJacks(headphones: 0, mic: 0)
        // The selection must stay put while other suites run (a player test may switch it).
        SharedSessionTestLock.lock.lock()
        defer { SharedSessionTestLock.lock.unlock() }
        let session = AVAudioSession.sharedInstance()
        defer { try? session.setActive(false); try? session._setDeviceSelector(nil); try? session.setCategory(.soloAmbient) }
        try session._setDeviceSelector("alsa:avaudio_jacks")
        try session.setCategory(.playAndRecord)
        try session.setActive(true)
        #expect(session.currentRoute.outputs.map(\.portType) == [.builtInSpeaker], "\(session.currentRoute)")
        #expect(session.currentRoute.inputs.map(\.portType) == [.builtInMic], "\(session.currentRoute)")
        #expect(session.currentRoute.outputs.first?.uid == "alsa:avaudio_jacks")

        let routes = NotificationLog(AVAudioSession.routeChangeNotification)
        func reason(_ note: Notification) -> AVAudioSession.RouteChangeReason? {
            (note.userInfo?[AVAudioSessionRouteChangeReasonKey] as? NSNumber).flatMap { AVAudioSession.RouteChangeReason(rawValue: $0.uintValue) }
        }
        func previous(_ note: Notification?) -> AVAudioSessionRouteDescription? {
            note?.userInfo?[AVAudioSessionRouteChangePreviousRouteKey] as? AVAudioSessionRouteDescription
        }
        usleep(700_000)
        #expect(routes.items.isEmpty, "nothing plugged, nothing posted")

        // Headphones in: seen through the control's events, not at the next half-second read.
        let plugged = Date()
        try Self.writeJacks(headphones: 1, mic: 0)
        try #require(waitUntil(5) { routes.items.count == 1 }, "no route change after headphones were plugged in")
        let latency = Date().timeIntervalSince(plugged)
        #expect(reason(routes.items[0]) == .newDeviceAvailable)
        #expect(previous(routes.items.first)?.outputs.map(\.portType) == [.builtInSpeaker])
        #expect(session.currentRoute.outputs.map(\.portType) == [.headphones])
        #expect(session.currentRoute.inputs.map(\.portType) == [.builtInMic], "headphones alone bring no microphone")
        // (6–10 ms on a quiet machine; the bound only says it did not wait for a poll)
        #expect(latency < 2, "the route followed the plug in \(latency) s")

        // A microphone in: the input becomes the wired microphone.
        try Self.writeJacks(headphones: 1, mic: 1)
        try #require(waitUntil(5) { routes.items.count == 2 }, "no route change after a microphone was plugged in")
        #expect(reason(routes.items[1]) == .newDeviceAvailable)
        #expect(session.currentRoute.inputs.map(\.portType) == [.headsetMic])
        #expect(session.currentRoute.outputs.map(\.portType) == [.headphones])

        // Everything out: oldDeviceUnavailable, the previous route holding the headphones.
        try Self.writeJacks(headphones: 0, mic: 0)
        try #require(waitUntil(5) { routes.items.count >= 3 }, "no route change after the headset was unplugged")
        #expect(routes.items.count == 3 && reason(routes.items[2]) == .oldDeviceUnavailable,
                "\(routes.items.map { reason($0).map { "\($0)" } ?? "?" })")
        #expect(previous(routes.items.last)?.outputs.map(\.portType) == [.headphones])
        #expect(previous(routes.items.last)?.inputs.map(\.portType) == [.headsetMic])
        #expect(session.currentRoute.outputs.map(\.portType) == [.builtInSpeaker])
        #expect(session.currentRoute.inputs.map(\.portType) == [.builtInMic])

        // A line input while the category only plays changes nothing the route shows.
        try session.setCategory(.playback)
        usleep(300_000)
        let count = routes.items.count
        try Self.writeJacks(headphones: 0, mic: 0, lineIn: 1)
        usleep(800_000)
        #expect(routes.items.count == count, "a jack the route does not show posts nothing: \(routes.items.map { reason($0).map { "\($0)" } ?? "?" }) \(routes.items.last.map { previous($0).map { "\($0)" } ?? "" } ?? "") now \(session.currentRoute)")

        try session.setActive(false)
        usleep(300_000)
        let inactive = routes.items.count
        try Self.writeJacks(headphones: 1, mic: 0)
        usleep(1_000_000)
        #expect(routes.items.count == inactive, "an inactive session is not watched")
    }

    @Test("ALSA without a server: the card's main playback volume is outputVolume; while the output is muted, raising it or turning its switch on posts userIntentToUnmuteOutputNotification, turning it down or off does not, nor anything while not muted",
          .enabled(if: ALSATestJackPlugin.canBuild, "needs libasound.so.2 (Debian libasound2) and a C compiler (cc, clang or gcc) to build the test's control plugin"))
    func alsaVolumeAndUnmuteHint() throws {
        _ = try ALSATestJackPlugin.built.get()
        try Self.writeJacks(headphones: 0, mic: 0, volume: 58)
        // The control: Master outranks PCM; 58 of 0…87 is two thirds.
        let monitor = try #require(ALSAJackMonitor(control: "avaudio_jacks", subscribe: false))
        #expect(abs((monitor.outputVolume ?? -1) - 58.0 / 87) < 1e-12 && monitor.outputMuted == false)
        let device = AudioDevices.enumerate(pulseServer: "unix:/nonexistent/avaudio-session").first { $0.backend == "alsa" && $0.id == "avaudio_jacks" }
        #expect(abs((device?.volume ?? -1) - 58.0 / 87) < 1e-12 && device?.isMuted == false, "\(String(describing: device))")

        SharedSessionTestLock.lock.lock()
        defer { SharedSessionTestLock.lock.unlock() }
        let session = AVAudioSession.sharedInstance()
        defer { try? session.setOutputMuted(false); try? session.setActive(false); try? session._setDeviceSelector(nil); try? session.setCategory(.soloAmbient, mode: .default, options: []) }
        try session._setDeviceSelector("alsa:avaudio_jacks")
        try session.setCategory(.playback)
        try session.setActive(true)
        #expect(abs(session.outputVolume - Float(58.0 / 87)) < 1e-6, "outputVolume \(session.outputVolume)")
        let intents = NotificationLog(AVAudioSession.userIntentToUnmuteOutputNotification)
        let settle: useconds_t = 600_000

        // Not muted: the volume keys are only volume.
        try Self.writeJacks(headphones: 0, mic: 0, volume: 70)
        usleep(settle)
        #expect(intents.items.isEmpty, "posted while the output was not muted")
        #expect(waitUntil(5) { abs(session.outputVolume - Float(70.0 / 87)) < 1e-6 }, "outputVolume follows the card: \(session.outputVolume)")

        try session.setOutputMuted(true)
        try Self.writeJacks(headphones: 0, mic: 0, volume: 40)                // turned down
        usleep(settle)
        try Self.writeJacks(headphones: 0, mic: 0, volume: 40, switchOn: 0)   // switched off
        usleep(settle)
        #expect(intents.items.isEmpty, "posted for turning the volume down or muting: \(intents.items.count)")

        try Self.writeJacks(headphones: 0, mic: 0, volume: 40, switchOn: 1)   // switched on
        #expect(waitUntil(5) { intents.items.count == 1 }, "not posted when the card's switch was turned on")
        usleep(settle)
        try Self.writeJacks(headphones: 0, mic: 0, volume: 60)                // turned up
        #expect(waitUntil(5) { intents.items.count == 2 }, "not posted when the volume was raised (\(intents.items.count))")
        #expect(intents.items.allSatisfy { $0.userInfo == nil && $0.object as? AVAudioSession === session })
        #expect(session.isOutputMuted, "the hint does not unmute: the app decides")

        // Unmuted by the app: the same gesture posts nothing.
        try session.setOutputMuted(false)
        usleep(settle)
        try Self.writeJacks(headphones: 0, mic: 0, volume: 80)
        usleep(settle)
        #expect(intents.items.count == 2, "posted after the app unmuted its output")
    }
}

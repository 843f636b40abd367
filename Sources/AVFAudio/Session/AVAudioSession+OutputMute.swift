// AVAudioSession's output muting (iOS 26): `setOutputMuted(_:)`, `isOutputMuted`, and
// `outputMuteStateChangeNotification`.
//
// Apple mutes the session's own output — "samples zeroed out", says AVAudioSessionMuteStateKey —
// and leaves system sounds alone. Here that is real: while muted, every playback device the app's
// engines, players and recorders open on the session's backend (the one the session describes:
// `AVAUDIO_BACKEND` or automatic by default, the same rule as for the preferences) writes zeros —
// the device registry wraps those devices in `MutingDevice`, which clears the rendered
// buffers on the device thread after the engine has filled them. A device an engine names apart
// from the session's backend is not the session's output and is left alone. The
// sound server's own sink mute is not used: it belongs to the user and would silence every
// other program.
//
// The rules are AVAudioSession.h's: muting is supported with every category and mode except
// playAndRecord with a mode other than default; there `setOutputMuted(true)` throws (the header
// promises an error without naming it: `incompatibleCategory`, '!cat', Apple's code for "an
// attempt to make a property change that isn't allowed in the current category"), and "changing
// the mode to non-default mode with playAndRecord category will cause the session to unmute" —
// `setCategory`/`setMode` unmute and post the notification.
//
// `userIntentToUnmuteOutputNotification`: AVAudioSession.h says that while the output is muted it
// "may be sent when" the user hints at unmuting; on an iPhone that gesture is the volume buttons,
// which change the system volume. The Linux counterpart of the volume keys is the output
// device's volume as the sound server holds it (desktops bind the keys, and their sound
// settings' slider, to the default sink's volume and mute switch). So while the session's output
// is muted and the session is active on PulseAudio (or PipeWire's pulse server), the session
// monitor (AVAudioSession+Devices.swift, every 250 ms) posts the notification, without a
// user-info dictionary, when the route's output device gets louder or its mute switch is turned
// off. Turning it down or muting it is not a hint to unmute, and a different output device
// (a route change) is not a gesture on the same device; neither posts. On ALSA without a server
// the output card's main playback volume and switch play that part (the hardware mixer the volume
// keys drive there: ALSAJacks.swift), watched through the card's control events; JACK has no
// such volume in the device layer, so there nothing posts it.
import Foundation
import Synchronization
import AudioDevices

extension AVAudioSession {
    /// Whether the session's output is muted (read on device threads: an atomic).
    static let outputMutedFlag = Atomic<Bool>(false)

    /// Whether the session's output is muted (false until `setOutputMuted(true)`).
    public var isOutputMuted: Bool { AVAudioSession.outputMutedFlag.load(ordering: .relaxed) }

    /// Mutes (`true`) or unmutes the app's audio output: while muted, what the app's engines,
    /// players and recorders play is replaced by zeros on the device thread (see the top of this
    /// file). Posts `outputMuteStateChangeNotification` with `muteStateKey` when the state changes.
    /// Throws `incompatibleCategory` when muting playAndRecord with a mode other than default.
    public func setOutputMuted(_ muted: Bool) throws {
        lock.lock()
        let category = _category, mode = _mode
        lock.unlock()
        if muted && category == .playAndRecord && mode != .default {
            throw AVAudioSession.error(.incompatibleCategory,
                                       "output muting needs the default mode with playAndRecord (the mode is \(mode.rawValue))")
        }
        changeOutputMute(muted)
    }

    /// Stores the mute state and posts the notification when it changed (no lock held).
    func changeOutputMute(_ muted: Bool) {
        let old = AVAudioSession.outputMutedFlag.exchange(muted, ordering: .relaxed)
        guard old != muted else { return }
        NotificationCenter.default.post(name: AVAudioSession.outputMuteStateChangeNotification, object: self,
                                        userInfo: [AVAudioSession.muteStateKey: NSNumber(value: muted)])
    }

    /// After a category or mode change: playAndRecord with a mode other than default unmutes.
    func unmuteIfUnsupported(category: Category, mode: Mode) {
        if category == .playAndRecord && mode != .default && isOutputMuted { changeOutputMute(false) }
    }

    /// Whether going from `before` to `after` (the same output device, read twice by the session
    /// monitor) is the user's hint to unmute: its volume raised, or its mute switch turned off.
    static func hintsToUnmute(from before: AudioDeviceInfo, to after: AudioDeviceInfo) -> Bool {
        guard before.selector == after.selector else { return false }
        if before.isMuted == true && after.isMuted == false { return true }
        if let old = before.volume, let new = after.volume, new > old { return true }
        return false
    }

    /// `userIntentToUnmuteOutputNotification`, without a user-info dictionary (no lock held).
    func postUserIntentToUnmuteOutput() {
        NotificationCenter.default.post(name: AVAudioSession.userIntentToUnmuteOutputNotification, object: self)
    }
}

// How the engine finds its device. The devices themselves live in the AudioDevices module
// (no Apple names): the protocol, the null device, ALSA, PulseAudio and JACK (see
// Sources/AudioDevices/AudioDeviceSelection.swift for the selection rules and `AVAUDIO_BACKEND`).
//
// Which device `AVAudioEngine.start()` opens, in order:
//   1. `OPENAVFAUDIO_DEVICE=none`: none (start() throws), to test error paths;
//   2. the selector given to `engine._setAudioDevice(_:)`, if any;
//   3. `AVAUDIO_BACKEND`;
//   4. automatic: PulseAudio when a server answers, else ALSA `default` when there is a sound
//      card, else the null device (so the test suite and headless machines behave as before);
//      JACK only when named (`jack[:CLIENT][@SERVER]`), never automatically.
//      `.ci/run` sets `AVAUDIO_BACKEND=null` so that the suite stays deterministic even on a
//      desktop; the device tests choose their devices explicitly.
// While an AVAudioSession is active, its preferences (sample rate, period, channel counts,
// preferred input) are applied to the request for devices of the session's backend.
import AudioDevices

enum AudioDeviceRegistry {
    /// Opens the engine's device. `input`: the engine uses its input node (duplex wanted; when
    /// the device cannot capture, it is opened for output alone and the input node renders silence).
    static func openDevice(selector: String?, periodFrames: Int, input: Bool) throws -> AudioDevice {
        if ProcessInfo.processInfo.environment["OPENAVFAUDIO_DEVICE"] == "none" {
            // Apple reports -10851 in com.apple.coreaudio.avfaudio when no output device is found
            // (AudioKit/AudioKit#857; see Types/AVAudioErrors.swift).
            throw avfaudioError(kAudioUnitErr_InvalidPropertyValue,
                                "AVAudioEngine could not start: no audio output device is available (OPENAVFAUDIO_DEVICE=none)")
        }
        do {
            var selection = try selector.map(AudioDeviceSelection.init(parsing:)) ?? AudioDeviceSelection.fromEnvironment()
            var request = AudioDeviceRequest(direction: input ? .duplex : .output, periodFrames: periodFrames)
            // AVAudioSession.setOutputMuted zeroes what the devices of the session's backend play
            // (Session/AVAudioSession+OutputMute.swift); a device named apart from it is not the
            // session's output.
            let sessionOutput = SessionDevicePreferences.sharesSessionBackend(selection)
            // An active AVAudioSession's preferences (rate, IO buffer duration, channels, input)
            // apply to the devices of its backend (Session/AVAudioSession+Devices.swift).
            SessionDevicePreferences.apply(to: &request, selection: &selection)
            // The app's mute states (AVAudioApplication.setInputMuted, AVAudioSession.setOutputMuted)
            // zero the captured and the played samples on the device thread.
            // A capture PCM named apart from the playback one (`alsa:PLAYBACK|CAPTURE`) was asked
            // for by name: when it cannot be opened, start() says so instead of quietly running
            // without input.
            if input, case .alsa(_, .some) = selection {
                return MutingDevice.wrap(try AudioDevices.open(selection, request: request), sessionOutput: sessionOutput)
            }
            if input, let device = try? AudioDevices.open(selection, request: request) {
                return MutingDevice.wrap(device, sessionOutput: sessionOutput)
            }
            request.direction = .output
            return MutingDevice.wrap(try AudioDevices.open(selection, request: request), sessionOutput: sessionOutput)
        } catch let error as AudioDeviceError {
            throw avfaudioError(kAudioUnitErr_InvalidPropertyValue, "AVAudioEngine could not open its audio device: \(error.message)")
        }
    }
}

/// Carries a value the compiler cannot prove Sendable into a thread we own.
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// A flag shared with a thread we own.
final class RunFlag: @unchecked Sendable {
    let value = Atomic<Bool>(false)
}

import Synchronization

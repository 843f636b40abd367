// Wraps a playback device so that `AVAudioSession.setOutputMuted(true)` zeroes what the app plays
// (AVAudioSession+OutputMute.swift). Apple documents the muted state as "samples zeroed out"
// (AVAudioSessionMuteStateKey in AVAudioSessionTypes.h) for the session's own output, not the
// system's: so this clears the app's rendered buffers after the engine has filled them, and never
// touches the sound server's sink mute, which would silence every other program too.
// Everything else passes through. On the device thread the wrapper costs one relaxed atomic load
// per period, and a memset of the output buffers while muted; it allocates nothing and takes no lock.
import AudioDevices
import Synchronization

final class OutputMutingDevice: AudioDevice {
    let inner: AudioDevice

    init(_ inner: AudioDevice) { self.inner = inner }

    /// Wraps `device` when it plays (the null device is left as it is: the engine's tests reach it
    /// by its type, and what it "plays" goes nowhere).
    static func wrap(_ device: AudioDevice) -> AudioDevice {
        device.outputChannelCount > 0 && !(device is NullAudioDevice) ? OutputMutingDevice(device) : device
    }

    var info: AudioDeviceInfo { inner.info }
    var sampleRate: Double { inner.sampleRate }
    var outputChannelCount: Int { inner.outputChannelCount }
    var inputChannelCount: Int { inner.inputChannelCount }
    var periodFrames: Int { inner.periodFrames }
    var maximumFramesPerCallback: Int { inner.maximumFramesPerCallback }
    var outputLatency: Double { inner.outputLatency }
    var inputLatency: Double { inner.inputLatency }
    var xrunCount: Int { inner.xrunCount }
    var isRealTime: Bool { inner.isRealTime }
    var name: String { inner.name }
    var hasFailed: Bool { inner.hasFailed }
    var configurationChangeHandler: (() -> Void)? {
        get { inner.configurationChangeHandler }
        set { inner.configurationChangeHandler = newValue }
    }
    func stop() { inner.stop() }

    func start(render: @escaping AudioDeviceRenderCallback) throws {
        let channels = inner.outputChannelCount
        try inner.start { cycle in
            render(cycle)
            if AVAudioSession.outputMutedFlag.load(ordering: .relaxed) {
                for c in 0..<channels { cycle.output[c].update(repeating: 0, count: cycle.frames) }
            }
        }
    }
}

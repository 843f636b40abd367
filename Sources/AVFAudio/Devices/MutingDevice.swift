// Wraps a device so that the app's mute states zero its samples on the device thread:
// `AVAudioApplication.setInputMuted(true)` clears what it captures before the engine sees it
// (AVAudioApplication.swift), and `AVAudioSession.setOutputMuted(true)` clears what the app
// rendered before the device plays it (AVAudioSession+OutputMute.swift). Apple documents the muted
// output as "samples zeroed out" (AVAudioSessionMuteStateKey in AVAudioSessionTypes.h) for the
// session's own output, not the system's: so this never touches the sound server's sink mute,
// which would silence every other program too. Everything else passes through.
//
// On the device thread the wrapper costs one relaxed atomic load per muted direction per period,
// and a memset of that direction's buffers while muted; it allocates nothing and takes no lock.
import AudioDevices
import Synchronization

final class MutingDevice: AudioDevice {
    let inner: AudioDevice
    /// Whether the input mute applies (the device captures).
    let mutesInput: Bool
    /// Whether the output mute applies (the device plays, and is the session's output).
    let mutesOutput: Bool

    private init(_ inner: AudioDevice, mutesInput: Bool, mutesOutput: Bool) {
        self.inner = inner
        self.mutesInput = mutesInput
        self.mutesOutput = mutesOutput
    }

    /// Wraps `device` for the directions it has (the output only when `sessionOutput`: a device
    /// named apart from the session's backend is not the session's output). The null device is
    /// left as it is: the engine's tests reach it by its type, it captures silence, and what it
    /// "plays" goes nowhere.
    static func wrap(_ device: AudioDevice, sessionOutput: Bool) -> AudioDevice {
        guard !(device is NullAudioDevice) else { return device }
        let input = device.inputChannelCount > 0, output = sessionOutput && device.outputChannelCount > 0
        return input || output ? MutingDevice(device, mutesInput: input, mutesOutput: output) : device
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
        let inputChannels = mutesInput ? inner.inputChannelCount : 0
        let outputChannels = mutesOutput ? inner.outputChannelCount : 0
        try inner.start { cycle in
            if inputChannels > 0, let input = cycle.input, AVAudioApplication.inputMutedFlag.load(ordering: .relaxed) {
                for c in 0..<inputChannels { input[c].update(repeating: 0, count: cycle.frames) }
            }
            render(cycle)
            if outputChannels > 0, AVAudioSession.outputMutedFlag.load(ordering: .relaxed) {
                for c in 0..<outputChannels { cycle.output[c].update(repeating: 0, count: cycle.frames) }
            }
        }
    }
}

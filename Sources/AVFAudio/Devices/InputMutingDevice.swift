// Wraps a capture device so that `AVAudioApplication.setInputMuted(true)` zeroes what it captures
// (AVAudioApplication.swift). Everything else passes through. On the device thread the wrapper
// costs one relaxed atomic load per period, and a memset of the input buffers while muted; it
// allocates nothing and takes no lock.
import AudioDevices
import Synchronization

final class InputMutingDevice: AudioDevice {
    let inner: AudioDevice

    init(_ inner: AudioDevice) { self.inner = inner }

    /// Wraps `device` when it captures (the null device is left as it is: the engine's tests
    /// reach it by its type, and it captures silence anyway).
    static func wrap(_ device: AudioDevice) -> AudioDevice {
        device.inputChannelCount > 0 && !(device is NullAudioDevice) ? InputMutingDevice(device) : device
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
        let channels = inner.inputChannelCount
        try inner.start { cycle in
            if let input = cycle.input, AVAudioApplication.inputMutedFlag.load(ordering: .relaxed) {
                for c in 0..<channels { input[c].update(repeating: 0, count: cycle.frames) }
            }
            render(cycle)
        }
    }
}

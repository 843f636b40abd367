// Audio devices behind a small protocol. The engine renders into whatever device it is given;
// backends for ALSA, PulseAudio and PipeWire arrive in a later issue and load their system
// libraries at run time (so the build never needs them). Until then `NullAudioDevice` is the
// output: clocked in real time like hardware, so taps, completion handlers and timing behave as
// they would with a sound card, on any headless machine.

/// A device that pulls rendered audio on its own thread.
protocol AudioOutputDevice: AnyObject {
    /// The device's sample rate and channel count (the output node's format).
    var sampleRate: Double { get }
    var channelCount: Int { get }
    /// Frames per render callback.
    var bufferFrames: Int { get }
    /// Seconds from a frame being rendered to being heard.
    var presentationLatency: TimeInterval { get }
    /// A human-readable name, for errors and logs.
    var name: String { get }
    /// Starts calling `render` from the device thread: fill `channelCount` channels of `frames`
    /// frames; `hostTime` is when the first frame will be presented.
    func start(render: @escaping (_ channels: UnsafePointer<UnsafeMutablePointer<Float>>, _ frames: Int, _ hostTime: UInt64) -> Void) throws
    /// Stops the device thread; returns after the last callback has finished.
    func stop()
    /// Called (on any thread but the render thread) after the device's format or route changed
    /// underneath the engine — a sample rate change, a device unplugged, a new default device.
    /// The device has stopped calling `render` by then. Set by the engine.
    var configurationChangeHandler: (() -> Void)? { get set }
}

/// Which device `AVAudioEngine.start()` opens. `OPENAVFAUDIO_DEVICE=none` simulates a machine
/// with no output device (start() throws), for testing error paths.
enum AudioDeviceRegistry {
    static func defaultOutputDevice() throws -> AudioOutputDevice {
        if ProcessInfo.processInfo.environment["OPENAVFAUDIO_DEVICE"] == "none" {
            // Apple reports -10851 in com.apple.coreaudio.avfaudio when no output device is found
            // (AudioKit/AudioKit#857; see Types/AVAudioErrors.swift).
            throw avfaudioError(kAudioUnitErr_InvalidPropertyValue,
                                "AVAudioEngine could not start: no audio output device is available (OPENAVFAUDIO_DEVICE=none)")
        }
        return NullAudioDevice(sampleRate: 48_000, channelCount: 2, bufferFrames: 512)
    }
}

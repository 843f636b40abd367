// The device layer: what the engine needs from a sound card, and nothing with an Apple name.
//
// A device is opened for output, input or both (duplex, one clock), and then driven by its own
// thread: the backend's blocking write/read (ALSA) or its server's callbacks (PulseAudio, JACK) call a
// render callback with planar Float32 buffers. The engine above renders its plan into them.
//
// Contract of the render callback (the same on every backend):
//   * it runs on the device's real-time thread (or the sound server client's thread), one call
//     at a time, never concurrently with itself;
//   * `frames` is at most the device's `maximumFramesPerCallback`; the engine serves a callback
//     larger than its own maximum cycle in several engine cycles (never with silence);
//   * `output` holds `outputChannelCount` planar buffers to fill completely; `input` holds
//     `inputChannelCount` planar buffers of captured audio for the same frames (nil when the
//     device has no input);
//   * nothing the device does around the callback allocates or locks (its buffers are allocated
//     when it starts).
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// One render callback's buffers.
public struct AudioDeviceCycle {
    /// `outputChannelCount` planar Float32 buffers of `frames` frames, to fill.
    public let output: UnsafePointer<UnsafeMutablePointer<Float>>
    /// `inputChannelCount` planar Float32 buffers holding the captured frames; nil without input.
    public let input: UnsafePointer<UnsafeMutablePointer<Float>>?
    /// Frames in this callback (at most the device's `maximumFramesPerCallback`).
    public let frames: Int
    /// Host time (CLOCK_MONOTONIC nanoseconds) at which the first output frame is presented.
    public let hostTime: UInt64

    public init(output: UnsafePointer<UnsafeMutablePointer<Float>>, input: UnsafePointer<UnsafeMutablePointer<Float>>?,
                frames: Int, hostTime: UInt64) {
        self.output = output
        self.input = input
        self.frames = frames
        self.hostTime = hostTime
    }
}

/// Called by the device thread for each period (see the contract at the top of this file).
public typealias AudioDeviceRenderCallback = (AudioDeviceCycle) -> Void

/// What a device is opened for.
public enum AudioDeviceDirection: Sendable, Equatable {
    case output, input, duplex
    public var hasOutput: Bool { self != .input }
    public var hasInput: Bool { self != .output }
}

/// A device as enumeration reports it.
public struct AudioDeviceInfo: Sendable, Equatable, CustomStringConvertible {
    /// The backend: "alsa", "pulse", "jack" or "null".
    public var backend: String
    /// The backend's name for it: an ALSA PCM name (`hw:0,0`, `default`), a PulseAudio sink or
    /// source name, a JACK client name (with `@SERVER` for a named server). `backend:id` is what
    /// `AVAUDIO_BACKEND` accepts.
    public var id: String
    /// A human-readable description.
    public var name: String
    public var outputChannels: Int
    public var inputChannels: Int
    /// Rates the device accepts (the nominal one first); empty when unknown.
    public var sampleRates: [Double]
    /// The rate the device runs at when not asked for another (0 when unknown).
    public var nominalSampleRate: Double
    public var isDefaultOutput: Bool
    public var isDefaultInput: Bool
    /// The device's volume as the sound server reports it (PulseAudio: the average of its channel
    /// volumes, 1 = 100 %); nil when the backend has none.
    public var volume: Double?
    /// Whether the sound server has the device muted (PulseAudio's sink/source mute switch, which
    /// belongs to the user); nil when the backend has none.
    public var isMuted: Bool?

    // What the device says it is (nil when the backend does not say). Values are the backend's
    // own words, lowercased, never mapped to another vocabulary here: PulseAudio's (and
    // pipewire-pulse's) device properties, and for ALSA what the kernel reports about the card.

    /// The bus the device hangs on: PulseAudio's `device.bus` (`usb`, `bluetooth`, `pci`,
    /// `firewire`…); for an ALSA card `usb` when the kernel lists a USB id for it
    /// (`/proc/asound/cardN/usbid`), else the subsystem its sysfs device belongs to (`pci`…).
    public var bus: String?
    /// What kind of thing it is: PulseAudio's `device.form_factor` (`internal`, `speaker`,
    /// `headphone`, `headset`, `hands-free`, `handset`, `car`, `hifi`, `tv`, `webcam`,
    /// `microphone`, `computer`, `portable`). ALSA does not say.
    public var formFactor: String?
    /// PulseAudio's `device.class`: `sound` (hardware), `monitor` (a sink's monitor source),
    /// `abstract` (a null sink or source), `filter` (a processing sink such as echo-cancel).
    public var deviceClass: String?
    /// The API behind it: PulseAudio's `device.api` (`alsa`, `bluez`, `bluez5`…).
    public var api: String?
    /// The connector in use as the backend names it: PulseAudio's active port
    /// (`analog-output-headphones`, `analog-output-speaker`, `analog-input-mic`,
    /// `analog-input-headset-mic`, `hdmi-output-0`, `iec958-stereo-output`…); for an ALSA `hw:`/
    /// `plughw:` PCM the kernel's name for that PCM device (`/proc/asound/cardN/pcmDp/info`:
    /// `hdmi 0`, `alc892 analog`, `alc892 digital`), for an `hdmi:`/`iec958:` PCM the plugin name.
    public var activePort: String?
    /// The Bluetooth profile in use: PulseAudio's `bluetooth.protocol` or PipeWire's
    /// `api.bluez5.profile` (`a2dp_sink`, `a2dp_source`, `headset_head_unit`,
    /// `handsfree_head_unit`, `headset_audio_gateway`…; PipeWire's dashes as underscores).
    public var bluetoothProfile: String?

    /// Whether the backend reported any of the properties above.
    public var reportsProperties: Bool {
        bus != nil || formFactor != nil || deviceClass != nil || api != nil || activePort != nil || bluetoothProfile != nil
    }

    public init(backend: String, id: String, name: String, outputChannels: Int, inputChannels: Int, sampleRates: [Double],
                nominalSampleRate: Double, isDefaultOutput: Bool, isDefaultInput: Bool) {
        self.backend = backend
        self.id = id
        self.name = name
        self.outputChannels = outputChannels
        self.inputChannels = inputChannels
        self.sampleRates = sampleRates
        self.nominalSampleRate = nominalSampleRate
        self.isDefaultOutput = isDefaultOutput
        self.isDefaultInput = isDefaultInput
    }

    /// `backend:id`, the selection string.
    public var selector: String { "\(backend):\(id)" }

    public var description: String {
        "\(selector) “\(name)” out \(outputChannels) ch, in \(inputChannels) ch, \(Int(nominalSampleRate)) Hz"
            + (isDefaultOutput ? " [default output]" : "") + (isDefaultInput ? " [default input]" : "")
    }
}

/// What the client asks of a device when opening it. The device may give something close
/// (an ALSA hw device's nearest period, the server's buffer sizes); read back what it gave from
/// the device's properties.
public struct AudioDeviceRequest: Sendable, Equatable {
    public var direction: AudioDeviceDirection
    /// nil: the device's nominal rate (48 kHz when it has none).
    public var sampleRate: Double?
    public var outputChannels: Int
    public var inputChannels: Int
    /// Frames per period (ALSA period; PulseAudio minimum request / fragment size).
    public var periodFrames: Int
    /// Periods in the device buffer (ALSA); PulseAudio's target latency is `periodFrames × periods`.
    public var periods: Int
    /// The rate to ask a separate capture device for (ALSA `alsa:PLAYBACK|CAPTURE`); nil: the
    /// output's rate. The device takes the nearest it offers and resamples its input to the
    /// output's rate (InputClockBridge).
    public var inputSampleRate: Double?

    public init(direction: AudioDeviceDirection = .output, sampleRate: Double? = nil, outputChannels: Int = 2,
                inputChannels: Int = 2, periodFrames: Int = 512, periods: Int = 2) {
        self.direction = direction
        self.sampleRate = sampleRate
        self.outputChannels = outputChannels
        self.inputChannels = inputChannels
        self.periodFrames = periodFrames
        self.periods = periods
    }
}

/// A device the engine renders into. Backends: `ALSAAudioDevice`, `PulseAudioDevice`,
/// `JACKAudioDevice`, `NullAudioDevice`.
public protocol AudioDevice: AnyObject {
    /// The backend ("alsa", "pulse", "jack", "null") and its name for the device.
    var info: AudioDeviceInfo { get }
    /// The running rate and channel counts (0 channels in a direction the device does not have).
    var sampleRate: Double { get }
    var outputChannelCount: Int { get }
    var inputChannelCount: Int { get }
    /// The period the device was opened with (frames).
    var periodFrames: Int { get }
    /// The most frames one render callback asks for.
    var maximumFramesPerCallback: Int { get }
    /// Seconds from a frame being rendered to being presented at the device (device and server
    /// buffers), as the backend measures it; an estimate from the buffer sizes before it runs.
    var outputLatency: Double { get }
    /// Seconds from a frame reaching the device's input to being handed to the render callback.
    var inputLatency: Double { get }
    /// Underruns and overruns seen since the device was opened (recovered each time): output
    /// that ran dry, and input that overflowed — the capture device's own buffer (ALSA's -EPIPE,
    /// PulseAudio's overflow) or, in duplex, the InputClockBridge the captured frames wait in,
    /// when the render stalled longer than it holds (one count per episode) — plus input reads
    /// that found the bridge short.
    var xrunCount: Int { get }
    /// Whether the device thread obtained real-time scheduling (SCHED_FIFO); false until it ran.
    var isRealTime: Bool { get }
    /// A human-readable name, for errors and logs.
    var name: String { get }
    /// Starts the device thread calling `render` (see the contract at the top of this file).
    func start(render: @escaping AudioDeviceRenderCallback) throws
    /// Stops the device; returns after the last callback has finished — except when called from
    /// the device thread itself (a render block stopping the engine), which cannot wait for
    /// itself: then the thread stops after the current callback.
    func stop()
    /// True once the device failed beyond recovery (unplugged, server gone): it cannot start
    /// again; open a new one.
    var hasFailed: Bool { get }
    /// Called on another thread when the device's format or route changed or the device went
    /// away (the device has stopped calling `render` by then). Set by the engine.
    var configurationChangeHandler: (() -> Void)? { get set }
}

/// Why a device could not be opened or run: a sentence for the user, and an errno-like code.
public struct AudioDeviceError: Error, CustomStringConvertible, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The backend's system library is not installed.
        case libraryMissing
        /// No such device, or no server answers.
        case notFound
        /// The device refused the configuration, or failed while running.
        case failed
    }
    public let kind: Kind
    public let message: String
    /// The backend's error code (a negative errno for ALSA, a pa_error_code for PulseAudio, a
    /// jack_status_t for JACK), 0 when none.
    public let code: Int32

    public init(_ kind: Kind, _ message: String, code: Int32 = 0) {
        self.kind = kind
        self.message = message
        self.code = code
    }
    public var description: String { message }
}

/// CLOCK_MONOTONIC in nanoseconds: the engine's host clock.
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// What a device thread reports to the control side (atomics: written on the device thread,
/// read anywhere).
package final class DeviceStatus: @unchecked Sendable {
    package init() {}
    /// Underruns and overruns recovered.
    package let xruns = Atomic<Int>(0)
    /// Whether the device thread got SCHED_FIFO.
    package let realTime = Atomic<Bool>(false)
    /// The last measured output delay in frames (0 until measured).
    package let delayFrames = Atomic<Int>(0)
    /// The last measured input delay in frames (0 until measured).
    package let inputDelayFrames = Atomic<Int>(0)
    /// The device failed beyond recovery.
    package let failed = Atomic<Bool>(false)
    /// The device thread's kernel thread id (0 until it ran), for a RealtimeKit request.
    package let threadID = Atomic<Int32>(0)
    /// How the device thread's own SCHED_FIFO request went: `directPending` until it ran.
    package let directRealTime = Atomic<Int>(0)
    package static let directPending = 0, directGranted = 1, directRefused = 2

    /// Before a device thread starts: its real-time outcome is unknown again.
    package func resetRealTime() {
        _ = KernelThreadID.gettid   // (resolved here, on the control thread)
        realTime.store(false, ordering: .relaxed)
        threadID.store(0, ordering: .relaxed)
        directRealTime.store(Self.directPending, ordering: .releasing)
    }
}

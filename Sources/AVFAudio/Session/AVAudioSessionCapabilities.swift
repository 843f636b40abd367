// AVAudioSessionCapability and AVAudioSessionPortExtensionBluetoothMicrophone (iOS 26 / macOS 26):
// whether a port supports a capability and whether it is on now. Apple's Bluetooth microphone
// extension reports two: far-field capture (`AVAudioSession.CategoryOptions.farFieldInput`) and
// full-bandwidth "high-quality recording" (`.bluetoothHighQualityRecording`, certain AirPods).
//
// On Linux both are unsupported on every port, and so never enabled: BlueZ and the sound servers
// (PulseAudio, PipeWire) offer a headset's microphone only through HFP/HSP (narrow- or
// wide-band speech codecs) or LE Audio, with no far-field mode to request and no equivalent of
// Apple's full-bandwidth AirPods recording. Saying "unsupported" is the truth a client can act on
// (it falls back to HFP, as Apple's documentation tells it to); the category options themselves
// are accepted or refused by `setCategory` as the header's rules say.
import Foundation

/// Whether a capability is supported, and whether it is currently enabled.
open class AVAudioSessionCapability: NSObject, @unchecked Sendable {
    /// Whether the capability is supported.
    public let isSupported: Bool
    /// Whether the capability is enabled (never without support).
    public let isEnabled: Bool

    init(supported: Bool, enabled: Bool) {
        isSupported = supported
        isEnabled = supported && enabled
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioSessionCapability else { return false }
        return isSupported == other.isSupported && isEnabled == other.isEnabled
    }
    open override var hash: Int { (isSupported ? 2 : 0) | (isEnabled ? 1 : 0) }
    open override var description: String { "<AVAudioSessionCapability: supported = \(isSupported); enabled = \(isEnabled)>" }
}

/// The capabilities of a Bluetooth microphone port (`AVAudioSessionPortDescription.bluetoothMicrophoneExtension`).
open class AVAudioSessionPortExtensionBluetoothMicrophone: NSObject, @unchecked Sendable {
    /// Far-field input capture: unsupported here (see the top of this file).
    public let farFieldCapture: AVAudioSessionCapability
    /// Bluetooth high-quality (full-bandwidth) recording: unsupported here (see the top of this file).
    public let highQualityRecording: AVAudioSessionCapability

    override init() {
        farFieldCapture = AVAudioSessionCapability(supported: false, enabled: false)
        highQualityRecording = AVAudioSessionCapability(supported: false, enabled: false)
        super.init()
    }

    open override var description: String {
        "<AVAudioSessionPortExtensionBluetoothMicrophone: farFieldCapture = \(farFieldCapture); highQualityRecording = \(highQualityRecording)>"
    }
}

// AVAudioApplication: app-wide audio state — record permission and input muting.
//
// Linux has no per-app microphone permission, so the permission is `.granted` and a request
// answers true. Input muting is real: while muted, every capture device the app's engines open
// delivers zeros (the device registry wraps capture devices in `MutingDevice`, which clears
// the captured buffers on the device thread before the engine sees them — an atomic load and a
// memset per period, nothing else), as Apple documents: "inputs of all audio clients relating
// to this application will have their samples zeroed out". Changing the state posts
// `inputMuteStateChangeNotification` with `muteStateKey` (an NSNumber Bool).
import Foundation
import Synchronization

open class AVAudioApplication: NSObject, @unchecked Sendable {
    private static let instance = AVAudioApplication()
    /// The app's audio application object.
    open class var shared: AVAudioApplication { instance }

    /// Whether the app's audio input is muted (read on device threads: an atomic).
    static let inputMutedFlag = Atomic<Bool>(false)
    private let lock = NSLock()
    private var muteHandler: ((Bool) -> Bool)?

    private override init() { super.init() }

    /// The record permission values (Apple spells the type in lower case, like the property).
    public enum recordPermission: Int, Sendable {
        case undetermined = 0x756E_6474 // 'undt'
        case denied = 0x6465_6E79 // 'deny'
        case granted = 0x6772_6E74 // 'grnt'
    }

    /// Microphone injection permission values (iOS 18.2).
    public enum MicrophoneInjectionPermission: Int, Sendable {
        case serviceDisabled = 0x7372_6473 // 'srds'
        case undetermined = 0x756E_6474 // 'undt'
        case denied = 0x6465_6E79 // 'deny'
        case granted = 0x6772_6E74 // 'grnt'
    }

    /// Posted when the input mute state changes; `userInfo[muteStateKey]` holds the new state.
    public static let inputMuteStateChangeNotification = NSNotification.Name("AVAudioApplicationInputMuteStateChangeNotification")
    /// The user-info key of `inputMuteStateChangeNotification` (an NSNumber Bool).
    public static let muteStateKey = "AVAudioApplicationMuteStateKey"

    /// Linux has no per-app microphone permission: granted.
    open var recordPermission: AVAudioApplication.recordPermission { .granted }

    /// Answers true (on a global queue).
    open class func requestRecordPermission(completionHandler response: @escaping @Sendable (Bool) -> Void) {
        DispatchQueue.global().async { response(true) }
    }

    /// Answers true.
    open class func requestRecordPermission() async -> Bool { true }

    /// No microphone injection service exists here.
    open var microphoneInjectionPermission: MicrophoneInjectionPermission { .serviceDisabled }
    /// Answers `.serviceDisabled` (on a global queue): Apple answers at once "if the service is in a
    /// disabled state", and no injection service exists here.
    open class func requestMicrophoneInjectionPermission(completionHandler response: @escaping @Sendable (MicrophoneInjectionPermission) -> Void) {
        DispatchQueue.global().async { response(.serviceDisabled) }
    }
    open class func requestMicrophoneInjectionPermission() async -> MicrophoneInjectionPermission { .serviceDisabled }

    /// Whether the app's input is muted.
    open var isInputMuted: Bool { AVAudioApplication.inputMutedFlag.load(ordering: .relaxed) }

    /// Mutes or unmutes every input of the app (see the top of this file). Calls the handler given
    /// to `setInputMuteStateChangeHandler(_:)` first; when it returns false the state is kept and
    /// this throws.
    open func setInputMuted(_ muted: Bool) throws {
        lock.lock()
        let handler = muteHandler
        lock.unlock()
        if let handler, !handler(muted) {
            throw NSError(domain: NSOSStatusErrorDomain, code: AVAudioSession.ErrorCode.unspecified.rawValue, userInfo: [
                NSLocalizedDescriptionKey: "AVAudioApplication: the input mute state change handler refused to \(muted ? "mute" : "unmute") the input"])
        }
        let old = AVAudioApplication.inputMutedFlag.exchange(muted, ordering: .relaxed)
        guard old != muted else { return }
        NotificationCenter.default.post(name: AVAudioApplication.inputMuteStateChangeNotification, object: self,
                                        userInfo: [AVAudioApplication.muteStateKey: NSNumber(value: muted)])
    }

    /// Sets the block that carries out the app's own muting logic (macOS); it returns whether it succeeded.
    open func setInputMuteStateChangeHandler(_ inputMuteHandler: ((Bool) -> Bool)?) throws {
        lock.lock(); muteHandler = inputMuteHandler; lock.unlock()
    }
}

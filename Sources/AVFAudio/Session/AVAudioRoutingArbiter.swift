// AVAudioRoutingArbiter (macOS): asks the system to route Bluetooth headphones that switch
// automatically between devices (AirPods Automatic Switching) to this Mac. Linux has no
// cross-device arbitration, so participation always succeeds at once and `leave()` has nothing
// to undo: what Apple's arbiter does on a Mac with no such headphones.
import Foundation

open class AVAudioRoutingArbiter: NSObject, @unchecked Sendable {
    private static let instance = AVAudioRoutingArbiter()
    /// The shared arbiter.
    open class var shared: AVAudioRoutingArbiter { instance }

    private let lock = NSLock()
    private var category: Category?

    private override init() { super.init() }

    /// What the app is about to do with audio.
    public enum Category: Int, Sendable {
        case playback = 0x706C_6179 // 'play'
        case playAndRecord = 0x706E_7264 // 'pnrd'
        case playAndRecordVoice = 0x706E_7276 // 'pnrv'
    }

    /// Begins arbitration for `category`; `handler(defaultDeviceChanged, error)` runs on a global
    /// queue with `false, nil` (no route moved: no arbitrated device exists).
    open func begin(category: Category, completionHandler handler: @escaping @Sendable (Bool, Error?) -> Void) {
        lock.lock(); self.category = category; lock.unlock()
        DispatchQueue.global().async { handler(false, nil) }
    }

    /// Begins arbitration; returns whether the default device changed (never, here).
    open func begin(category: Category) async throws -> Bool {
        lock.withLock { self.category = category }
        return false
    }

    /// Ends arbitration.
    open func leave() {
        lock.lock(); category = nil; lock.unlock()
    }
}

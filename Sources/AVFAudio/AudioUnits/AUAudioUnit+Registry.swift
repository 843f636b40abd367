// AUAudioUnit's process-wide registry of subclasses (`registerSubclass(_:as:name:version:)`)
// and asynchronous instantiation, as AudioToolbox's AudioComponentRegister does it in process.
import Foundation

/// A subclass registered for a component description.
struct AUAudioUnitRegistration {
    let unitClass: AUAudioUnit.Type
    let description: AudioComponentDescription
    /// "Manufacturer: Name".
    let name: String
    let version: UInt32
}

/// The registry: a list behind an `NSLock` (a pthread mutex, which Thread Sanitizer understands;
/// with `Synchronization.Mutex`, whose futex it does not see, TSan reported two registrations from
/// two threads as a race).
private final class Registrations: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [AUAudioUnitRegistration] = []
    func withLock<R>(_ body: (inout [AUAudioUnitRegistration]) -> R) -> R {
        lock.lock(); defer { lock.unlock() }
        return body(&list)
    }
}

private let registrations = Registrations()

extension AUAudioUnit {
    /// Registers an `AUAudioUnit` subclass for a component description, in this process. Later
    /// instantiations of that description (`instantiate(with:...)`, `AVAudioUnit.instantiate`,
    /// `AVAudioUnitEffect(audioComponentDescription:)`) create the class; the component appears in
    /// `AVAudioUnitComponentManager`. Registering a description again replaces the earlier class.
    /// `name` follows the convention "Manufacturer: Unit name".
    public class func registerSubclass(_ cls: AnyClass, as componentDescription: AudioComponentDescription, name: String, version: UInt32) {
        guard let unitClass = cls as? AUAudioUnit.Type else {
            preconditionFailure("AUAudioUnit.registerSubclass: \(cls) is not a subclass of AUAudioUnit")
        }
        let entry = AUAudioUnitRegistration(unitClass: unitClass, description: componentDescription, name: name, version: version)
        registrations.withLock { list in
            list.removeAll { $0.description.matchesExactly(componentDescription) }
            list.append(entry)
        }
        NotificationCenter.default.post(name: AVAudioUnitComponentManager.registrationsChangedNotification, object: nil)
    }

    /// Every registered subclass, in registration order.
    static var registeredUnits: [AUAudioUnitRegistration] { registrations.withLock { $0 } }

    /// The registration for a description (type, subtype and manufacturer equal).
    static func registration(for d: AudioComponentDescription) -> AUAudioUnitRegistration? {
        registrations.withLock { list in list.last { $0.description.matchesExactly(d) } }
    }

    /// Creates a unit: a registered subclass, else a built-in unit (its AVAudioUnit's
    /// `auAudioUnit`). Throws an NSOSStatusErrorDomain error when no component matches.
    static func make(_ d: AudioComponentDescription, options: AudioComponentInstantiationOptions) throws -> AUAudioUnit {
        if let r = registration(for: d) {
            return try r.unitClass.init(__registeredComponentDescription: d, options: options)
        }
        if let node = AVAudioUnit.makeBuiltIn(d) { return node.auAudioUnit }
        throw noComponentError(d)
    }

    static func noComponentError(_ d: AudioComponentDescription) -> NSError {
        // The code is -3000 (the Component Manager's invalidComponentID), what developers report
        // Apple's instantiate returning for a description no component matches; not in Apple's
        // documentation.
        error(-3000, "no audio unit is registered for type '\(fourCharCodeString(d.componentType))' subtype '\(fourCharCodeString(d.componentSubType))' manufacturer '\(fourCharCodeString(d.componentManufacturer))'; register one with AUAudioUnit.registerSubclass(_:as:name:version:)")
    }

    /// Creates a unit asynchronously; `completionHandler` runs on another thread with the unit or an error.
    public class func instantiate(with componentDescription: AudioComponentDescription, options: AudioComponentInstantiationOptions = [],
                                completionHandler: @escaping (AUAudioUnit?, (any Error)?) -> Void) {
        let d = componentDescription
        DispatchQueue.global().async {
            do { completionHandler(try make(d, options: options), nil) } catch { completionHandler(nil, error) }
        }
    }

    /// Creates a unit.
    public class func instantiate(with componentDescription: AudioComponentDescription,
                                options: AudioComponentInstantiationOptions = []) async throws -> AUAudioUnit {
        try make(componentDescription, options: options)
    }
}

extension AudioComponentDescription {
    /// Same type, subtype and manufacturer.
    func matchesExactly(_ other: AudioComponentDescription) -> Bool {
        componentType == other.componentType && componentSubType == other.componentSubType
            && componentManufacturer == other.componentManufacturer
    }
}

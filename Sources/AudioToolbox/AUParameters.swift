// AUParameterNode: what parameters and groups of an audio unit's parameter tree share — identity
// (identifier, key path, display name), observers, and the implementor hooks through which an
// audio unit's implementation stores and supplies values (AudioToolbox's AUParameters.h and
// AUAudioUnitImplementation.h). AUParameter is in AUParameter.swift, groups and the tree in
// AUParameterGroup.swift, the factory methods in AUParameterTree+Factory.swift.
//
// Threading (design note)
// * Any thread may set values, add and remove observers, or set implementor hooks. Each node
//   keeps its observers and hooks behind its own lock; the lock is never held while client code
//   (an observer, a hook) runs: callers take a snapshot, release the lock, then call.
// * A value set on the control side (`value = `, `setValue(_:originator:...)`) calls the unit's
//   `implementorValueObserver` and then the observers of the parameter and of every group above
//   it, synchronously on the setting thread, skipping the observer whose token is the originator.
//   Apple documents only that observers run "in an arbitrary thread context"; calling them on the
//   setter's thread is one such context and keeps "set, then read what observers saw" ordered.
// * A value changed on the render side (automation applied by the DSP, through the package hook
//   `AUParameter.noteRenderValue(_:)`) only stores the value and raises two atomic flags; the
//   parameter notifier's thread delivers it to observers (not to the implementor, whose change it
//   is) within 10 to 80 ms — asynchronously, on the control side, as Apple's throttled observers.
//   See ParameterChangeNotifier.swift.
// * Parameter values are stored atomically (the bits of a Float), so the render thread and any
//   control thread read and write them without a lock.
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value of an audio unit parameter.
public typealias AUValue = Float
/// Numeric identifier of an audio unit parameter. Addresses are not necessarily persistent unless
/// the unit promises so; hosts should bind to key paths.
public typealias AUParameterAddress = UInt64

/// Identifies the different types of parameter automation events.
public enum AUParameterAutomationEventType: UInt32, Sendable {
    /// The event contains an updated value for the parameter.
    case value = 0
    /// The event marks an initial "touch" gesture on a UI element.
    case touch = 1
    /// The event marks a final "release" gesture on a UI element.
    case release = 2
}

/// An event recording the change of a parameter at a host time.
public struct AURecordedParameterEvent: Sendable {
    /// The host time at which the event occurred.
    public var hostTime: UInt64
    /// The address of the parameter whose value changed.
    public var address: AUParameterAddress
    /// The value of the parameter at that time.
    public var value: AUValue

    public init() { hostTime = 0; address = 0; value = 0 }
    public init(hostTime: UInt64, address: AUParameterAddress, value: AUValue) {
        self.hostTime = hostTime
        self.address = address
        self.value = value
    }
}

/// An event recording the change of a parameter, or a touch/release gesture, at a host time.
public struct AUParameterAutomationEvent: Sendable {
    /// The host time at which the event occurred.
    public var hostTime: UInt64
    /// The address of the parameter whose value changed.
    public var address: AUParameterAddress
    /// The value of the parameter at that time.
    public var value: AUValue
    /// The type of the event.
    public var eventType: AUParameterAutomationEventType
    public var reserved: UInt64

    public init() { hostTime = 0; address = 0; value = 0; eventType = .value; reserved = 0 }
    public init(hostTime: UInt64, address: AUParameterAddress, value: AUValue, eventType: AUParameterAutomationEventType,
                reserved: UInt64) {
        self.hostTime = hostTime
        self.address = address
        self.value = value
        self.eventType = eventType
        self.reserved = reserved
    }
}

/// Called after the value of a parameter has changed: its address and current value.
public typealias AUParameterObserver = (_ address: AUParameterAddress, _ value: AUValue) -> Void
/// Called to record parameter changes: the number of events and the events.
public typealias AUParameterRecordingObserver = (_ numberEvents: Int, _ events: UnsafePointer<AURecordedParameterEvent>) -> Void
/// Called to record parameter changes and gestures: the number of events and the events.
public typealias AUParameterAutomationObserver = (_ numberEvents: Int, _ events: UnsafePointer<AUParameterAutomationEvent>) -> Void
/// A token representing an installed observer; pass it to `removeParameterObserver(_:)`, or as the
/// originator of a change that observer should not hear about.
public typealias AUParameterObserverToken = UnsafeMutableRawPointer

/// Notifies an audio unit implementation that a host changed a parameter's value.
public typealias AUImplementorValueObserver = (_ param: AUParameter, _ value: AUValue) -> Void
/// Fetches a parameter's current value from an audio unit implementation.
public typealias AUImplementorValueProvider = (_ param: AUParameter) -> AUValue
/// Converts a parameter's value (nil: the current value) to a string.
public typealias AUImplementorStringFromValueCallback = (_ param: AUParameter, _ value: UnsafePointer<AUValue>?) -> String
/// Converts a string to a parameter's value.
public typealias AUImplementorValueFromStringCallback = (_ param: AUParameter, _ string: String) -> AUValue
/// Returns a node's display name abbreviated to the requested length.
public typealias AUImplementorDisplayNameWithLengthCallback = (_ node: AUParameterNode, _ desiredLength: Int) -> String

/// A node of an audio unit's parameter tree: an `AUParameter` or an `AUParameterGroup`.
open class AUParameterNode: NSObject, NSSecureCoding {
    /// What a node keeps behind its lock.
    struct State {
        var observers: [ObserverEntry] = []
        var valueObserver: AUImplementorValueObserver?
        var valueProvider: AUImplementorValueProvider?
        var stringFromValue: AUImplementorStringFromValueCallback?
        var valueFromString: AUImplementorValueFromStringCallback?
        var displayNameWithLength: AUImplementorDisplayNameWithLengthCallback?
    }

    enum Observer {
        case value(AUParameterObserver)
        case recording(AUParameterRecordingObserver)
        case automation(AUParameterAutomationObserver)
    }

    /// An installed observer, with the count of its calls in progress (so that removing it can
    /// wait for them) and whether it was removed (so that a snapshot taken before the removal
    /// does not call it after).
    final class ObserverEntry: @unchecked Sendable {
        let token: AUParameterObserverToken
        let observer: Observer
        let inFlight = Atomic<Int>(0)
        let removed = Atomic<Bool>(false)
        init(token: AUParameterObserverToken, observer: Observer) {
            self.token = token
            self.observer = observer
        }
    }

    private let nodeIdentifier: String
    private let nodeDisplayName: String
    /// The group this node belongs to (set once, when the group is created).
    weak var parent: AUParameterNode?
    let state = Mutex(State())

    package init(identifier: String, displayName: String) {
        nodeIdentifier = identifier
        nodeDisplayName = displayName
        super.init()
    }

    // MARK: NSSecureCoding (as Apple's nodes adopt it: hosts archive parameter trees)
    //
    // What is archived is the tree's structure and values — identifiers, names, addresses,
    // ranges, units, flags, value strings, dependents, values, children — not the implementor
    // hooks or observers (closures, as on Apple platforms, where they do not cross an archive).

    public class var supportsSecureCoding: Bool { true }

    /// Every class a node's archive holds. (Passed for every key: swift-corelibs-foundation checks
    /// a nested object's values against the classes allowed where that object was decoded, so a
    /// parameter decoded as a child must allow strings and numbers there.)
    static var codedClasses: [AnyClass] {
        [NSString.self, NSNumber.self, NSArray.self, AUParameter.self, AUParameterGroup.self, AUParameterTree.self]
    }

    /// The object archived under `key`, or nil when there is none. (Checked first: asking a
    /// secure swift-corelibs-foundation unarchiver for an absent key fails the whole decode.)
    static func decodedObject(_ coder: NSCoder, _ key: String) -> Any? {
        guard coder.containsValue(forKey: key) else { return nil }
        return coder.decodeObject(of: codedClasses, forKey: key)
    }

    public required init?(coder: NSCoder) {
        guard let identifier = AUParameterNode.decodedObject(coder, "identifier") as? NSString,
              let name = AUParameterNode.decodedObject(coder, "displayName") as? NSString else { return nil }
        nodeIdentifier = identifier as String
        nodeDisplayName = name as String
        super.init()
    }

    open func encode(with coder: NSCoder) {
        coder.encode(NSString(string: nodeIdentifier), forKey: "identifier")
        coder.encode(NSString(string: nodeDisplayName), forKey: "displayName")
    }

    deinit {
        let count = state.withLock { $0.observers.count }
        if count > 0 { ParameterChangeNotifier.shared.observersRemoved(count) }
    }

    /// A non-localized, permanent name, unique among the node's siblings.
    open var identifier: String { nodeIdentifier }

    /// The identifiers of the node's parents and its own, separated by periods (the tree itself
    /// contributes nothing): "lfo.rate".
    open var keyPath: String {
        guard let parent, !(parent is AUParameterTree), !parent.identifier.isEmpty else { return identifier }
        return parent.keyPath + "." + identifier
    }

    /// The localized name to display.
    open var displayName: String { nodeDisplayName }

    /// The display name abbreviated to about `maximumLength` characters: what
    /// `implementorDisplayNameWithLengthCallback` returns, or (Apple's default) `displayName`.
    open func displayName(withLength maximumLength: Int) -> String {
        if let callback = state.withLock({ $0.displayNameWithLength }) { return callback(self, maximumLength) }
        return displayName
    }

    // MARK: Observers

    /// Adds an observer of value changes of this parameter, or of every parameter of this group or
    /// tree. Returns a token for `removeParameterObserver(_:)` and for `setValue(_:originator:)`.
    open func token(byAddingParameterObserver observer: @escaping AUParameterObserver) -> AUParameterObserverToken {
        add(.value(observer))
    }

    /// Adds an observer that receives changes as `AURecordedParameterEvent`s (with host times).
    open func token(byAddingParameterRecordingObserver observer: @escaping AUParameterRecordingObserver) -> AUParameterObserverToken {
        add(.recording(observer))
    }

    /// Adds an observer that receives changes and touch/release gestures as
    /// `AUParameterAutomationEvent`s (with host times and event types).
    open func token(byAddingParameterAutomationObserver observer: @escaping AUParameterAutomationObserver) -> AUParameterObserverToken {
        add(.automation(observer))
    }

    /// Removes an observer added to this node. Unknown tokens are ignored. As Apple documents,
    /// this waits until calls of that observer in progress on other threads have returned, so
    /// what the observer uses may be released afterwards. (Apple's waits deadlock when called
    /// from inside an observer; here a thread that is running an observer does not wait.)
    open func removeParameterObserver(_ token: AUParameterObserverToken) {
        let removed = state.withLock { s -> [ObserverEntry] in
            let gone = s.observers.filter { $0.token == token }
            s.observers.removeAll { $0.token == token }
            return gone
        }
        guard !removed.isEmpty else { return }
        ParameterChangeNotifier.shared.observersRemoved(removed.count)
        for entry in removed { entry.removed.store(true, ordering: .sequentiallyConsistent) }
        guard ObserverCallDepth.current == 0 else { return }
        for entry in removed {
            while entry.inFlight.load(ordering: .sequentiallyConsistent) > 0 { usleep(50) }
        }
    }

    private func add(_ observer: Observer) -> AUParameterObserverToken {
        let token = ParameterChangeNotifier.shared.makeToken()
        state.withLock { $0.observers.append(ObserverEntry(token: token, observer: observer)) }
        ParameterChangeNotifier.shared.observerAdded()
        return token
    }

    /// Tells the observers of this node and of every group above it about a change of
    /// `parameter`, except the one whose token is `originator`. Runs client code: call with no
    /// lock held.
    func notifyObservers(of parameter: AUParameter, value: AUValue, originator: AUParameterObserverToken?,
                         hostTime: UInt64, eventType: AUParameterAutomationEventType) {
        var node: AUParameterNode? = self
        while let current = node {
            let observers = current.state.withLock { $0.observers }
            for entry in observers where entry.token != originator {
                entry.inFlight.wrappingAdd(1, ordering: .sequentiallyConsistent)
                defer { entry.inFlight.wrappingSubtract(1, ordering: .sequentiallyConsistent) }
                guard !entry.removed.load(ordering: .sequentiallyConsistent) else { continue }
                ObserverCallDepth.current += 1
                defer { ObserverCallDepth.current -= 1 }
                switch entry.observer {
                case .value(let block):
                    block(parameter.address, value)
                // The events go out in storage a whole stride long: an observer that copies the
                // buffer it is given (`Array(UnsafeBufferPointer(start:count:))`) reads count ×
                // stride bytes, 24 for a 20-byte AURecordedParameterEvent, which overran a plain
                // local variable (Address Sanitizer, 2026-11-27).
                case .recording(let block):
                    withUnsafeTemporaryAllocation(of: AURecordedParameterEvent.self, capacity: 1) { events in
                        events.initialize(repeating: AURecordedParameterEvent(hostTime: hostTime, address: parameter.address, value: value))
                        block(1, events.baseAddress!)
                    }
                case .automation(let block):
                    withUnsafeTemporaryAllocation(of: AUParameterAutomationEvent.self, capacity: 1) { events in
                        events.initialize(repeating: AUParameterAutomationEvent(hostTime: hostTime, address: parameter.address, value: value,
                                                                                eventType: eventType, reserved: 0))
                        block(1, events.baseAddress!)
                    }
                }
            }
            node = current.parent
        }
    }

    // MARK: Implementor hooks (AUAudioUnitImplementation.h)
    //
    // Of interest only to audio unit implementations. Setting a hook on a group or on the tree
    // sets it on every node below as well, which is how Apple's audio unit samples and templates
    // use them (`parameterTree.implementorValueObserver = { ... }` reaches every parameter).
    // A hook never set reads as Apple's default behaviour.

    /// Receives every externally generated change of a parameter's value (a host setting
    /// `value`): the implementation stores it in its signal processing state.
    open var implementorValueObserver: AUImplementorValueObserver {
        get { state.withLock { $0.valueObserver } ?? { _, _ in } }
        set { setHook(newValue) { $0.valueObserver = $1 } }
    }

    /// Supplies a parameter's current value from the implementation: asked whenever `value` is
    /// read; the parameter stores what it returns.
    open var implementorValueProvider: AUImplementorValueProvider {
        get { state.withLock { $0.valueProvider } ?? { $0.storedValue } }
        set { setHook(newValue) { $0.valueProvider = $1 } }
    }

    /// Converts values to strings (`AUParameter.string(fromValue:)`); a nil value means the
    /// parameter's current value.
    open var implementorStringFromValueCallback: AUImplementorStringFromValueCallback {
        get { state.withLock { $0.stringFromValue } ?? { $0.defaultString(fromValue: $1) } }
        set { setHook(newValue) { $0.stringFromValue = $1 } }
    }

    /// Converts strings to values (`AUParameter.value(from:)`).
    open var implementorValueFromStringCallback: AUImplementorValueFromStringCallback {
        get { state.withLock { $0.valueFromString } ?? { $0.defaultValue(from: $1) } }
        set { setHook(newValue) { $0.valueFromString = $1 } }
    }

    /// Abbreviates display names (`displayName(withLength:)`).
    open var implementorDisplayNameWithLengthCallback: AUImplementorDisplayNameWithLengthCallback {
        get { state.withLock { $0.displayNameWithLength } ?? { node, _ in node.displayName } }
        set { setHook(newValue) { $0.displayNameWithLength = $1 } }
    }

    /// Stores a hook here and on every node below.
    func setHook<Hook>(_ hook: Hook, _ store: (inout State, Hook) -> Void) {
        state.withLock { store(&$0, hook) }
        if let group = self as? AUParameterGroup {
            for child in group.children { child.setHook(hook, store) }
        }
    }
}

/// How many observer calls the current thread is inside (a thread-local counter), so that an
/// observer removing itself or another observer does not wait for its own call to return.
enum ObserverCallDepth {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    static var current: Int {
        get { Int(bitPattern: pthread_getspecific(key)) }
        set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
    }
}

// AUParameter, AUParameterGroup, AUParameterTree: the parameter objects of an audio unit.
//
// A parameter's value lives on the control side; setting it forwards the change to the unit's
// render object (through the unit's lock-free parameter queue), where it takes effect at the start
// of the next render cycle — or at an exact sample with `AUAudioUnit.scheduleParameterBlock`.

public typealias AUParameterObserver = (AUParameterAddress, AUValue) -> Void
public typealias AUParameterObserverToken = UnsafeMutableRawPointer

/// How a host-time automation event is meant (Apple's enum; values are stored for observers).
public enum AUParameterAutomationEventType: UInt32, Sendable {
    case value = 0, touch = 1, release = 2
}

/// A node of a parameter tree.
open class AUParameterNode: NSObject {
    public let identifier: String
    public let displayName: String
    weak var parent: AUParameterNode?
    private var observers: [(token: AUParameterObserverToken, block: AUParameterObserver)] = []
    private var nextToken = 1

    init(identifier: String, displayName: String) {
        self.identifier = identifier
        self.displayName = displayName
        super.init()
    }

    /// The node's dotted path from the tree's root ("group.parameter").
    open var keyPath: String {
        guard let parent, !(parent is AUParameterTree) else { return identifier }
        return parent.keyPath + "." + identifier
    }

    open func displayName(withLength maximumLength: Int) -> String { String(displayName.prefix(maximumLength)) }

    /// Adds an observer of value changes below this node; returns a token to remove it.
    open func token(byAddingParameterObserver observer: @escaping AUParameterObserver) -> AUParameterObserverToken {
        let token = UnsafeMutableRawPointer(bitPattern: nextToken)!
        nextToken += 1
        observers.append((token, observer))
        return token
    }

    open func removeParameterObserver(_ token: AUParameterObserverToken) {
        observers.removeAll { $0.token == token }
    }

    func notify(_ address: AUParameterAddress, _ value: AUValue, originator: AUParameterObserverToken?) {
        for o in observers where o.token != originator { o.block(address, value) }
        parent?.notify(address, value, originator: originator)
    }
}

/// A single parameter.
open class AUParameter: AUParameterNode {
    public let address: AUParameterAddress
    public let minValue: AUValue
    public let maxValue: AUValue
    public let unit: AudioUnitParameterUnit
    public let unitName: String?
    public let flags: AudioUnitParameterOptions
    public let valueStrings: [String]?
    public let dependentParameters: [NSNumber]?
    private var storedValue: AUValue
    /// Set by the owning unit: where changes go (the render object).
    package var sink: ((AUParameterAddress, AUValue, AUEventSampleTime, AUAudioFrameCount) -> Void)?

    package init(identifier: String, name: String, address: AUParameterAddress, min: AUValue, max: AUValue,
         unit: AudioUnitParameterUnit, unitName: String?, flags: AudioUnitParameterOptions,
         valueStrings: [String]?, dependentParameters: [NSNumber]?, value: AUValue? = nil) {
        self.address = address
        minValue = min
        maxValue = max
        self.unit = unit
        self.unitName = unitName
        self.flags = flags
        self.valueStrings = valueStrings
        self.dependentParameters = dependentParameters
        storedValue = value ?? min
        super.init(identifier: identifier, displayName: name)
    }

    /// The current value. Setting clamps to `minValue...maxValue` and takes effect at the next
    /// render cycle.
    open var value: AUValue {
        get { storedValue }
        set { setValue(newValue, originator: nil) }
    }

    open func setValue(_ value: AUValue, originator: AUParameterObserverToken?) {
        setValue(value, originator: originator, atHostTime: 0)
    }

    /// Sets the value at a host time (0: now). The change reaches the render object at the sample
    /// that host time corresponds to when the unit is rendering, else at the next cycle.
    open func setValue(_ value: AUValue, originator: AUParameterObserverToken?, atHostTime hostTime: UInt64) {
        setValue(value, originator: originator, atHostTime: hostTime, eventType: .value)
    }

    open func setValue(_ value: AUValue, originator: AUParameterObserverToken?, atHostTime hostTime: UInt64,
                       eventType: AUParameterAutomationEventType) {
        let clamped = Swift.min(maxValue, Swift.max(minValue, value.isNaN ? minValue : value))
        storedValue = clamped
        sink?(address, clamped, hostTime == 0 ? AUEventSampleTimeImmediate : AUEventSampleTime(bitPattern: hostTime) | hostTimeFlag, 0)
        notify(address, clamped, originator: originator)
    }

    /// Internal: update the stored value without forwarding (the render side already has it).
    package func setStoredValue(_ value: AUValue) { storedValue = value }

    open func string(fromValue value: UnsafePointer<AUValue>?) -> String {
        let v = value?.pointee ?? storedValue
        if let strings = valueStrings, let i = Int(exactly: v.rounded()), strings.indices.contains(i) { return strings[i] }
        return String(format: "%.3f", v)
    }

    open func value(from string: String) -> AUValue {
        if let strings = valueStrings, let i = strings.firstIndex(of: string) { return AUValue(i) }
        return AUValue(string) ?? storedValue
    }
}

/// Marks an event time that is a host time, not a sample time (internal encoding).
package let hostTimeFlag = AUEventSampleTime(bitPattern: 0x4000_0000_0000_0000)

/// A group of parameters.
open class AUParameterGroup: AUParameterNode {
    public let children: [AUParameterNode]

    init(identifier: String, name: String, children: [AUParameterNode]) {
        self.children = children
        super.init(identifier: identifier, displayName: name)
        for c in children { c.parent = self }
    }

    /// Every parameter below this group, depth first.
    open var allParameters: [AUParameter] {
        children.flatMap { node -> [AUParameter] in
            if let p = node as? AUParameter { return [p] }
            if let g = node as? AUParameterGroup { return g.allParameters }
            return []
        }
    }
}

/// The root of an audio unit's parameters.
open class AUParameterTree: AUParameterGroup {
    init(children: [AUParameterNode]) {
        super.init(identifier: "", name: "", children: children)
    }

    /// The parameter at `address`.
    open func parameter(withAddress address: AUParameterAddress) -> AUParameter? {
        allParameters.first { $0.address == address }
    }

    /// The parameter with a v2 ID (addresses are IDs for built-in units), any scope and element.
    open func parameter(withID paramID: AudioUnitParameterID, scope: AudioUnitScope, element: AudioUnitElement) -> AUParameter? {
        parameter(withAddress: AUParameterAddress(paramID))
    }

    open class func createParameter(withIdentifier identifier: String, name: String, address: AUParameterAddress,
                                    min: AUValue, max: AUValue, unit: AudioUnitParameterUnit, unitName: String?,
                                    flags: AudioUnitParameterOptions, valueStrings: [String]?,
                                    dependentParameters: [NSNumber]?) -> AUParameter {
        AUParameter(identifier: identifier, name: name, address: address, min: min, max: max, unit: unit, unitName: unitName,
                    flags: flags, valueStrings: valueStrings, dependentParameters: dependentParameters)
    }

    open class func createGroup(withIdentifier identifier: String, name: String, children: [AUParameterNode]) -> AUParameterGroup {
        AUParameterGroup(identifier: identifier, name: name, children: children)
    }

    open class func createTree(withChildren children: [AUParameterNode]) -> AUParameterTree {
        AUParameterTree(children: children)
    }
}

// AUParameter: one parameter of an audio unit — its range, unit, flags, strings, and value.
//
// The value is stored atomically. Setting it on the control side stores the value, hands it to
// the unit (the `sink` of AVFAudio's built-in units, the `implementorValueObserver` of an
// AUAudioUnit subclass) and tells the observers (see the design note in AUParameters.swift).
import Synchronization

/// A single audio unit parameter.
open class AUParameter: AUParameterNode {
    private let parameterAddress: AUParameterAddress
    private let minimum: AUValue
    private let maximum: AUValue
    private let parameterUnit: AudioUnitParameterUnit
    private let parameterUnitName: String?
    private let parameterFlags: AudioUnitParameterOptions
    private let strings: [String]?
    private let dependents: [NSNumber]?
    /// The value's bits, read and written from any thread.
    private let bits: Atomic<UInt32>
    /// Set by the render side when it changed the value; cleared by the notifier's thread.
    let renderChanged = Atomic<Bool>(false)
    /// The notifier (immortal), reached from the render side without reference counting.
    private let notifier = Unmanaged.passUnretained(ParameterChangeNotifier.shared)

    /// Set by AVFAudio's built-in units: forwards a change set on the control side to the unit's
    /// render object (address, value, event time, ramp frames). The event time is
    /// `AUEventSampleTimeImmediate`, or a host time marked with `hostTimeFlag`.
    package var sink: ((AUParameterAddress, AUValue, AUEventSampleTime, AUAudioFrameCount) -> Void)?

    /// A parameter with its value (default: `min`).
    package init(identifier: String, name: String, address: AUParameterAddress, min: AUValue, max: AUValue,
                 unit: AudioUnitParameterUnit, unitName: String?, flags: AudioUnitParameterOptions,
                 valueStrings: [String]?, dependentParameters: [NSNumber]?, value: AUValue? = nil) {
        parameterAddress = address
        minimum = min
        maximum = max
        parameterUnit = unit
        parameterUnitName = unitName
        parameterFlags = flags
        strings = valueStrings
        dependents = dependentParameters
        bits = Atomic((value ?? min).bitPattern)
        super.init(identifier: identifier, displayName: name)
        ParameterChangeNotifier.shared.register(self)
    }

    public required init?(coder: NSCoder) {
        guard coder.containsValue(forKey: "address") else { return nil }
        parameterAddress = AUParameterAddress(bitPattern: coder.decodeInt64(forKey: "address"))
        minimum = coder.decodeFloat(forKey: "min")
        maximum = coder.decodeFloat(forKey: "max")
        parameterUnit = AudioUnitParameterUnit(rawValue: UInt32(truncatingIfNeeded: coder.decodeInt64(forKey: "unit"))) ?? .generic
        parameterUnitName = (AUParameterNode.decodedObject(coder, "unitName") as? NSString).map { $0 as String }
        parameterFlags = AudioUnitParameterOptions(rawValue: UInt32(truncatingIfNeeded: coder.decodeInt64(forKey: "flags")))
        strings = (AUParameterNode.decodedObject(coder, "valueStrings") as? [Any])?.compactMap { ($0 as? NSString).map { $0 as String } ?? ($0 as? String) }
        dependents = (AUParameterNode.decodedObject(coder, "dependentParameters") as? [Any])?.compactMap { $0 as? NSNumber }
        bits = Atomic(coder.decodeFloat(forKey: "value").bitPattern)
        super.init(coder: coder)
        ParameterChangeNotifier.shared.register(self)
    }

    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(Int64(bitPattern: parameterAddress), forKey: "address")
        coder.encode(minimum, forKey: "min")
        coder.encode(maximum, forKey: "max")
        coder.encode(Int64(parameterUnit.rawValue), forKey: "unit")
        if let parameterUnitName { coder.encode(NSString(string: parameterUnitName), forKey: "unitName") }
        coder.encode(Int64(parameterFlags.rawValue), forKey: "flags")
        if let strings { coder.encode(NSArray(array: strings.map { NSString(string: $0) }), forKey: "valueStrings") }
        if let dependents { coder.encode(NSArray(array: dependents), forKey: "dependentParameters") }
        coder.encode(value, forKey: "value")
    }

    /// The parameter's minimum value.
    open var minValue: AUValue { minimum }
    /// The parameter's maximum value.
    open var maxValue: AUValue { maximum }
    /// The parameter's unit of measurement.
    open var unit: AudioUnitParameterUnit { parameterUnit }
    /// The localized name of the unit (for `.customUnit`).
    open var unitName: String? { parameterUnitName }
    /// The parameter's characteristics.
    open var flags: AudioUnitParameterOptions { parameterFlags }
    /// The parameter's address.
    open var address: AUParameterAddress { parameterAddress }
    /// For `.indexed` parameters, the localized name of each integer value from `minValue` up
    /// (AudioUnitProperties.h, kAudioUnitProperty_ParameterValueStrings: one name per value, "the
    /// same as the range between the parameters min and max values").
    open var valueStrings: [String]? { strings }
    /// The addresses (as NSNumbers) of parameters whose values may change when this one does.
    open var dependentParameters: [NSNumber]? { dependents }

    /// The value as stored, without asking the implementation.
    package var storedValue: AUValue { AUValue(bitPattern: bits.load(ordering: .relaxed)) }

    /// The current value. Reading asks the implementation (`implementorValueProvider`) when it
    /// supplies values, and stores the answer; setting is `setValue(_:originator:)` with no
    /// originator.
    open var value: AUValue {
        get {
            guard let provider = state.withLock({ $0.valueProvider }) else { return storedValue }
            let v = provider(self)
            bits.store(v.bitPattern, ordering: .relaxed)
            return v
        }
        set { setValue(newValue, originator: nil) }
    }

    /// Sets the value, telling every observer except `originator`'s.
    open func setValue(_ value: AUValue, originator: AUParameterObserverToken?) {
        setValue(value, originator: originator, atHostTime: 0, eventType: .value)
    }

    /// Sets the value, preserving the host time of the gesture that initiated the change (0: now).
    open func setValue(_ value: AUValue, originator: AUParameterObserverToken?, atHostTime hostTime: UInt64) {
        setValue(value, originator: originator, atHostTime: hostTime, eventType: .value)
    }

    /// Sets the value with the host time and type (value, touch, release) of the UI gesture that
    /// initiated it; automation observers receive both, other observers the value. From an audio playback engine, schedule
    /// changes with `AUAudioUnit.scheduleParameterBlock` instead.
    ///
    /// The value is clamped to `minValue...maxValue` (NaN becomes `minValue`). Apple does not
    /// document what happens to values out of range; this project's built-in units rely on the
    /// clamp. The host time reaches observers' events as given, or the current host time when 0
    /// (Apple does not document that case either).
    open func setValue(_ value: AUValue, originator: AUParameterObserverToken?, atHostTime hostTime: UInt64,
                       eventType: AUParameterAutomationEventType) {
        let clamped = Swift.min(maximum, Swift.max(minimum, value.isNaN ? minimum : value))
        bits.store(clamped.bitPattern, ordering: .relaxed)
        sink?(parameterAddress, clamped,
              hostTime == 0 ? AUEventSampleTimeImmediate : AUEventSampleTime(bitPattern: hostTime) | hostTimeFlag, 0)
        if let observer = state.withLock({ $0.valueObserver }) { observer(self, clamped) }
        notifyObservers(of: self, value: clamped, originator: originator,
                        hostTime: hostTime == 0 ? ParameterChangeNotifier.hostTime() : hostTime, eventType: eventType)
    }

    /// Updates the stored value without forwarding it or telling anyone (the render side already
    /// has it).
    package func setStoredValue(_ value: AUValue) { bits.store(value.bitPattern, ordering: .relaxed) }

    /// Render side: the unit's DSP changed the value (automation, a ramp reaching its end).
    /// Stores it and marks the parameter so that observers hear of it asynchronously on the
    /// notifier's thread, within 10 to 80 ms. Real-time safe: two atomic stores, no allocation, no
    /// lock, no reference counting.
    package func noteRenderValue(_ value: AUValue) {
        bits.store(value.bitPattern, ordering: .relaxed)
        if !renderChanged.exchange(true, ordering: .acquiringAndReleasing) {
            notifier._withUnsafeGuaranteedRef { $0.pending.store(true, ordering: .releasing) }
        }
    }

    /// A textual representation of `value` (nil: the current value): what
    /// `implementorStringFromValueCallback` returns, or by default the value's string in
    /// `valueStrings` when it has one, else the number with three decimals.
    open func string(fromValue value: UnsafePointer<AUValue>?) -> String {
        if let callback = state.withLock({ $0.stringFromValue }) { return callback(self, value) }
        return defaultString(fromValue: value)
    }

    /// The value a textual representation stands for: what `implementorValueFromStringCallback`
    /// returns, or by default the value whose string in `valueStrings` it is, else the number
    /// parsed, else the current value.
    open func value(from string: String) -> AUValue {
        if let callback = state.withLock({ $0.valueFromString }) { return callback(self, string) }
        return defaultValue(from: string)
    }

    // The defaults are this project's (Apple documents the conversions only for parameters with
    // `flag_ValuesHaveStrings`, whose implementation supplies them).
    func defaultString(fromValue value: UnsafePointer<AUValue>?) -> String {
        let v = value?.pointee ?? self.value   // the current value: asks the implementation if it supplies values
        if let strings, let i = Int(exactly: (v - minimum).rounded()), strings.indices.contains(i) { return strings[i] }
        return String(format: "%.3f", v)
    }

    func defaultValue(from string: String) -> AUValue {
        if let strings, let i = strings.firstIndex(of: string) { return minimum + AUValue(i) }
        return AUValue(string.trimmingCharacters(in: .whitespaces)) ?? storedValue
    }

    /// A copy for a group made from a template, `offset` added to the address.
    func copy(addressOffset offset: AUParameterAddress) -> AUParameter {
        AUParameter(identifier: identifier, name: displayName, address: parameterAddress &+ offset, min: minimum, max: maximum,
                    unit: parameterUnit, unitName: parameterUnitName, flags: parameterFlags, valueStrings: strings,
                    dependentParameters: dependents, value: storedValue)
    }
}

/// Marks an event time that is a host time, not a sample time (internal encoding between a
/// parameter's `sink` and AVFAudio's render objects).
package let hostTimeFlag = AUEventSampleTime(bitPattern: 0x4000_0000_0000_0000)

// Client code written the way AudioKit and Apple's AUv3 templates build and bind parameters, with
// `import AudioToolbox` alone: a parameter definition struct, `AUParameterTree.createParameter`
// from it, an `AudioUnitParameterOptions.default` extension, a tree subscript through key-value
// coding, implementor hooks set on the tree that bind it to a DSP kernel, and AudioKit's
// automation recording (`token(byAddingParameterAutomationObserver:)` with touch/release
// gestures).
import AudioToolbox
import Testing

// MARK: Client code (AudioKit style)

/// Definition of a node parameter (AudioKit's NodeParameterDef).
struct NodeParameterDef {
    var identifier: String
    var name: String
    var address: AUParameterAddress
    var defaultValue: AUValue
    var range: ClosedRange<AUValue>
    var unit: AudioUnitParameterUnit
    var flags: AudioUnitParameterOptions

    init(identifier: String, name: String, address: AUParameterAddress, defaultValue: AUValue,
         range: ClosedRange<AUValue>, unit: AudioUnitParameterUnit, flags: AudioUnitParameterOptions = .default) {
        self.identifier = identifier
        self.name = name
        self.address = address
        self.defaultValue = defaultValue
        self.range = range
        self.unit = unit
        self.flags = flags
    }
}

extension AudioUnitParameterOptions {
    /// AudioKit's default options.
    static let `default`: AudioUnitParameterOptions = [.flag_IsReadable, .flag_IsWritable, .flag_CanRamp]
}

extension AUParameterTree {
    /// Creates a parameter from a definition, at its default value.
    static func createParameter(_ def: NodeParameterDef) -> AUParameter {
        let parameter = AUParameterTree.createParameter(withIdentifier: def.identifier, name: def.name, address: def.address,
                                                        min: def.range.lowerBound, max: def.range.upperBound,
                                                        unit: def.unit, unitName: nil, flags: def.flags,
                                                        valueStrings: nil, dependentParameters: nil)
        parameter.value = def.defaultValue
        return parameter
    }

    /// Looks up parameters by key.
    subscript(key: String) -> AUParameter? {
        value(forKey: key) as? AUParameter
    }
}

/// The DSP side of a small audio unit: the values the render code uses, by address.
final class FilterKernel {
    private let lock = NSLock()
    private var values: [AUParameterAddress: AUValue] = [:]
    private(set) var setCount = 0

    func setParameter(_ address: AUParameterAddress, _ value: AUValue) {
        lock.lock(); defer { lock.unlock() }
        values[address] = value
        setCount += 1
    }

    func getParameter(_ address: AUParameterAddress) -> AUValue {
        lock.lock(); defer { lock.unlock() }
        return values[address] ?? 0
    }
}

/// A unit's parameters, bound to its kernel as the AUv3 template does (hooks set on the tree).
final class FilterParameters {
    static let cutoffDef = NodeParameterDef(identifier: "cutoffFrequency", name: "Cutoff Frequency", address: 0,
                                            defaultValue: 1000, range: 12 ... 20_000, unit: .hertz,
                                            flags: [.flag_IsReadable, .flag_IsWritable, .flag_CanRamp, .flag_DisplayLogarithmic])
    static let resonanceDef = NodeParameterDef(identifier: "resonance", name: "Resonance", address: 1,
                                               defaultValue: 0.5, range: 0 ... 2, unit: .generic)
    let kernel = FilterKernel()
    let tree: AUParameterTree

    init() {
        let cutoff = AUParameterTree.createParameter(Self.cutoffDef)
        let resonance = AUParameterTree.createParameter(Self.resonanceDef)
        tree = AUParameterTree.createTree(withChildren: [cutoff, resonance])
        // the template copies the defaults into the kernel before installing the hooks
        for parameter in tree.allParameters { kernel.setParameter(parameter.address, parameter.value) }
        let kernel = self.kernel
        tree.implementorValueObserver = { parameter, value in kernel.setParameter(parameter.address, value) }
        tree.implementorValueProvider = { parameter in kernel.getParameter(parameter.address) }
        tree.implementorStringFromValueCallback = { parameter, valuePointer in
            let value = valuePointer?.pointee ?? parameter.value
            return parameter.unit == .hertz ? String(format: "%.0f Hz", value) : String(format: "%.2f", value)
        }
    }
}

// MARK: Tests

@Suite struct AudioKitStyleParameterTests {
    @Test func createParameterFromADefinitionKeepsEveryAttribute() throws {
        let parameters = FilterParameters()
        let cutoff = try #require(parameters.tree["cutoffFrequency"])
        #expect(cutoff.identifier == "cutoffFrequency")
        #expect(cutoff.displayName == "Cutoff Frequency")
        #expect(cutoff.keyPath == "cutoffFrequency")
        #expect(cutoff.address == 0)
        #expect(cutoff.minValue == 12 && cutoff.maxValue == 20_000)
        #expect(cutoff.unit == .hertz)
        #expect(cutoff.unitName == nil && cutoff.valueStrings == nil && cutoff.dependentParameters == nil)
        #expect(cutoff.flags.contains(.flag_CanRamp))
        #expect(cutoff.flags.intersection(.flag_DisplayMask) == .flag_DisplayLogarithmic)
        #expect(cutoff.value == 1000)
        #expect(parameters.tree.parameter(withAddress: 1) === parameters.tree["resonance"])
        #expect(parameters.tree.allParameters.map(\.identifier) == ["cutoffFrequency", "resonance"])
        #expect(parameters.tree["missing"] == nil)
    }

    @Test func hostChangesReachTheKernelThroughTheTreesValueObserver() throws {
        let parameters = FilterParameters()
        let cutoff = try #require(parameters.tree.parameter(withAddress: 0))
        let before = parameters.kernel.setCount
        cutoff.value = 440
        #expect(parameters.kernel.getParameter(0) == 440)
        #expect(parameters.kernel.setCount == before + 1)
        cutoff.setValue(30_000, originator: nil)     // clamped to the range first
        #expect(parameters.kernel.getParameter(0) == 20_000)
        // the other parameter's hook is the tree's too
        parameters.tree["resonance"]?.value = 1.5
        #expect(parameters.kernel.getParameter(1) == 1.5)
    }

    @Test func readingValueAsksTheKernel() throws {
        let parameters = FilterParameters()
        let resonance = try #require(parameters.tree["resonance"])
        parameters.kernel.setParameter(1, 1.25)     // the DSP changed it (a preset, a MIDI CC)
        #expect(resonance.value == 1.25)
        #expect(parameters.tree.value(forKeyPath: "resonance.value") as? NSNumber == NSNumber(value: Float(1.25)))
    }

    @Test func stringsComeFromTheTreesCallback() throws {
        let parameters = FilterParameters()
        let cutoff = try #require(parameters.tree["cutoffFrequency"])
        var value: AUValue = 2500
        #expect(cutoff.string(fromValue: &value) == "2500 Hz")
        cutoff.value = 880
        #expect(cutoff.string(fromValue: nil) == "880 Hz")
        #expect(parameters.tree["resonance"]?.string(fromValue: nil) == "0.50")
    }

    /// AudioKit's NodeParameter.recordAutomation / beginTouch / endTouch.
    @Test func automationRecordingSeesTouchValueAndRelease() throws {
        let parameters = FilterParameters()
        let cutoff = try #require(parameters.tree["cutoffFrequency"])
        let recorded = Locked<[AUParameterAutomationEvent]>([])
        let token = cutoff.token(byAddingParameterAutomationObserver: { numberEvents, events in
            for index in 0 ..< numberEvents { recorded.withLock { $0.append(events[index]) } }
        })
        // beginTouch(): the current value with a .touch event, at host time 0 ("now")
        cutoff.setValue(cutoff.value, originator: nil, atHostTime: 0, eventType: .touch)
        cutoff.setValue(2000, originator: nil, atHostTime: 0, eventType: .value)
        cutoff.setValue(3000, originator: nil, atHostTime: 0, eventType: .release)
        cutoff.removeParameterObserver(token)
        cutoff.value = 4000                          // after stopRecording(): not recorded

        let events = recorded.withLock { $0 }
        #expect(events.map(\.eventType) == [.touch, .value, .release])
        #expect(events.map(\.value) == [1000, 2000, 3000])
        #expect(events.allSatisfy { $0.address == 0 && $0.hostTime > 0 })
        #expect(zip(events, events.dropFirst()).allSatisfy { $0.hostTime <= $1.hostTime })
        #expect(parameters.kernel.getParameter(0) == 4000)
    }
}

/// A value behind a lock, for observers called on other threads.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func withLock<R>(_ body: (inout Value) -> R) -> R {
        lock.lock(); defer { lock.unlock() }
        return body(&value)
    }
}

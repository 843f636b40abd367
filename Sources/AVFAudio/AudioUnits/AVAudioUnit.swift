// AVAudioUnit and its effect subclasses: nodes whose processing is an audio unit.
//
// An AVAudioUnit wraps an AUAudioUnit (`auAudioUnit`). Two kinds exist:
// * a client's unit (a registered AUAudioUnit subclass, from `AVAudioUnit.instantiate`,
//   `AVAudioUnitEffect(audioComponentDescription:)` or a subclass calling it): the node renders it
//   through its render block (AUAudioUnit+Engine.swift);
// * Apple's built-in units rebuilt here (EQ, delay, reverb, distortion, varispeed, time-pitch):
//   their render objects run our DSP kernels directly and own the unit's event scheduler; the
//   `AUAudioUnit` reports their parameters, latency, tail and bypass.

/// A node that processes audio with an audio unit.
open class AVAudioUnit: AVAudioNode {
    /// The component that identifies this unit.
    public let audioComponentDescription: AudioComponentDescription
    /// The v3 audio unit: parameter tree, parameter scheduling, render block.
    public let auAudioUnit: AUAudioUnit
    var parameterByAddress: [AUParameterAddress: AUParameter] = [:]
    /// True for the units this library implements itself (their render objects run our kernels).
    let isBuiltIn: Bool
    var effectRenderer: EffectRenderer? { renderer as? EffectRenderer }
    /// The render object as parameter-event receiver (built-in effects and time effects alike).
    var unitRenderer: AudioUnitRenderer? { renderer as? AudioUnitRenderer }

    /// A built-in unit: our render object, our parameters.
    init(description: AudioComponentDescription, renderer: NodeRenderer, parameters: [AUParameter], inputs: Int = 1, outputs: Int = 1) {
        audioComponentDescription = description
        isBuiltIn = true
        let tree = AUParameterTree.createTree(withChildren: parameters)
        if let effect = renderer as? EffectRenderer {
            auAudioUnit = BuiltInEffectAudioUnit(builtIn: description, parameterTree: tree, renderer: effect)
        } else if let timeEffect = renderer as? TimeEffectRenderer {
            auAudioUnit = BuiltInTimeEffectAudioUnit(builtIn: description, parameterTree: tree, renderer: timeEffect)
        } else {
            auAudioUnit = BuiltInAudioUnit(builtIn: description, parameterTree: tree, scheduler: (renderer as? AudioUnitRenderer)?.scheduler)
        }
        super.init(renderer: renderer, inputs: inputs, outputs: outputs)
        auAudioUnit.owner = self
        for p in parameters {
            parameterByAddress[p.address] = p
            // (the render object, not the node: a unit instantiated on its own outlives its node)
            let target = renderer as? AudioUnitRenderer
            p.sink = { [weak target] address, value, time, ramp in
                target?.schedule(address: address, value: value, at: time, ramp: ramp)
            }
        }
    }

    /// A node wrapping any audio unit: one input and output per bus of the unit, rendered
    /// through its render block.
    init(wrapping unit: AUAudioUnit) {
        audioComponentDescription = unit.componentDescription
        isBuiltIn = false
        auAudioUnit = unit
        super.init(renderer: AUAudioUnitNodeRenderer(unit: unit), inputs: unit.inputBusses.count, outputs: unit.outputBusses.count)
        for (i, bus) in unit.outputBusses.enumerated() { outputFormats[i] = bus.format }
    }

    /// The unit as a v2 handle. On Linux there is no AudioComponentInstance API to pass it to;
    /// it identifies `auAudioUnit` (its address) for code that stores or compares it.
    open var audioUnit: AudioUnit { OpaquePointer(Unmanaged.passUnretained(auAudioUnit).toOpaque()) }

    /// The unit's name.
    open var name: String {
        if !isBuiltIn { return auAudioUnit.audioUnitName ?? String(describing: type(of: auAudioUnit)) }
        return String(describing: type(of: self)).replacingOccurrences(of: "AVAudioUnit", with: "AU")
    }
    /// The unit's manufacturer.
    open var manufacturerName: String { isBuiltIn ? "Apple" : (auAudioUnit.manufacturerName ?? "") }
    /// The unit's version.
    open var version: Int { isBuiltIn ? 0x0001_0000 : Int(auAudioUnit.componentVersion) }

    /// Processing latency in seconds (what the DSP kernel reports for the current format, or
    /// the wrapped unit's `latency`).
    open override var latency: TimeInterval {
        if !isBuiltIn { return auAudioUnit.latency }
        let rate = outputFormats.first?.sampleRate ?? 44_100
        return Double(unitRenderer?.latencyFrames ?? 0) / rate
    }

    /// Seconds of output after the input falls silent.
    var tailTime: TimeInterval { isBuiltIn ? (effectRenderer?.tailTime ?? 0) : auAudioUnit.tailTime }

    /// Loads an `.aupreset` property list (Apple's layout: component codes, "name", "data" with
    /// the parameter values; see AUAudioUnit+Presets.swift) into the unit. Also reads the simple
    /// form { "parameters": { "<address>": value } }. Throws when the file cannot be read, is not
    /// a preset dictionary, or belongs to another unit.
    open func loadPreset(at url: URL) throws {
        let data = try Data(contentsOf: url)
        let root: Any
        do { root = try readPropertyList(data) } catch {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioUnitErr_InvalidFile), userInfo: [
                NSLocalizedDescriptionKey: "'\(url.path)' is not a property list (\(error))"])
        }
        guard let plist = root as? [String: Any] else {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioUnitErr_InvalidFile), userInfo: [
                NSLocalizedDescriptionKey: "'\(url.path)' is not an audio unit preset (a property list dictionary)"])
        }
        if let values = (plist["parameters"] as? [String: Any]) ?? (plist["ParameterValues"] as? [String: Any]) {
            for (key, value) in values {
                guard let address = AUParameterAddress(key), let p = auAudioUnit.parameterTree?.parameter(withAddress: address),
                      let v = AVAudioFormat.number(value) else { continue }
                p.value = AUValue(v)
            }
            return
        }
        do { try auAudioUnit.applyFullState(plist) } catch let error as NSError {
            throw NSError(domain: error.domain, code: error.code, userInfo: [
                NSLocalizedDescriptionKey: "'\(url.path)': \(error.localizedDescription)"])
        }
    }

    override func willSetInputFormat(_ format: AVAudioFormat, bus: AVAudioNodeBus) -> String? { nil }

    /// Effects neither resample nor remix: an output connection must keep the sample rate and
    /// channel count of the connected input (a programmer error otherwise, as on Apple platforms).
    override func willSetOutputFormat(_ format: AVAudioFormat, bus: AVAudioNodeBus) -> String? {
        guard bus == 0, inputFormats.count > 0, let input = inputFormats[0] else { return nil }
        if format.hasSameRateAndChannels(as: input) { return nil }
        return "\(name) processes in its input format, \(input) (input bus 0), and cannot output \(format); "
            + "connect its output with that format (or nil) and convert in a mixer downstream"
    }

    /// Effects process in their input format: the output follows the input.
    override func didSetInputFormat(_ format: AVAudioFormat?, bus: AVAudioNodeBus) {
        if let format, bus == 0, outputFormats.count > 0 { outputFormats[0] = format }
        if let format, bus == 0 { (auAudioUnit as? BuiltInAudioUnit)?.nodeFormatDidChange(format) }
    }

    /// Creates a parameter for a built-in unit.
    static func parameter(_ identifier: String, _ name: String, address: AUParameterAddress, min: AUValue, max: AUValue,
                          unit: AudioUnitParameterUnit, value: AUValue) -> AUParameter {
        AUParameter(identifier: identifier, name: name, address: address, min: min, max: max, unit: unit, unitName: nil,
                    flags: [.flag_IsReadable, .flag_IsWritable, .flag_CanRamp], valueStrings: nil, dependentParameters: nil, value: value)
    }

    func parameterValue(_ address: AUParameterAddress) -> AUValue { parameterByAddress[address]?.value ?? 0 }
    func setParameterValue(_ address: AUParameterAddress, _ value: AUValue) { parameterByAddress[address]?.value = value }

    // MARK: Instantiation

    /// Creates a node for a component asynchronously: a registered `AUAudioUnit` subclass or a
    /// built-in unit, wrapped in the class its type calls for — `AVAudioUnitEffect` (effects,
    /// music effects), `AVAudioUnitGenerator` (generators), `AVAudioUnitMIDIInstrument` (music
    /// devices), `AVAudioUnitTimeEffect` (format converters), else `AVAudioUnit`. The handler runs
    /// on another thread.
    public class func instantiate(with audioComponentDescription: AudioComponentDescription, options: AudioComponentInstantiationOptions = [],
                                  completionHandler: @escaping (AVAudioUnit?, (any Error)?) -> Void) {
        let d = audioComponentDescription
        DispatchQueue.global().async {
            do { completionHandler(try make(d, options: options), nil) } catch { completionHandler(nil, error) }
        }
    }

    /// Creates a node for a component (see `instantiate(with:options:completionHandler:)`).
    public class func instantiate(with audioComponentDescription: AudioComponentDescription,
                                  options: AudioComponentInstantiationOptions = []) async throws -> AVAudioUnit {
        try make(audioComponentDescription, options: options)
    }

    static func make(_ d: AudioComponentDescription, options: AudioComponentInstantiationOptions) throws -> AVAudioUnit {
        if AUAudioUnit.registration(for: d) != nil { return wrap(try AUAudioUnit.make(d, options: options)) }
        if let node = makeBuiltIn(d) { return node }
        throw AUAudioUnit.noComponentError(d)
    }

    /// The node class for a unit, by component type.
    static func wrap(_ unit: AUAudioUnit) -> AVAudioUnit {
        switch unit.componentDescription.componentType {
        case kAudioUnitType_Effect, kAudioUnitType_MusicEffect: return AVAudioUnitEffect(wrapping: unit)
        case kAudioUnitType_Generator: return AVAudioUnitGenerator(wrapping: unit)
        case kAudioUnitType_MusicDevice: return AVAudioUnitMIDIInstrument(wrapping: unit)
        case kAudioUnitType_FormatConverter: return AVAudioUnitTimeEffect(wrapping: unit)
        default: return AVAudioUnit(wrapping: unit)
        }
    }

    /// A built-in unit for a description (nil: none).
    static func makeBuiltIn(_ d: AudioComponentDescription) -> AVAudioUnit? {
        if let factory = BuiltInUnits.effectFactory(for: d) {
            let parts = factory()
            return AVAudioUnitEffect(description: d, kernelFactory: parts.kernel, parameters: parts.parameters)
        }
        if let factory = BuiltInUnits.timeEffectFactory(for: d) {
            let parts = factory()
            return AVAudioUnitTimeEffect(description: d, renderer: parts.renderer, parameters: parts.parameters)
        }
        return nil
    }
}

/// An audio unit that processes audio in real time, input to output at the same rate.
open class AVAudioUnitEffect: AVAudioUnit {
    /// Creates an effect for a component: a registered `AUAudioUnit` subclass or a built-in
    /// effect. Client subclasses call it as `super.init(audioComponentDescription:)`. A
    /// description no component matches, or a unit whose initializer throws, is a programmer
    /// error here (use `AVAudioUnit.instantiate` to get an error instead).
    public init(audioComponentDescription: AudioComponentDescription) {
        if AUAudioUnit.registration(for: audioComponentDescription) != nil {
            let unit: AUAudioUnit
            do { unit = try AUAudioUnit.make(audioComponentDescription, options: []) } catch {
                preconditionFailure("AVAudioUnitEffect(audioComponentDescription:): the registered unit '\(fourCharCodeString(audioComponentDescription.componentSubType))' failed to initialize: \(error)")
            }
            super.init(wrapping: unit)
            return
        }
        guard let factory = BuiltInUnits.effectFactory(for: audioComponentDescription) else {
            preconditionFailure("AVAudioUnitEffect(audioComponentDescription:): no effect '\(fourCharCodeString(audioComponentDescription.componentSubType))' (manufacturer \(fourCharCodeString(audioComponentDescription.componentManufacturer))) is built in or registered; see AVAudioUnitComponentManager for the available ones")
        }
        let parts = factory()
        super.init(description: audioComponentDescription, renderer: EffectRenderer(makeKernel: parts.kernel), parameters: parts.parameters)
        effectRenderer?.unit = self
    }

    /// A built-in effect with its kernel.
    init(description: AudioComponentDescription, kernelFactory: @escaping EffectKernelFactory, parameters: [AUParameter]) {
        super.init(description: description, renderer: EffectRenderer(makeKernel: kernelFactory), parameters: parameters)
        effectRenderer?.unit = self
    }

    override init(wrapping unit: AUAudioUnit) {
        super.init(wrapping: unit)
    }

    /// When true, audio passes through unprocessed (a wrapped unit: its `shouldBypassEffect`).
    open var bypass: Bool {
        get { isBuiltIn ? (effectRenderer?.isBypassed ?? false) : auAudioUnit.shouldBypassEffect }
        set {
            if isBuiltIn { effectRenderer?.isBypassed = newValue } else { auAudioUnit.shouldBypassEffect = newValue }
        }
    }
}

/// An audio unit that changes the timing of audio (its input and output rates may differ).
open class AVAudioUnitTimeEffect: AVAudioUnit {
    /// Creates a time effect for a component: a registered `AUAudioUnit` subclass or a built-in one.
    public init(audioComponentDescription: AudioComponentDescription) {
        if AUAudioUnit.registration(for: audioComponentDescription) != nil {
            let unit: AUAudioUnit
            do { unit = try AUAudioUnit.make(audioComponentDescription, options: []) } catch {
                preconditionFailure("AVAudioUnitTimeEffect(audioComponentDescription:): the registered unit '\(fourCharCodeString(audioComponentDescription.componentSubType))' failed to initialize: \(error)")
            }
            super.init(wrapping: unit)
            return
        }
        guard let factory = BuiltInUnits.timeEffectFactory(for: audioComponentDescription) else {
            preconditionFailure("AVAudioUnitTimeEffect(audioComponentDescription:): no time effect '\(fourCharCodeString(audioComponentDescription.componentSubType))' is built in or registered")
        }
        let parts = factory()
        super.init(description: audioComponentDescription, renderer: parts.renderer, parameters: parts.parameters)
    }

    override init(description: AudioComponentDescription, renderer: NodeRenderer, parameters: [AUParameter], inputs: Int = 1, outputs: Int = 1) {
        super.init(description: description, renderer: renderer, parameters: parameters, inputs: inputs, outputs: outputs)
    }

    override init(wrapping unit: AUAudioUnit) {
        super.init(wrapping: unit)
    }

    /// A time effect's input runs at its own pace: the render plan gives it its own rate domain.
    override func changesRate(onInputBus bus: AVAudioNodeBus) -> Bool { renderer is TimeEffectRenderer }

    /// When true, audio passes through at the original rate.
    open var bypass: Bool {
        get { isBuiltIn ? (unitRenderer?.isBypassed ?? timeBypass) : auAudioUnit.shouldBypassEffect }
        set {
            guard isBuiltIn else { auAudioUnit.shouldBypassEffect = newValue; return }
            timeBypass = newValue
            unitRenderer?.isBypassed = newValue
        }
    }
    private var timeBypass = false
}

/// An audio unit that generates audio (no input).
open class AVAudioUnitGenerator: AVAudioUnit, AVAudioMixing {
    /// Creates a generator for a registered component (a programmer error when none matches).
    public init(audioComponentDescription: AudioComponentDescription) {
        let unit: AUAudioUnit
        do { unit = try AUAudioUnit.make(audioComponentDescription, options: []) } catch {
            preconditionFailure("AVAudioUnitGenerator(audioComponentDescription:): \(error.localizedDescription)")
        }
        super.init(wrapping: unit)
    }

    override init(wrapping unit: AUAudioUnit) { super.init(wrapping: unit) }

    /// When true, the generator outputs nothing (its unit's `shouldBypassEffect`).
    open var bypass: Bool {
        get { auAudioUnit.shouldBypassEffect }
        set { auAudioUnit.shouldBypassEffect = newValue }
    }

    /// Generators have no input to follow: outputs keep the formats they are connected with.
    override func willSetOutputFormat(_ format: AVAudioFormat, bus: AVAudioNodeBus) -> String? { nil }
}

/// An audio unit that plays MIDI (a music device): notes and controllers go to its render event list.
open class AVAudioUnitMIDIInstrument: AVAudioUnit, AVAudioMixing {
    /// Creates an instrument for a registered music-device component (a programmer error when none matches).
    public init(audioComponentDescription description: AudioComponentDescription) {
        let unit: AUAudioUnit
        do { unit = try AUAudioUnit.make(description, options: []) } catch {
            preconditionFailure("AVAudioUnitMIDIInstrument(audioComponentDescription:): \(error.localizedDescription)")
        }
        super.init(wrapping: unit)
    }

    override init(wrapping unit: AUAudioUnit) { super.init(wrapping: unit) }

    /// Instruments have no input to follow: outputs keep the formats they are connected with.
    override func willSetOutputFormat(_ format: AVAudioFormat, bus: AVAudioNodeBus) -> String? { nil }

    private func send(_ bytes: [UInt8]) {
        guard let block = auAudioUnit.scheduleMIDIEventBlock else { return }
        bytes.withUnsafeBufferPointer { block(AUEventSampleTimeImmediate, 0, bytes.count, $0.baseAddress!) }
    }

    /// Sends a note-on.
    open func startNote(_ note: UInt8, withVelocity velocity: UInt8, onChannel channel: UInt8) {
        send([0x90 | (channel & 0x0F), note & 0x7F, velocity & 0x7F])
    }
    /// Sends a note-off.
    open func stopNote(_ note: UInt8, onChannel channel: UInt8) {
        send([0x80 | (channel & 0x0F), note & 0x7F, 0])
    }
    /// Sends a controller change.
    open func sendController(_ controller: UInt8, withValue value: UInt8, onChannel channel: UInt8) {
        send([0xB0 | (channel & 0x0F), controller & 0x7F, value & 0x7F])
    }
    /// Sends a pitch bend (0 … 16383, 8192 centre).
    open func sendPitchBend(_ pitchbend: UInt16, onChannel channel: UInt8) {
        send([0xE0 | (channel & 0x0F), UInt8(pitchbend & 0x7F), UInt8((pitchbend >> 7) & 0x7F)])
    }
    /// Sends channel pressure.
    open func sendPressure(_ pressure: UInt8, onChannel channel: UInt8) {
        send([0xD0 | (channel & 0x0F), pressure & 0x7F])
    }
    /// Sends polyphonic key pressure.
    open func sendPressure(forKey key: UInt8, withValue value: UInt8, onChannel channel: UInt8) {
        send([0xA0 | (channel & 0x0F), key & 0x7F, value & 0x7F])
    }
    /// Sends a program change.
    open func sendProgramChange(_ program: UInt8, onChannel channel: UInt8) {
        send([0xC0 | (channel & 0x0F), program & 0x7F])
    }
    /// Sends a program change after a bank select (MSB, LSB).
    open func sendProgramChange(_ program: UInt8, bankMSB: UInt8, bankLSB: UInt8, onChannel channel: UInt8) {
        sendController(0, withValue: bankMSB, onChannel: channel)
        sendController(32, withValue: bankLSB, onChannel: channel)
        sendProgramChange(program, onChannel: channel)
    }
    /// Sends a MIDI 1.0 message of up to three bytes.
    open func sendMIDIEvent(_ midiStatus: UInt8, data1: UInt8, data2: UInt8) { send([midiStatus, data1, data2]) }
    /// Sends a MIDI 1.0 message of two bytes.
    open func sendMIDIEvent(_ midiStatus: UInt8, data1: UInt8) { send([midiStatus, data1]) }

    /// Sends a system-exclusive message: the complete data, `F0` to `F7` (Apple's contract). The
    /// unit receives it as a `.midiSysEx` render event (messages longer than about 1,000 bytes are
    /// dropped and counted).
    open func sendMIDISysExEvent(_ midiData: Data) {
        guard !midiData.isEmpty, let block = auAudioUnit.scheduleMIDIEventBlock else { return }
        midiData.withUnsafeBytes { raw in
            block(AUEventSampleTimeImmediate, 0, raw.count, raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// Sends a MIDI event list (Universal MIDI Packets) to the instrument, as a `.midiEventList`
    /// render event.
    open func send(_ eventList: UnsafePointer<MIDIEventList>) {
        guard let block = auAudioUnit.scheduleMIDIEventListBlock else { return }
        _ = block(AUEventSampleTimeImmediate, 0, eventList)
    }
}

// AVAudioUnit and its effect subclasses: nodes whose processing is an audio unit — here, our own
// DSP kernels (EffectKernel) behind Apple's class names, parameters and component descriptions.

/// A node that processes audio with an audio unit.
open class AVAudioUnit: AVAudioNode {
    /// The component that identifies this unit.
    public let audioComponentDescription: AudioComponentDescription
    /// The v3 audio unit: parameter tree and parameter scheduling.
    public let auAudioUnit: AUAudioUnit
    var parameterByAddress: [AUParameterAddress: AUParameter] = [:]
    var effectRenderer: EffectRenderer? { renderer as? EffectRenderer }
    /// The render object as parameter-event receiver (effects and time effects alike).
    var unitRenderer: AudioUnitRenderer? { renderer as? AudioUnitRenderer }

    init(description: AudioComponentDescription, renderer: NodeRenderer, parameters: [AUParameter], inputs: Int = 1, outputs: Int = 1) {
        audioComponentDescription = description
        auAudioUnit = AUAudioUnit(componentDescription: description, parameterTree: AUParameterTree.createTree(withChildren: parameters))
        super.init(renderer: renderer, inputs: inputs, outputs: outputs)
        auAudioUnit.owner = self
        for p in parameters {
            parameterByAddress[p.address] = p
            p.sink = { [weak self] address, value, time, ramp in
                self?.unitRenderer?.schedule(address: address, value: value, at: time, ramp: ramp)
            }
        }
    }

    /// The unit's name.
    open var name: String { String(describing: type(of: self)).replacingOccurrences(of: "AVAudioUnit", with: "AU") }
    /// The unit's manufacturer.
    open var manufacturerName: String { "Apple" }
    /// The unit's version.
    open var version: Int { 0x0001_0000 }

    /// Processing latency in seconds (what the DSP kernel reports for the current format).
    open override var latency: TimeInterval {
        let rate = outputFormats.first?.sampleRate ?? 44_100
        return Double(unitRenderer?.latencyFrames ?? 0) / rate
    }

    /// Seconds of output after the input falls silent.
    var tailTime: TimeInterval { effectRenderer?.tailTime ?? 0 }

    /// Loads an `.aupreset` property list of parameter values. Throws when the file cannot be read.
    open func loadPreset(at url: URL) throws {
        let data = try Data(contentsOf: url)
        guard let plist = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any] else {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioFileInvalidFileError), userInfo: [
                NSLocalizedDescriptionKey: "'\(url.path)' is not an audio unit preset (a property list dictionary)"])
        }
        // Parameter values are stored as "data" under scope 0 element 0 in Apple's format; we
        // read the simple form { "parameters": { "<address>": value } } that presets exported by
        // this project use, and the numeric keys of Apple's "ParameterValues" dictionaries.
        let values = (plist["parameters"] as? [String: Any]) ?? (plist["ParameterValues"] as? [String: Any]) ?? [:]
        for (key, value) in values {
            guard let address = AUParameterAddress(key), let p = parameterByAddress[address],
                  let v = AVAudioFormat.number(value) else { continue }
            p.value = AUValue(v)
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
    }

    /// Creates a parameter for a built-in unit.
    static func parameter(_ identifier: String, _ name: String, address: AUParameterAddress, min: AUValue, max: AUValue,
                          unit: AudioUnitParameterUnit, value: AUValue) -> AUParameter {
        AUParameter(identifier: identifier, name: name, address: address, min: min, max: max, unit: unit, unitName: nil,
                    flags: [.flag_IsReadable, .flag_IsWritable, .flag_CanRamp], valueStrings: nil, dependentParameters: nil, value: value)
    }

    func parameterValue(_ address: AUParameterAddress) -> AUValue { parameterByAddress[address]?.value ?? 0 }
    func setParameterValue(_ address: AUParameterAddress, _ value: AUValue) { parameterByAddress[address]?.value = value }
}

/// An audio unit that processes audio in real time, input to output at the same rate.
open class AVAudioUnitEffect: AVAudioUnit {
    /// Creates an effect for a built-in component description. Descriptions this project does not
    /// implement are a programmer error here (use `AVAudioUnitComponentManager` to list them).
    public convenience init(audioComponentDescription: AudioComponentDescription) {
        guard let factory = BuiltInUnits.effectFactory(for: audioComponentDescription) else {
            preconditionFailure("AVAudioUnitEffect(audioComponentDescription:): no built-in effect '\(fourCharCodeString(audioComponentDescription.componentSubType))' (manufacturer \(fourCharCodeString(audioComponentDescription.componentManufacturer))); see AVAudioUnitComponentManager for the available ones")
        }
        let parts = factory()
        self.init(description: audioComponentDescription, kernelFactory: parts.kernel, parameters: parts.parameters)
    }

    init(description: AudioComponentDescription, kernelFactory: @escaping EffectKernelFactory, parameters: [AUParameter]) {
        super.init(description: description, renderer: EffectRenderer(makeKernel: kernelFactory), parameters: parameters)
        effectRenderer?.unit = self
    }

    /// When true, audio passes through unprocessed.
    open var bypass: Bool {
        get { effectRenderer?.isBypassed ?? false }
        set { effectRenderer?.isBypassed = newValue }
    }
}

/// An audio unit that changes the timing of audio (its input and output rates may differ).
open class AVAudioUnitTimeEffect: AVAudioUnit {
    public convenience init(audioComponentDescription: AudioComponentDescription) {
        guard let factory = BuiltInUnits.timeEffectFactory(for: audioComponentDescription) else {
            preconditionFailure("AVAudioUnitTimeEffect(audioComponentDescription:): no built-in time effect '\(fourCharCodeString(audioComponentDescription.componentSubType))'")
        }
        let parts = factory()
        self.init(description: audioComponentDescription, renderer: parts.renderer, parameters: parts.parameters)
    }

    override init(description: AudioComponentDescription, renderer: NodeRenderer, parameters: [AUParameter], inputs: Int = 1, outputs: Int = 1) {
        super.init(description: description, renderer: renderer, parameters: parameters, inputs: inputs, outputs: outputs)
    }

    /// A time effect's input runs at its own pace: the render plan gives it its own rate domain.
    override func changesRate(onInputBus bus: AVAudioNodeBus) -> Bool { renderer is TimeEffectRenderer }

    /// When true, audio passes through at the original rate.
    open var bypass: Bool {
        get { unitRenderer?.isBypassed ?? timeBypass }
        set {
            timeBypass = newValue
            unitRenderer?.isBypassed = newValue
        }
    }
    private var timeBypass = false
}


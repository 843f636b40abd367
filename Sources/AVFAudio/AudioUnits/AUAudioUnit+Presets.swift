// Presets and state of an AUAudioUnit: `AUAudioUnitPreset`, `factoryPresets`, `currentPreset`,
// `fullState`/`fullStateForDocument`, in the layout of Apple's `.aupreset` property lists.
//
// The dictionary's keys are AudioUnitProperties.h's kAUPreset*Key ("type", "subtype",
// "manufacturer" and "version" as numbers, "name", "data"). "data" carries the parameter values
// as AudioToolbox's AUBase::SaveState writes them (the AudioUnitSDK's AUScope/AUElement::SaveState):
// for the global scope's element 0, big-endian UInt32 scope (0), UInt32 element (0), UInt32
// parameter count, then (UInt32 parameter ID, Float32 value) pairs. Only parameters whose address
// fits in 32 bits can be stored that way; units with wider addresses override `fullState`.

/// A named set of parameter values (factory presets have numbers ≥ 0, user presets < 0).
open class AUAudioUnitPreset: NSObject, NSSecureCoding {
    /// The preset's number.
    open var number: Int = 0
    /// The preset's name.
    open var name: String = ""

    public override init() { super.init() }

    public static var supportsSecureCoding: Bool { true }

    public func encode(with coder: NSCoder) {
        coder.encode(number, forKey: "number")
        coder.encode(name, forKey: "name")
    }

    public required init?(coder: NSCoder) {
        number = coder.decodeInteger(forKey: "number")
        name = (coder.decodeObject(forKey: "name") as? String) ?? ""
        super.init()
    }
}

extension AUAudioUnit {
    /// The preset dictionary of the unit's current parameter values (see the note above).
    func makeFullState() -> [String: Any] {
        var data = Data()
        func append(_ v: UInt32) { withUnsafeBytes(of: v.bigEndian) { data.append(contentsOf: $0) } }
        let parameters = (parameterTree?.allParameters ?? []).filter { $0.address <= UInt64(UInt32.max) }
        append(0)                       // scope: global
        append(0)                       // element 0
        append(UInt32(parameters.count))
        for p in parameters {
            append(UInt32(p.address))
            append(p.value.bitPattern)
        }
        let d = componentDescription
        return [kAUPresetTypeKey: Int(d.componentType), kAUPresetSubtypeKey: Int(d.componentSubType),
                kAUPresetManufacturerKey: Int(d.componentManufacturer), kAUPresetVersionKey: 0,
                kAUPresetNameKey: currentPresetStorage?.name ?? "Untitled", kAUPresetDataKey: data]
    }

    /// Sets parameter values from a preset dictionary's "data" (global scope; other scopes are
    /// skipped). Throws `kAudioUnitErr_InvalidPropertyValue` for a dictionary of another unit or
    /// malformed data.
    func applyFullState(_ state: [String: Any]) throws {
        func number(_ key: String) -> Int? { (state[key] as? NSNumber)?.intValue ?? state[key] as? Int }
        let d = componentDescription
        if let t = number(kAUPresetTypeKey), let s = number(kAUPresetSubtypeKey), let m = number(kAUPresetManufacturerKey),
           UInt32(truncatingIfNeeded: t) != d.componentType || UInt32(truncatingIfNeeded: s) != d.componentSubType
            || UInt32(truncatingIfNeeded: m) != d.componentManufacturer {
            throw AUAudioUnit.error(kAudioUnitErr_InvalidPropertyValue, "the preset is for another audio unit ('\(fourCharCodeString(UInt32(truncatingIfNeeded: s)))'), not \(type(of: self)) ('\(fourCharCodeString(d.componentSubType))')")
        }
        if let name = state[kAUPresetNameKey] as? String {
            let preset = AUAudioUnitPreset()
            preset.name = name
            preset.number = -1
            currentPresetStorage = preset
        }
        guard let data = state[kAUPresetDataKey] as? Data else { return }
        let bytes = [UInt8](data)
        var offset = 0
        func read() throws -> UInt32 {
            guard offset + 4 <= bytes.count else {
                throw AUAudioUnit.error(kAudioUnitErr_InvalidPropertyValue, "the preset's data ends in the middle of a value (\(bytes.count) bytes)")
            }
            defer { offset += 4 }
            return UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8 | UInt32(bytes[offset + 3])
        }
        while offset < bytes.count {
            let scope = try read()
            _ = try read()               // element
            let count = try read()
            for _ in 0..<count {
                let id = try read(), bits = try read()
                if scope == 0, let p = parameterTree?.parameter(withAddress: AUParameterAddress(id)) {
                    p.value = AUValue(bitPattern: bits)
                }
            }
        }
    }
}

// The factory methods audio unit implementations build their parameters, groups and trees with
// (AUAudioUnitImplementation.h, `AUParameterTree (Factory)`). Declared in an extension, so not
// overridable (Objective-C categories are; nobody overrides these).

extension AUParameterTree {
    /// Creates a parameter. Its value starts at `min` until set (Apple does not document the
    /// initial value; implementations set it).
    public class func createParameter(withIdentifier identifier: String, name: String, address: AUParameterAddress,
                                    min: AUValue, max: AUValue, unit: AudioUnitParameterUnit, unitName: String?,
                                    flags: AudioUnitParameterOptions = [], valueStrings: [String]?,
                                    dependentParameters: [NSNumber]?) -> AUParameter {
        AUParameter(identifier: identifier, name: name, address: address, min: min, max: max, unit: unit, unitName: unitName,
                    flags: flags, valueStrings: valueStrings, dependentParameters: dependentParameters)
    }

    /// Creates a group with an identifier (non-localized, persistent), a localized name and
    /// child nodes.
    public class func createGroup(withIdentifier identifier: String, name: String, children: [AUParameterNode]) -> AUParameterGroup {
        AUParameterGroup(identifier: identifier, name: name, children: children)
    }

    /// Creates a template group: a prototype for groups made with
    /// `createGroup(fromTemplate:identifier:name:addressOffset:)`, which copy its children.
    public class func createGroupTemplate(_ children: [AUParameterNode]) -> AUParameterGroup {
        AUParameterGroup(identifier: "", name: "", children: children, isTemplate: true)
    }

    /// Creates a group as a copy of a template group's children, with `addressOffset` added to
    /// every parameter's address (one template, many identical groups: the voices or bands of a
    /// unit). The copies start with the template's values; observers and hooks are not copied.
    public class func createGroup(fromTemplate templateGroup: AUParameterGroup, identifier: String, name: String,
                                addressOffset: AUParameterAddress) -> AUParameterGroup {
        AUParameterGroup(identifier: identifier, name: name, children: templateGroup.copyChildren(addressOffset: addressOffset))
    }

    /// Creates a tree with top-level child nodes.
    public class func createTree(withChildren children: [AUParameterNode]) -> AUParameterTree {
        AUParameterTree(children: children)
    }
}

// AUParameterGroup and AUParameterTree: the inner nodes and the root of an audio unit's
// parameters. A tree's structure is immutable once made (AUParameters.h: only values and
// implementor hooks change; an audio unit that rearranges its parameters publishes a new tree).

/// A group of related parameters (and groups).
open class AUParameterGroup: AUParameterNode {
    private let groupChildren: [AUParameterNode]
    /// Made by `createGroupTemplate`: a prototype for `createGroup(fromTemplate:...)`.
    let isTemplate: Bool

    package init(identifier: String, name: String, children: [AUParameterNode], isTemplate: Bool = false) {
        groupChildren = children
        self.isTemplate = isTemplate
        super.init(identifier: identifier, displayName: name)
        for child in children { child.parent = self }
    }

    public required init?(coder: NSCoder) {
        let decoded = AUParameterNode.decodedObject(coder, "children") as? [Any] ?? []
        groupChildren = decoded.compactMap { $0 as? AUParameterNode }
        isTemplate = coder.decodeBool(forKey: "isTemplate")
        super.init(coder: coder)
        for child in groupChildren { child.parent = self }
    }

    open override func encode(with coder: NSCoder) {
        super.encode(with: coder)
        coder.encode(NSArray(array: groupChildren), forKey: "children")
        if isTemplate { coder.encode(true, forKey: "isTemplate") }
    }

    /// The group's child nodes.
    open var children: [AUParameterNode] { groupChildren }

    /// Every parameter in the group, including those in child groups, depth first in child order.
    open var allParameters: [AUParameter] {
        var result: [AUParameter] = []
        collectParameters(into: &result)
        return result
    }

    private func collectParameters(into result: inout [AUParameter]) {
        for child in groupChildren {
            if let p = child as? AUParameter { result.append(p) } else if let g = child as? AUParameterGroup { g.collectParameters(into: &result) }
        }
    }

    /// The child whose identifier is `key` (groups are key-value coding compliant for their
    /// children on Apple platforms: `tree.value(forKey: "gain") as? AUParameter`), or nil.
    open func value(forKey key: String) -> Any? {
        groupChildren.first { $0.identifier == key }
    }

    /// The node at a dotted key path below this group ("lfo.rate", a node's `keyPath` when this
    /// is the tree), or, when the path ends in "value" after a parameter, that parameter's value
    /// as an NSNumber ("lfo.rate.value"); nil when nothing is there.
    open func value(forKeyPath keyPath: String) -> Any? {
        var node: AUParameterNode = self
        let components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        for (i, component) in components.enumerated() {
            if let group = node as? AUParameterGroup, let child = group.value(forKey: component) as? AUParameterNode {
                node = child
            } else if let parameter = node as? AUParameter, component == "value", i == components.count - 1 {
                return NSNumber(value: parameter.value)
            } else {
                return nil
            }
        }
        return node
    }

    /// A copy of the group's subtree with `offset` added to every address.
    func copyChildren(addressOffset offset: AUParameterAddress) -> [AUParameterNode] {
        groupChildren.map { child in
            if let p = child as? AUParameter { return p.copy(addressOffset: offset) }
            let g = child as! AUParameterGroup
            return AUParameterGroup(identifier: g.identifier, name: g.displayName, children: g.copyChildren(addressOffset: offset))
        }
    }
}

/// The top-level group, holding all of an audio unit's parameters.
open class AUParameterTree: AUParameterGroup {
    /// The first parameter at each address (the tree is immutable: built once).
    private let byAddress: [AUParameterAddress: AUParameter]

    package init(children: [AUParameterNode]) {
        byAddress = AUParameterTree.index(children)
        super.init(identifier: "", name: "", children: children)
    }

    public required init?(coder: NSCoder) {
        let decoded = AUParameterNode.decodedObject(coder, "children") as? [Any] ?? []
        byAddress = AUParameterTree.index(decoded.compactMap { $0 as? AUParameterNode })
        super.init(coder: coder)
    }

    /// The first parameter at each address, depth first.
    private static func index(_ children: [AUParameterNode]) -> [AUParameterAddress: AUParameter] {
        var table: [AUParameterAddress: AUParameter] = [:]
        func index(_ nodes: [AUParameterNode]) {
            for node in nodes {
                if let p = node as? AUParameter {
                    if table[p.address] == nil { table[p.address] = p }
                } else if let g = node as? AUParameterGroup {
                    index(g.children)
                }
            }
        }
        index(children)
        return table
    }

    /// The parameter at `address`, or nil.
    open func parameter(withAddress address: AUParameterAddress) -> AUParameter? {
        byAddress[address]
    }

    /// The parameter of a version 2 audio unit identified by ID, scope and element, or nil.
    ///
    /// The built-in units (Apple's v2 units) publish global-scope parameters whose address is the
    /// parameter ID (as `AUParameterAddress(kDelayParam_WetDryMix)` is used with them), so this
    /// finds the parameter at address `paramID` in the global scope, element 0, and returns nil
    /// for other scopes and elements. (Apple returns nil for trees of v3 units; this one cannot
    /// tell them apart and answers by address for them too.)
    open func parameter(withID paramID: AudioUnitParameterID, scope: AudioUnitScope, element: AudioUnitElement) -> AUParameter? {
        guard scope == kAudioUnitScope_Global, element == 0 else { return nil }
        return byAddress[AUParameterAddress(paramID)]
    }
}

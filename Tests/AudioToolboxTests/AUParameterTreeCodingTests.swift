// AUParameterTree, AUParameterGroup and AUParameter adopt NSSecureCoding as Apple's do: a tree
// archived with a keyed archiver that requires secure coding comes back with the same structure
// (identifiers, names, key paths, groups), the same parameter attributes and the same values,
// and answers parameter(withAddress:) again.
import Foundation
import Testing
import AudioToolbox

@Suite struct AUParameterTreeCodingTests {
    @Test func treeRoundTripsThroughASecureArchive() throws {
        let cutoff = AUParameterTree.createParameter(withIdentifier: "cutoff", name: "Cutoff", address: 1, min: 20, max: 20_000,
                                                     unit: .hertz, unitName: nil, flags: [.flag_IsReadable, .flag_IsWritable, .flag_DisplayLogarithmic],
                                                     valueStrings: nil, dependentParameters: [NSNumber(value: 2)])
        cutoff.value = 1_234.5
        let mode = AUParameterTree.createParameter(withIdentifier: "mode", name: "Mode", address: 2, min: 0, max: 2,
                                                   unit: .indexed, unitName: nil, flags: [.flag_IsReadable, .flag_IsWritable],
                                                   valueStrings: ["Low", "Band", "High"], dependentParameters: nil)
        mode.value = 2
        let gain = AUParameterTree.createParameter(withIdentifier: "gain", name: "Gain", address: 0x1_0000_0003, min: -96, max: 24,
                                                   unit: .customUnit, unitName: "dB FS", flags: [], valueStrings: nil, dependentParameters: nil)
        gain.value = -6
        let filter = AUParameterTree.createGroup(withIdentifier: "filter", name: "Filter", children: [cutoff, mode])
        let tree = AUParameterTree.createTree(withChildren: [filter, gain])

        let data = try NSKeyedArchiver.archivedData(withRootObject: tree, requiringSecureCoding: true)
        let copy = try #require(try NSKeyedUnarchiver.unarchivedObject(ofClass: AUParameterTree.self, from: data))

        #expect(copy.children.count == 2)
        let group = try #require(copy.children[0] as? AUParameterGroup)
        #expect(group.identifier == "filter" && group.displayName == "Filter")
        #expect(copy.allParameters.map(\.keyPath) == ["filter.cutoff", "filter.mode", "gain"])
        for original in tree.allParameters {
            let p = try #require(copy.parameter(withAddress: original.address))
            #expect(p.identifier == original.identifier)
            #expect(p.displayName == original.displayName)
            #expect(p.minValue == original.minValue && p.maxValue == original.maxValue)
            #expect(p.unit == original.unit && p.unitName == original.unitName)
            #expect(p.flags == original.flags)
            #expect(p.valueStrings == original.valueStrings)
            #expect(p.dependentParameters == original.dependentParameters)
            #expect(p.value == original.value)
        }
        // the copy is live: values set on it reach its observers, not the original's
        var seen: [AUValue] = []
        let token = copy.token(byAddingParameterObserver: { _, v in seen.append(v) })
        copy.parameter(withAddress: 2)!.setValue(1, originator: nil)
        copy.removeParameterObserver(token)
        #expect(seen == [1] && mode.value == 2)
        #expect(AUParameterTree.supportsSecureCoding && AUParameter.supportsSecureCoding)
    }
}

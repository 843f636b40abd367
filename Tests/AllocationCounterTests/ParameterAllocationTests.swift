// What the render side may do to a parameter — record a value it applied (automation, the end of
// a ramp) for observers to hear later — allocates nothing and frees nothing on the calling thread,
// with observers installed and the notifier's thread running.
import Testing
import AVFAudio

@Suite struct ParameterAllocationTests {
    @Test func renderSideValueChangesAllocateNothing() {
        let parameter = AUParameterTree.createParameter(withIdentifier: "gain", name: "Gain", address: 0, min: 0, max: 1,
                                                        unit: .linearGain, unitName: nil, flags: [.flag_IsReadable, .flag_IsWritable],
                                                        valueStrings: nil, dependentParameters: nil)
        let tree = AUParameterTree.createTree(withChildren: [parameter])
        let token = tree.token(byAddingParameterObserver: { _, _ in })
        var value: AUValue = 0
        let counts = allocations(iterations: 10_000) {
            value = value < 1 ? value + 0.0001 : 0
            parameter.noteRenderValue(value)
            parameter.setStoredValue(value)
        }
        tree.removeParameterObserver(token)
        #expect(counts == .none, "\(counts)")
        #expect(parameter.value == value)
    }
}

// AudioUnitParameterOptions and AudioUnitParameterUnit raw values, against Apple's
// AudioUnitProperties.h.
import AudioToolbox
import Testing

@Suite struct AudioUnitParameterOptionsTests {
    @Test func placeholder() {
        #expect(AudioUnitParameterOptions.flag_IsWritable.rawValue == 1 << 31)
    }
}

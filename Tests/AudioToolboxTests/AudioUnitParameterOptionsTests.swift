// Raw values of AudioUnitParameterOptions, AudioUnitParameterUnit and the scopes, against Apple's
// AudioUnitProperties.h and AUComponent.h (the values below are the headers' decimal values, as
// other bindings of those headers list them too).
import AudioToolbox
import Testing

@Suite struct AudioUnitParameterOptionsTests {
    @Test func flagsHaveApplesBitValues() {
        let expected: [(AudioUnitParameterOptions, UInt32)] = [
            (.flag_CFNameRelease, 16),
            (.flag_OmitFromPresets, 8192),
            (.flag_PlotHistory, 16384),
            (.flag_MeterReadOnly, 32768),
            (.flag_DisplayMask, 4_653_056),
            (.flag_DisplaySquareRoot, 65536),
            (.flag_DisplaySquared, 131_072),
            (.flag_DisplayCubed, 196_608),
            (.flag_DisplayCubeRoot, 262_144),
            (.flag_DisplayExponential, 327_680),
            (.flag_HasClump, 1_048_576),
            (.flag_ValuesHaveStrings, 2_097_152),
            (.flag_DisplayLogarithmic, 4_194_304),
            (.flag_IsHighResolution, 8_388_608),
            (.flag_NonRealTime, 16_777_216),
            (.flag_CanRamp, 33_554_432),
            (.flag_ExpertMode, 67_108_864),
            (.flag_HasCFNameString, 134_217_728),
            (.flag_IsGlobalMeta, 268_435_456),
            (.flag_IsElementMeta, 536_870_912),
            (.flag_IsReadable, 1_073_741_824),
            (.flag_IsWritable, 2_147_483_648),
        ]
        for (flag, raw) in expected { #expect(flag.rawValue == raw) }
    }

    @Test func displayScaleIsReadThroughTheMask() {
        let flags: AudioUnitParameterOptions = [.flag_IsReadable, .flag_IsWritable, .flag_DisplayCubed, .flag_CanRamp]
        #expect(flags.intersection(.flag_DisplayMask) == .flag_DisplayCubed)
        #expect(AudioUnitParameterOptions.flag_DisplayMask.contains(.flag_DisplayLogarithmic))
        #expect(AudioUnitParameterOptions.flag_DisplayMask.contains(.flag_DisplayExponential))
        #expect(!AudioUnitParameterOptions.flag_DisplayMask.contains(.flag_HasClump))
        // an option set built from a raw value keeps every bit (as hosts read v2 parameter info)
        #expect(AudioUnitParameterOptions(rawValue: 0xC000_0000) == [.flag_IsReadable, .flag_IsWritable])
    }

    @Test func unitsHaveApplesRawValues() {
        let expected: [(AudioUnitParameterUnit, UInt32)] = [
            (.generic, 0), (.indexed, 1), (.boolean, 2), (.percent, 3), (.seconds, 4), (.sampleFrames, 5),
            (.phase, 6), (.rate, 7), (.hertz, 8), (.cents, 9), (.relativeSemiTones, 10), (.midiNoteNumber, 11),
            (.midiController, 12), (.decibels, 13), (.linearGain, 14), (.degrees, 15), (.equalPowerCrossfade, 16),
            (.mixerFaderCurve1, 17), (.pan, 18), (.meters, 19), (.absoluteCents, 20), (.octaves, 21), (.BPM, 22),
            (.beats, 23), (.milliseconds, 24), (.ratio, 25), (.customUnit, 26), (.midi2Controller, 27),
        ]
        for (unit, raw) in expected {
            #expect(unit.rawValue == raw)
            #expect(AudioUnitParameterUnit(rawValue: raw) == unit)
        }
        #expect(AudioUnitParameterUnit(rawValue: 28) == nil)
    }

    @Test func scopesHaveApplesValues() {
        #expect([kAudioUnitScope_Global, kAudioUnitScope_Input, kAudioUnitScope_Output, kAudioUnitScope_Group,
                 kAudioUnitScope_Part, kAudioUnitScope_Note, kAudioUnitScope_Layer, kAudioUnitScope_LayerItem]
                == [0, 1, 2, 3, 4, 5, 6, 7])
    }
}

/// The built-in units' parameter IDs, as AudioUnitParameters.h defines them, visible with
/// `import AudioToolbox` alone.
@Suite struct BuiltInParameterIDTests {
    @Test func parameterIDsAreApples() {
        #expect([kDelayParam_WetDryMix, kDelayParam_DelayTime, kDelayParam_Feedback, kDelayParam_LopassCutoff] == [0, 1, 2, 3])
        #expect([kNewTimePitchParam_Rate, kNewTimePitchParam_Pitch, kNewTimePitchParam_Smoothness,
                 kNewTimePitchParam_EnableSpectralCoherence, kNewTimePitchParam_EnableTransientPreservation] == [0, 1, 4, 6, 7])
        #expect(kNewTimePitchParam_Overlap == kNewTimePitchParam_Smoothness)
        #expect(kNewTimePitchParam_EnablePeakLocking == kNewTimePitchParam_EnableSpectralCoherence)
        #expect([kVarispeedParam_PlaybackRate, kVarispeedParam_PlaybackCents] == [0, 1])
        #expect(kAUNBandEQParam_Frequency + 3 == 3003)
    }
}

// The built-in units that `AVAudioUnitEffect(audioComponentDescription:)` and
// `AVAudioUnitTimeEffect(audioComponentDescription:)` can create, by subtype. Each effect's file
// provides its parts; add one line here per unit.

enum BuiltInUnits {
    typealias EffectParts = (kernel: EffectKernelFactory, parameters: [AUParameter])
    typealias TimeEffectParts = (renderer: NodeRenderer, parameters: [AUParameter])

    /// Effects (type 'aufx', manufacturer Apple) by subtype.
    static let effects: [OSType: () -> EffectParts] = [
        kAudioUnitSubType_NBandEQ: { AVAudioUnitEQ.parts(numberOfBands: 16) },
        kAudioUnitSubType_Delay: { AVAudioUnitDelay.parts() },
        kAudioUnitSubType_Reverb2: { AVAudioUnitReverb.parts() },
        kAudioUnitSubType_Distortion: { AVAudioUnitDistortion.parts() },
    ]

    /// Time effects (type 'aufc') by subtype.
    static let timeEffects: [OSType: () -> TimeEffectParts] = [
        kAudioUnitSubType_Varispeed: { AVAudioUnitVarispeed.parts() },
        kAudioUnitSubType_NewTimePitch: { AVAudioUnitTimePitch.parts() },
    ]

    static func effectFactory(for d: AudioComponentDescription) -> (() -> EffectParts)? {
        guard d.componentType == kAudioUnitType_Effect,
              d.componentManufacturer == kAudioUnitManufacturer_Apple || d.componentManufacturer == 0 else { return nil }
        return effects[d.componentSubType]
    }

    static func timeEffectFactory(for d: AudioComponentDescription) -> (() -> TimeEffectParts)? {
        guard d.componentType == kAudioUnitType_FormatConverter || d.componentType == kAudioUnitType_Effect else { return nil }
        return timeEffects[d.componentSubType]
    }
}

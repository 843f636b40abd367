// AUAudioUnit: the v3 audio unit object behind an AVAudioUnit — its parameter tree, latency and
// the block that schedules sample-accurate parameter changes.

public typealias AUScheduleParameterBlock = (_ eventSampleTime: AUEventSampleTime, _ rampDurationSampleFrames: AUAudioFrameCount,
                                             _ parameterAddress: AUParameterAddress, _ value: AUValue) -> Void

/// The audio unit behind an AVAudioUnit.
open class AUAudioUnit: NSObject {
    public let componentDescription: AudioComponentDescription
    open var parameterTree: AUParameterTree?
    weak var owner: AVAudioUnit?

    init(componentDescription: AudioComponentDescription, parameterTree: AUParameterTree?) {
        self.componentDescription = componentDescription
        self.parameterTree = parameterTree
        super.init()
    }

    open var componentName: String? { owner.map { "\($0.manufacturerName): \($0.name)" } }
    open var audioUnitName: String? { owner?.name }
    open var manufacturerName: String? { owner?.manufacturerName }
    open var componentVersion: UInt32 { UInt32(owner?.version ?? 0) }

    /// Processing latency in seconds.
    open var latency: TimeInterval { owner?.latency ?? 0 }
    /// How long the unit keeps producing output after its input falls silent, in seconds.
    open var tailTime: TimeInterval { owner?.tailTime ?? 0 }

    /// Whether the effect is bypassed.
    open var shouldBypassEffect: Bool {
        get { (owner as? AVAudioUnitEffect)?.bypass ?? (owner as? AVAudioUnitTimeEffect)?.bypass ?? false }
        set {
            if let e = owner as? AVAudioUnitEffect { e.bypass = newValue }
            if let e = owner as? AVAudioUnitTimeEffect { e.bypass = newValue }
        }
    }

    /// Schedules a parameter change at an exact sample of the unit's render timeline
    /// (`AUEventSampleTimeImmediate` + n: n frames into the next cycle), optionally ramping over
    /// `rampDurationSampleFrames` frames. Real-time safe: may be called from a render thread.
    open var scheduleParameterBlock: AUScheduleParameterBlock {
        return { [weak self] time, ramp, address, value in
            guard let unit = self?.owner else { return }
            unit.unitRenderer?.schedule(address: address, value: value, at: time, ramp: ramp)
            if let p = unit.parameterByAddress[address] { p.setStoredValue(Swift.min(p.maxValue, Swift.max(p.minValue, value))) }
        }
    }
}

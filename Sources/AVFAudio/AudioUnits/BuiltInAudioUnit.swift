// The AUAudioUnit subclasses behind Apple's built-in units rebuilt here.
//
// `BuiltInAudioUnit` is the `auAudioUnit` of every built-in node (AVAudioUnitEQ, ...Delay,
// ...Reverb, ...Distortion, ...Varispeed, ...TimePitch, and the generic effects made from their
// component descriptions). It reports the node's names, parameters, latency, tail and bypass, and
// schedules into its render object's `RenderEventScheduler` (one scheduler per unit, whoever
// renders it).
//
// `BuiltInEffectAudioUnit` adds the effect's DSP behind `internalRenderBlock`, so a host can
// render a built-in effect through `auAudioUnit.renderBlock` as it would Apple's: the block pulls
// the input into the output buffer and runs the effect's kernel in place, split at each event of
// the list (`EffectKernel.render`, the same loop the engine's EffectRenderer uses). The engine
// itself renders these nodes through EffectRenderer, which keeps one kernel per format across
// plans (delay lines and filter memories survive graph changes) and reads the plan's buffers
// directly. The kernel behind the render block is the unit's own, created when render resources
// are allocated, with the parameters' current values.
//
// Time effects (varispeed, time-pitch) pull a varying number of input frames per cycle; their
// render block is not provided (a host outside the engine gets `kAudioUnitErr_Uninitialized`),
// the engine renders them through TimeEffectRenderer.

class BuiltInAudioUnit: AUAudioUnit {
    private var inputArray: AUAudioUnitBusArray!
    private var outputArray: AUAudioUnitBusArray!

    /// The unit of a built-in node: its parameters, its render object's scheduler.
    init(builtIn description: AudioComponentDescription, parameterTree: AUParameterTree?, scheduler: RenderEventScheduler?) {
        try! super.init(componentDescription: description, options: [])
        self.parameterTree = parameterTree
        if let scheduler { adopt(scheduler) }
        let format = AVAudioNode.defaultFormat
        inputArray = AUAudioUnitBusArray(audioUnit: self, busType: .input, busses: [try! AUAudioUnitBus(format: format)])
        outputArray = AUAudioUnitBusArray(audioUnit: self, busType: .output, busses: [try! AUAudioUnitBus(format: format)])
    }

    required init(__registeredComponentDescription componentDescription: AudioComponentDescription,
                  options: AudioComponentInstantiationOptions) throws {
        preconditionFailure("built-in units are not registered subclasses")
    }

    override init(componentDescription: AudioComponentDescription, options: AudioComponentInstantiationOptions = []) throws {
        try super.init(componentDescription: componentDescription, options: options)
    }

    override var inputBusses: AUAudioUnitBusArray { inputArray }
    override var outputBusses: AUAudioUnitBusArray { outputArray }

    override var componentName: String? { owner.map { "\($0.manufacturerName): \($0.name)" } }
    override var audioUnitName: String? { owner?.name }
    override var manufacturerName: String? { owner?.manufacturerName }
    override var componentVersion: UInt32 { UInt32(owner?.version ?? 0) }
    override var latency: TimeInterval { owner?.latency ?? 0 }
    override var tailTime: TimeInterval { owner?.tailTime ?? 0 }

    override var shouldBypassEffect: Bool {
        get { (owner as? AVAudioUnitEffect)?.bypass ?? (owner as? AVAudioUnitTimeEffect)?.bypass ?? (renderObject?.isBypassed ?? false) }
        set {
            if let e = owner as? AVAudioUnitEffect { e.bypass = newValue; return }
            if let e = owner as? AVAudioUnitTimeEffect { e.bypass = newValue; return }
            renderObject?.isBypassed = newValue
        }
    }

    /// The render object, for a unit whose node is gone (effects keep theirs).
    var renderObject: AudioUnitRenderer? { nil }

    override func reset() {
        owner?.renderer.resetState()
    }

    /// The node's connection formats (control side, when they change and the unit is not rendering).
    func nodeFormatDidChange(_ format: AVAudioFormat) {
        guard !renderResourcesAllocated, let f = AVAudioFormat(standardFormatWithSampleRate: format.sampleRate, channels: format.channelCount) else { return }
        try? inputBusses[0].setFormat(f)
        try? outputBusses[0].setFormat(f)
    }
}

final class BuiltInEffectAudioUnit: BuiltInAudioUnit {
    /// What the render block works on: the kernel and its channel pointers (render thread).
    final class DSP {
        var kernel: EffectKernel?
        var channels = 0
        var base: UnsafeMutablePointer<UnsafeMutablePointer<Float>>?
        var segmentIn: UnsafeMutablePointer<UnsafeMutablePointer<Float>>?
        var segmentOut: UnsafeMutablePointer<UnsafeMutablePointer<Float>>?
        let bypass: () -> Bool
        init(bypass: @escaping () -> Bool) { self.bypass = bypass }
        func free() {
            base?.deallocate(); segmentIn?.deallocate(); segmentOut?.deallocate()
            base = nil; segmentIn = nil; segmentOut = nil; kernel = nil
        }
        deinit { free() }
    }
    /// The node's render object: its kernel factory, scheduler and bypass flag (kept alive here
    /// for a unit instantiated on its own, whose node is gone).
    private let renderer: EffectRenderer
    private let dsp: DSP

    init(builtIn description: AudioComponentDescription, parameterTree: AUParameterTree?, renderer: EffectRenderer) {
        self.renderer = renderer
        dsp = DSP(bypass: { renderer.isBypassed })
        super.init(builtIn: description, parameterTree: parameterTree, scheduler: renderer.scheduler)
    }

    required init(__registeredComponentDescription componentDescription: AudioComponentDescription,
                  options: AudioComponentInstantiationOptions) throws {
        preconditionFailure("built-in units are not registered subclasses")
    }

    override var renderObject: AudioUnitRenderer? { renderer }

    /// Processing latency in seconds (the kernel's, for a unit rendering on its own).
    override var latency: TimeInterval {
        if owner != nil { return super.latency }
        guard let kernel = dsp.kernel else { return 0 }
        return Double(kernel.latencyFrames) / outputBusses[0].format.sampleRate
    }

    /// Seconds of output after the input falls silent.
    override var tailTime: TimeInterval { owner != nil ? super.tailTime : (dsp.kernel?.tailTime ?? 0) }

    /// Creates the kernel for the output bus's format and `maximumFramesToRender`.
    override func allocateRenderResources() throws {
        try super.allocateRenderResources()
        let format = outputBusses[0].format
        let channels = Int(format.channelCount)
        dsp.free()
        dsp.kernel = renderer.makeKernel(format.sampleRate, channels, Int(maximumFramesToRender))
        dsp.channels = channels
        dsp.base = .allocate(capacity: channels)
        dsp.segmentIn = .allocate(capacity: channels)
        dsp.segmentOut = .allocate(capacity: channels)
    }

    override func deallocateRenderResources() {
        dsp.free()
        super.deallocateRenderResources()
    }

    /// Pulls the input into the output buffer and runs the kernel on it in place, split at each event.
    override var internalRenderBlock: AUInternalRenderBlock {
        let dsp = self.dsp
        return { flags, timestamp, frameCount, _, output, events, pullInput in
            guard let kernel = dsp.kernel, let base = dsp.base, let segmentIn = dsp.segmentIn, let segmentOut = dsp.segmentOut else {
                return kAudioUnitErr_Uninitialized
            }
            guard let pullInput else { return kAudioUnitErr_NoConnection }
            let status = pullInput(flags, timestamp, frameCount, 0, output)
            guard status == noErr else { return status }
            let list = UnsafeMutableAudioBufferListPointer(output)
            guard list.count >= dsp.channels else { return kAudioUnitErr_FormatNotSupported }
            if dsp.bypass() {
                kernel.apply(events)
                return noErr
            }
            var c = 0
            while c < dsp.channels {
                base[c] = list[c].mData!.assumingMemoryBound(to: Float.self)
                c += 1
            }
            flags.pointee.remove(.unitRenderAction_OutputIsSilence)
            kernel.render(input: UnsafePointer(base), output: UnsafePointer(base), channels: dsp.channels, frames: Int(frameCount),
                          start: Int64(timestamp.pointee.mSampleTime), events: events, inputSegment: segmentIn, outputSegment: segmentOut)
            return noErr
        }
    }
}

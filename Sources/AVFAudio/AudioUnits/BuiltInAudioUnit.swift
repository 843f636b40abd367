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
// `BuiltInTimeEffectAudioUnit` does the same for the time effects (varispeed, time-pitch), which
// pull a varying number of input frames per cycle: the block asks the pull-input block for the
// frames the cycle needs (on the input's own timeline, in `mSampleTime`) and runs the node's
// TimeEffectRenderer cycle on them — the same code as in the engine, so a host gets the engine's
// samples.
//
// One DSP object per unit: the kernel (or time-effect DSP) behind the render block is the one the
// engine renders with for the same format (`EffectRenderer.kernel(...)`,
// `TimeEffectRenderer.dsp(...)`), so the unit owns one DSP whoever hosts it. (A unit is rendered
// by one host at a time: the engine, or a host calling its render block.)

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
        dsp.kernel = renderer.kernel(sampleRate: format.sampleRate, channels: channels, maximumFrames: Int(maximumFramesToRender))
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

final class BuiltInTimeEffectAudioUnit: BuiltInAudioUnit {
    /// The node's render object (kept alive here for a unit instantiated on its own).
    private let renderer: TimeEffectRenderer
    /// What the render block works on (render thread); replaced on the control side only while
    /// no host renders (between deallocate and allocate).
    final class Context {
        var resources: TimeEffectRenderer.StandaloneResources?
        let timestamp = UnsafeMutablePointer<AudioTimeStamp>.allocate(capacity: 1)
        init() { timestamp.initialize(to: AudioTimeStamp()) }
        deinit { timestamp.deallocate() }
    }
    private let context = Context()

    init(builtIn description: AudioComponentDescription, parameterTree: AUParameterTree?, renderer: TimeEffectRenderer) {
        self.renderer = renderer
        super.init(builtIn: description, parameterTree: parameterTree, scheduler: renderer.scheduler)
    }

    required init(__registeredComponentDescription componentDescription: AudioComponentDescription,
                  options: AudioComponentInstantiationOptions) throws {
        preconditionFailure("built-in units are not registered subclasses")
    }

    override var renderObject: AudioUnitRenderer? { renderer }

    override var latency: TimeInterval {
        if owner != nil { return super.latency }
        return Double(renderer.latencyFrames) / outputBusses[0].format.sampleRate
    }

    /// The DSP for the output bus's format and `maximumFramesToRender`, and its buffers.
    override func allocateRenderResources() throws {
        try super.allocateRenderResources()
        let format = outputBusses[0].format
        guard inputBusses[0].format.sampleRate == format.sampleRate, inputBusses[0].format.channelCount == format.channelCount else {
            // (a time effect changes time, not the rate or the channels: Apple's format converters
            // refuse such a pair too — kAudioUnitErr_FormatNotSupported)
            deallocateRenderResources()
            throw AUAudioUnit.error(kAudioUnitErr_FormatNotSupported,
                                    "\(audioUnitName ?? "time effect"): input \(inputBusses[0].format) and output \(format) must have the same rate and channels")
        }
        context.resources = renderer.makeStandaloneResources(sampleRate: format.sampleRate, channels: Int(format.channelCount),
                                                             maximumFrames: Int(maximumFramesToRender))
    }

    override func deallocateRenderResources() {
        context.resources = nil
        super.deallocateRenderResources()
    }

    /// Pulls the input the cycle needs (on the input's own timeline) and renders the time effect.
    override var internalRenderBlock: AUInternalRenderBlock {
        let context = self.context
        let renderer = self.renderer
        return { flags, timestamp, frameCount, _, output, events, pullInput in
            guard let resources = context.resources else { return kAudioUnitErr_Uninitialized }
            guard let pullInput else { return kAudioUnitErr_NoConnection }
            let frames = Int(frameCount)
            let out = UnsafeMutableAudioBufferListPointer(output)
            let channels = resources.output.channelCount
            guard out.count >= channels else { return kAudioUnitErr_FormatNotSupported }
            var status = noErr
            let input = resources.input
            let rendered = renderer.renderStandalone(frames: frames, start: Int64(timestamp.pointee.mSampleTime),
                                                     hostTime: timestamp.pointee.mHostTime, events: events,
                                                     resources: resources) { wanted, inputTime in
                context.timestamp.pointee = timestamp.pointee
                context.timestamp.pointee.mSampleTime = Double(inputTime)
                status = pullInput(flags, UnsafePointer(context.timestamp), AUAudioFrameCount(wanted), 0, input.bufferList.unsafeMutablePointer)
                guard status == noErr else { return false }
                // (a pull may point mData at memory of its own)
                var c = 0
                while c < channels {
                    if let p = input.bufferList[c].mData, p != UnsafeMutableRawPointer(input.channels[c]) {
                        input.channels[c].update(from: p.assumingMemoryBound(to: Float.self), count: wanted)
                    }
                    c += 1
                }
                input.resetBufferList(frames: wanted)
                return true
            }
            guard rendered else { return status }
            var c = 0
            while c < channels {
                let source = resources.output.channels[c]
                if let destination = out[c].mData {
                    destination.assumingMemoryBound(to: Float.self).update(from: source, count: frames)
                } else {
                    out[c].mData = UnsafeMutableRawPointer(source)
                }
                out[c].mDataByteSize = UInt32(frames * MemoryLayout<Float>.size)
                c += 1
            }
            flags.pointee.remove(.unitRenderAction_OutputIsSilence)
            return noErr
        }
    }
}

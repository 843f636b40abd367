// The render object of an AVAudioUnit that wraps a client's AUAudioUnit: each cycle it calls the
// unit's render block with an AudioBufferList over the plan's output buffer, a pull-input block
// over the node's input buffers, and a time stamp carrying the node's sample time and the
// cycle's host time (the unit's events come from its own scheduler inside the render block).
//
// DESIGN NOTE — preparing a client's unit without holding the engine's lock
// ------------------------------------------------------------------------
// Before a unit renders, its busses take the connections' formats (deinterleaved Float32 at the
// connection's rate and channel count), `maximumFramesToRender` becomes at least the engine's
// cycle size, and `allocateRenderResources()` runs — as Apple's engine does when it prepares. All
// of that is the client's code (overridable properties and methods), so none of it runs while
// the plan compiler holds the engine's lock:
//
// 1. compiling (lock held), `makeStepState` compares what the plan needs (`Configuration`) with
//    what the unit was last prepared for; when they differ it records the request and the node
//    renders silence in that plan; the engine marks work pending on its lock;
// 2. when the thread that made the edit releases the lock (`EngineLock.afterOutermostUnlock`),
//    `AVAudioEngine.prepareAudioUnits()` takes the requests, publishes a plan that no longer
//    calls those units, waits until no cycle still renders an older one, and then — no lock held
//    — runs the client's code (`prepare`); finally it publishes the plan that renders them.
//
// A failure of `allocateRenderResources()` leaves the node silent and is reported on standard
// error with the unit's own message (the same configuration is not retried).

final class AUAudioUnitNodeRenderer: NodeRenderer {
    let unit: AUAudioUnit

    init(unit: AUAudioUnit) { self.unit = unit }

    /// Where the pull-input block finds the node's inputs this cycle (render thread).
    final class PullContext {
        var inputs = UnsafeBufferPointer<RenderBuffer?>(start: nil, count: 0)
    }

    /// The unit's part of one plan (see the design note in NodeRenderer.swift).
    final class State: RenderStep {
        override var kind: StepKind { .audioUnit(.passUnretained(self)) }
        private let owner: Unmanaged<AUAudioUnitNodeRenderer>
        let renderBlock: AURenderBlock
        let pullInput: AURenderPullInputBlock
        let context: PullContext
        /// The context, for the render thread (`context` keeps it alive).
        private let contextRef: Unmanaged<PullContext>
        let timestamp: UnsafeMutablePointer<AudioTimeStamp>
        let flags: UnsafeMutablePointer<AudioUnitRenderActionFlags>
        init(renderer: AUAudioUnitNodeRenderer, renderBlock: @escaping AURenderBlock) {
            owner = .passUnretained(renderer)
            self.renderBlock = renderBlock
            let context = PullContext()
            self.context = context
            contextRef = .passUnretained(context)
            pullInput = { flags, _, frameCount, bus, data in
                AUAudioUnitNodeRenderer.pull(context, flags, Int(frameCount), bus, data)
            }
            timestamp = .allocate(capacity: 1)
            timestamp.initialize(to: AudioTimeStamp())
            flags = .allocate(capacity: 1)
            flags.initialize(to: [])
            super.init(renderer: renderer)
        }
        /// Render thread: one cycle (a plan in which the unit is not prepared has no state for it:
        /// the base class's stateless `render` outputs silence). Proved free of locks, allocation
        /// and reference counting up to the client's render block (`RenderPathProof.audioUnit`;
        /// the block itself is the client's, called through `ClientCall.audioUnit`).
        override func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>) {
            let frames = cycle.frames
            contextRef._withUnsafeGuaranteedRef { $0.inputs = inputs }
            timestamp.pointee.mSampleTime = Double(cycle.sampleTime)
            timestamp.pointee.mHostTime = cycle.hostTime
            timestamp.pointee.mRateScalar = 1
            // (not an array literal: an OptionSet literal allocates its array in debug builds)
            timestamp.pointee.mFlags = AudioTimeStampFlags(rawValue: AudioTimeStampFlags.sampleTimeValid.rawValue
                | AudioTimeStampFlags.hostTimeValid.rawValue | AudioTimeStampFlags.rateScalarValid.rawValue)
            var bus = 0
            while bus < outputs.count {
                let output = outputs.unmanaged(bus)
                output.restoreChannels()
                output.resetBufferList(frames: frames)
                flags.pointee = AudioUnitRenderActionFlags(rawValue: 0)
                let status = ClientCall.audioUnit(.passUnretained(self), flags, UnsafePointer(timestamp), AUAudioFrameCount(frames), bus,
                                                  output.bufferList.unsafeMutablePointer)
                if status != noErr {
                    output.clear(frames: frames)
                } else {
                    // A unit may have pointed mData at memory of its own (or at its input): copy it in.
                    let (channels, channelCount, list) = (output.channels, output.channelCount, output.bufferList)
                    var c = 0
                    while c < channelCount {
                        if let p = list[c].mData, p != UnsafeMutableRawPointer(channels[c]) {
                            copyFloats(channels[c], p.assumingMemoryBound(to: Float.self), frames)
                        }
                        c += 1
                    }
                    output.resetBufferList(frames: frames)
                    output.frames = frames
                    output.isSilent = flags.pointee.rawValue & AudioUnitRenderActionFlags.unitRenderAction_OutputIsSilence.rawValue != 0
                }
                bus += 1
            }
            let none = noInputs
            contextRef._withUnsafeGuaranteedRef { $0.inputs = none }
        }
        /// An empty input list (made here: its generic initialiser is not for the render thread).
        private let noInputs = UnsafeBufferPointer<RenderBuffer?>(start: nil, count: 0)
        deinit {
            timestamp.deallocate()
            flags.deallocate()
        }
    }

    /// The pull-input block's work: input bus `bus` into `data` (pointing null `mData` at the
    /// node's input buffer, copying otherwise). Unconnected buses: `kAudioUnitErr_NoConnection`.
    @inline(__always)
    static func pull(_ context: PullContext, _ flags: UnsafeMutablePointer<AudioUnitRenderActionFlags>, _ frames: Int, _ bus: Int,
                     _ data: UnsafeMutablePointer<AudioBufferList>) -> AUAudioUnitStatus {
        guard bus >= 0 && bus < context.inputs.count, let input = context.inputs[bus], input.channelCount > 0 else {
            return kAudioUnitErr_NoConnection
        }
        guard frames <= input.capacity else { return kAudioUnitErr_TooManyFramesToProcess }
        let list = UnsafeMutableAudioBufferListPointer(data)
        var b = 0
        while b < list.count {
            let source = input.channels[Swift.min(b, input.channelCount - 1)]
            if let destination = list[b].mData {
                if destination != UnsafeMutableRawPointer(source) {
                    destination.assumingMemoryBound(to: Float.self).update(from: source, count: frames)
                }
            } else {
                list[b].mData = UnsafeMutableRawPointer(source)
            }
            list[b].mDataByteSize = UInt32(frames * MemoryLayout<Float>.size)
            b += 1
        }
        if input.isSilent { flags.pointee.insert(.unitRenderAction_OutputIsSilence) }
        return noErr
    }

    /// What the plan needs of the unit: its busses' formats and the largest cycle.
    struct Configuration: Equatable {
        var inputFormats: [AVAudioFormat?]
        var outputFormats: [AVAudioFormat]
        var maximumFrames: Int

        /// Whether a unit prepared for `self` can render what `wanted` asks.
        func serves(_ wanted: Configuration) -> Bool {
            inputFormats == wanted.inputFormats && outputFormats == wanted.outputFormats && maximumFrames >= wanted.maximumFrames
        }
    }

    // Preparation state: read and written only under the engine's lock.
    /// What the unit was last prepared for, and its render block then. (A class, not a tuple: a
    /// closure stored in a tuple inside an Optional is kept at the most general abstraction, and
    /// calling it then allocates reabstraction thunks on every render.)
    final class Prepared {
        let configuration: Configuration
        let renderBlock: AURenderBlock
        init(_ configuration: Configuration, _ renderBlock: @escaping AURenderBlock) {
            self.configuration = configuration
            self.renderBlock = renderBlock
        }
    }
    private var prepared: Prepared?
    /// The configuration whose preparation failed (not retried until the configuration changes).
    private var failed: Configuration?
    /// What the last compiled plan needed and the unit is not prepared for (nil: nothing to do).
    private(set) var requested: Configuration?
    /// Set while `AVAudioEngine.prepareAudioUnits()` runs the client's code for this unit.
    private(set) var isPreparing = false

    override func makeStepState(inputFormats: [AVAudioFormat?], outputFormats: [AVAudioFormat], maximumFrames: Int) -> RenderStep? {
        func standard(_ f: AVAudioFormat) -> AVAudioFormat {
            AVAudioFormat(standardFormatWithSampleRate: f.sampleRate, channels: f.channelCount) ?? f
        }
        let wanted = Configuration(inputFormats: inputFormats.map { $0.map(standard) }, outputFormats: outputFormats.map(standard),
                                   maximumFrames: maximumFrames)
        // (the base class's flag, not the overridable property: a client that deallocated its unit
        // itself gets it allocated again)
        if !isPreparing, let prepared, prepared.configuration.serves(wanted), unit._renderResourcesAllocated {
            requested = nil
            return State(renderer: self, renderBlock: prepared.renderBlock)
        }
        requested = (failed == wanted && !isPreparing) ? nil : wanted
        return nil
    }

    /// Engine lock held: takes the request, if any, for `prepare`. From now until `endPreparing`
    /// every plan compiled leaves the unit silent. Returns the configuration and whether an earlier
    /// plan may still call the unit's render block (the caller then waits for it to retire).
    func beginPreparing() -> (configuration: Configuration, wasRendering: Bool)? {
        guard let wanted = requested, !isPreparing else { return nil }
        requested = nil
        isPreparing = true
        let wasRendering = prepared != nil
        prepared = nil
        return (wanted, wasRendering)
    }

    /// What `prepare` obtained, for `endPreparing` (a stored property of a concrete type: a closure
    /// passed through an array or a generic is kept at the most general abstraction, and calling
    /// it then allocates reabstraction thunks on every render).
    private var preparedBlock: AURenderBlock?

    /// No lock held, no plan calling the unit: the client's code. Leaves the render block for
    /// `endPreparing`, nil when render resources could not be allocated.
    func prepare(_ wanted: Configuration) {
        preparedBlock = nil
        if unit.renderResourcesAllocated { unit.deallocateRenderResources() }
        if Int(unit.maximumFramesToRender) < wanted.maximumFrames { unit.maximumFramesToRender = AUAudioFrameCount(wanted.maximumFrames) }
        let inputs = unit.inputBusses, outputs = unit.outputBusses
        var busFormats: [(AUAudioUnitBus, AVAudioFormat)] = []
        for (i, f) in wanted.inputFormats.enumerated() where i < inputs.count {
            if let f { busFormats.append((inputs[i], f)) }
        }
        for (i, f) in wanted.outputFormats.enumerated() where i < outputs.count {
            busFormats.append((outputs[i], f))
        }
        for (bus, f) in busFormats where bus.format != f {
            do { try bus.setFormat(f) } catch {
                preconditionFailure("\(type(of: unit)) (AVAudioUnit) does not accept \(f) on \(bus.busType == .input ? "input" : "output") bus \(bus.index): \(error.localizedDescription)")
            }
        }
        do { try unit.allocateRenderResources() } catch {
            FileHandle.standardError.write(Data("AVAudioUnit: \(type(of: unit)).allocateRenderResources() failed (\(error.localizedDescription)); the node renders silence\n".utf8))
            return
        }
        preparedBlock = unit.renderBlock
    }

    /// Engine lock held: records the outcome of `prepare`.
    func endPreparing(_ wanted: Configuration) {
        isPreparing = false
        let block = preparedBlock
        preparedBlock = nil
        if let renderBlock = block {
            prepared = Prepared(wanted, renderBlock)
            failed = nil
        } else {
            failed = wanted
        }
    }

    /// Clears the unit's DSP state (its `reset()`, on the control side).
    override func resetState() {
        unit.reset()
    }
}

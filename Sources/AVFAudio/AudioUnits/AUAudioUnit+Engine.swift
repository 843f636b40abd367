// The render object of an AVAudioUnit that wraps a client's AUAudioUnit: each cycle it calls the
// unit's render block with an AudioBufferList over the plan's output buffer, a pull-input block
// over the node's input buffers, and a time stamp carrying the node's sample time and the
// cycle's host time (the unit's events come from its own scheduler inside the render block).
//
// Control side (`makeStepState`, while the engine compiles a plan): the unit's busses take the
// connections' formats (deinterleaved Float32 at the connection's rate and channel count),
// `maximumFramesToRender` becomes at least the engine's cycle size, and render resources are
// (re)allocated when either changed. This calls the client's `allocateRenderResources()`, as
// Apple's engine does when it prepares; a failure leaves the node silent and is reported on
// standard error with the unit's own message.

final class AUAudioUnitNodeRenderer: NodeRenderer {
    let unit: AUAudioUnit

    init(unit: AUAudioUnit) { self.unit = unit }

    /// Where the pull-input block finds the node's inputs this cycle (render thread).
    final class PullContext {
        var inputs = UnsafeBufferPointer<RenderBuffer?>(start: nil, count: 0)
    }

    /// The unit's part of one plan (see the design note in NodeRenderer.swift).
    final class State: RenderStep {
        private let owner: Unmanaged<AUAudioUnitNodeRenderer>
        let renderBlock: AURenderBlock
        let pullInput: AURenderPullInputBlock
        let context: PullContext
        let timestamp: UnsafeMutablePointer<AudioTimeStamp>
        let flags: UnsafeMutablePointer<AudioUnitRenderActionFlags>
        init(renderer: AUAudioUnitNodeRenderer, renderBlock: @escaping AURenderBlock) {
            owner = .passUnretained(renderer)
            self.renderBlock = renderBlock
            let context = PullContext()
            self.context = context
            pullInput = { flags, _, frameCount, bus, data in
                AUAudioUnitNodeRenderer.pull(context, flags, Int(frameCount), bus, data)
            }
            timestamp = .allocate(capacity: 1)
            timestamp.initialize(to: AudioTimeStamp())
            flags = .allocate(capacity: 1)
            flags.initialize(to: [])
            super.init(renderer: renderer)
        }
        override func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>) {
            owner._withUnsafeGuaranteedRef { $0.render(&cycle, inputs: inputs, outputs: outputs, state: self) }
        }
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

    override func makeStepState(inputFormats: [AVAudioFormat?], outputFormats: [AVAudioFormat], maximumFrames: Int) -> RenderStep? {
        var changed = !unit.renderResourcesAllocated || Int(unit.maximumFramesToRender) < maximumFrames
        func standard(_ f: AVAudioFormat) -> AVAudioFormat {
            AVAudioFormat(standardFormatWithSampleRate: f.sampleRate, channels: f.channelCount) ?? f
        }
        var wanted: [(AUAudioUnitBus, AVAudioFormat)] = []
        for (i, f) in inputFormats.enumerated() where i < unit.inputBusses.count {
            if let f { wanted.append((unit.inputBusses[i], standard(f))) }
        }
        for (i, f) in outputFormats.enumerated() where i < unit.outputBusses.count {
            wanted.append((unit.outputBusses[i], standard(f)))
        }
        for (bus, f) in wanted where bus.format != f { changed = true }
        if changed {
            if unit.renderResourcesAllocated { unit.deallocateRenderResources() }
            if Int(unit.maximumFramesToRender) < maximumFrames { unit.maximumFramesToRender = AUAudioFrameCount(maximumFrames) }
            for (bus, f) in wanted where bus.format != f {
                do { try bus.setFormat(f) } catch {
                    preconditionFailure("\(type(of: unit)) (AVAudioUnit) does not accept \(f) on \(bus.busType == .input ? "input" : "output") bus \(bus.index): \(error.localizedDescription)")
                }
            }
            do { try unit.allocateRenderResources() } catch {
                FileHandle.standardError.write(Data("AVAudioUnit: \(type(of: unit)).allocateRenderResources() failed (\(error.localizedDescription)); the node renders silence\n".utf8))
                return nil
            }
        }
        return State(renderer: self, renderBlock: unit.renderBlock)
    }

    /// Render thread: one cycle (without a state — render resources failed — the base class's
    /// stateless `render` outputs silence).
    func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>, state: State) {
        let frames = cycle.frames
        state.context.inputs = inputs
        state.timestamp.pointee.mSampleTime = Double(cycle.sampleTime)
        state.timestamp.pointee.mHostTime = cycle.hostTime
        state.timestamp.pointee.mRateScalar = 1
        // (not an array literal: an OptionSet literal allocates its array in debug builds)
        state.timestamp.pointee.mFlags = AudioTimeStampFlags(rawValue: AudioTimeStampFlags.sampleTimeValid.rawValue
            | AudioTimeStampFlags.hostTimeValid.rawValue | AudioTimeStampFlags.rateScalarValid.rawValue)
        var bus = 0
        while bus < outputs.count {
            let output = outputs[bus]
            output.restoreChannels()
            output.resetBufferList(frames: frames)
            state.flags.pointee = AudioUnitRenderActionFlags(rawValue: 0)
            let status = ClientCall.audioUnit(state.renderBlock, state.flags, UnsafePointer(state.timestamp), AUAudioFrameCount(frames), bus,
                                              output.bufferList.unsafeMutablePointer, state.pullInput)
            if status != noErr {
                output.clear(frames: frames)
            } else {
                // A unit may have pointed mData at memory of its own (or at its input): copy it in.
                var c = 0
                while c < output.channelCount {
                    if let p = output.bufferList[c].mData, p != UnsafeMutableRawPointer(output.channels[c]) {
                        output.channels[c].update(from: p.assumingMemoryBound(to: Float.self), count: frames)
                    }
                    c += 1
                }
                output.resetBufferList(frames: frames)
                output.frames = frames
                output.isSilent = state.flags.pointee.contains(.unitRenderAction_OutputIsSilence)
            }
            bus += 1
        }
        state.context.inputs = UnsafeBufferPointer(start: nil, count: 0)
    }

    /// Clears the unit's DSP state (its `reset()`, on the control side).
    override func resetState() {
        unit.reset()
    }
}

// A client's AUAudioUnit subclass renders allocation-free inside the engine: heap calls counted on
// the rendering thread over a thousand real-time manual-rendering cycles, while parameter events
// (scheduled before and during the count, some from inside the counted region) reach its render
// block as AURenderEvent lists and split its cycles.
import Testing
import AVFAudio

/// What the unit's render block works on.
final class CountedGainKernel {
    var gain: AUValue = 1
    var events = 0
}

/// A client's gain unit (one parameter at address 0).
final class CountedGainUnit: AUAudioUnit {
    let kernel = CountedGainKernel()
    private var inputs: AUAudioUnitBusArray!
    private var outputs: AUAudioUnitBusArray!

    override init(componentDescription: AudioComponentDescription, options: AudioComponentInstantiationOptions = []) throws {
        try super.init(componentDescription: componentDescription, options: options)
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        inputs = AUAudioUnitBusArray(audioUnit: self, busType: .input, busses: [try AUAudioUnitBus(format: format)])
        outputs = AUAudioUnitBusArray(audioUnit: self, busType: .output, busses: [try AUAudioUnitBus(format: format)])
        parameterTree = AUParameterTree.createTree(withChildren: [
            AUParameterTree.createParameter(withIdentifier: "gain", name: "Gain", address: 0, min: 0, max: 2, unit: .linearGain,
                                            unitName: nil, flags: [.flag_IsReadable, .flag_IsWritable], valueStrings: nil,
                                            dependentParameters: nil)])
    }

    override var inputBusses: AUAudioUnitBusArray { inputs }
    override var outputBusses: AUAudioUnitBusArray { outputs }

    override var internalRenderBlock: AUInternalRenderBlock {
        let kernel = self.kernel
        return { flags, timestamp, frameCount, _, output, events, pullInput in
            guard let pullInput else { return kAudioUnitErr_NoConnection }
            let status = pullInput(flags, timestamp, frameCount, 0, output)
            guard status == noErr else { return status }
            let buffers = UnsafeMutableAudioBufferListPointer(output)
            let start = AUEventSampleTime(timestamp.pointee.mSampleTime)
            var event = events
            var done = 0
            while done < Int(frameCount) {
                while let e = event, e.pointee.head.eventSampleTime <= start + AUEventSampleTime(done) {
                    kernel.gain = e.pointee.parameter.value
                    kernel.events += 1
                    event = UnsafePointer(e.pointee.head.next)
                }
                let end = event.map { Int($0.pointee.head.eventSampleTime - start) } ?? Int(frameCount)
                var b = 0
                while b < buffers.count {
                    let p = buffers[b].mData!.assumingMemoryBound(to: Float.self)
                    var i = done
                    while i < end { p[i] *= kernel.gain; i += 1 }
                    b += 1
                }
                done = end
            }
            return noErr
        }
    }
}

@Suite(.serialized) struct AUAudioUnitAllocationTests {
    @Test func clientUnitWithScheduledParameters() throws {
        let description = AudioComponentDescription(componentType: kAudioUnitType_Effect, componentSubType: 0x6367_6E63 /* 'cgnc' */,
                                                    componentManufacturer: 0x5465_7374 /* 'Test' */,
                                                    componentFlags: AudioComponentFlags.unsearchable.rawValue, componentFlagsMask: 0)
        AUAudioUnit.registerSubclass(CountedGainUnit.self, as: description, name: "Test: Counted Gain", version: 1)
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.realtime, format: format, maximumFrameCount: 512)
        let player = AVAudioPlayerNode()
        let unit = AVAudioUnitEffect(audioComponentDescription: description)
        engine.attach(player)
        engine.attach(unit)
        engine.connect(player, to: unit, format: format)
        engine.connect(unit, to: engine.mainMixerNode, format: format)
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4800)!
        for c in 0 ..< 2 { for i in 0 ..< 4800 { buffer.floatChannelData![c][i] = Float((i * 37 + c * 11) % 200) / 200 - 0.5 } }
        buffer.frameLength = 4800
        player.scheduleBuffer(buffer, at: nil, options: .loops)
        try engine.start()
        player.play()
        let render = engine.manualRenderingBlock
        let output = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512)!
        let list = output.mutableAudioBufferList
        var status = noErr
        for _ in 0 ..< 20 { _ = render(256, list, &status) }
        let start = engine.manualRenderingSampleTime
        let schedule = unit.auAudioUnit.scheduleParameterBlock
        for k in 0 ..< 400 { schedule(start + AUEventSampleTime(k * 613 % 250_000), 0, 0, Float(k % 20) / 10) }
        let counts = countAllocations {
            for cycle in 0 ..< 1000 {
                if cycle % 10 == 0 { schedule(AUEventSampleTimeImmediate + AUEventSampleTime(cycle % 256), 0, 0, 0.5) }
                _ = render(256, list, &status)
            }
        }
        engine.stop()
        #expect(status == noErr)
        #expect((unit.auAudioUnit as! CountedGainUnit).kernel.events == 500)
        #expect(counts == .none, "\(counts)")
    }
}

extension AUAudioUnitAllocationTests {
    /// A built-in effect hosted on its own: AUAudioUnit.instantiate with Apple's delay
    /// description, rendered through its render block with events and a render observer.
    @Test func builtInDelayThroughRenderBlock() async throws {
        let unit = try await AUAudioUnit.instantiate(with: AudioComponentDescription(
            componentType: kAudioUnitType_Effect, componentSubType: kAudioUnitSubType_Delay,
            componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0))
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        try unit.inputBusses[0].setFormat(format)
        try unit.outputBusses[0].setFormat(format)
        unit.maximumFramesToRender = 256
        try unit.allocateRenderResources()
        let observed = ObservedCount()
        let token = unit.token(byAddingRenderObserver: { flags, _, _, _ in
            if flags.contains(.unitRenderAction_PostRender) { observed.count += 1 }
        })
        let render = unit.renderBlock
        let schedule = unit.scheduleParameterBlock
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 256)!
        buffer.frameLength = 256
        let list = buffer.mutableAudioBufferList
        let pull: AURenderPullInputBlock = { _, _, frames, _, data in
            let buffers = UnsafeMutableAudioBufferListPointer(data)
            var b = 0
            while b < buffers.count {
                let p = buffers[b].mData!.assumingMemoryBound(to: Float.self)
                var i = 0
                while i < Int(frames) { p[i] = Float(i % 50) / 50 - 0.5; i += 1 }
                b += 1
            }
            return noErr
        }
        var flags = AudioUnitRenderActionFlags(rawValue: 0)
        var stamp = AudioTimeStamp()
        stamp.mFlags = .sampleTimeValid
        var status = noErr
        // warm up (the runtime's one-off lazy allocations), events included
        schedule(100, 0, AUParameterAddress(kDelayParam_WetDryMix), 30)
        for cycle in 0 ..< 20 {
            stamp.mSampleTime = Double(cycle * 256)
            status = render(&flags, &stamp, 256, 0, list, pull)
        }
        for k in 0 ..< 200 { schedule(AUEventSampleTime(20 * 256 + k * 1231 + 100), 0, AUParameterAddress(kDelayParam_WetDryMix), Float(k % 100)) }
        let counts = countAllocations {
            for cycle in 20 ..< 1020 {
                stamp.mSampleTime = Double(cycle * 256)
                status = render(&flags, &stamp, 256, 0, list, pull)
            }
        }
        #expect(status == noErr)
        #expect(observed.count == 1020)
        #expect(counts == .none, "\(counts)")
        unit.removeRenderObserver(token)
        _ = render(&flags, &stamp, 256, 0, list, pull)
        #expect(observed.count == 1020)
    }
}

final class ObservedCount: @unchecked Sendable { var count = 0 }

extension AUAudioUnitAllocationTests {
    /// A built-in time effect hosted on its own (AUVarispeed through its render block, pulling a
    /// varying number of input frames per cycle), with rate changes scheduled inside the cycles.
    @Test func builtInVarispeedThroughRenderBlock() async throws {
        let unit = try await AUAudioUnit.instantiate(with: AudioComponentDescription(
            componentType: kAudioUnitType_FormatConverter, componentSubType: kAudioUnitSubType_Varispeed,
            componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0))
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        try unit.inputBusses[0].setFormat(format)
        try unit.outputBusses[0].setFormat(format)
        unit.maximumFramesToRender = 256
        try unit.allocateRenderResources()
        let render = unit.renderBlock
        let schedule = unit.scheduleParameterBlock
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 256)!
        buffer.frameLength = 256
        let list = buffer.mutableAudioBufferList
        let pull: AURenderPullInputBlock = { _, _, frames, _, data in
            let buffers = UnsafeMutableAudioBufferListPointer(data)
            var b = 0
            while b < buffers.count {
                let p = buffers[b].mData!.assumingMemoryBound(to: Float.self)
                var i = 0
                while i < Int(frames) { p[i] = Float(i % 64) / 64 - 0.5; i += 1 }
                b += 1
            }
            return noErr
        }
        var flags = AudioUnitRenderActionFlags(rawValue: 0)
        var stamp = AudioTimeStamp()
        stamp.mFlags = .sampleTimeValid
        var status = noErr
        let rate = AUParameterAddress(kVarispeedParam_PlaybackRate)
        schedule(100, 0, rate, 1.5)
        for cycle in 0 ..< 20 {
            stamp.mSampleTime = Double(cycle * 256)
            status = render(&flags, &stamp, 256, 0, list, pull)
        }
        for k in 0 ..< 100 { schedule(AUEventSampleTime(20 * 256 + k * 997 + 50), 0, rate, 0.5 + Float(k % 7) / 4) }
        let counts = countAllocations {
            for cycle in 20 ..< 420 {
                stamp.mSampleTime = Double(cycle * 256)
                status = render(&flags, &stamp, 256, 0, list, pull)
            }
        }
        #expect(status == noErr)
        #expect(counts == .none, "\(counts)")
        unit.deallocateRenderResources()
    }
}

// A client's own audio unit, as Apple's AUv3 documentation has one write it: an AUAudioUnit
// subclass (a stereo gain with one parameter) registered with registerSubclass, instantiated,
// attached to an engine and rendered offline. Its internal render block pulls its input in place
// and splits the cycle at each event of its render event list, so a gain step scheduled with
// scheduleParameterBlock lands on its exact frame — whatever the chunk size, whatever order or
// thread the events were scheduled from.
import Foundation
import Testing
import AVFoundation

/// The DSP state the render block works on (a class the block captures: no reference to the unit).
final class ClientGainKernel {
    var gain: AUValue = 1
    /// Event times the block saw, in the order it saw them (test instrumentation; preallocated).
    var seen = UnsafeMutablePointer<AUEventSampleTime>.allocate(capacity: 4096)
    var seenCount = 0
}

/// A client's gain unit: one input, one output, parameter 0 = linear gain (0 … 2).
final class ClientGainUnit: AUAudioUnit {
    static let gainAddress: AUParameterAddress = 0
    let kernel = ClientGainKernel()
    private var inputs: AUAudioUnitBusArray!
    private var outputs: AUAudioUnitBusArray!

    override init(componentDescription: AudioComponentDescription, options: AudioComponentInstantiationOptions = []) throws {
        try super.init(componentDescription: componentDescription, options: options)
        let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
        inputs = AUAudioUnitBusArray(audioUnit: self, busType: .input, busses: [try AUAudioUnitBus(format: format)])
        outputs = AUAudioUnitBusArray(audioUnit: self, busType: .output, busses: [try AUAudioUnitBus(format: format)])
        let gain = AUParameterTree.createParameter(withIdentifier: "gain", name: "Gain", address: ClientGainUnit.gainAddress,
                                                   min: 0, max: 2, unit: .linearGain, unitName: nil,
                                                   flags: [.flag_IsReadable, .flag_IsWritable, .flag_CanRamp],
                                                   valueStrings: nil, dependentParameters: nil)
        gain.value = 1
        parameterTree = AUParameterTree.createTree(withChildren: [gain])
    }

    override var inputBusses: AUAudioUnitBusArray { inputs }
    override var outputBusses: AUAudioUnitBusArray { outputs }

    override func allocateRenderResources() throws {
        try super.allocateRenderResources()
        kernel.gain = parameterTree?.parameter(withAddress: ClientGainUnit.gainAddress)?.value ?? 1
    }

    override var internalRenderBlock: AUInternalRenderBlock {
        let kernel = self.kernel
        return { flags, timestamp, frameCount, _, output, events, pullInput in
            guard let pullInput else { return kAudioUnitErr_NoConnection }
            let status = pullInput(flags, timestamp, frameCount, 0, output)
            guard status == noErr else { return status }
            let buffers = UnsafeMutableAudioBufferListPointer(output)
            let start = AUEventSampleTime(timestamp.pointee.mSampleTime)
            let frames = Int(frameCount)
            var event = events
            var done = 0
            while done < frames {
                while let e = event, e.pointee.head.eventSampleTime <= start + AUEventSampleTime(done) {
                    if e.pointee.head.eventType == .parameter || e.pointee.head.eventType == .parameterRamp {
                        kernel.gain = e.pointee.parameter.value
                    }
                    if kernel.seenCount < 4096 { kernel.seen[kernel.seenCount] = e.pointee.head.eventSampleTime; kernel.seenCount += 1 }
                    event = UnsafePointer(e.pointee.head.next)
                }
                let next = event.map { Int($0.pointee.head.eventSampleTime - start) } ?? frames
                let n = min(frames, next) - done
                var b = 0
                while b < buffers.count {
                    let samples = buffers[b].mData!.assumingMemoryBound(to: Float.self) + done
                    var i = 0
                    while i < n { samples[i] *= kernel.gain; i += 1 }
                    b += 1
                }
                done += n
            }
            return noErr
        }
    }
}

func fourCC(_ s: String) -> OSType { s.utf8.reduce(0) { $0 << 8 | OSType($1) } }

@Suite(.serialized) struct AUAudioUnitSubclassTests {
    static let description = AudioComponentDescription(componentType: kAudioUnitType_Effect, componentSubType: fourCC("cgan"),
                                                       componentManufacturer: fourCC("Test"), componentFlags: 0, componentFlagsMask: 0)

    init() {
        AUAudioUnit.registerSubclass(ClientGainUnit.self, as: Self.description, name: "Test: Client Gain", version: 0x0001_0203)
    }

    /// source (1.0 on both channels) → the client's unit → main mixer, offline, stereo 44.1 kHz.
    func makeEngine(maximumFrames: AVAudioFrameCount = 4096) async throws -> (AVAudioEngine, AVAudioUnit) {
        let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: maximumFrames)
        let source = AVAudioSourceNode { _, _, frames, list in
            for buffer in UnsafeMutableAudioBufferListPointer(list) {
                let p = buffer.mData!.assumingMemoryBound(to: Float.self)
                for i in 0..<Int(frames) { p[i] = 1 }
            }
            return noErr
        }
        let unit = try await AVAudioUnit.instantiate(with: Self.description, options: [])
        engine.attach(source)
        engine.attach(unit)
        engine.connect(source, to: unit, format: format)
        engine.connect(unit, to: engine.mainMixerNode, format: format)
        try engine.start()
        return (engine, unit)
    }

    /// Renders `total` frames in chunks of `chunk`; channel 0 (channel 1 must equal it).
    func render(_ engine: AVAudioEngine, total: Int, chunk: Int, beforeChunk: (Int) -> Void = { _ in }) throws -> [Float] {
        let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: AVAudioFrameCount(chunk))!
        var out: [Float] = []
        while out.count < total {
            beforeChunk(out.count)
            let n = min(chunk, total - out.count)
            let status = try engine.renderOffline(AVAudioFrameCount(n), to: buffer)
            #expect(status == .success)
            let l = buffer.floatChannelData![0], r = buffer.floatChannelData![1]
            for i in 0..<Int(buffer.frameLength) {
                if l[i] != r[i] { Issue.record("channels differ at \(out.count + i)"); break }
            }
            out += Array(UnsafeBufferPointer(start: l, count: Int(buffer.frameLength)))
        }
        return out
    }

    @Test func registrationInstantiationAndIdentity() async throws {
        let unit = try await AVAudioUnit.instantiate(with: Self.description)
        #expect(unit is AVAudioUnitEffect)
        #expect(unit.auAudioUnit is ClientGainUnit)
        #expect(unit.auAudioUnit.componentName == "Test: Client Gain")
        #expect(unit.auAudioUnit.audioUnitName == "Client Gain")
        #expect(unit.auAudioUnit.manufacturerName == "Test")
        #expect(unit.auAudioUnit.componentVersion == 0x0001_0203)
        #expect(unit.name == "Client Gain" && unit.manufacturerName == "Test" && unit.version == 0x0001_0203)
        #expect(unit.numberOfInputs == 1 && unit.numberOfOutputs == 1)
        #expect(unit.audioUnit == OpaquePointer(Unmanaged.passUnretained(unit.auAudioUnit).toOpaque()))

        // the completion-handler forms
        let viaHandler: AUAudioUnit = try await withCheckedThrowingContinuation { c in
            AUAudioUnit.instantiate(with: Self.description, options: []) { unit, error in
                if let unit { c.resume(returning: unit) } else { c.resume(throwing: error!) }
            }
        }
        #expect(viaHandler is ClientGainUnit)
        let node: AVAudioUnit = try await withCheckedThrowingContinuation { c in
            AVAudioUnit.instantiate(with: Self.description, options: []) { unit, error in
                if let unit { c.resume(returning: unit) } else { c.resume(throwing: error!) }
            }
        }
        #expect(node.auAudioUnit is ClientGainUnit)

        // the component manager lists it
        let found = AVAudioUnitComponentManager.shared().components(matching: Self.description)
        #expect(found.count == 1)
        #expect(found.first?.name == "Client Gain" && found.first?.manufacturerName == "Test" && found.first?.versionString == "1.2.3")
        #expect(found.first?.typeName == AVAudioUnitTypeEffect)

        // an unknown component is an error, not a trap
        var unknown = Self.description
        unknown.componentSubType = fourCC("none")
        await #expect(throws: (any Error).self) { _ = try await AVAudioUnit.instantiate(with: unknown) }
    }

    /// A client's AVAudioUnitEffect subclass calls the designated initializer.
    @Test func effectSubclassCallsSuperInit() throws {
        final class MyGain: AVAudioUnitEffect {
            init() { super.init(audioComponentDescription: AUAudioUnitSubclassTests.description) }
        }
        let node = MyGain()
        #expect(node.auAudioUnit is ClientGainUnit)
        #expect(node.bypass == false)
        node.bypass = true
        #expect(node.auAudioUnit.shouldBypassEffect)
        // built-in descriptions still make our own effects
        let delay = AVAudioUnitEffect(audioComponentDescription: AudioComponentDescription(
            componentType: kAudioUnitType_Effect, componentSubType: kAudioUnitSubType_Delay,
            componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0))
        #expect(delay.auAudioUnit.parameterTree?.allParameters.count == 4)
    }

    @Test func rendersThroughInternalRenderBlock() async throws {
        let (engine, unit) = try await makeEngine()
        #expect(unit.auAudioUnit.renderResourcesAllocated)
        #expect(unit.auAudioUnit.maximumFramesToRender >= 4096)
        #expect(unit.auAudioUnit.inputBusses[0].format.sampleRate == 44_100)
        let out = try render(engine, total: 1000, chunk: 512)
        #expect(out.allSatisfy { $0 == 1 })
        // the unit reads the parameter's value when it allocates its render resources
        engine.stop()
        unit.auAudioUnit.deallocateRenderResources()
        unit.auAudioUnit.parameterTree?.parameter(withAddress: 0)?.value = 0.25
        try engine.start()
        let quieter = try render(engine, total: 100, chunk: 100)
        #expect(quieter.allSatisfy { $0 == 0.25 })
    }

    /// Apple's template pattern: the unit's implementorValueObserver stores a host's change in
    /// the DSP state, which the next cycle uses.
    @Test func implementorValueObserverReachesTheKernel() async throws {
        let (engine, unit) = try await makeEngine()
        let kernel = (unit.auAudioUnit as! ClientGainUnit).kernel
        unit.auAudioUnit.parameterTree?.implementorValueObserver = { _, value in kernel.gain = value }
        unit.auAudioUnit.parameterTree?.parameter(withAddress: ClientGainUnit.gainAddress)?.value = 0.5
        let out = try render(engine, total: 300, chunk: 100)
        #expect(out.allSatisfy { $0 == 0.5 })
    }

    /// A step scheduled at frame N lands at exactly frame N, for chunk sizes 1, 37, 512 and 4096.
    @Test(arguments: [1, 37, 512, 4096])
    func sampleAccurateStep(chunk: Int) async throws {
        let (engine, unit) = try await makeEngine()
        let N = 5003
        unit.auAudioUnit.scheduleParameterBlock(AUEventSampleTime(N), 0, ClientGainUnit.gainAddress, 0.5)
        let out = try render(engine, total: 9000, chunk: chunk)
        let wrongBefore = (0..<N).filter { out[$0] != 1 }
        let wrongAfter = (N..<out.count).filter { out[$0] != 0.5 }
        #expect(wrongBefore.isEmpty, "first wrong frame before the step: \(wrongBefore.first ?? -1)")
        #expect(wrongAfter.isEmpty, "first wrong frame after the step: \(wrongAfter.first ?? -1)")
    }

    /// Events scheduled from eight threads, in scrambled order, are applied in time order.
    @Test func outOfOrderEventsFromManyThreads() async throws {
        let (engine, unit) = try await makeEngine()
        let schedule = unit.auAudioUnit.scheduleParameterBlock
        // event k at frame 300 k + 7, gain k / 64
        let times = (1...64).map { (k: $0, t: AUEventSampleTime(300 * $0 + 7)) }
        DispatchQueue.concurrentPerform(iterations: 8) { thread in
            for e in times.reversed() where e.k % 8 == thread {
                schedule(e.t, 0, ClientGainUnit.gainAddress, AUValue(e.k) / 64)
            }
        }
        let out = try render(engine, total: 300 * 66, chunk: 441)
        var wrong: [Int] = []
        for i in 0..<out.count {
            let k = min(64, i < 307 ? 0 : (i - 7) / 300)
            let expected: Float = k == 0 ? 1 : Float(k) / 64
            if out[i] != expected { wrong.append(i) }
        }
        #expect(wrong.isEmpty, "\(wrong.count) wrong frames, first at \(wrong.first ?? -1)")
        // the unit's event lists were in time order
        let kernel = (unit.auAudioUnit as! ClientGainUnit).kernel
        let seen = Array(UnsafeBufferPointer(start: kernel.seen, count: kernel.seenCount))
        #expect(seen == times.map(\.t))
    }

    /// An immediate change is not held up behind one scheduled for later.
    @Test func immediateEventNotDelayedBehindFutureOne() async throws {
        let (engine, unit) = try await makeEngine()
        let schedule = unit.auAudioUnit.scheduleParameterBlock
        _ = try render(engine, total: 1024, chunk: 512)
        schedule(AUEventSampleTime(20_000), 0, ClientGainUnit.gainAddress, 0.25)   // far in the future
        schedule(AUEventSampleTimeImmediate, 0, ClientGainUnit.gainAddress, 0.5)   // now
        schedule(AUEventSampleTimeImmediate + 100, 0, ClientGainUnit.gainAddress, 0.75)   // 100 frames into the next cycle
        let out = try render(engine, total: 512, chunk: 512)
        #expect(out[0..<100].allSatisfy { $0 == 0.5 })
        #expect(out[100...].allSatisfy { $0 == 0.75 })
        let rest = try render(engine, total: 20_000 - 1536 + 10, chunk: 4096)
        #expect(rest[rest.count - 11] == 0.75 && rest[rest.count - 10] == 0.25)
    }

    /// fullState uses Apple's .aupreset keys and restores the parameter values; loadPreset(at:)
    /// reads the same dictionary from a property-list file.
    @Test func fullStateAndPresetFiles() async throws {
        let node = try await AVAudioUnit.instantiate(with: Self.description)
        let unit = node.auAudioUnit
        let gain = try #require(unit.parameterTree?.parameter(withAddress: 0))
        gain.value = 0.375
        let state = try #require(unit.fullState)
        #expect(state[kAUPresetTypeKey] as? Int == Int(kAudioUnitType_Effect))
        #expect(state[kAUPresetSubtypeKey] as? Int == Int(fourCC("cgan")))
        #expect(state[kAUPresetManufacturerKey] as? Int == Int(fourCC("Test")))
        #expect(state[kAUPresetVersionKey] as? Int == 0)
        #expect(state[kAUPresetNameKey] as? String == "Untitled")
        let data = try #require(state[kAUPresetDataKey] as? Data)
        // scope 0, element 0, one parameter: id 0, Float32 0.375, all big-endian
        #expect([UInt8](data) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0] + withUnsafeBytes(of: Float(0.375).bitPattern.bigEndian, Array.init))
        gain.value = 2
        unit.fullState = state
        #expect(gain.value == 0.375)

        var preset = state
        preset[kAUPresetNameKey] = "Quiet"
        var bytes = [UInt8](data)
        bytes.replaceSubrange(16..<20, with: withUnsafeBytes(of: Float(0.125).bitPattern.bigEndian, Array.init))
        preset[kAUPresetDataKey] = Data(bytes)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("client-gain-\(UUID()).aupreset")
        try PropertyListSerialization.data(fromPropertyList: preset, format: .xml, options: 0).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        try node.loadPreset(at: url)
        #expect(gain.value == 0.125)
        #expect(unit.currentPreset?.name == "Quiet")

        // a preset of another unit is refused with an error naming the file
        var other = preset
        other[kAUPresetSubtypeKey] = Int(kAudioUnitSubType_Delay)
        try PropertyListSerialization.data(fromPropertyList: other, format: .xml, options: 0).write(to: url)
        #expect(throws: (any Error).self) { try node.loadPreset(at: url) }
    }

    @Test func bussesAndRenderResources() throws {
        let unit = try ClientGainUnit(componentDescription: Self.description, options: [])
        #expect(unit.inputBusses.count == 1 && unit.outputBusses.count == 1)
        #expect(unit.maximumFramesToRender == 1024)
        #expect(!unit.renderResourcesAllocated)
        #expect(unit.outputBusses[0].busType == .output && unit.outputBusses[0].index == 0)
        #expect(unit.outputBusses[0].ownerAudioUnit === unit)
        let mono = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
        try unit.outputBusses[0].setFormat(mono)
        #expect(unit.outputBusses[0].format == mono)
        unit.maximumFramesToRender = 256
        try unit.allocateRenderResources()
        #expect(unit.renderResourcesAllocated)
        #expect(throws: (any Error).self) { try unit.outputBusses[0].setFormat(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1)!) }
        #expect(throws: (any Error).self) { try unit.outputBusses.setBusCount(2) }

        // hosting the unit directly through its render block, beyond the maximum: an error
        var flags = AudioUnitRenderActionFlags()
        var stamp = AudioTimeStamp()
        let buffer = AVAudioPCMBuffer(pcmFormat: mono, frameCapacity: 512)!
        let status = unit.renderBlock(&flags, &stamp, 512, 0, buffer.mutableAudioBufferList, nil)
        #expect(status == kAudioUnitErr_TooManyFramesToProcess)
        #expect(unit.renderBlock(&flags, &stamp, 256, 0, buffer.mutableAudioBufferList, nil) == kAudioUnitErr_NoConnection)
        unit.deallocateRenderResources()
        #expect(!unit.renderResourcesAllocated)
    }

    /// The C layout of Apple's render-event structs.
    @Test func renderEventLayout() {
        #expect(MemoryLayout<AURenderEventHeader>.size == 24)
        #expect(MemoryLayout<AUParameterEvent>.offset(of: \AUParameterEvent.rampDurationSampleFrames) == 20)
        #expect(MemoryLayout<AUParameterEvent>.offset(of: \AUParameterEvent.parameterAddress) == 24)
        #expect(MemoryLayout<AUParameterEvent>.size == 40)
        #expect(MemoryLayout<AUMIDIEvent>.offset(of: \AUMIDIEvent.length) == 18)
        #expect(MemoryLayout<AUMIDIEvent>.offset(of: \AUMIDIEvent.data) == 21)
        #expect(AURenderEventType.parameter.rawValue == 1 && AURenderEventType.parameterRamp.rawValue == 2)
        #expect(AURenderEventType.MIDI.rawValue == 8 && AURenderEventType.midiSysEx.rawValue == 9 && AURenderEventType.midiEventList.rawValue == 10)
        #expect(AudioUnitRenderActionFlags.unitRenderAction_OutputIsSilence.rawValue == 16)
    }
}

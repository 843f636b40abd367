// A client's audio unit is prepared (bus formats, allocateRenderResources, render block) with no
// engine lock held, and never rendered while its resources are being reallocated.
//
// Apple's AUAudioUnit contract: a host calls allocateRenderResources() before rendering and never
// renders while resources are deallocated; AVAudioEngine allocates a node's unit when it prepares
// or when a connection changes the unit's formats. The unit here checks that contract from its
// render block, and its allocateRenderResources() calls back into the engine from another thread
// (as a unit that asks its host something synchronously on a queue would): that deadlocks when
// the engine holds its lock while calling the client.
import Foundation
import Synchronization
import Testing
import AVFoundation

/// Counts how its host treats it. Shared with the render block (no reference to the unit).
final class PreparationProbe: @unchecked Sendable {
    let allocated = Atomic<Bool>(false)
    let renderedWhileDeallocated = Atomic<Int>(0)
    let renders = Atomic<Int>(0)
    let allocations = Atomic<Int>(0)
    /// Runs inside allocateRenderResources() (the test's call back into the engine).
    var onAllocate: (@Sendable () -> Void)?
}

final class PreparationProbeUnit: AUAudioUnit {
    let probe = PreparationProbe()
    private var inputs: AUAudioUnitBusArray!
    private var outputs: AUAudioUnitBusArray!

    override init(componentDescription: AudioComponentDescription, options: AudioComponentInstantiationOptions = []) throws {
        try super.init(componentDescription: componentDescription, options: options)
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        inputs = AUAudioUnitBusArray(audioUnit: self, busType: .input, busses: [try AUAudioUnitBus(format: format)])
        outputs = AUAudioUnitBusArray(audioUnit: self, busType: .output, busses: [try AUAudioUnitBus(format: format)])
    }

    override var inputBusses: AUAudioUnitBusArray { inputs }
    override var outputBusses: AUAudioUnitBusArray { outputs }

    override func allocateRenderResources() throws {
        try super.allocateRenderResources()
        probe.onAllocate?()
        probe.allocations.add(1, ordering: .relaxed)
        probe.allocated.store(true, ordering: .releasing)
    }

    override func deallocateRenderResources() {
        probe.allocated.store(false, ordering: .releasing)
        usleep(500)   // (widens the window a render cycle would have to hit)
        super.deallocateRenderResources()
    }

    override var internalRenderBlock: AUInternalRenderBlock {
        let probe = self.probe
        return { flags, timestamp, frameCount, _, output, _, pullInput in
            if !probe.allocated.load(ordering: .acquiring) { probe.renderedWhileDeallocated.add(1, ordering: .relaxed) }
            probe.renders.add(1, ordering: .relaxed)
            guard let pullInput else { return kAudioUnitErr_NoConnection }
            return pullInput(flags, timestamp, frameCount, 0, output)
        }
    }
}

@Suite(.serialized) struct AUAudioUnitPreparationTests {
    static let description = AudioComponentDescription(componentType: kAudioUnitType_Effect, componentSubType: fourCC("prep"),
                                                       componentManufacturer: fourCC("Test"),
                                                       componentFlags: AudioComponentFlags.unsearchable.rawValue, componentFlagsMask: 0)

    init() {
        AUAudioUnit.registerSubclass(PreparationProbeUnit.self, as: Self.description, name: "Test: Preparation Probe", version: 1)
    }

    func source(value: Float) -> AVAudioSourceNode {
        AVAudioSourceNode { _, _, frames, list in
            for buffer in UnsafeMutableAudioBufferListPointer(list) {
                let p = buffer.mData!.assumingMemoryBound(to: Float.self)
                for i in 0..<Int(frames) { p[i] = value }
            }
            return noErr
        }
    }

    /// allocateRenderResources() waits for another thread that uses the engine: no deadlock, and
    /// the unit renders once the connection call returned.
    @Test func allocateRenderResourcesMayCallTheEngineFromAnotherThread() async throws {
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 512)
        let node = try await AVAudioUnit.instantiate(with: Self.description, options: [])
        let probe = (node.auAudioUnit as! PreparationProbeUnit).probe
        let asked = Atomic<Int>(0)
        let sendableEngine = Handed(engine)
        probe.onAllocate = {
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                // Any engine call from another thread: it needs the engine's lock.
                asked.store(sendableEngine.value.attachedNodes.count, ordering: .relaxed)
                done.signal()
            }
            done.wait()
        }
        let src = source(value: 0.5)
        let box = Handed((engine, node, src))
        let finished = withWatchdog("connect a unit whose allocateRenderResources calls the engine", seconds: 10) {
            let (engine, node, src) = box.value
            engine.attach(src)
            engine.attach(node)
            engine.connect(src, to: node, format: format)
            engine.connect(node, to: engine.mainMixerNode, format: format)
            try? engine.start()
        }
        #expect(finished)
        guard finished else { return }
        #expect(asked.load(ordering: .relaxed) >= 3)
        #expect(probe.allocations.load(ordering: .relaxed) >= 1)
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512)!
        #expect(try engine.renderOffline(512, to: buffer) == .success)
        // The unit passes its input through: the source's 0.5 reaches the output from frame 0.
        #expect(buffer.floatChannelData![0][0] == 0.5)
        #expect(buffer.floatChannelData![1][511] == 0.5)
        #expect(probe.renders.load(ordering: .relaxed) >= 1)
        #expect(probe.renderedWhileDeallocated.load(ordering: .relaxed) == 0)
        engine.stop()
    }

    /// While the engine renders in real time, connections that change the unit's formats make the
    /// engine reallocate it: its render block is never called while its resources are deallocated.
    @Test func neverRenderedWhileReallocating() async throws {
        let engine = AVAudioEngine()
        let node = try await AVAudioUnit.instantiate(with: Self.description, options: [])
        let probe = (node.auAudioUnit as! PreparationProbeUnit).probe
        let src = source(value: 0.25)
        engine.attach(src)
        engine.attach(node)
        let rate = engine.outputNode.outputFormat(forBus: 0).sampleRate
        let formats = [AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2)!,
                       AVAudioFormat(standardFormatWithSampleRate: rate, channels: 1)!]
        engine.connect(src, to: node, format: formats[0])
        engine.connect(node, to: engine.mainMixerNode, format: formats[0])
        try engine.start()
        let box = Handed((engine, node, src, formats))
        let finished = withWatchdog("reconnect a rendering unit 40 times", seconds: 30) {
            let (engine, node, src, formats) = box.value
            for i in 1...40 {
                engine.connect(src, to: node, format: formats[i % 2])
                engine.connect(node, to: engine.mainMixerNode, format: formats[i % 2])
                usleep(3000)
            }
        }
        #expect(finished)
        #expect(eventually { probe.renders.load(ordering: .relaxed) > 40 })
        engine.stop()
        #expect(probe.renderedWhileDeallocated.load(ordering: .relaxed) == 0)
        // Every format change re-prepared the unit (at least one allocation per change that took effect).
        #expect(probe.allocations.load(ordering: .relaxed) >= 10)
    }
}

/// Hands a non-Sendable value to a watchdog thread (the test serialises access itself).
struct Handed<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

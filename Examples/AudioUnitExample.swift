// Your own audio unit: an AUAudioUnit subclass (a stereo gain whose one parameter can step or
// ramp), registered under its own component description, instantiated as an AVAudioUnitEffect,
// attached between a player and the main mixer, automated sample-accurately with
// scheduleParameterBlock and rendered offline.
//
// The render block pulls its input into the output buffer, then walks the cycle's event list: it
// processes up to the next event, applies it (a step, or the start of a linear ramp), and goes on
// — so the gain changes on exactly the frame each event names, however the engine chunks the
// rendering. The check compares every output sample with input × the gain the automation
// describes, computed here from the schedule alone.
import AVFoundation

/// The DSP state, shared by the unit and its render block (the block holds no reference to the unit).
final class GainDSP {
    var gain: Float = 1
    private var from: Float = 1, target: Float = 1
    private var rampLength = 0, rampPosition = 0

    /// Applies a parameter event: a step (`ramp` 0) or a linear ramp reaching `value` after `ramp` frames.
    func apply(_ value: Float, ramp: Int) {
        from = gain
        target = value
        rampLength = max(0, ramp)
        rampPosition = 0
        if rampLength == 0 { gain = value }
    }

    /// Multiplies `frames` samples of each channel from `start` by the gain, advancing any ramp.
    func process(_ channels: UnsafeMutableAudioBufferListPointer, from start: Int, frames: Int) {
        for buffer in channels {
            let p = buffer.mData!.assumingMemoryBound(to: Float.self) + start
            for i in 0..<frames {
                let k = rampPosition + i + 1   // frames of the ramp done after this one
                p[i] *= k <= rampLength ? from + (target - from) * Float(k) / Float(rampLength) : (rampLength > 0 ? target : gain)
            }
        }
        if rampLength > 0 {
            rampPosition += frames
            if rampPosition >= rampLength { gain = target; rampLength = 0 }
            else { gain = from + (target - from) * Float(rampPosition) / Float(rampLength) }
        }
    }
}

/// The audio unit, as a client writes one.
final class GainAudioUnit: AUAudioUnit {
    static let description = AudioComponentDescription(componentType: kAudioUnitType_Effect,
                                                       componentSubType: 0x6761_696E,     // 'gain'
                                                       componentManufacturer: 0x4465_6D6F, // 'Demo'
                                                       componentFlags: 0, componentFlagsMask: 0)
    static let gainAddress: AUParameterAddress = 0
    private let dsp = GainDSP()
    private var inputBusArray: AUAudioUnitBusArray!
    private var outputBusArray: AUAudioUnitBusArray!

    override init(componentDescription: AudioComponentDescription, options: AudioComponentInstantiationOptions = []) throws {
        try super.init(componentDescription: componentDescription, options: options)
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        inputBusArray = AUAudioUnitBusArray(audioUnit: self, busType: .input, busses: [try AUAudioUnitBus(format: format)])
        outputBusArray = AUAudioUnitBusArray(audioUnit: self, busType: .output, busses: [try AUAudioUnitBus(format: format)])
        let gain = AUParameterTree.createParameter(withIdentifier: "gain", name: "Gain", address: Self.gainAddress,
                                                   min: 0, max: 2, unit: .linearGain, unitName: nil,
                                                   flags: [.flag_IsReadable, .flag_IsWritable, .flag_CanRamp],
                                                   valueStrings: nil, dependentParameters: nil)
        gain.value = 1
        parameterTree = AUParameterTree.createTree(withChildren: [gain])
    }

    override var inputBusses: AUAudioUnitBusArray { inputBusArray }
    override var outputBusses: AUAudioUnitBusArray { outputBusArray }

    override func allocateRenderResources() throws {
        try super.allocateRenderResources()
        dsp.apply(parameterTree?.parameter(withAddress: Self.gainAddress)?.value ?? 1, ramp: 0)
    }

    override var internalRenderBlock: AUInternalRenderBlock {
        let dsp = self.dsp
        return { flags, timestamp, frameCount, _, outputData, events, pullInput in
            guard let pullInput else { return kAudioUnitErr_NoConnection }
            let status = pullInput(flags, timestamp, frameCount, 0, outputData)   // the input, in place
            guard status == noErr else { return status }
            let channels = UnsafeMutableAudioBufferListPointer(outputData)
            let now = AUEventSampleTime(timestamp.pointee.mSampleTime)
            var event = events
            var done = 0
            while done < Int(frameCount) {
                // apply every event due at this frame
                while let e = event, e.pointee.head.eventSampleTime <= now + AUEventSampleTime(done) {
                    if e.pointee.head.eventType == .parameter || e.pointee.head.eventType == .parameterRamp,
                       e.pointee.parameter.parameterAddress == GainAudioUnit.gainAddress {
                        dsp.apply(e.pointee.parameter.value, ramp: Int(e.pointee.parameter.rampDurationSampleFrames))
                    }
                    event = UnsafePointer(e.pointee.head.next)
                }
                // process up to the next event (or the end of the cycle)
                let end = event.map { Int($0.pointee.head.eventSampleTime - now) } ?? Int(frameCount)
                dsp.process(channels, from: done, frames: end - done)
                done = end
            }
            return noErr
        }
    }
}

enum AudioUnitExample {
    static func run() throws -> [Check] {
        AUAudioUnit.registerSubclass(GainAudioUnit.self, as: GainAudioUnit.description, name: "Demo: Gain", version: 1)
        let found = AVAudioUnitComponentManager.shared().components(matching: GainAudioUnit.description)

        // AVAudioUnit.instantiate(with:) makes an AVAudioUnitEffect around a new GainAudioUnit.
        var made: AVAudioUnit?
        let done = DispatchSemaphore(value: 0)
        AVAudioUnit.instantiate(with: GainAudioUnit.description) { unit, _ in made = unit; done.signal() }
        done.wait()
        guard let effect = made as? AVAudioUnitEffect else { throw ExampleError("instantiate did not make an AVAudioUnitEffect") }

        // Automation: 1 until frame 12 000, 0.25 from there, then a ramp from frame 24 000 reaching
        // 1.5 after 4 800 frames (0.1 s), held.
        let stepAt = 12_000, rampAt = 24_000, rampFrames = 4_800
        let input = Support.buffer(seconds: 1, channels: 2) { _, i in 0.5 * Float(sin(2 * Double.pi * 440 * Double(i) / Support.rate)) }
        let output = try Support.process(input, through: effect, seconds: 1) {
            let schedule = effect.auAudioUnit.scheduleParameterBlock
            schedule(AUEventSampleTime(rampAt), AUAudioFrameCount(rampFrames), GainAudioUnit.gainAddress, 1.5)   // (any order)
            schedule(AUEventSampleTime(stepAt), 0, GainAudioUnit.gainAddress, 0.25)
        }
        try Support.save(output, "audiounit")

        // The gain the automation describes, frame by frame.
        func expectedGain(_ i: Int) -> Double {
            if i < stepAt { return 1 }
            if i < rampAt { return 0.25 }
            if i >= rampAt + rampFrames - 1 { return 1.5 }
            return 0.25 + (1.5 - 0.25) * Double(i - rampAt + 1) / Double(rampFrames)
        }
        let x = input.floatChannelData![0], l = output.floatChannelData![0], r = output.floatChannelData![1]
        var worst = 0.0, firstWrong = -1
        for i in 0..<Int(output.frameLength) {
            let error = max(abs(Double(l[i]) - Double(x[i]) * expectedGain(i)), abs(Double(r[i]) - Double(x[i]) * expectedGain(i)))
            if error > 1e-5 && firstWrong < 0 { firstWrong = i }
            worst = max(worst, error)
        }
        let before = Support.rms(output, 0, 0..<stepAt), after = Support.rms(output, 0, stepAt..<rampAt)
        return [
            Check("the component manager lists it: \(found.first.map { "\($0.manufacturerName): \($0.name)" } ?? "nothing")",
                  found.first?.name == "Gain" && found.first?.manufacturerName == "Demo"),
            Check("instantiate made an AVAudioUnitEffect around GainAudioUnit: \(type(of: effect.auAudioUnit))", effect.auAudioUnit is GainAudioUnit),
            Check("the step to 0.25 at frame \(stepAt): level \(Support.fmt(Support.dB(after / before))) dB (−12.04)",
                  abs(Support.dB(after / before) - 20 * log10(0.25)) < 0.05),
            Check("every sample is input × automated gain (largest error \(String(format: "%.1e", worst)), first wrong frame \(firstWrong))",
                  worst < 1e-5 && firstWrong < 0),
            Check("last frame before the step \(Support.fmt(Double(l[stepAt - 1] / x[stepAt - 1]), 4))× , at the step \(Support.fmt(Double(l[stepAt] / x[stepAt]), 4))×",
                  abs(l[stepAt - 1] - x[stepAt - 1]) < 1e-6 && abs(l[stepAt] - 0.25 * x[stepAt]) < 1e-6),
        ]
    }
}

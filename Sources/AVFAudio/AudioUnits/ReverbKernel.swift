// AVAudioUnitReverb's kernel: the effect renderer's interface bound to AudioKernels'
// ReverbProcessor (Sources/AudioKernels/Effects/ReverbProcessor.swift: the feedback delay
// network, its design notes and its real-time proofs). Nothing but forwarding here.
import Foundation
import AudioKernels

final class ReverbKernel: EffectKernel {
    // Apple's parameter IDs (AudioUnitParameters.h, AUReverb2).
    static let dryWetMix: AUParameterAddress = ReverbProcessor.dryWetMix
    static let gain: AUParameterAddress = ReverbProcessor.gain
    static let minDelayTime: AUParameterAddress = ReverbProcessor.minDelayTime
    static let maxDelayTime: AUParameterAddress = ReverbProcessor.maxDelayTime
    static let decayTimeAt0Hz: AUParameterAddress = ReverbProcessor.decayTimeAt0Hz
    static let decayTimeAtNyquist: AUParameterAddress = ReverbProcessor.decayTimeAtNyquist
    static let randomizeReflections: AUParameterAddress = ReverbProcessor.randomizeReflections

    let processor: ReverbProcessor
    /// The processor, for the render thread (`processor` keeps it alive; a call through a loaded
    /// reference would retain it).
    private let processorRef: Unmanaged<ReverbProcessor>

    init(sampleRate: Double, channels: Int, maximumFrames: Int) {
        processor = ReverbProcessor(sampleRate: sampleRate, channels: channels, maximumFrames: maximumFrames)
        processorRef = .passUnretained(processor)
        super.init()
    }

    /// Sets a parameter before the first render (no ramps).
    func setInitialParameter(_ address: AUParameterAddress, _ value: AUValue) {
        processor.setInitialParameter(address, value)
    }

    override func setParameter(_ address: AUParameterAddress, _ value: AUValue, rampFrames: Int) {
        KernelCall.setParameter(processorRef, address, value, rampFrames: rampFrames)
    }

    override func process(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                          channels: Int, frames: Int) {
        KernelCall.process(processorRef, input, output, channels: channels, frames: frames)
    }

    override func reset() { KernelCall.reset(processorRef) }
    override var latencyFrames: Int { processor.latencyFrames }
    override var tailTime: TimeInterval { processor.tailTime }
}

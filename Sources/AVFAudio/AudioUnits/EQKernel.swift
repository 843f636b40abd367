// AVAudioUnitEQ's kernel: the effect renderer's interface bound to AudioKernels'
// EqualizerProcessor (Sources/AudioKernels/Effects/EqualizerProcessor.swift: the cookbook
// biquads, the Float64 cascade, the glides, and the real-time proofs). Nothing but forwarding.
import Foundation
import AudioKernels

final class EQKernel: EffectKernel {
    static let maximumBands = EqualizerProcessor.maximumBands
    /// Frames over which an unramped parameter change glides.
    static let defaultRampFrames = EqualizerProcessor.defaultRampFrames

    let processor: EqualizerProcessor
    /// The processor, for the render thread (`processor` keeps it alive; a call through a loaded
    /// reference would retain it).
    private let processorRef: Unmanaged<EqualizerProcessor>

    init(sampleRate: Double, channels: Int, maximumFrames: Int, bandCount: Int) {
        processor = EqualizerProcessor(sampleRate: sampleRate, channels: channels, maximumFrames: maximumFrames, bandCount: bandCount)
        processorRef = .passUnretained(processor)
        super.init()
    }

    /// Control side, before the kernel is published: set a value without gliding.
    func setInitialParameter(_ address: AUParameterAddress, _ value: AUValue) {
        processor.setInitialParameter(address, value)
    }

    /// Control side: settle every band on its design after the initial values.
    func finishInitialParameters() { processor.finishInitialParameters() }

    override func setParameter(_ address: AUParameterAddress, _ value: AUValue, rampFrames: Int) {
        KernelCall.setParameter(processorRef, address, value, rampFrames: rampFrames)
    }

    override func process(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                          channels: Int, frames: Int) {
        KernelCall.process(processorRef, input, output, channels: channels, frames: frames)
    }

    override func reset() { KernelCall.reset(processorRef) }
    override var latencyFrames: Int { processor.latencyFrames }
}

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

    init(sampleRate: Double, channels: Int, maximumFrames: Int, bandCount: Int) {
        processor = EqualizerProcessor(sampleRate: sampleRate, channels: channels, maximumFrames: maximumFrames, bandCount: bandCount)
        super.init()
    }

    /// Control side, before the kernel is published: set a value without gliding.
    func setInitialParameter(_ address: AUParameterAddress, _ value: AUValue) {
        processor.setInitialParameter(address, value)
    }

    /// Control side: settle every band on its design after the initial values.
    func finishInitialParameters() { processor.finishInitialParameters() }

    override func setParameter(_ address: AUParameterAddress, _ value: AUValue, rampFrames: Int) {
        processor.setParameter(address, value, rampFrames: rampFrames)
    }

    override func process(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                          channels: Int, frames: Int) {
        processor.process(input: input, output: output, channels: channels, frames: frames)
    }

    override func reset() { processor.reset() }
    override var latencyFrames: Int { processor.latencyFrames }
}

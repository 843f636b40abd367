// AVAudioUnitDelay's kernel: the effect renderer's interface bound to AudioKernels'
// FeedbackDelayProcessor (Sources/AudioKernels/Effects/FeedbackDelayProcessor.swift: the line,
// the in-loop low-pass, the glides, and the real-time proofs). Nothing but forwarding here.
import Foundation
import AudioKernels

final class DelayKernel: EffectKernel {
    let processor: FeedbackDelayProcessor

    init(sampleRate: Double, channels: Int, maximumFrames: Int) {
        processor = FeedbackDelayProcessor(sampleRate: sampleRate, channels: channels, maximumFrames: maximumFrames)
        super.init()
    }

    /// rampFrames < 0: set at once (initial values); 0: the default glide.
    override func setParameter(_ address: AUParameterAddress, _ value: AUValue, rampFrames: Int) {
        processor.setParameter(address, value, rampFrames: rampFrames)
    }

    override func process(input: UnsafePointer<UnsafeMutablePointer<Float>>, output: UnsafePointer<UnsafeMutablePointer<Float>>,
                          channels: Int, frames: Int) {
        processor.process(input: input, output: output, channels: channels, frames: frames)
    }

    override func reset() { processor.reset() }
    override var latencyFrames: Int { processor.latencyFrames }
    override var tailTime: TimeInterval { processor.tailTime }
}

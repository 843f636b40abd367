// AVAudioUnitDelay's kernel: the effect renderer's interface bound to AudioKernels'
// FeedbackDelayProcessor (Sources/AudioKernels/Effects/FeedbackDelayProcessor.swift: the line,
// the in-loop low-pass, the glides, and the real-time proofs). Nothing but forwarding here.
import Foundation
import AudioKernels

final class DelayKernel: EffectKernel {
    let processor: FeedbackDelayProcessor
    /// The processor, for the render thread (`processor` keeps it alive; a call through a loaded
    /// reference would retain it).
    private let processorRef: Unmanaged<FeedbackDelayProcessor>

    init(sampleRate: Double, channels: Int, maximumFrames: Int) {
        processor = FeedbackDelayProcessor(sampleRate: sampleRate, channels: channels, maximumFrames: maximumFrames)
        processorRef = .passUnretained(processor)
        super.init()
    }

    /// rampFrames < 0: set at once (initial values); 0: the default glide.
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

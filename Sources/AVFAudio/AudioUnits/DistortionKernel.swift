// AVAudioUnitDistortion's kernel: the effect renderer's interface bound to AudioKernels'
// DistortionProcessor (Sources/AudioKernels/Effects/DistortionProcessor.swift: the chain, the
// 4× oversampled clipper, the latency, and the real-time proofs). Nothing but forwarding here.
import Foundation
import AudioKernels

final class DistortionKernel: EffectKernel {
    // Apple's parameter IDs (AudioUnitParameters.h, AUDistortion).
    static let delay: AUParameterAddress = DistortionProcessor.delay
    static let decay: AUParameterAddress = DistortionProcessor.decay
    static let delayMix: AUParameterAddress = DistortionProcessor.delayMix
    static let decimation: AUParameterAddress = DistortionProcessor.decimation
    static let rounding: AUParameterAddress = DistortionProcessor.rounding
    static let decimationMix: AUParameterAddress = DistortionProcessor.decimationMix
    static let linearTerm: AUParameterAddress = DistortionProcessor.linearTerm
    static let squaredTerm: AUParameterAddress = DistortionProcessor.squaredTerm
    static let cubicTerm: AUParameterAddress = DistortionProcessor.cubicTerm
    static let polynomialMix: AUParameterAddress = DistortionProcessor.polynomialMix
    static let ringModFreq1: AUParameterAddress = DistortionProcessor.ringModFreq1
    static let ringModFreq2: AUParameterAddress = DistortionProcessor.ringModFreq2
    static let ringModBalance: AUParameterAddress = DistortionProcessor.ringModBalance
    static let ringModMix: AUParameterAddress = DistortionProcessor.ringModMix
    static let softClipGain: AUParameterAddress = DistortionProcessor.softClipGain
    static let finalMix: AUParameterAddress = DistortionProcessor.finalMix
    // This project's colour filters.
    static let lowCut: AUParameterAddress = DistortionProcessor.lowCut
    static let highCut: AUParameterAddress = DistortionProcessor.highCut

    let processor: DistortionProcessor
    /// The processor, for the render thread (`processor` keeps it alive; a call through a loaded
    /// reference would retain it).
    private let processorRef: Unmanaged<DistortionProcessor>

    init(sampleRate: Double, channels: Int, maximumFrames: Int) {
        processor = DistortionProcessor(sampleRate: sampleRate, channels: channels, maximumFrames: maximumFrames)
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

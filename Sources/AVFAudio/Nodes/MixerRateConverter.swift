// Sample-rate conversion of one mixer input, pulled one render cycle at a time. Also used where a
// node converts its own audio: a source node whose block renders at another rate, the input node
// converting its manual rendering block's rate into an explicit connection format.
//
// Each cycle the render plan asks how many input frames the converter needs for the mixer's
// frames (`inputFramesNeeded`), renders exactly that many upstream, and the mixer converts them
// here into exactly `frames` output frames. The converter's streaming state carries over between
// cycles, so the result does not depend on the cycle size.
import AudioKernels

final class MixerRateConverter {
    let inputRate: Double
    let outputRate: Double
    let channels: Int
    private let converter: SampleRateConverter
    /// The converter for the render thread (`converter` keeps it alive).
    private let converterRef: Unmanaged<SampleRateConverter>
    private let output: PlanarScratch
    /// `output`'s channel pointers (read once: loading `output` on the render thread would retain it).
    private let outputChannels: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let maximumOutputFrames: Int
    private let inputPointers: UnsafeMutablePointer<UnsafePointer<Float>>
    /// Input frames consumed so far (the input domain's sample time).
    private(set) var inputSampleTime: Int64 = 0

    init(inputRate: Double, outputRate: Double, channels: Int, maximumOutputFrames: Int) {
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
        self.maximumOutputFrames = maximumOutputFrames
        converter = SampleRateConverter(inputRate: inputRate, outputRate: outputRate, channels: channels, quality: .high)
        converterRef = .passUnretained(converter)
        output = PlanarScratch(channels: channels, frames: maximumOutputFrames)
        outputChannels = output.channels
        inputPointers = .allocate(capacity: max(1, channels))
    }

    deinit { inputPointers.deallocate() }

    func matches(input: AVAudioFormat, output: AVAudioFormat, channels: Int) -> Bool {
        input.sampleRate == inputRate && output.sampleRate == outputRate && channels == self.channels
    }

    func inputFramesNeeded(forOutputFrames frames: Int) -> Int {
        KernelCall.inputFramesNeeded(converterRef, forOutputFrames: frames)
    }

    /// Upper bound of `inputFramesNeeded` for buffer sizing: the frames at the ratio, plus the
    /// converter's filter spans, plus one block of its fast-convolution stage (at most 16 384
    /// frames), which the first cycle may ask for in one go.
    func maximumInputFrames(forOutputFrames frames: Int) -> Int {
        Int((Double(frames) * inputRate / outputRate).rounded(.up)) + 2 * (converter.leadingFrames + converter.trailingFrames) + 16_384
    }

    /// Converts `input.frames` frames into `frames` output frames; returns the output channels.
    /// Render thread (proved: `RenderPathProof.converter`).
    @inline(__always)
    func convert(_ input: Unmanaged<RenderBuffer>, producing frames: Int) -> UnsafeMutablePointer<UnsafeMutablePointer<Float>> {
        let (inputChannels, inputCount, inputFrames) = input._withUnsafeGuaranteedRef { ($0.channels, $0.channelCount, $0.frames) }
        var c = 0
        while c < channels { inputPointers[c] = UnsafePointer(inputChannels[min(c, inputCount - 1)]); c += 1 }
        let inputs = UnsafeBufferPointer(start: UnsafePointer(inputPointers), count: channels)
        let outputs = UnsafeBufferPointer(start: UnsafePointer(outputChannels), count: channels)
        var consumed = 0, produced = 0
        while produced < frames {
            let r = KernelCall.process(converterRef, input: inputs, offset: consumed, inputFrames: inputFrames - consumed,
                                       output: outputs, offset: produced, outputCapacity: frames - produced)
            consumed += r.consumed
            produced += r.produced
            if r.consumed == 0 && r.produced == 0 { break }
        }
        // The plan rendered exactly what the converter asked for; anything short is silence.
        if produced < frames {
            c = 0
            while c < channels { (outputChannels[c] + produced).update(repeating: 0, count: frames - produced); c += 1 }
        }
        inputSampleTime += Int64(consumed)
        return outputChannels
    }

    func reset() {
        converter.reset()
        inputSampleTime = 0
    }
}

extension Unmanaged where Instance == MixerRateConverter {
    /// Render thread: `MixerRateConverter.convert` without a retain.
    @inline(__always)
    func convert(_ input: Unmanaged<RenderBuffer>, producing frames: Int) -> UnsafeMutablePointer<UnsafeMutablePointer<Float>> {
        _withUnsafeGuaranteedRef { $0.convert(input, producing: frames) }
    }
}

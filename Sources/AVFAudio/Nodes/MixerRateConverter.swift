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
    private let output: PlanarScratch
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
        output = PlanarScratch(channels: channels, frames: maximumOutputFrames)
        inputPointers = .allocate(capacity: max(1, channels))
    }

    deinit { inputPointers.deallocate() }

    func matches(input: AVAudioFormat, output: AVAudioFormat, channels: Int) -> Bool {
        input.sampleRate == inputRate && output.sampleRate == outputRate && channels == self.channels
    }

    func inputFramesNeeded(forOutputFrames frames: Int) -> Int {
        converter.inputFramesNeeded(forOutputFrames: frames)
    }

    /// Upper bound of `inputFramesNeeded` for buffer sizing: the frames at the ratio, plus the
    /// converter's filter spans, plus one block of its fast-convolution stage (at most 16 384
    /// frames), which the first cycle may ask for in one go.
    func maximumInputFrames(forOutputFrames frames: Int) -> Int {
        Int((Double(frames) * inputRate / outputRate).rounded(.up)) + 2 * (converter.leadingFrames + converter.trailingFrames) + 16_384
    }

    /// Converts `input.frames` frames into `frames` output frames; returns the output channels.
    func convert(_ input: RenderBuffer, producing frames: Int) -> UnsafeMutablePointer<UnsafeMutablePointer<Float>> {
        for c in 0..<channels { inputPointers[c] = UnsafePointer(input.channels[min(c, input.channelCount - 1)]) }
        let inputs = UnsafeBufferPointer(start: inputPointers, count: channels)
        let outputs = UnsafeBufferPointer(start: output.channels, count: channels)
        var consumed = 0, produced = 0
        while produced < frames {
            let r = converter.process(input: inputs, offset: consumed, inputFrames: input.frames - consumed,
                                      output: outputs, offset: produced, outputCapacity: frames - produced)
            consumed += r.consumed
            produced += r.produced
            if r.consumed == 0 && r.produced == 0 { break }
        }
        // The plan rendered exactly what the converter asked for; anything short is silence.
        if produced < frames {
            for c in 0..<channels { (output.channels[c] + produced).update(repeating: 0, count: frames - produced) }
        }
        inputSampleTime += Int64(consumed)
        return output.channels
    }

    func reset() {
        converter.reset()
        inputSampleTime = 0
    }
}

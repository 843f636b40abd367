// The enums, structs and block type that AVAudioConverter's API names.

/// What an input block reports along with the buffer it returns.
public enum AVAudioConverterInputStatus: Int, Sendable {
    /// The block returned a buffer of input (possibly more or fewer frames than asked).
    case haveData = 0
    /// No input is available now; the conversion returns `.inputRanDry` with what it produced.
    case noDataNow = 1
    /// The input is finished; the converter drains its tail and then reports `.endOfStream`.
    case endOfStream = 2
}

/// What `convert(to:error:withInputFrom:)` reports.
public enum AVAudioConverterOutputStatus: Int, Sendable {
    /// The output buffer was filled (or holds the last frames before the end of the stream).
    case haveData = 0
    /// The input block reported `.noDataNow`; the output holds what could be produced.
    case inputRanDry = 1
    /// The stream has ended and every frame has been delivered; the output holds no frames.
    case endOfStream = 2
    /// The conversion failed; the error pointer says why.
    case error = 3
}

/// How a sample-rate converter handles the filter's delay at the start and end of a stream.
public enum AVAudioConverterPrimeMethod: Int, Sendable {
    /// The client supplies `primeInfo.leadingFrames` of real input before the first output frame
    /// (e.g. from before a seek point); output is aligned with input.
    case pre = 0
    /// Leading input is assumed silent; output is aligned with input (zero latency). The default.
    case normal = 1
    /// No priming: the output is delayed by the filter's latency, and starts with that many
    /// frames of ramp-in.
    case none = 2
}

/// The number of frames a converter's filter looks ahead and behind.
public struct AVAudioConverterPrimeInfo: Sendable, Equatable {
    /// Input frames needed before the first output frame (with `.pre`).
    public var leadingFrames: AVAudioFrameCount
    /// Input frames needed after the last output frame (the tail drained at end of stream).
    public var trailingFrames: AVAudioFrameCount

    public init() {
        leadingFrames = 0
        trailingFrames = 0
    }

    public init(leadingFrames: AVAudioFrameCount, trailingFrames: AVAudioFrameCount) {
        self.leadingFrames = leadingFrames
        self.trailingFrames = trailingFrames
    }
}

/// Supplies input to `convert(to:error:withInputFrom:)`: asked for `inNumberOfPackets` packets
/// (frames, for PCM), it returns a buffer in the converter's input format and sets `outStatus`.
/// A plain closure, as in Apple's SDK, so it may capture and mutate local state.
public typealias AVAudioConverterInputBlock = (_ inNumberOfPackets: AVAudioPacketCount,
                                               _ outStatus: UnsafeMutablePointer<AVAudioConverterInputStatus>) -> AVAudioBuffer?

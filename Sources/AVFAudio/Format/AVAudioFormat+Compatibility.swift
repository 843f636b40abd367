// How the engine compares formats at a connection: nodes that neither resample nor remix need
// the same sample rate and channel count on both sides (sample type and interleaving are the
// render core's business: it always works in deinterleaved Float32).

extension AVAudioFormat {
    /// True when `other` has this format's sample rate and channel count.
    func hasSameRateAndChannels(as other: AVAudioFormat) -> Bool {
        sampleRate == other.sampleRate && channelCount == other.channelCount
    }
}

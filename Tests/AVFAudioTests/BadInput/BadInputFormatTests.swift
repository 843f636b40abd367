import Testing
import AVFoundation

/// Bad input to AVAudioFormat's initializers: nil, never a trap or a half-built format.
///
/// What it rests on: Apple documents `init?(settings:)`, `init?(standardFormatWithSampleRate:channels:)`
/// and `init?(commonFormat:sampleRate:channels:interleaved:)` as failable and says nothing about
/// which values fail; a settings dictionary is outside data (presets, JSON), so every value that
/// does not describe a format (wrong type, NaN, ±∞, ≤ 0, a channel count beyond what
/// `AudioChannelLayout` can number) gives nil here. A rate that is merely absurd but finite and
/// positive (1 GHz) describes a format and is accepted, as Core Audio's `AudioStreamBasicDescription`
/// accepts any positive rate.
@Suite struct BadInputFormatTests {
    static func settings(rate: Any = 44_100, channels: Any = 2) -> [String: Any] {
        [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: rate, AVNumberOfChannelsKey: channels]
    }

    @Test func settingsWithWrongValueTypesGiveNil() {
        #expect(AVAudioFormat(settings: Self.settings(rate: "44100")) == nil, "String rate")
        #expect(AVAudioFormat(settings: Self.settings(rate: [44_100])) == nil, "Array rate")
        #expect(AVAudioFormat(settings: Self.settings(rate: Data([1, 2, 3]))) == nil, "Data rate")
        #expect(AVAudioFormat(settings: Self.settings(channels: "2")) == nil, "String channel count")
        // A format ID, bit depth or file type of the wrong type is refused, not read as absent.
        #expect(AVAudioFormat(settings: [AVFormatIDKey: "lpcm", AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]) == nil)
        #expect(AVAudioFormat(settings: Self.settings().merging([AVLinearPCMBitDepthKey: "24"]) { $1 }) == nil)
        // A channel layout that is not Data is ignored (the channel count still gives mono).
        let f = AVAudioFormat(settings: Self.settings(channels: 1).merging([AVChannelLayoutKey: "stereo"]) { $1 })
        #expect(f?.channelCount == 1)
        // Missing keys.
        #expect(AVAudioFormat(settings: [:]) == nil)
        #expect(AVAudioFormat(settings: [AVSampleRateKey: 44_100]) == nil)
        #expect(AVAudioFormat(settings: [AVNumberOfChannelsKey: 2]) == nil)
    }

    @Test(arguments: [0.0, -44_100, .nan, .infinity, -.infinity, -0.0])
    func settingsWithAnInvalidSampleRateGiveNil(rate: Double) {
        #expect(AVAudioFormat(settings: Self.settings(rate: rate)) == nil)
        #expect(AVAudioFormat(settings: Self.settings(rate: NSNumber(value: rate))) == nil)
    }

    @Test(arguments: [0.0, -1, 65_536, 100_000, 1e12, .nan, .infinity, -.infinity])
    func settingsWithAnInvalidChannelCountGiveNil(channels: Double) {
        #expect(AVAudioFormat(settings: Self.settings(channels: channels)) == nil)
        #expect(AVAudioFormat(settings: Self.settings(channels: NSNumber(value: channels))) == nil)
    }

    @Test(arguments: [0.0, -48_000, .nan, .infinity, -.infinity])
    func initializersWithAnInvalidSampleRateGiveNil(rate: Double) {
        #expect(AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2) == nil)
        for common in [AVAudioCommonFormat.pcmFormatFloat32, .pcmFormatFloat64, .pcmFormatInt16, .pcmFormatInt32] {
            #expect(AVAudioFormat(commonFormat: common, sampleRate: rate, channels: 1, interleaved: true) == nil)
        }
        var asbd = AudioStreamBasicDescription(mSampleRate: rate, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked,
                                               mBytesPerPacket: 4, mFramesPerPacket: 1, mBytesPerFrame: 4,
                                               mChannelsPerFrame: 1, mBitsPerChannel: 32, mReserved: 0)
        #expect(AVAudioFormat(streamDescription: &asbd) == nil)
    }

    @Test func zeroChannelsGiveNil() {
        #expect(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 0) == nil)
        #expect(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 0, interleaved: true) == nil)
        var asbd = AudioStreamBasicDescription(mSampleRate: 48_000, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagIsFloat | kAudioFormatFlagIsPacked,
                                               mBytesPerPacket: 0, mFramesPerPacket: 1, mBytesPerFrame: 0,
                                               mChannelsPerFrame: 0, mBitsPerChannel: 32, mReserved: 0)
        #expect(AVAudioFormat(streamDescription: &asbd) == nil)
    }

    /// A stream description whose sizes do not add up (bytes per frame 0, bits beyond the
    /// container, 24-bit float, frames per packet 0) gives nil.
    @Test func inconsistentStreamDescriptionsGiveNil() {
        func asbd(bytes: UInt32, bits: UInt32, flags: AudioFormatFlags, framesPerPacket: UInt32 = 1) -> AudioStreamBasicDescription {
            AudioStreamBasicDescription(mSampleRate: 44_100, mFormatID: kAudioFormatLinearPCM, mFormatFlags: flags,
                                        mBytesPerPacket: bytes * framesPerPacket, mFramesPerPacket: framesPerPacket,
                                        mBytesPerFrame: bytes, mChannelsPerFrame: 2, mBitsPerChannel: bits, mReserved: 0)
        }
        let int = kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked
        for var d in [asbd(bytes: 0, bits: 16, flags: int), asbd(bytes: 2, bits: 16, flags: int),
                      asbd(bytes: 6, bits: 24, flags: kAudioFormatFlagIsFloat), asbd(bytes: 4, bits: 0, flags: int),
                      asbd(bytes: 4, bits: 16, flags: int, framesPerPacket: 0), asbd(bytes: 4, bits: 200, flags: int)] {
            #expect(AVAudioFormat(streamDescription: &d) == nil, "\(d)")
        }
    }

    /// Absurd but well-formed: a 1 GHz rate and 100,000 channels describe a format (Core Audio
    /// accepts them; a channel count is a UInt32). Its description and settings do not trap, and
    /// a format with more than 65,535 channels does not survive a settings round trip (nil, see
    /// above) rather than being truncated.
    @Test func absurdButWellFormedFormatsAreAcceptedAndPrintable() {
        let fast = AVAudioFormat(standardFormatWithSampleRate: 1e9, channels: 2)
        #expect(fast?.sampleRate == 1e9)
        #expect(fast?.description.contains("1000000000") == true, "\(String(describing: fast))")
        #expect(fast.flatMap { AVAudioFormat(settings: $0.settings) } == fast)
        let huge = AVAudioFormat(standardFormatWithSampleRate: 1e300, channels: 1)
        #expect(huge?.description.isEmpty == false)
        let wide = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 100_000)
        #expect(wide?.channelCount == 100_000)
        #expect(wide.flatMap { AVAudioFormat(settings: $0.settings) } == nil)
    }

    /// A layout whose channel count disagrees with the format's: nil (Apple documents the layout
    /// as giving the channel count).
    @Test func layoutAndChannelCountThatDisagreeGiveNil() {
        let stereo = AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_Stereo)!
        var settings = Self.settings(channels: 6)
        // The bytes of an AudioChannelLayout: tag, bitmap, description count (then none).
        var bytes = Data()
        for field in [kAudioChannelLayoutTag_Stereo, 0, 0] { withUnsafeBytes(of: UInt32(field).littleEndian) { bytes.append(contentsOf: $0) } }
        bytes.append(Data(count: 20))
        settings[AVChannelLayoutKey] = bytes
        #expect(AVAudioFormat(settings: settings) == nil)
        var asbd = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 6)!.streamDescription.pointee
        #expect(AVAudioFormat(streamDescription: &asbd, channelLayout: stereo) == nil)
        // Truncated or garbage layout bytes are ignored, never read past their end.
        settings = Self.settings(channels: 2)
        settings[AVChannelLayoutKey] = Data([0xFF, 0xFF])
        #expect(AVAudioFormat(settings: settings)?.channelCount == 2)
        settings[AVChannelLayoutKey] = Data(repeating: 0xFF, count: 12)
        #expect(AVAudioFormat(settings: settings)?.channelCount == 2 || AVAudioFormat(settings: settings) == nil)
    }

    /// More than two channels through the initializer Apple documents as requiring a layout: nil.
    @Test func moreThanTwoChannelsWithoutALayoutGiveNilFromStreamDescription() {
        var asbd = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 3)!.streamDescription.pointee
        #expect(AVAudioFormat(streamDescription: &asbd) == nil)
    }

    /// The trap Apple documents ("raises an exception") for the layout initializer with
    /// `.otherFormat`: a message naming the arguments.
    @Test func layoutInitializerWithOtherFormatTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AVAudioFormat(commonFormat: .otherFormat, sampleRate: 44_100, interleaved: false,
                              channelLayout: AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_Stereo)!)
        }
        let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(text.contains("invalid format, sample rate or layout"), "\(text)")
    }

    @Test func layoutInitializerWithAnInvalidRateTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            _ = AVAudioFormat(standardFormatWithSampleRate: .nan,
                              channelLayout: AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_Stereo)!)
        }
        let text = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(text.contains("sampleRate: nan"), "\(text)")
    }
}

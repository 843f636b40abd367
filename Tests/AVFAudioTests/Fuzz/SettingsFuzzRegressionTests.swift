import Testing
import AVFoundation

/// Findings of the `settings` fuzz target (Scripts/fuzz.sh), replayed through the public API.
///
/// Settings dictionaries are outside data (presets, JSON, user choices); a number that is not a
/// whole value where one is needed must give nil or an NSError, never a trap. That it is nil (and
/// not, say, the value read as 0) is our choice, not Apple's documented behaviour: Apple documents
/// nothing for such values; nil is what a missing or invalid sample rate already gives.
@Suite struct SettingsFuzzRegressionTests {
    static let notWhole: [Double] = [.nan, .infinity, -.infinity, 1e300, -1e300]

    /// Finding 1 (the fuzzer's crash-97c21df7: a 67-byte input decoding to a dictionary with
    /// `AVFormatIDKey: NaN`): `Int64(NaN)` trapped in `AVAudioFormat(settings:)`.
    @Test func formatIDThatIsNotAWholeNumberGivesNil() {
        for value in Self.notWhole {
            let settings: [String: Any] = [AVFormatIDKey: value, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]
            #expect(AVAudioFormat(settings: settings) == nil, "AVFormatIDKey \(value)")
        }
        // A whole format ID given as a Double still works.
        let pcm = AVAudioFormat(settings: [AVFormatIDKey: Double(kAudioFormatLinearPCM), AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2])
        #expect(pcm?.streamDescription.pointee.mFormatID == kAudioFormatLinearPCM)
    }

    /// The same conversion of the bit depth (`UInt32(NaN)` trapped).
    @Test func bitDepthThatIsNotAWholeNumberGivesNil() {
        for value in Self.notWhole {
            let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000,
                                           AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: value]
            #expect(AVAudioFormat(settings: settings) == nil, "AVLinearPCMBitDepthKey \(value)")
        }
        let format = AVAudioFormat(settings: [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 24.0])
        #expect(format?.streamDescription.pointee.mBitsPerChannel == 24)
    }

    /// The same conversion of `AVAudioFileTypeKey` when creating a file: an NSError.
    @Test func fileTypeThatIsNotAWholeNumberThrows() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("fuzz-settings-\(getpid()).wav")
        defer { try? FileManager.default.removeItem(at: url) }
        for value in Self.notWhole {
            let settings: [String: Any] = [AVAudioFileTypeKey: value, AVFormatIDKey: kAudioFormatLinearPCM,
                                           AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]
            #expect(throws: NSError.self, "AVAudioFileTypeKey \(value)") {
                _ = try AVAudioFile(forWriting: url, settings: settings)
            }
        }
    }
}

/// Finding 2 of the `settings` target (crash-a3096f15): a settings dictionary with a huge finite
/// sample rate (1e300) gives a format whose `description` trapped converting the rate to Int.
@Suite struct FormatDescriptionFuzzRegressionTests {
    @Test func hugeSampleRateDescribes() throws {
        for rate in [1e300, 1e18, 9.3e18, Double.greatestFiniteMagnitude] {
            let format = try #require(AVAudioFormat(settings: [AVSampleRateKey: rate, AVNumberOfChannelsKey: 2]))
            #expect(format.description.contains(" Hz"), "\(rate)")
        }
        let usual = try #require(AVAudioFormat(settings: [AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]))
        #expect(usual.description.contains("44100 Hz"))
    }
}

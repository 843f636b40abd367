import Testing
import AVFoundation

@Suite struct AVAudioFormatTests {
    @Test func standardFormat() throws {
        let f = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        #expect(f.isStandard)
        #expect(!f.isInterleaved)
        #expect(f.commonFormat == .pcmFormatFloat32)
        #expect(f.sampleRate == 48_000)
        #expect(f.channelCount == 2)
        let d = f.streamDescription.pointee
        #expect(d.mFormatID == kAudioFormatLinearPCM)
        #expect(d.mBytesPerFrame == 4 && d.mBytesPerPacket == 4 && d.mFramesPerPacket == 1 && d.mBitsPerChannel == 32)
        #expect(d.mFormatFlags == kAudioFormatFlagsNativeFloatPacked | kAudioFormatFlagIsNonInterleaved)
        // The pointer is stable.
        #expect(f.streamDescription == f.streamDescription)
    }

    /// Every common format × interleaving × channel count gives the stream description Core Audio
    /// would, and reads back as the same common format.
    @Test(arguments: [AVAudioCommonFormat.pcmFormatFloat32, .pcmFormatFloat64, .pcmFormatInt16, .pcmFormatInt32])
    func commonFormatSweep(common: AVAudioCommonFormat) throws {
        let bytes: UInt32 = [AVAudioCommonFormat.pcmFormatFloat64: 8, .pcmFormatInt16: 2][common] ?? 4
        for channels: AVAudioChannelCount in [1, 2, 3, 6, 8] {
            for interleaved in [true, false] {
                for rate in [8_000.0, 44_100, 48_000, 96_000, 192_000] {
                    let f = try #require(AVAudioFormat(commonFormat: common, sampleRate: rate, channels: channels, interleaved: interleaved))
                    let d = f.streamDescription.pointee
                    #expect(f.commonFormat == common)
                    #expect(d.mBitsPerChannel == bytes * 8)
                    #expect(d.mBytesPerFrame == (interleaved ? bytes * channels : bytes))
                    #expect(f.isInterleaved == interleaved)
                    #expect(f.isStandard == (common == .pcmFormatFloat32 && !interleaved))
                    // Round trip through the stream description (with a layout for > 2 channels).
                    let layout = channels > 2 ? AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_DiscreteInOrder | channels) : nil
                    let g = try #require(AVAudioFormat(streamDescription: f.streamDescription, channelLayout: layout))
                    #expect(g.commonFormat == common && g.sampleRate == rate && g.channelCount == channels)
                    // Round trip through settings.
                    let h = try #require(AVAudioFormat(settings: f.settings))
                    #expect(h.streamDescription.pointee == d)
                }
            }
        }
    }

    @Test func invalidInputReturnsNil() {
        #expect(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 0) == nil)
        #expect(AVAudioFormat(standardFormatWithSampleRate: 0, channels: 2) == nil)
        #expect(AVAudioFormat(standardFormatWithSampleRate: .nan, channels: 2) == nil)
        #expect(AVAudioFormat(standardFormatWithSampleRate: .infinity, channels: 2) == nil)
        #expect(AVAudioFormat(standardFormatWithSampleRate: -44_100, channels: 2) == nil)
        #expect(AVAudioFormat(commonFormat: .otherFormat, sampleRate: 44_100, channels: 2, interleaved: true) == nil)
        // More than two channels from a stream description needs a layout (Apple documents nil).
        var d = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 48_000, channels: 6, interleaved: false)!.streamDescription.pointee
        #expect(AVAudioFormat(streamDescription: &d) == nil)
        let layout = AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_5_1_A)!
        #expect(AVAudioFormat(streamDescription: &d, channelLayout: layout) != nil)
        // A layout whose channel count disagrees is rejected.
        let stereo = AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_Stereo)!
        #expect(AVAudioFormat(streamDescription: &d, channelLayout: stereo) == nil)
        var zero = AudioStreamBasicDescription()
        #expect(AVAudioFormat(streamDescription: &zero) == nil)
        #expect(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatLinearPCM]) == nil)
        #expect(AVAudioFormat(settings: [AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 0]) == nil)
    }

    @Test func settingsValuesBridgeToSwiftNumbers() throws {
        let f = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true))
        let s = f.settings
        #expect(s[AVFormatIDKey] as? Int == Int(kAudioFormatLinearPCM))
        #expect(s[AVFormatIDKey] as? UInt32 == kAudioFormatLinearPCM)
        #expect(s[AVSampleRateKey] as? Double == 44_100)
        #expect(s[AVNumberOfChannelsKey] as? Int == 2)
        #expect(s[AVLinearPCMBitDepthKey] as? Int == 16)
        #expect(s[AVLinearPCMIsFloatKey] as? Bool == false)
        #expect(s[AVLinearPCMIsNonInterleaved] as? Bool == false)
    }

    @Test func settingsAcceptClientSpellings() throws {
        // As client code writes them: raw UInt32 format IDs, Int(...) wrappers, Float rates, NSNumber.
        let a = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 16_000.0,
                                                      AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 16]))
        #expect(a.commonFormat == .pcmFormatInt16 && a.sampleRate == 16_000 && a.isInterleaved)
        let b = try #require(AVAudioFormat(settings: [AVFormatIDKey: Int(kAudioFormatLinearPCM), AVSampleRateKey: Float(22_050),
                                                      AVNumberOfChannelsKey: NSNumber(value: 2), AVLinearPCMIsFloatKey: true,
                                                      AVLinearPCMIsNonInterleaved: true]))
        #expect(b.isStandard && b.sampleRate == 22_050)
        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]))
        #expect(aac.commonFormat == .otherFormat)
        #expect(aac.streamDescription.pointee.mFramesPerPacket == 1024)
        #expect(AVAudioPCMBuffer(pcmFormat: aac, frameCapacity: 16) == nil)
    }

    @Test func equalityAndHashing() throws {
        let a = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2))
        let b = try #require(AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 44_100, channels: 2, interleaved: false))
        let c = AVAudioFormat(standardFormatWithSampleRate: 44_100, channelLayout: AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_Stereo)!)
        let d = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        #expect(a == b)
        #expect(a.isEqual(c))   // implied stereo layout equals the explicit one
        #expect(a != d)
        #expect(Set([a, b, c, d]).count == 2)
        #expect(a.description.contains("44100 Hz"))
    }

    @Test func layoutFormats() throws {
        let layout = try #require(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_MPEG_7_1_A))
        #expect(layout.channelCount == 8)
        let f = AVAudioFormat(standardFormatWithSampleRate: 48_000, channelLayout: layout)
        #expect(f.channelCount == 8)
        #expect(f.channelLayout == layout)
        let viaSettings = try #require(AVAudioFormat(settings: f.settings))
        #expect(viaSettings.channelLayout?.layoutTag == kAudioChannelLayoutTag_MPEG_7_1_A)
        // More than two channels via the channel-count initializers: allowed, with no layout.
        let six = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 6))
        #expect(six.channelLayout == nil)
    }
}

@Suite struct AVAudioChannelLayoutTests {
    @Test func tagsAndCounts() throws {
        #expect(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_Mono)?.channelCount == 1)
        #expect(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_Stereo)?.channelCount == 2)
        #expect(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_DiscreteInOrder | 13)?.channelCount == 13)
        #expect(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_UseChannelDescriptions) == nil)
        #expect(AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_Unknown | 2) == nil)
    }

    @Test func layoutFromDescriptionsAndBitmap() {
        // A variable-length layout with three channel descriptions, built as C code would.
        let size = MemoryLayout<AudioChannelLayout>.size + 2 * MemoryLayout<AudioChannelDescription>.stride
        let raw = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 8)
        defer { raw.deallocate() }
        raw.initializeMemory(as: UInt8.self, repeating: 0, count: size)
        let acl = raw.bindMemory(to: AudioChannelLayout.self, capacity: 1)
        acl.pointee.mChannelLayoutTag = kAudioChannelLayoutTag_UseChannelDescriptions
        acl.pointee.mNumberChannelDescriptions = 3
        let descriptions = (raw + 12).bindMemory(to: AudioChannelDescription.self, capacity: 3)
        descriptions[0].mChannelLabel = kAudioChannelLabel_Left
        descriptions[1].mChannelLabel = kAudioChannelLabel_Right
        descriptions[2].mChannelLabel = kAudioChannelLabel_LFEScreen
        let layout = AVAudioChannelLayout(layout: acl)
        #expect(layout.channelCount == 3)
        #expect(layout.layoutTag == kAudioChannelLayoutTag_UseChannelDescriptions)
        let copy = AVAudioChannelLayout(layout: layout.layout)
        #expect(copy == layout)
        descriptions[2].mChannelLabel = kAudioChannelLabel_Center
        #expect(AVAudioChannelLayout(layout: acl) != layout)

        var bitmapLayout = AudioChannelLayout()
        bitmapLayout.mChannelLayoutTag = kAudioChannelLayoutTag_UseChannelBitmap
        bitmapLayout.mChannelBitmap = [.bit_Left, .bit_Right, .bit_Center, .bit_LFEScreen]
        #expect(AVAudioChannelLayout(layout: &bitmapLayout).channelCount == 4)
    }
}

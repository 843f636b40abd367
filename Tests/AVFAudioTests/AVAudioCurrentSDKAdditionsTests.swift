// The iOS 26 / macOS 26 additions to AVAudioConverter and AVAudioCompressedBuffer, through the
// public API: AVAudioContentSource and AVAudioDynamicRangeControlConfiguration with the raw values
// of Apple's AVAudioSettings.h (every case, and a gap in the numbering refused), the converter's
// audioSyncPacketFrequency / contentSource / dynamicRangeControlConfiguration (kept on a PCM
// converter, reported at their "none" values by the lossless encoders, which carry no such
// metadata), packetDependencies (nil: no format here has dependent packets) and
// AudioStreamPacketDependencyDescription's layout (CoreAudioBaseTypes.h: four UInt32 fields).
import Foundation
import Testing
import AVFoundation

@Suite struct AVAudioCurrentSDKAdditionsTests {
    @Test("AVAudioContentSource: every case with AVAudioSettings.h's raw value; the numbering's gap (11–32, 43) is no case")
    func contentSourceRawValues() {
        let expected: [(AVAudioContentSource, Int)] = [
            (.unspecified, -1), (.reserved, 0), (.appleCapture_Traditional, 1), (.appleCapture_Spatial, 2),
            (.appleCapture_Spatial_Enhanced, 3), (.appleMusic_Traditional, 4), (.appleMusic_Spatial, 5),
            (.appleAV_Traditional_Offline, 6), (.appleAV_Spatial_Offline, 7), (.appleAV_Traditional_Live, 8),
            (.appleAV_Spatial_Live, 9), (.applePassthrough, 10), (.capture_Traditional, 33), (.capture_Spatial, 34),
            (.capture_Spatial_Enhanced, 35), (.music_Traditional, 36), (.music_Spatial, 37), (.av_Traditional_Offline, 38),
            (.av_Spatial_Offline, 39), (.av_Traditional_Live, 40), (.av_Spatial_Live, 41), (.passthrough, 42),
        ]
        for (value, raw) in expected {
            #expect(value.rawValue == raw, "\(value)")
            #expect(AVAudioContentSource(rawValue: raw) == value, "\(raw)")
        }
        for raw in [11, 20, 32, 43, -2] { #expect(AVAudioContentSource(rawValue: raw) == nil, "\(raw)") }
    }

    @Test("AVAudioDynamicRangeControlConfiguration: none 0, music 1, speech 2, movie 3, capture 4")
    func dynamicRangeControlRawValues() {
        let expected: [(AVAudioDynamicRangeControlConfiguration, Int)] = [(.none, 0), (.music, 1), (.speech, 2), (.movie, 3), (.capture, 4)]
        for (value, raw) in expected {
            #expect(value.rawValue == raw, "\(value)")
            #expect(AVAudioDynamicRangeControlConfiguration(rawValue: raw) == value)
        }
        #expect(AVAudioDynamicRangeControlConfiguration(rawValue: 5) == nil)
        #expect(AVEncoderContentSourceKey == "AVEncoderContentSourceKey")
        #expect(AVEncoderDynamicRangeControlConfigurationKey == "AVEncoderDynamicRangeControlConfigurationKey")
        #expect(AVEncoderASPFrequencyKey == "AVEncoderASPFrequencyKey")
    }

    @Test("A PCM converter keeps audioSyncPacketFrequency, contentSource and dynamicRangeControlConfiguration as set (defaults 0, .unspecified, .none)")
    func pcmConverterKeepsTheEncoderContentProperties() throws {
        let input = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let output = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true)!
        let converter = try #require(AVAudioConverter(from: input, to: output))
        #expect(converter.audioSyncPacketFrequency == 0)
        #expect(converter.contentSource == .unspecified)
        #expect(converter.dynamicRangeControlConfiguration == AVAudioDynamicRangeControlConfiguration.none)
        converter.audioSyncPacketFrequency = 75
        converter.contentSource = .capture_Spatial
        converter.dynamicRangeControlConfiguration = .speech
        #expect(converter.audioSyncPacketFrequency == 75)
        #expect(converter.contentSource == .capture_Spatial)
        #expect(converter.dynamicRangeControlConfiguration == .speech)
    }

    @Test("The Apple Lossless and FLAC encoders carry no sync packets, content source or DRC: they report 0, .unspecified and .none whatever is set, and still encode")
    func losslessEncodersReportNoContentMetadata() throws {
        for codec in [kAudioFormatAppleLossless, kAudioFormatFLAC] {
            let input = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true)!
            let output = AVAudioConverterCodecTests.compressed(codec, rate: 44_100, channels: 2, flags: kAppleLosslessFormatFlag_16BitSourceData)
            let converter = try #require(AVAudioConverter(from: input, to: output), "\(codec)")
            converter.audioSyncPacketFrequency = 75
            converter.contentSource = .appleMusic_Traditional
            converter.dynamicRangeControlConfiguration = .music
            #expect(converter.audioSyncPacketFrequency == 0, "\(codec)")
            #expect(converter.contentSource == .unspecified, "\(codec)")
            #expect(converter.dynamicRangeControlConfiguration == AVAudioDynamicRangeControlConfiguration.none, "\(codec)")
            // The converter still encodes: one packet of 4,096 frames, with no packet dependencies.
            let pcm = AVAudioPCMBuffer(pcmFormat: input, frameCapacity: 4096)!
            pcm.frameLength = 4096
            for i in 0..<8192 { pcm.int16ChannelData![0][i] = Int16(truncatingIfNeeded: i &* 37) }
            let packets = AVAudioCompressedBuffer(format: output, packetCapacity: 2, maximumPacketSize: converter.maximumOutputPacketSize)
            var fed = false
            var error: NSError?
            let status = converter.convert(to: packets, error: &error) { _, s in
                if fed { s.pointee = .endOfStream; return nil }
                fed = true
                s.pointee = .haveData
                return pcm
            }
            #expect(error == nil && status != .error, "\(codec): \(String(describing: error))")
            #expect(packets.packetCount >= 1 && packets.byteLength > 0, "\(codec)")
            #expect(packets.packetDependencies == nil, "\(codec): packets that decode alone have no dependencies")
        }
    }

    @Test("AudioStreamPacketDependencyDescription: four UInt32 fields in Apple's order (16 bytes), zero by default")
    func packetDependencyDescriptionLayout() {
        let zero = AudioStreamPacketDependencyDescription()
        #expect(zero.mIsIndependentlyDecodable == 0 && zero.mPreRollCount == 0 && zero.mFlags == 0 && zero.mReserved == 0)
        let d = AudioStreamPacketDependencyDescription(mIsIndependentlyDecodable: 1, mPreRollCount: 3, mFlags: 0, mReserved: 0)
        #expect(d.mIsIndependentlyDecodable == 1 && d.mPreRollCount == 3)
        #expect(MemoryLayout<AudioStreamPacketDependencyDescription>.size == 16)
        #expect(MemoryLayout<AudioStreamPacketDependencyDescription>.offset(of: \.mPreRollCount) == 4)
        #expect(MemoryLayout<AudioStreamPacketDependencyDescription>.offset(of: \.mReserved) == 12)
    }
}

extension AVAudioSessionTests {
    @Test("supportedOutputChannelLayouts is empty (Apple: only CarPlay and AirPlay routes list layouts); isNowPlayingCandidate round-trips through setIsNowPlayingCandidate")
    func currentSDKSessionAdditions() throws {
        let session = AVAudioSession.sharedInstance()
        defer { try? session.setIsNowPlayingCandidate(false) }
        #expect(session.supportedOutputChannelLayouts.isEmpty)
        #expect(!session.isNowPlayingCandidate)
        try session.setIsNowPlayingCandidate(true)
        #expect(session.isNowPlayingCandidate)
        try session.setIsNowPlayingCandidate(false)
        #expect(!session.isNowPlayingCandidate)
        // Every port of the current route and of the available inputs answers the extension
        // question consistently: an extension only on Bluetooth input ports.
        for port in session.currentRoute.outputs { #expect(port.bluetoothMicrophoneExtension == nil, "\(port)") }
        for port in session.availableInputs ?? [] where port.portType != .bluetoothHFP && port.portType != .bluetoothLE {
            #expect(port.bluetoothMicrophoneExtension == nil, "\(port)")
        }
    }
}

// `streamDescription` read off a temporary format (a common client idiom) stays readable after the
// format is released; see Sources/AVFAudio/Format/StreamDescriptionStore.swift.
import Testing
import AVFAudio

@Suite struct StreamDescriptionLifetimeTests {
    @Test func pointerOutlivesATemporaryFormat() {
        let pointer: UnsafePointer<AudioStreamBasicDescription>
        do {
            let format = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true)!
            pointer = format.streamDescription
        }
        // The format is gone; the interned description is still there (Address Sanitizer checks
        // this read in `Scripts/sanitizers.sh asan`).
        #expect(pointer.pointee.mSampleRate == 44_100)
        #expect(pointer.pointee.mBytesPerFrame == 4)
        #expect(pointer.pointee.mChannelsPerFrame == 2)
        // The client idiom itself.
        var d = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: 48_000, channels: 6, interleaved: false)!.streamDescription.pointee
        #expect(d.mChannelsPerFrame == 6 && d.mBytesPerFrame == 4)
        #expect(AVAudioFormat(streamDescription: &d) == nil)   // six channels need a layout (Apple documents nil)
    }

    @Test func equalDescriptionsShareStorageAndFormatsStayDistinctObjects() {
        let a = AVAudioFormat(standardFormatWithSampleRate: 22_050, channels: 1)!
        let b = AVAudioFormat(standardFormatWithSampleRate: 22_050, channels: 1)!
        #expect(a !== b)
        #expect(a == b)
        #expect(a.streamDescription == b.streamDescription)
        let c = AVAudioFormat(standardFormatWithSampleRate: 22_050, channels: 2)!
        #expect(c.streamDescription != a.streamDescription)
        #expect(c.streamDescription.pointee.mChannelsPerFrame == 2)
    }
}

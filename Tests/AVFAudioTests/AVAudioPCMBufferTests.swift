import Testing
import AVFoundation
@testable import AVFAudio   // SampleMemory.adviseHugePages, to make madvise fail

@Suite struct AVAudioPCMBufferTests {
    @Test func deinterleavedChannelsAreContiguousWithCapacityStride() throws {
        let f = try #require(AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 3))
        let b = try #require(AVAudioPCMBuffer(pcmFormat: f, frameCapacity: 1000))
        #expect(b.frameLength == 0 && b.frameCapacity == 1000 && b.stride == 1)
        let data = try #require(b.floatChannelData)
        #expect(data[1] == data[0] + 1000)
        #expect(data[2] == data[0] + 2000)
        #expect(b.int16ChannelData == nil && b.int32ChannelData == nil)
        let abl = UnsafeMutableAudioBufferListPointer(b.mutableAudioBufferList)
        #expect(abl.count == 3)
        #expect(abl[0].mData == UnsafeMutableRawPointer(data[0]))
        #expect(abl[0].mNumberChannels == 1)
        #expect(abl[0].mDataByteSize == 0)
        b.frameLength = 512
        #expect(abl.allSatisfy { $0.mDataByteSize == 512 * 4 })
        #expect(b.audioBufferList.pointee.mBuffers.mDataByteSize == 2048)
        // Memory is zeroed and 64-byte aligned.
        #expect(Int(bitPattern: data[0]) % 64 == 0)
        #expect((0..<3000).allSatisfy { data[0][$0] == 0 })
    }

    /// Large buffers come from kernel-zeroed pages: still zeroed, aligned and writable.
    @Test func largeBuffersAreZeroedAndAligned() throws {
        let f = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        let b = try #require(AVAudioPCMBuffer(pcmFormat: f, frameCapacity: 1_000_000))
        let data = try #require(b.floatChannelData)
        #expect(Int(bitPattern: data[0]) % 64 == 0)
        #expect(data[1] == data[0] + 1_000_000)
        #expect(stride(from: 0, to: 1_000_000, by: 997).allSatisfy { data[0][$0] == 0 && data[1][$0] == 0 })
        data[1][999_999] = 0.5
        b.frameLength = 1_000_000
        #expect(b.audioBufferList.pointee.mBuffers.mDataByteSize == 4_000_000)
    }

    /// When the kernel refuses huge pages (THP disabled: madvise fails with EINVAL), large buffers
    /// still come from the mapping, zeroed and writable, just with ordinary pages.
    @Test func largeBuffersFallBackWhenHugePagesAreRefused() throws {
        final class Calls: @unchecked Sendable { var count = 0 }
        let calls = Calls()
        let original = SampleMemory.adviseHugePages
        SampleMemory.adviseHugePages = { _, _ in
            calls.count += 1
            errno = EINVAL
            return -1
        }
        defer { SampleMemory.adviseHugePages = original }
        let f = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        let frames = 3_000_000   // 24 MB, well above the 2 MiB mapping threshold
        let b = try #require(AVAudioPCMBuffer(pcmFormat: f, frameCapacity: AVAudioFrameCount(frames)))
        #expect(calls.count >= 1)
        let data = try #require(b.floatChannelData)
        #expect(Int(bitPattern: data[0]) % 64 == 0)
        #expect(data[1] == data[0] + frames)
        #expect(stride(from: 0, to: frames, by: 4093).allSatisfy { data[0][$0] == 0 && data[1][$0] == 0 })
        data[0][0] = 0.25
        data[1][frames - 1] = -0.5
        b.frameLength = AVAudioFrameCount(frames)
        #expect(data[0][0] == 0.25 && data[1][frames - 1] == -0.5 && data[1][frames - 2] == 0)
        #expect(b.audioBufferList.pointee.mBuffers.mDataByteSize == UInt32(frames * 4))
    }

    @Test func interleavedBufferHasOnePointer() throws {
        let f = try #require(AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true))
        let b = try #require(AVAudioPCMBuffer(pcmFormat: f, frameCapacity: 64))
        #expect(b.stride == 2)
        #expect(b.floatChannelData == nil)
        let p = try #require(b.int16ChannelData)
        #expect(b.audioBufferList.pointee.mNumberBuffers == 1)
        #expect(b.audioBufferList.pointee.mBuffers.mNumberChannels == 2)
        #expect(b.audioBufferList.pointee.mBuffers.mData == UnsafeMutableRawPointer(p[0]))
        b.frameLength = 10
        #expect(b.audioBufferList.pointee.mBuffers.mDataByteSize == 40)
    }

    @Test(arguments: [AVAudioCommonFormat.pcmFormatFloat32, .pcmFormatFloat64, .pcmFormatInt16, .pcmFormatInt32])
    func sweepFormatsChannelsInterleaving(common: AVAudioCommonFormat) throws {
        for channels: AVAudioChannelCount in [1, 2, 5, 8] {
            for interleaved in [true, false] {
                let f = try #require(AVAudioFormat(commonFormat: common, sampleRate: 44_100, channels: channels, interleaved: interleaved))
                let b = try #require(AVAudioPCMBuffer(pcmFormat: f, frameCapacity: 33))
                let abl = UnsafeMutableAudioBufferListPointer(b.mutableAudioBufferList)
                #expect(abl.count == (interleaved ? 1 : Int(channels)))
                b.frameLength = 33
                let bytes = Int(f.streamDescription.pointee.mBytesPerFrame) * 33
                #expect(abl.allSatisfy { Int($0.mDataByteSize) == bytes })
                #expect((b.floatChannelData != nil) == (common == .pcmFormatFloat32))
                #expect((b.int16ChannelData != nil) == (common == .pcmFormatInt16))
                #expect((b.int32ChannelData != nil) == (common == .pcmFormatInt32))
            }
        }
    }

    @Test func bufferListNoCopyWrapsCallerMemory() throws {
        let f = try #require(AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2))
        let abl = AudioBufferList.allocate(maximumBuffers: 2)
        let left = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        let right = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        left.initialize(repeating: 0.25, count: 256)
        right.initialize(repeating: -0.5, count: 256)
        abl[0] = AudioBuffer(mNumberChannels: 1, mDataByteSize: 1024, mData: left)
        abl[1] = AudioBuffer(mNumberChannels: 1, mDataByteSize: 1024, mData: right)
        var released = false
        do {
            let b = try #require(AVAudioPCMBuffer(pcmFormat: f, bufferListNoCopy: abl.unsafePointer) { list in
                released = true
                let l = UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: list))
                l[0].mData?.deallocate()
                l[1].mData?.deallocate()
                free(UnsafeMutableRawPointer(mutating: list))
            })
            #expect(b.frameCapacity == 256 && b.frameLength == 256)
            #expect(b.floatChannelData![0] == left)
            #expect(b.floatChannelData![1][255] == -0.5)
        }
        #expect(released)
        // A list that does not match the format is rejected.
        let mono = AudioBufferList.allocate(maximumBuffers: 1)
        defer { free(mono.unsafeMutablePointer) }
        let sample = UnsafeMutablePointer<Float>.allocate(capacity: 1)
        defer { sample.deallocate() }
        mono[0] = AudioBuffer(mNumberChannels: 1, mDataByteSize: 4, mData: sample)
        #expect(AVAudioPCMBuffer(pcmFormat: f, bufferListNoCopy: mono.unsafePointer) == nil)
    }

    @Test func compressedBuffer() throws {
        let aac = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2]))
        let b = AVAudioCompressedBuffer(format: aac, packetCapacity: 8, maximumPacketSize: 1536)
        #expect(b.byteCapacity == 8 * 1536)
        #expect(b.packetDescriptions != nil)
        #expect(b.packetCount == 0 && b.byteLength == 0)
        b.packetCount = 3
        b.byteLength = 700
        #expect(b.audioBufferList.pointee.mBuffers.mDataByteSize == 700)
        #expect(b.audioBufferList.pointee.mBuffers.mData == b.data)
        let ulaw = try #require(AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatULaw, AVSampleRateKey: 8_000, AVNumberOfChannelsKey: 1]))
        let c = AVAudioCompressedBuffer(format: ulaw, packetCapacity: 100)
        #expect(c.maximumPacketSize == 1 && c.packetDescriptions == nil)
        c.packetCount = 100
        #expect(c.byteLength == 100)
    }
}

@Suite struct AVAudioTimeTests {
    @Test func initializersAndValidity() {
        let s = AVAudioTime(sampleTime: 4800, atRate: 48_000)
        #expect(s.isSampleTimeValid && !s.isHostTimeValid && s.sampleTime == 4800 && s.sampleRate == 48_000)
        let h = AVAudioTime(hostTime: 123)
        #expect(h.isHostTimeValid && !h.isSampleTimeValid && h.hostTime == 123)
        let both = AVAudioTime(hostTime: 5, sampleTime: 6, atRate: 44_100)
        #expect(both.audioTimeStamp.mFlags == [.hostTimeValid, .sampleTimeValid])
        var ts = AudioTimeStamp()
        ts.mSampleTime = 99
        ts.mFlags = .sampleTimeValid
        let fromStamp = AVAudioTime(audioTimeStamp: &ts, sampleRate: 8000)
        #expect(fromStamp.sampleTime == 99 && fromStamp.sampleRate == 8000)
    }

    @Test func hostTimeIsMonotonicNanoseconds() {
        #expect(AVAudioTime.hostTime(forSeconds: 1.5) == 1_500_000_000)
        #expect(AVAudioTime.seconds(forHostTime: 250_000_000) == 0.25)
        #expect(AVAudioTime.hostTime(forSeconds: -1) == 0)
        // Same clock as DispatchTime.uptimeNanoseconds, which client code compares against.
        let before = DispatchTime.now().uptimeNanoseconds
        let anchor = AVAudioTime(sampleTime: 0, atRate: 48_000)
        _ = anchor
        let host = AVAudioTime(hostTime: DispatchTime.now().uptimeNanoseconds)
        #expect(host.hostTime >= before)
        #expect(AVAudioTime.seconds(forHostTime: host.hostTime - before) < 1)
    }

    @Test func extrapolation() throws {
        let anchor = AVAudioTime(hostTime: 10_000_000_000, sampleTime: 48_000, atRate: 48_000)
        // Sample time one second after the anchor → host time one second later.
        let t = try #require(AVAudioTime(sampleTime: 96_000, atRate: 48_000).extrapolateTime(fromAnchor: anchor))
        #expect(t.isHostTimeValid && t.hostTime == 11_000_000_000 && t.sampleTime == 96_000)
        // Host time half a second later → sample time 24 000 frames later.
        let u = try #require(AVAudioTime(hostTime: 10_500_000_000).extrapolateTime(fromAnchor: anchor))
        #expect(u.sampleTime == 72_000 && u.sampleRate == 48_000)
        // An anchor without both times cannot extrapolate.
        #expect(AVAudioTime(hostTime: 1).extrapolateTime(fromAnchor: AVAudioTime(hostTime: 2)) == nil)
    }
}

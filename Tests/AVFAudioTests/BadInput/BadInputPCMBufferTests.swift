import Testing
import AVFoundation

/// Bad input to AVAudioPCMBuffer.
///
/// What it rests on: Apple documents `init(pcmFormat:frameCapacity:)` as returning nil "if the
/// format has zero bytes per frame" or "if the buffer byte capacity (frameCapacity ×
/// mBytesPerFrame) cannot be represented by an uint32_t", and `frameLength` as "must be less than
/// or equal to the frameCapacity" (Apple's implementation asserts: a programmer error, a trap
/// here). `init(pcmFormat:bufferListNoCopy:deallocator:)` is failable with no documented reasons;
/// a list that does not match the format (buffer count, channels per buffer, missing data,
/// unequal sizes) gives nil. A list whose `mDataByteSize` claims more memory than its `mData`
/// really holds cannot be detected by anyone (Apple included): the caller's responsibility.
@Suite struct BadInputPCMBufferTests {
    static let stereo = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!

    static func message(_ result: ExitTest.Result?) -> String { BadInput.message(result) }

    @Test func zeroCapacityIsAnEmptyUsableBuffer() throws {
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: Self.stereo, frameCapacity: 0))
        #expect(buffer.frameCapacity == 0 && buffer.frameLength == 0)
        buffer.frameLength = 0
        #expect(buffer.audioBufferList.pointee.mBuffers.mDataByteSize == 0)
        #expect(buffer.floatChannelData != nil)
    }

    /// Byte capacity beyond UInt32: nil, as Apple documents (it used to be created, and setting
    /// `frameLength` to the capacity then trapped converting the byte size to UInt32).
    @Test func byteCapacityBeyondUInt32GivesNil() {
        // Float32: 4 bytes × 2^30 frames = 2^32 bytes per channel buffer.
        #expect(AVAudioPCMBuffer(pcmFormat: Self.stereo, frameCapacity: 1 << 30) == nil)
        #expect(AVAudioPCMBuffer(pcmFormat: Self.stereo, frameCapacity: .max) == nil)
        let interleaved = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 48_000, channels: 2, interleaved: true)!
        #expect(AVAudioPCMBuffer(pcmFormat: interleaved, frameCapacity: 1 << 30) == nil)   // 4 bytes/frame
        let wide = AVAudioFormat(commonFormat: .pcmFormatFloat64, sampleRate: 48_000, channels: 100_000, interleaved: true)!
        #expect(AVAudioPCMBuffer(pcmFormat: wide, frameCapacity: 10_000) == nil)           // 8 GB in one buffer
        // Just inside: 2^32 − 4 bytes of Int16 mono would be 2^31 − 2 frames; not allocated here,
        // but the limit is the byte size, not the frame count: 1 << 29 Float32 frames fit.
    }

    @Test func frameLengthAboveCapacityTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let buffer = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!, frameCapacity: 512)!
            buffer.frameLength = 513
        }
        let text = Self.message(result)
        #expect(text.contains("frameLength = 513 exceeds frameCapacity 512"), "\(text)")
    }

    @Test func frameLengthAboveCapacityOfAWrappedListTraps() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let memory = UnsafeMutablePointer<Float>.allocate(capacity: 64)
            var list = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(mNumberChannels: 1, mDataByteSize: 256, mData: memory))
            let buffer = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!, bufferListNoCopy: &list)!
            buffer.frameLength = .max
        }
        #expect(Self.message(result).contains("exceeds frameCapacity 64"), "\(Self.message(result))")
    }

    /// Lists that do not match the format: nil.
    @Test func bufferListsThatDoNotMatchTheFormatGiveNil() {
        let memory = UnsafeMutablePointer<Float>.allocate(capacity: 1024)
        defer { memory.deallocate() }
        let mono = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
        // Missing data.
        var list = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(mNumberChannels: 1, mDataByteSize: 256, mData: nil))
        #expect(AVAudioPCMBuffer(pcmFormat: mono, bufferListNoCopy: &list) == nil)
        // Two channels per buffer for a mono format.
        list = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(mNumberChannels: 2, mDataByteSize: 256, mData: memory))
        #expect(AVAudioPCMBuffer(pcmFormat: mono, bufferListNoCopy: &list) == nil)
        // One buffer for a deinterleaved stereo format (which needs two).
        list = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(mNumberChannels: 1, mDataByteSize: 256, mData: memory))
        #expect(AVAudioPCMBuffer(pcmFormat: Self.stereo, bufferListNoCopy: &list) == nil)
        // Two buffers of unequal size.
        let two = AudioBufferList.allocate(maximumBuffers: 2)
        defer { free(two.unsafeMutablePointer) }
        two[0] = AudioBuffer(mNumberChannels: 1, mDataByteSize: 1024, mData: memory)
        two[1] = AudioBuffer(mNumberChannels: 1, mDataByteSize: 2048, mData: memory + 256)
        #expect(AVAudioPCMBuffer(pcmFormat: Self.stereo, bufferListNoCopy: two.unsafePointer) == nil)
        // Zero buffers.
        list.mNumberBuffers = 0
        #expect(AVAudioPCMBuffer(pcmFormat: mono, bufferListNoCopy: &list) == nil)
        // A byte size that is not a whole number of frames: the capacity is the whole frames.
        list = AudioBufferList(mNumberBuffers: 1, mBuffers: AudioBuffer(mNumberChannels: 1, mDataByteSize: 1023, mData: memory))
        let partial = AVAudioPCMBuffer(pcmFormat: mono, bufferListNoCopy: &list)
        #expect(partial?.frameCapacity == 255)
        #expect(partial?.frameLength == 255)
    }

    /// A compressed format is not PCM: nil (Apple raises an exception; nil is the safe choice
    /// the failable initializer allows).
    @Test func nonPCMFormatGivesNil() {
        let aac = AVAudioFormat(settings: [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2])!
        #expect(AVAudioPCMBuffer(pcmFormat: aac, frameCapacity: 1024) == nil)
    }
}

import Testing
import CoreAudioTypes
import Foundation

/// Sizes and field offsets are Apple's (CoreAudioTypes.h on 64-bit platforms), so buffers and
/// descriptions can be exchanged with C code written against Apple's headers.
@Suite struct MemoryLayoutTests {
    @Test func structSizesMatchApple() {
        #expect(MemoryLayout<AudioBuffer>.size == 16)
        #expect(MemoryLayout<AudioBufferList>.size == 24)
        #expect(MemoryLayout<AudioStreamBasicDescription>.size == 40)
        #expect(MemoryLayout<AudioStreamPacketDescription>.size == 16)
        #expect(MemoryLayout<SMPTETime>.size == 24)
        #expect(MemoryLayout<AudioTimeStamp>.size == 64)
        #expect(MemoryLayout<AudioChannelDescription>.size == 20)
        #expect(MemoryLayout<AudioChannelLayout>.size == 32)
    }

    @Test func fieldOffsetsMatchApple() {
        #expect(MemoryLayout<AudioBufferList>.offset(of: \.mBuffers) == 8)
        #expect(MemoryLayout<AudioBuffer>.offset(of: \.mData) == 8)
        #expect(MemoryLayout<AudioStreamBasicDescription>.offset(of: \.mFormatID) == 8)
        #expect(MemoryLayout<AudioStreamBasicDescription>.offset(of: \.mBitsPerChannel) == 32)
        #expect(MemoryLayout<AudioTimeStamp>.offset(of: \.mSMPTETime) == 32)
        #expect(MemoryLayout<AudioTimeStamp>.offset(of: \.mFlags) == 56)
        #expect(MemoryLayout<AudioChannelLayout>.offset(of: \.mChannelDescriptions) == 12)
    }

    @Test func optionSetsImportWithSwiftNames() {
        var ts = AudioTimeStamp()
        ts.mFlags = [.sampleTimeValid, .hostTimeValid]
        #expect(ts.mFlags.contains(.sampleHostTimeValid))
        #expect(ts.mFlags.rawValue == 3)
        #expect(SMPTETimeType.type2997.rawValue == 4)
        #expect(AudioChannelBitmap.bit_Right.rawValue == 2)
        #expect(AudioChannelFlags.meters.rawValue == 4)
    }

    @Test func bufferListAllocationAndCollectionAccess() {
        let abl = AudioBufferList.allocate(maximumBuffers: 3)
        defer { free(abl.unsafeMutablePointer) }
        #expect(abl.count == 3)
        #expect(AudioBufferList.sizeInBytes(maximumBuffers: 3) == 8 + 3 * 16)
        var samples: [Float] = [1, 2, 3, 4]
        samples.withUnsafeMutableBufferPointer { bp in
            abl[2] = AudioBuffer(bp, numberOfChannels: 1)
            #expect(abl[2].mDataByteSize == 16)
            let view = UnsafeMutableBufferPointer<Float>(abl[2])
            #expect(view.count == 4)
            #expect(view[3] == 4)
        }
        #expect(abl.map(\.mNumberChannels) == [0, 0, 1])
    }

    @Test func fourCharCodes() {
        #expect(kAudioFormatLinearPCM == fourCharCode("lpcm"))
        #expect(kAudio_BadFilePathError == OSStatus(bitPattern: fourCharCode("!pth")))
        #expect(fourCharCodeString(kAudioFormatULaw) == "'ulaw'")
        #expect(AudioChannelLayoutTag_GetNumberOfChannels((101 << 16) | 2) == 2)
    }
}

// Format IDs and format flags (CoreAudioTypes.h). Values are Apple's, so settings dictionaries
// and stream descriptions exchanged with other Core Audio code mean the same thing.

// MARK: Format IDs

public let kAudioFormatLinearPCM: AudioFormatID = 0x6C70_636D // 'lpcm'
public let kAudioFormatAC3: AudioFormatID = 0x6163_2D33 // 'ac-3'
public let kAudioFormat60958AC3: AudioFormatID = 0x6361_6333 // 'cac3'
public let kAudioFormatAppleIMA4: AudioFormatID = 0x696D_6134 // 'ima4'
public let kAudioFormatMPEG4AAC: AudioFormatID = 0x6161_6320 // 'aac '
public let kAudioFormatMPEG4CELP: AudioFormatID = 0x6365_6C70 // 'celp'
public let kAudioFormatMPEG4HVXC: AudioFormatID = 0x6876_7863 // 'hvxc'
public let kAudioFormatMPEG4TwinVQ: AudioFormatID = 0x7477_7671 // 'twvq'
public let kAudioFormatMACE3: AudioFormatID = 0x4D41_4333 // 'MAC3'
public let kAudioFormatMACE6: AudioFormatID = 0x4D41_4336 // 'MAC6'
public let kAudioFormatULaw: AudioFormatID = 0x756C_6177 // 'ulaw'
public let kAudioFormatALaw: AudioFormatID = 0x616C_6177 // 'alaw'
public let kAudioFormatQDesign: AudioFormatID = 0x5144_4D43 // 'QDMC'
public let kAudioFormatQDesign2: AudioFormatID = 0x5144_4D32 // 'QDM2'
public let kAudioFormatQUALCOMM: AudioFormatID = 0x5163_6C70 // 'Qclp'
public let kAudioFormatMPEGLayer1: AudioFormatID = 0x2E6D_7031 // '.mp1'
public let kAudioFormatMPEGLayer2: AudioFormatID = 0x2E6D_7032 // '.mp2'
public let kAudioFormatMPEGLayer3: AudioFormatID = 0x2E6D_7033 // '.mp3'
public let kAudioFormatTimeCode: AudioFormatID = 0x7469_6D65 // 'time'
public let kAudioFormatMIDIStream: AudioFormatID = 0x6D69_6469 // 'midi'
public let kAudioFormatParameterValueStream: AudioFormatID = 0x6170_7673 // 'apvs'
public let kAudioFormatAppleLossless: AudioFormatID = 0x616C_6163 // 'alac'
public let kAudioFormatMPEG4AAC_HE: AudioFormatID = 0x6161_6368 // 'aach'
public let kAudioFormatMPEG4AAC_LD: AudioFormatID = 0x6161_636C // 'aacl'
public let kAudioFormatMPEG4AAC_ELD: AudioFormatID = 0x6161_6365 // 'aace'
public let kAudioFormatMPEG4AAC_ELD_SBR: AudioFormatID = 0x6161_6366 // 'aacf'
public let kAudioFormatMPEG4AAC_ELD_V2: AudioFormatID = 0x6161_6367 // 'aacg'
public let kAudioFormatMPEG4AAC_HE_V2: AudioFormatID = 0x6161_6370 // 'aacp'
public let kAudioFormatMPEG4AAC_Spatial: AudioFormatID = 0x6161_6373 // 'aacs'
public let kAudioFormatMPEGD_USAC: AudioFormatID = 0x7573_6163 // 'usac'
public let kAudioFormatAMR: AudioFormatID = 0x7361_6D72 // 'samr'
public let kAudioFormatAMR_WB: AudioFormatID = 0x7361_7762 // 'sawb'
public let kAudioFormatAudible: AudioFormatID = 0x4141_5544 // 'AUDB'
public let kAudioFormatiLBC: AudioFormatID = 0x696C_6263 // 'ilbc'
public let kAudioFormatDVIIntelIMA: AudioFormatID = 0x6D73_0011
public let kAudioFormatMicrosoftGSM: AudioFormatID = 0x6D73_0031
public let kAudioFormatAES3: AudioFormatID = 0x6165_7333 // 'aes3'
public let kAudioFormatEnhancedAC3: AudioFormatID = 0x6563_2D33 // 'ec-3'
public let kAudioFormatFLAC: AudioFormatID = 0x666C_6163 // 'flac'
public let kAudioFormatOpus: AudioFormatID = 0x6F70_7573 // 'opus'
public let kAudioFormatAPAC: AudioFormatID = 0x6170_6163 // 'apac'

// MARK: Format flags

public let kAudioFormatFlagIsFloat: AudioFormatFlags = 1 << 0
public let kAudioFormatFlagIsBigEndian: AudioFormatFlags = 1 << 1
public let kAudioFormatFlagIsSignedInteger: AudioFormatFlags = 1 << 2
public let kAudioFormatFlagIsPacked: AudioFormatFlags = 1 << 3
public let kAudioFormatFlagIsAlignedHigh: AudioFormatFlags = 1 << 4
public let kAudioFormatFlagIsNonInterleaved: AudioFormatFlags = 1 << 5
public let kAudioFormatFlagIsNonMixable: AudioFormatFlags = 1 << 6
public let kAudioFormatFlagsAreAllClear: AudioFormatFlags = 0x8000_0000

public let kLinearPCMFormatFlagIsFloat: AudioFormatFlags = kAudioFormatFlagIsFloat
public let kLinearPCMFormatFlagIsBigEndian: AudioFormatFlags = kAudioFormatFlagIsBigEndian
public let kLinearPCMFormatFlagIsSignedInteger: AudioFormatFlags = kAudioFormatFlagIsSignedInteger
public let kLinearPCMFormatFlagIsPacked: AudioFormatFlags = kAudioFormatFlagIsPacked
public let kLinearPCMFormatFlagIsAlignedHigh: AudioFormatFlags = kAudioFormatFlagIsAlignedHigh
public let kLinearPCMFormatFlagIsNonInterleaved: AudioFormatFlags = kAudioFormatFlagIsNonInterleaved
public let kLinearPCMFormatFlagIsNonMixable: AudioFormatFlags = kAudioFormatFlagIsNonMixable
public let kLinearPCMFormatFlagsSampleFractionShift: AudioFormatFlags = 7
public let kLinearPCMFormatFlagsSampleFractionMask: AudioFormatFlags = 0x3F << kLinearPCMFormatFlagsSampleFractionShift
public let kLinearPCMFormatFlagsAreAllClear: AudioFormatFlags = kAudioFormatFlagsAreAllClear

public let kAppleLosslessFormatFlag_16BitSourceData: AudioFormatFlags = 1
public let kAppleLosslessFormatFlag_20BitSourceData: AudioFormatFlags = 2
public let kAppleLosslessFormatFlag_24BitSourceData: AudioFormatFlags = 3
public let kAppleLosslessFormatFlag_32BitSourceData: AudioFormatFlags = 4

/// Native-endian flags: Linux targets are little-endian, so this is 0 (as on Apple silicon).
public let kAudioFormatFlagsNativeEndian: AudioFormatFlags = 0
public let kAudioFormatFlagsCanonical: AudioFormatFlags = kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked
public let kAudioFormatFlagsAudioUnitCanonical: AudioFormatFlags = kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked | kAudioFormatFlagIsNonInterleaved
public let kAudioFormatFlagsNativeFloatPacked: AudioFormatFlags = kAudioFormatFlagIsFloat | kAudioFormatFlagsNativeEndian | kAudioFormatFlagIsPacked

// MARK: Stream description helpers

extension AudioStreamBasicDescription: @retroactive Equatable {
    public static func == (a: AudioStreamBasicDescription, b: AudioStreamBasicDescription) -> Bool {
        a.mSampleRate == b.mSampleRate && a.mFormatID == b.mFormatID && a.mFormatFlags == b.mFormatFlags
            && a.mBytesPerPacket == b.mBytesPerPacket && a.mFramesPerPacket == b.mFramesPerPacket
            && a.mBytesPerFrame == b.mBytesPerFrame && a.mChannelsPerFrame == b.mChannelsPerFrame
            && a.mBitsPerChannel == b.mBitsPerChannel
    }
}

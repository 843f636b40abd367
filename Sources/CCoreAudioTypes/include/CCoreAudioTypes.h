// Core Audio's plain data types, declared in C so that their memory layout is Apple's by
// construction (field order, sizes, alignment, the variable-length trailing arrays).
// Names and field names follow Apple's CoreAudioTypes.h; the Swift importer turns the
// CF_OPTIONS/CF_ENUM-style declarations below into the same Swift types Apple's SDK shows
// (e.g. `AudioTimeStampFlags` as an OptionSet with `.sampleTimeValid`).
//
// Constants (format IDs, flags, channel layout tags, error codes) live in the Swift overlay
// (`Sources/CoreAudioTypes`), where they are documented; only what the structs need is here.
#ifndef OPENAVFAUDIO_CCOREAUDIOTYPES_H
#define OPENAVFAUDIO_CCOREAUDIOTYPES_H

#include <stdint.h>
#include <stddef.h>

#if __has_attribute(swift_name)
#define OAV_SWIFT_NAME(n) __attribute__((swift_name(#n)))
#else
#define OAV_SWIFT_NAME(n)
#endif

// A typedef of an enum with a fixed underlying type: the Swift importer makes an OptionSet of a
// flag_enum and a Swift enum of an enum_extensibility one, as Apple's CF_OPTIONS/CF_ENUM do.
#define OAV_OPTIONS_BEGIN(_type) typedef enum __attribute__((flag_enum, enum_extensibility(open))) : _type
#define OAV_ENUM_BEGIN(_type) typedef enum __attribute__((enum_extensibility(open))) : _type

typedef int32_t OSStatus;
typedef uint32_t AudioFormatID;
typedef uint32_t AudioFormatFlags;
typedef uint32_t AudioChannelLayoutTag;
typedef uint32_t AudioChannelLabel;

// MARK: - AudioBuffer / AudioBufferList

/// A buffer of audio data with its channel count and size in bytes.
typedef struct AudioBuffer {
    uint32_t mNumberChannels;
    uint32_t mDataByteSize;
    void *_Nullable mData;
} AudioBuffer;

/// A variable-length list of `AudioBuffer`s: `mBuffers` is declared with one element and the
/// structure is allocated larger when it holds more (see `AudioBufferList.allocate(maximumBuffers:)`).
typedef struct AudioBufferList {
    uint32_t mNumberBuffers;
    AudioBuffer mBuffers[1];
} AudioBufferList;

// MARK: - Stream descriptions

typedef struct AudioStreamBasicDescription {
    double mSampleRate;
    AudioFormatID mFormatID;
    AudioFormatFlags mFormatFlags;
    uint32_t mBytesPerPacket;
    uint32_t mFramesPerPacket;
    uint32_t mBytesPerFrame;
    uint32_t mChannelsPerFrame;
    uint32_t mBitsPerChannel;
    uint32_t mReserved;
} AudioStreamBasicDescription;

typedef struct AudioStreamPacketDescription {
    int64_t mStartOffset;
    uint32_t mVariableFramesInPacket;
    uint32_t mDataByteSize;
} AudioStreamPacketDescription;

/// The dependencies of one packet on others (CoreAudioBaseTypes.h): for codecs whose packets are
/// not all independently decodable (APAC, USAC), how many packets after an independent one must
/// be decoded to refresh the decoder. `mFlags` and `mReserved` are unused.
typedef struct AudioStreamPacketDependencyDescription {
    uint32_t mIsIndependentlyDecodable;
    uint32_t mPreRollCount;
    uint32_t mFlags;
    uint32_t mReserved;
} AudioStreamPacketDependencyDescription;

// MARK: - Time stamps

OAV_ENUM_BEGIN(uint32_t) {
    kSMPTETimeType24 OAV_SWIFT_NAME(type24) = 0,
    kSMPTETimeType25 OAV_SWIFT_NAME(type25) = 1,
    kSMPTETimeType30Drop OAV_SWIFT_NAME(type30Drop) = 2,
    kSMPTETimeType30 OAV_SWIFT_NAME(type30) = 3,
    kSMPTETimeType2997 OAV_SWIFT_NAME(type2997) = 4,
    kSMPTETimeType2997Drop OAV_SWIFT_NAME(type2997Drop) = 5,
    kSMPTETimeType60 OAV_SWIFT_NAME(type60) = 6,
    kSMPTETimeType5994 OAV_SWIFT_NAME(type5994) = 7,
    kSMPTETimeType60Drop OAV_SWIFT_NAME(type60Drop) = 8,
    kSMPTETimeType5994Drop OAV_SWIFT_NAME(type5994Drop) = 9,
    kSMPTETimeType50 OAV_SWIFT_NAME(type50) = 10,
    kSMPTETimeType2398 OAV_SWIFT_NAME(type2398) = 11
} SMPTETimeType;

OAV_OPTIONS_BEGIN(uint32_t) {
    kSMPTETimeUnknown OAV_SWIFT_NAME(unknown) = 0,
    kSMPTETimeValid OAV_SWIFT_NAME(valid) = (1U << 0),
    kSMPTETimeRunning OAV_SWIFT_NAME(running) = (1U << 1)
} SMPTETimeFlags;

typedef struct SMPTETime {
    int16_t mSubframes;
    int16_t mSubframeDivisor;
    uint32_t mCounter;
    SMPTETimeType mType;
    SMPTETimeFlags mFlags;
    int16_t mHours;
    int16_t mMinutes;
    int16_t mSeconds;
    int16_t mFrames;
} SMPTETime;

OAV_OPTIONS_BEGIN(uint32_t) {
    kAudioTimeStampNothingValid OAV_SWIFT_NAME(nothingValid) = 0,
    kAudioTimeStampSampleTimeValid OAV_SWIFT_NAME(sampleTimeValid) = (1U << 0),
    kAudioTimeStampHostTimeValid OAV_SWIFT_NAME(hostTimeValid) = (1U << 1),
    kAudioTimeStampRateScalarValid OAV_SWIFT_NAME(rateScalarValid) = (1U << 2),
    kAudioTimeStampWordClockTimeValid OAV_SWIFT_NAME(wordClockTimeValid) = (1U << 3),
    kAudioTimeStampSMPTETimeValid OAV_SWIFT_NAME(smpteTimeValid) = (1U << 4),
    kAudioTimeStampSampleHostTimeValid OAV_SWIFT_NAME(sampleHostTimeValid) = (1U << 0) | (1U << 1)
} AudioTimeStampFlags;

typedef struct AudioTimeStamp {
    double mSampleTime;
    uint64_t mHostTime;
    double mRateScalar;
    uint64_t mWordClockTime;
    SMPTETime mSMPTETime;
    AudioTimeStampFlags mFlags;
    uint32_t mReserved;
} AudioTimeStamp;

// MARK: - Channel layouts

OAV_OPTIONS_BEGIN(uint32_t) {
    kAudioChannelBit_Left OAV_SWIFT_NAME(bit_Left) = (1U << 0),
    kAudioChannelBit_Right OAV_SWIFT_NAME(bit_Right) = (1U << 1),
    kAudioChannelBit_Center OAV_SWIFT_NAME(bit_Center) = (1U << 2),
    kAudioChannelBit_LFEScreen OAV_SWIFT_NAME(bit_LFEScreen) = (1U << 3),
    kAudioChannelBit_LeftSurround OAV_SWIFT_NAME(bit_LeftSurround) = (1U << 4),
    kAudioChannelBit_RightSurround OAV_SWIFT_NAME(bit_RightSurround) = (1U << 5),
    kAudioChannelBit_LeftCenter OAV_SWIFT_NAME(bit_LeftCenter) = (1U << 6),
    kAudioChannelBit_RightCenter OAV_SWIFT_NAME(bit_RightCenter) = (1U << 7),
    kAudioChannelBit_CenterSurround OAV_SWIFT_NAME(bit_CenterSurround) = (1U << 8),
    kAudioChannelBit_LeftSurroundDirect OAV_SWIFT_NAME(bit_LeftSurroundDirect) = (1U << 9),
    kAudioChannelBit_RightSurroundDirect OAV_SWIFT_NAME(bit_RightSurroundDirect) = (1U << 10),
    kAudioChannelBit_TopCenterSurround OAV_SWIFT_NAME(bit_TopCenterSurround) = (1U << 11),
    kAudioChannelBit_VerticalHeightLeft OAV_SWIFT_NAME(bit_VerticalHeightLeft) = (1U << 12),
    kAudioChannelBit_VerticalHeightCenter OAV_SWIFT_NAME(bit_VerticalHeightCenter) = (1U << 13),
    kAudioChannelBit_VerticalHeightRight OAV_SWIFT_NAME(bit_VerticalHeightRight) = (1U << 14),
    kAudioChannelBit_TopBackLeft OAV_SWIFT_NAME(bit_TopBackLeft) = (1U << 15),
    kAudioChannelBit_TopBackCenter OAV_SWIFT_NAME(bit_TopBackCenter) = (1U << 16),
    kAudioChannelBit_TopBackRight OAV_SWIFT_NAME(bit_TopBackRight) = (1U << 17),
    kAudioChannelBit_LeftTopFront OAV_SWIFT_NAME(bit_LeftTopFront) = (1U << 12),
    kAudioChannelBit_CenterTopFront OAV_SWIFT_NAME(bit_CenterTopFront) = (1U << 13),
    kAudioChannelBit_RightTopFront OAV_SWIFT_NAME(bit_RightTopFront) = (1U << 14),
    kAudioChannelBit_LeftTopMiddle OAV_SWIFT_NAME(bit_LeftTopMiddle) = (1U << 21),
    kAudioChannelBit_CenterTopMiddle OAV_SWIFT_NAME(bit_CenterTopMiddle) = (1U << 11),
    kAudioChannelBit_RightTopMiddle OAV_SWIFT_NAME(bit_RightTopMiddle) = (1U << 23),
    kAudioChannelBit_LeftTopRear OAV_SWIFT_NAME(bit_LeftTopRear) = (1U << 24),
    kAudioChannelBit_CenterTopRear OAV_SWIFT_NAME(bit_CenterTopRear) = (1U << 25),
    kAudioChannelBit_RightTopRear OAV_SWIFT_NAME(bit_RightTopRear) = (1U << 26)
} AudioChannelBitmap;

OAV_OPTIONS_BEGIN(uint32_t) {
    kAudioChannelFlags_AllOff OAV_SWIFT_NAME(allOff) = 0,
    kAudioChannelFlags_RectangularCoordinates OAV_SWIFT_NAME(rectangularCoordinates) = (1U << 0),
    kAudioChannelFlags_SphericalCoordinates OAV_SWIFT_NAME(sphericalCoordinates) = (1U << 1),
    kAudioChannelFlags_Meters OAV_SWIFT_NAME(meters) = (1U << 2)
} AudioChannelFlags;

typedef struct AudioChannelDescription {
    AudioChannelLabel mChannelLabel;
    AudioChannelFlags mChannelFlags;
    float mCoordinates[3];
} AudioChannelDescription;

/// A variable-length structure: `mChannelDescriptions` is declared with one element and the
/// structure is allocated larger when `mNumberChannelDescriptions` > 1.
typedef struct AudioChannelLayout {
    AudioChannelLayoutTag mChannelLayoutTag;
    AudioChannelBitmap mChannelBitmap;
    uint32_t mNumberChannelDescriptions;
    AudioChannelDescription mChannelDescriptions[1];
} AudioChannelLayout;

/// The number of channels a layout tag implies (its low 16 bits), as Apple's inline function.
static inline uint32_t AudioChannelLayoutTag_GetNumberOfChannels(AudioChannelLayoutTag inLayoutTag) {
    return (uint32_t)(inLayoutTag & 0x0000FFFF);
}

#include "AURenderEvent.h"

#endif

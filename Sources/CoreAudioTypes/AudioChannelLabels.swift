// Channel labels (`kAudioChannelLabel_*`) with the values of Apple's CoreAudioTypes.h (CoreAudioBaseTypes.h,
// macOS 15 / iOS 18 SDKs), for `AudioChannelDescription.mChannelLabel`. Labels 1-18 follow the USB/WAVE speaker
// bits: label n corresponds to `AudioChannelBitmap` bit n-1 (see `channelLabels(forBitmap:)`).

// MARK: - Special
// Labels that carry no speaker position.

/// Unknown or unspecified use.
public let kAudioChannelLabel_Unknown: AudioChannelLabel = 0xFFFF_FFFF
/// The channel is present but has no intended use or destination.
public let kAudioChannelLabel_Unused: AudioChannelLabel = 0
/// The channel's position is given by the description's `mCoordinates`.
public let kAudioChannelLabel_UseCoordinates: AudioChannelLabel = 100

// MARK: - Speakers
// Loudspeaker positions. Labels 1-18 are the WAVE/USB speaker positions in bit order (label n is bit n-1 of `AudioChannelBitmap`).

public let kAudioChannelLabel_Left: AudioChannelLabel = 1
public let kAudioChannelLabel_Right: AudioChannelLabel = 2
public let kAudioChannelLabel_Center: AudioChannelLabel = 3
public let kAudioChannelLabel_LFEScreen: AudioChannelLabel = 4
public let kAudioChannelLabel_LeftSurround: AudioChannelLabel = 5
public let kAudioChannelLabel_RightSurround: AudioChannelLabel = 6
public let kAudioChannelLabel_LeftCenter: AudioChannelLabel = 7
public let kAudioChannelLabel_RightCenter: AudioChannelLabel = 8
/// WAVE "back center", or plain "rear surround".
public let kAudioChannelLabel_CenterSurround: AudioChannelLabel = 9
public let kAudioChannelLabel_LeftSurroundDirect: AudioChannelLabel = 10
public let kAudioChannelLabel_RightSurroundDirect: AudioChannelLabel = 11
public let kAudioChannelLabel_TopCenterSurround: AudioChannelLabel = 12
/// WAVE "top front left".
public let kAudioChannelLabel_VerticalHeightLeft: AudioChannelLabel = 13
/// WAVE "top front center".
public let kAudioChannelLabel_VerticalHeightCenter: AudioChannelLabel = 14
/// WAVE "top front right".
public let kAudioChannelLabel_VerticalHeightRight: AudioChannelLabel = 15
public let kAudioChannelLabel_TopBackLeft: AudioChannelLabel = 16
public let kAudioChannelLabel_TopBackCenter: AudioChannelLabel = 17
public let kAudioChannelLabel_TopBackRight: AudioChannelLabel = 18
public let kAudioChannelLabel_RearSurroundLeft: AudioChannelLabel = 33
public let kAudioChannelLabel_RearSurroundRight: AudioChannelLabel = 34
public let kAudioChannelLabel_LeftWide: AudioChannelLabel = 35
public let kAudioChannelLabel_RightWide: AudioChannelLabel = 36
public let kAudioChannelLabel_LFE2: AudioChannelLabel = 37
/// Left of a matrix-encoded (Lt/Rt) pair.
public let kAudioChannelLabel_LeftTotal: AudioChannelLabel = 38
/// Right of a matrix-encoded (Lt/Rt) pair.
public let kAudioChannelLabel_RightTotal: AudioChannelLabel = 39
public let kAudioChannelLabel_HearingImpaired: AudioChannelLabel = 40
public let kAudioChannelLabel_Narration: AudioChannelLabel = 41
public let kAudioChannelLabel_Mono: AudioChannelLabel = 42
public let kAudioChannelLabel_DialogCentricMix: AudioChannelLabel = 43
/// Back center, not diffuse.
public let kAudioChannelLabel_CenterSurroundDirect: AudioChannelLabel = 44
public let kAudioChannelLabel_Haptic: AudioChannelLabel = 45

// MARK: - Heights
// Top-layer and extended positions (Atmos and ISO/IEC 23091-3).

/// Same value as `kAudioChannelLabel_VerticalHeightLeft`.
public let kAudioChannelLabel_LeftTopFront: AudioChannelLabel = kAudioChannelLabel_VerticalHeightLeft
/// Same value as `kAudioChannelLabel_VerticalHeightCenter`.
public let kAudioChannelLabel_CenterTopFront: AudioChannelLabel = kAudioChannelLabel_VerticalHeightCenter
/// Same value as `kAudioChannelLabel_VerticalHeightRight`.
public let kAudioChannelLabel_RightTopFront: AudioChannelLabel = kAudioChannelLabel_VerticalHeightRight
public let kAudioChannelLabel_LeftTopMiddle: AudioChannelLabel = 49
/// Same value as `kAudioChannelLabel_TopCenterSurround`.
public let kAudioChannelLabel_CenterTopMiddle: AudioChannelLabel = kAudioChannelLabel_TopCenterSurround
public let kAudioChannelLabel_RightTopMiddle: AudioChannelLabel = 51
public let kAudioChannelLabel_LeftTopRear: AudioChannelLabel = 52
public let kAudioChannelLabel_CenterTopRear: AudioChannelLabel = 53
public let kAudioChannelLabel_RightTopRear: AudioChannelLabel = 54
public let kAudioChannelLabel_LeftSideSurround: AudioChannelLabel = 55
public let kAudioChannelLabel_RightSideSurround: AudioChannelLabel = 56
public let kAudioChannelLabel_LeftBottom: AudioChannelLabel = 57
public let kAudioChannelLabel_RightBottom: AudioChannelLabel = 58
public let kAudioChannelLabel_CenterBottom: AudioChannelLabel = 59
public let kAudioChannelLabel_LeftTopSurround: AudioChannelLabel = 60
public let kAudioChannelLabel_RightTopSurround: AudioChannelLabel = 61
public let kAudioChannelLabel_LFE3: AudioChannelLabel = 62
public let kAudioChannelLabel_LeftBackSurround: AudioChannelLabel = 63
public let kAudioChannelLabel_RightBackSurround: AudioChannelLabel = 64
public let kAudioChannelLabel_LeftEdgeOfScreen: AudioChannelLabel = 65
public let kAudioChannelLabel_RightEdgeOfScreen: AudioChannelLabel = 66

// MARK: - Recording
// First-order ambisonics, mid/side, X-Y, binaural.

public let kAudioChannelLabel_Ambisonic_W: AudioChannelLabel = 200
public let kAudioChannelLabel_Ambisonic_X: AudioChannelLabel = 201
public let kAudioChannelLabel_Ambisonic_Y: AudioChannelLabel = 202
public let kAudioChannelLabel_Ambisonic_Z: AudioChannelLabel = 203
public let kAudioChannelLabel_MS_Mid: AudioChannelLabel = 204
public let kAudioChannelLabel_MS_Side: AudioChannelLabel = 205
public let kAudioChannelLabel_XY_X: AudioChannelLabel = 206
public let kAudioChannelLabel_XY_Y: AudioChannelLabel = 207
public let kAudioChannelLabel_BinauralLeft: AudioChannelLabel = 208
public let kAudioChannelLabel_BinauralRight: AudioChannelLabel = 209

// MARK: - Other
// Other uses.

public let kAudioChannelLabel_HeadphonesLeft: AudioChannelLabel = 301
public let kAudioChannelLabel_HeadphonesRight: AudioChannelLabel = 302
public let kAudioChannelLabel_ClickTrack: AudioChannelLabel = 304
public let kAudioChannelLabel_ForeignLanguage: AudioChannelLabel = 305

// MARK: - Discrete
// Discrete channels: the generic label, then numbered ones, `kAudioChannelLabel_Discrete_0 + n` for any n up to 65535.

public let kAudioChannelLabel_Discrete: AudioChannelLabel = 400
public let kAudioChannelLabel_Discrete_0: AudioChannelLabel = (1 << 16) | 0
public let kAudioChannelLabel_Discrete_1: AudioChannelLabel = (1 << 16) | 1
public let kAudioChannelLabel_Discrete_2: AudioChannelLabel = (1 << 16) | 2
public let kAudioChannelLabel_Discrete_3: AudioChannelLabel = (1 << 16) | 3
public let kAudioChannelLabel_Discrete_4: AudioChannelLabel = (1 << 16) | 4
public let kAudioChannelLabel_Discrete_5: AudioChannelLabel = (1 << 16) | 5
public let kAudioChannelLabel_Discrete_6: AudioChannelLabel = (1 << 16) | 6
public let kAudioChannelLabel_Discrete_7: AudioChannelLabel = (1 << 16) | 7
public let kAudioChannelLabel_Discrete_8: AudioChannelLabel = (1 << 16) | 8
public let kAudioChannelLabel_Discrete_9: AudioChannelLabel = (1 << 16) | 9
public let kAudioChannelLabel_Discrete_10: AudioChannelLabel = (1 << 16) | 10
public let kAudioChannelLabel_Discrete_11: AudioChannelLabel = (1 << 16) | 11
public let kAudioChannelLabel_Discrete_12: AudioChannelLabel = (1 << 16) | 12
public let kAudioChannelLabel_Discrete_13: AudioChannelLabel = (1 << 16) | 13
public let kAudioChannelLabel_Discrete_14: AudioChannelLabel = (1 << 16) | 14
public let kAudioChannelLabel_Discrete_15: AudioChannelLabel = (1 << 16) | 15
public let kAudioChannelLabel_Discrete_65535: AudioChannelLabel = (1 << 16) | 65535

// MARK: - HOA
// Higher-order ambisonics in ACN order: the generic label, then numbered SN3D channels `kAudioChannelLabel_HOA_ACN_0 + n` (254th order uses 65025 channels, n up to 65024).

public let kAudioChannelLabel_HOA_ACN: AudioChannelLabel = 500
public let kAudioChannelLabel_HOA_ACN_0: AudioChannelLabel = (2 << 16) | 0
public let kAudioChannelLabel_HOA_ACN_1: AudioChannelLabel = (2 << 16) | 1
public let kAudioChannelLabel_HOA_ACN_2: AudioChannelLabel = (2 << 16) | 2
public let kAudioChannelLabel_HOA_ACN_3: AudioChannelLabel = (2 << 16) | 3
public let kAudioChannelLabel_HOA_ACN_4: AudioChannelLabel = (2 << 16) | 4
public let kAudioChannelLabel_HOA_ACN_5: AudioChannelLabel = (2 << 16) | 5
public let kAudioChannelLabel_HOA_ACN_6: AudioChannelLabel = (2 << 16) | 6
public let kAudioChannelLabel_HOA_ACN_7: AudioChannelLabel = (2 << 16) | 7
public let kAudioChannelLabel_HOA_ACN_8: AudioChannelLabel = (2 << 16) | 8
public let kAudioChannelLabel_HOA_ACN_9: AudioChannelLabel = (2 << 16) | 9
public let kAudioChannelLabel_HOA_ACN_10: AudioChannelLabel = (2 << 16) | 10
public let kAudioChannelLabel_HOA_ACN_11: AudioChannelLabel = (2 << 16) | 11
public let kAudioChannelLabel_HOA_ACN_12: AudioChannelLabel = (2 << 16) | 12
public let kAudioChannelLabel_HOA_ACN_13: AudioChannelLabel = (2 << 16) | 13
public let kAudioChannelLabel_HOA_ACN_14: AudioChannelLabel = (2 << 16) | 14
public let kAudioChannelLabel_HOA_ACN_15: AudioChannelLabel = (2 << 16) | 15
public let kAudioChannelLabel_HOA_ACN_65024: AudioChannelLabel = (2 << 16) | 65024
/// Same value as `kAudioChannelLabel_HOA_ACN_0`. SN3D-normalized HOA; OR with the ACN channel index (not the order).
public let kAudioChannelLabel_HOA_SN3D: AudioChannelLabel = kAudioChannelLabel_HOA_ACN_0
/// N3D-normalized HOA; OR with the ACN channel index (not the order).
public let kAudioChannelLabel_HOA_N3D: AudioChannelLabel = 3 << 16
/// The channel carries an object; OR with the object index.
public let kAudioChannelLabel_Object: AudioChannelLabel = 4 << 16

// MARK: - Reserved
// Label values Apple reserves for internal use.

public let kAudioChannelLabel_BeginReserved: AudioChannelLabel = 0xF000_0000
public let kAudioChannelLabel_EndReserved: AudioChannelLabel = 0xFFFF_FFFE

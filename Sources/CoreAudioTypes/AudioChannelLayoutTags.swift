// Channel layout tags (`kAudioChannelLayoutTag_*`) with the values of Apple's CoreAudioTypes.h
// (CoreAudioBaseTypes.h, macOS 15 / iOS 18 SDKs). A tag's high 16 bits identify the layout and its low
// 16 bits are the channel count (`AudioChannelLayoutTag_GetNumberOfChannels`). Where Apple defines a tag
// as another tag (`kAudioChannelLayoutTag_AudioUnit_5 = kAudioChannelLayoutTag_Pentagonal`) so does
// this file, so the two are the same value and the same channel order.
//
// Each constant's documentation gives its channels in stream order, abbreviated as in Apple's header:
//   L R C        left, right, center               LFE LFE2 LFE3   low-frequency effects (LFE1 = LFE)
//   Ls Rs        left/right surround               Rls Rrs         rear surround left/right
//   Lc Rc        left/right center                 Cs              center surround (back center)
//   Lw Rw        left/right wide                   Lsd Rsd Csd     left/right/center surround direct
//   Ts           top center surround               Vhl Vhc Vhr     vertical height (top front) l/c/r
//   Ltm Rtm      left/right top middle             Ltr Ctr Rtr     left/center/right top rear
//   Lss Rss      left/right side surround          Lts Rts         left/right top surround
//   Lbs Rbs      left/right back surround          Lb Cb Rb        left/center/right bottom
//   Leos Reos    left/right edge of screen         Lt Rt           matrix-encoded left/right total
//   HI VI        hearing impaired, narration       W X Y Z         first-order ambisonic components
//   HPL HPR      headphones left/right             BinL BinR       binaural left/right
//   Mid Side     mid/side pair                     XY_X XY_Y       X-Y microphone pair
// `channelLabels(forLayoutTag:)` (ChannelLayoutTables.swift) returns these orders as AudioChannelLabels.

// MARK: - General
// Layouts described by something other than the tag, and the basic named layouts.

/// The layout is given by the array of channel descriptions.
public let kAudioChannelLayoutTag_UseChannelDescriptions: AudioChannelLayoutTag = (0 << 16) | 0
/// The layout is given by `mChannelBitmap`.
public let kAudioChannelLayoutTag_UseChannelBitmap: AudioChannelLayoutTag = (1 << 16) | 0
/// C. A standard mono stream.
public let kAudioChannelLayoutTag_Mono: AudioChannelLayoutTag = (100 << 16) | 1
/// L R. A standard stereo stream; loudspeaker playback implied.
public let kAudioChannelLayoutTag_Stereo: AudioChannelLayoutTag = (101 << 16) | 2
/// HPL HPR. A stereo stream meant for headphone playback.
public let kAudioChannelLayoutTag_StereoHeadphones: AudioChannelLayoutTag = (102 << 16) | 2
/// Lt Rt. A matrix-encoded stereo stream (left total, right total).
public let kAudioChannelLayoutTag_MatrixStereo: AudioChannelLayoutTag = (103 << 16) | 2
/// Mid Side. A mid/side recording.
public let kAudioChannelLayoutTag_MidSide: AudioChannelLayoutTag = (104 << 16) | 2
/// XY_X XY_Y. A coincident microphone pair (often two figure-8s).
public let kAudioChannelLayoutTag_XY: AudioChannelLayoutTag = (105 << 16) | 2
/// BinL BinR. Binaural stereo.
public let kAudioChannelLayoutTag_Binaural: AudioChannelLayoutTag = (106 << 16) | 2
/// W X Y Z. First-order ambisonics, B-format.
public let kAudioChannelLayoutTag_Ambisonic_B_Format: AudioChannelLayoutTag = (107 << 16) | 4
/// L R Ls Rs. Four speakers, 90 degrees apart.
public let kAudioChannelLayoutTag_Quadraphonic: AudioChannelLayoutTag = (108 << 16) | 4
/// L R Ls Rs C. Five speakers, 72 degrees apart.
public let kAudioChannelLayoutTag_Pentagonal: AudioChannelLayoutTag = (109 << 16) | 5
/// L R Ls Rs C Cs. Six speakers, 60 degrees apart.
public let kAudioChannelLayoutTag_Hexagonal: AudioChannelLayoutTag = (110 << 16) | 6
/// L R Ls Rs C Cs Lw Rw. Eight speakers, 45 degrees apart.
public let kAudioChannelLayoutTag_Octagonal: AudioChannelLayoutTag = (111 << 16) | 8
/// L R Ls Rs Vhl Vhr Ltr Rtr. A cube: left, right, rear left, rear right, then the same four on the top layer.
public let kAudioChannelLayoutTag_Cube: AudioChannelLayoutTag = (112 << 16) | 8

// MARK: - MPEG
// MPEG-defined layouts.

/// Same value as `kAudioChannelLayoutTag_Mono`: C.
public let kAudioChannelLayoutTag_MPEG_1_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_Mono
/// Same value as `kAudioChannelLayoutTag_Stereo`: L R.
public let kAudioChannelLayoutTag_MPEG_2_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_Stereo
/// L R C.
public let kAudioChannelLayoutTag_MPEG_3_0_A: AudioChannelLayoutTag = (113 << 16) | 3
/// C L R.
public let kAudioChannelLayoutTag_MPEG_3_0_B: AudioChannelLayoutTag = (114 << 16) | 3
/// L R C Cs.
public let kAudioChannelLayoutTag_MPEG_4_0_A: AudioChannelLayoutTag = (115 << 16) | 4
/// C L R Cs.
public let kAudioChannelLayoutTag_MPEG_4_0_B: AudioChannelLayoutTag = (116 << 16) | 4
/// L R C Ls Rs.
public let kAudioChannelLayoutTag_MPEG_5_0_A: AudioChannelLayoutTag = (117 << 16) | 5
/// L R Ls Rs C.
public let kAudioChannelLayoutTag_MPEG_5_0_B: AudioChannelLayoutTag = (118 << 16) | 5
/// L C R Ls Rs.
public let kAudioChannelLayoutTag_MPEG_5_0_C: AudioChannelLayoutTag = (119 << 16) | 5
/// C L R Ls Rs.
public let kAudioChannelLayoutTag_MPEG_5_0_D: AudioChannelLayoutTag = (120 << 16) | 5
/// L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_MPEG_5_1_A: AudioChannelLayoutTag = (121 << 16) | 6
/// L R Ls Rs C LFE.
public let kAudioChannelLayoutTag_MPEG_5_1_B: AudioChannelLayoutTag = (122 << 16) | 6
/// L C R Ls Rs LFE.
public let kAudioChannelLayoutTag_MPEG_5_1_C: AudioChannelLayoutTag = (123 << 16) | 6
/// C L R Ls Rs LFE.
public let kAudioChannelLayoutTag_MPEG_5_1_D: AudioChannelLayoutTag = (124 << 16) | 6
/// L R C LFE Ls Rs Cs.
public let kAudioChannelLayoutTag_MPEG_6_1_A: AudioChannelLayoutTag = (125 << 16) | 7
/// L R C LFE Ls Rs Lc Rc.
public let kAudioChannelLayoutTag_MPEG_7_1_A: AudioChannelLayoutTag = (126 << 16) | 8
/// C Lc Rc L R Ls Rs LFE. The ISO/IEC 13818-7 (MPEG-2 AAC) 7.1 order.
public let kAudioChannelLayoutTag_MPEG_7_1_B: AudioChannelLayoutTag = (127 << 16) | 8
/// L R C LFE Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_MPEG_7_1_C: AudioChannelLayoutTag = (128 << 16) | 8
/// L R Ls Rs C LFE Lc Rc.
public let kAudioChannelLayoutTag_Emagic_Default_7_1: AudioChannelLayoutTag = (129 << 16) | 8
/// L R C LFE Ls Rs Lt Rt. ITU 5.1 plus a matrix-encoded stereo mix.
public let kAudioChannelLayoutTag_SMPTE_DTV: AudioChannelLayoutTag = (130 << 16) | 8

// MARK: - ITU
// ITU-defined layouts.

/// Same value as `kAudioChannelLayoutTag_Mono`: C.
public let kAudioChannelLayoutTag_ITU_1_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_Mono
/// Same value as `kAudioChannelLayoutTag_Stereo`: L R.
public let kAudioChannelLayoutTag_ITU_2_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_Stereo
/// L R Cs.
public let kAudioChannelLayoutTag_ITU_2_1: AudioChannelLayoutTag = (131 << 16) | 3
/// L R Ls Rs.
public let kAudioChannelLayoutTag_ITU_2_2: AudioChannelLayoutTag = (132 << 16) | 4
/// Same value as `kAudioChannelLayoutTag_MPEG_3_0_A`: L R C.
public let kAudioChannelLayoutTag_ITU_3_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_3_0_A
/// Same value as `kAudioChannelLayoutTag_MPEG_4_0_A`: L R C Cs.
public let kAudioChannelLayoutTag_ITU_3_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_4_0_A
/// Same value as `kAudioChannelLayoutTag_MPEG_5_0_A`: L R C Ls Rs.
public let kAudioChannelLayoutTag_ITU_3_2: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_A
/// Same value as `kAudioChannelLayoutTag_MPEG_5_1_A`: L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_ITU_3_2_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A
/// Same value as `kAudioChannelLayoutTag_MPEG_7_1_C`: L R C LFE Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_ITU_3_4_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_C

// MARK: - DVD
// DVD-defined layouts. DVD_13 through DVD_17 repeat DVD_8 through DVD_12.

/// Same value as `kAudioChannelLayoutTag_Mono`: C.
public let kAudioChannelLayoutTag_DVD_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_Mono
/// Same value as `kAudioChannelLayoutTag_Stereo`: L R.
public let kAudioChannelLayoutTag_DVD_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_Stereo
/// Same value as `kAudioChannelLayoutTag_ITU_2_1`: L R Cs.
public let kAudioChannelLayoutTag_DVD_2: AudioChannelLayoutTag = kAudioChannelLayoutTag_ITU_2_1
/// Same value as `kAudioChannelLayoutTag_ITU_2_2`: L R Ls Rs.
public let kAudioChannelLayoutTag_DVD_3: AudioChannelLayoutTag = kAudioChannelLayoutTag_ITU_2_2
/// L R LFE.
public let kAudioChannelLayoutTag_DVD_4: AudioChannelLayoutTag = (133 << 16) | 3
/// L R LFE Cs.
public let kAudioChannelLayoutTag_DVD_5: AudioChannelLayoutTag = (134 << 16) | 4
/// L R LFE Ls Rs.
public let kAudioChannelLayoutTag_DVD_6: AudioChannelLayoutTag = (135 << 16) | 5
/// Same value as `kAudioChannelLayoutTag_MPEG_3_0_A`: L R C.
public let kAudioChannelLayoutTag_DVD_7: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_3_0_A
/// Same value as `kAudioChannelLayoutTag_MPEG_4_0_A`: L R C Cs.
public let kAudioChannelLayoutTag_DVD_8: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_4_0_A
/// Same value as `kAudioChannelLayoutTag_MPEG_5_0_A`: L R C Ls Rs.
public let kAudioChannelLayoutTag_DVD_9: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_A
/// L R C LFE.
public let kAudioChannelLayoutTag_DVD_10: AudioChannelLayoutTag = (136 << 16) | 4
/// L R C LFE Cs.
public let kAudioChannelLayoutTag_DVD_11: AudioChannelLayoutTag = (137 << 16) | 5
/// Same value as `kAudioChannelLayoutTag_MPEG_5_1_A`: L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_DVD_12: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A
/// Same value as `kAudioChannelLayoutTag_DVD_8`: L R C Cs.
public let kAudioChannelLayoutTag_DVD_13: AudioChannelLayoutTag = kAudioChannelLayoutTag_DVD_8
/// Same value as `kAudioChannelLayoutTag_DVD_9`: L R C Ls Rs.
public let kAudioChannelLayoutTag_DVD_14: AudioChannelLayoutTag = kAudioChannelLayoutTag_DVD_9
/// Same value as `kAudioChannelLayoutTag_DVD_10`: L R C LFE.
public let kAudioChannelLayoutTag_DVD_15: AudioChannelLayoutTag = kAudioChannelLayoutTag_DVD_10
/// Same value as `kAudioChannelLayoutTag_DVD_11`: L R C LFE Cs.
public let kAudioChannelLayoutTag_DVD_16: AudioChannelLayoutTag = kAudioChannelLayoutTag_DVD_11
/// Same value as `kAudioChannelLayoutTag_DVD_12`: L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_DVD_17: AudioChannelLayoutTag = kAudioChannelLayoutTag_DVD_12
/// L R Ls Rs LFE.
public let kAudioChannelLayoutTag_DVD_18: AudioChannelLayoutTag = (138 << 16) | 5
/// Same value as `kAudioChannelLayoutTag_MPEG_5_0_B`: L R Ls Rs C.
public let kAudioChannelLayoutTag_DVD_19: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_B
/// Same value as `kAudioChannelLayoutTag_MPEG_5_1_B`: L R Ls Rs C LFE.
public let kAudioChannelLayoutTag_DVD_20: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_B

// MARK: - AudioUnit
// Layouts recommended for audio units: the symmetrical ones, then the surround-based ones.

/// Same value as `kAudioChannelLayoutTag_Quadraphonic`: L R Ls Rs.
public let kAudioChannelLayoutTag_AudioUnit_4: AudioChannelLayoutTag = kAudioChannelLayoutTag_Quadraphonic
/// Same value as `kAudioChannelLayoutTag_Pentagonal`: L R Ls Rs C.
public let kAudioChannelLayoutTag_AudioUnit_5: AudioChannelLayoutTag = kAudioChannelLayoutTag_Pentagonal
/// Same value as `kAudioChannelLayoutTag_Hexagonal`: L R Ls Rs C Cs.
public let kAudioChannelLayoutTag_AudioUnit_6: AudioChannelLayoutTag = kAudioChannelLayoutTag_Hexagonal
/// Same value as `kAudioChannelLayoutTag_Octagonal`: L R Ls Rs C Cs Lw Rw.
public let kAudioChannelLayoutTag_AudioUnit_8: AudioChannelLayoutTag = kAudioChannelLayoutTag_Octagonal
/// Same value as `kAudioChannelLayoutTag_MPEG_5_0_B`: L R Ls Rs C.
public let kAudioChannelLayoutTag_AudioUnit_5_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_B
/// L R Ls Rs C Cs.
public let kAudioChannelLayoutTag_AudioUnit_6_0: AudioChannelLayoutTag = (139 << 16) | 6
/// L R Ls Rs C Rls Rrs.
public let kAudioChannelLayoutTag_AudioUnit_7_0: AudioChannelLayoutTag = (140 << 16) | 7
/// L R Ls Rs C Lc Rc.
public let kAudioChannelLayoutTag_AudioUnit_7_0_Front: AudioChannelLayoutTag = (148 << 16) | 7
/// Same value as `kAudioChannelLayoutTag_MPEG_5_1_A`: L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_AudioUnit_5_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A
/// Same value as `kAudioChannelLayoutTag_MPEG_6_1_A`: L R C LFE Ls Rs Cs.
public let kAudioChannelLayoutTag_AudioUnit_6_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_6_1_A
/// Same value as `kAudioChannelLayoutTag_MPEG_7_1_C`: L R C LFE Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_AudioUnit_7_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_C
/// Same value as `kAudioChannelLayoutTag_MPEG_7_1_A`: L R C LFE Ls Rs Lc Rc.
public let kAudioChannelLayoutTag_AudioUnit_7_1_Front: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_A

// MARK: - AAC
// AAC channel orders (center first).

/// Same value as `kAudioChannelLayoutTag_MPEG_3_0_B`: C L R.
public let kAudioChannelLayoutTag_AAC_3_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_3_0_B
/// Same value as `kAudioChannelLayoutTag_Quadraphonic`: L R Ls Rs.
public let kAudioChannelLayoutTag_AAC_Quadraphonic: AudioChannelLayoutTag = kAudioChannelLayoutTag_Quadraphonic
/// Same value as `kAudioChannelLayoutTag_MPEG_4_0_B`: C L R Cs.
public let kAudioChannelLayoutTag_AAC_4_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_4_0_B
/// Same value as `kAudioChannelLayoutTag_MPEG_5_0_D`: C L R Ls Rs.
public let kAudioChannelLayoutTag_AAC_5_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_D
/// Same value as `kAudioChannelLayoutTag_MPEG_5_1_D`: C L R Ls Rs LFE.
public let kAudioChannelLayoutTag_AAC_5_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_D
/// C L R Ls Rs Cs.
public let kAudioChannelLayoutTag_AAC_6_0: AudioChannelLayoutTag = (141 << 16) | 6
/// C L R Ls Rs Cs LFE.
public let kAudioChannelLayoutTag_AAC_6_1: AudioChannelLayoutTag = (142 << 16) | 7
/// C L R Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_AAC_7_0: AudioChannelLayoutTag = (143 << 16) | 7
/// Same value as `kAudioChannelLayoutTag_MPEG_7_1_B`: C Lc Rc L R Ls Rs LFE.
public let kAudioChannelLayoutTag_AAC_7_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_B
/// C L R Ls Rs Rls Rrs LFE.
public let kAudioChannelLayoutTag_AAC_7_1_B: AudioChannelLayoutTag = (183 << 16) | 8
/// C L R Ls Rs LFE Vhl Vhr.
public let kAudioChannelLayoutTag_AAC_7_1_C: AudioChannelLayoutTag = (184 << 16) | 8
/// C L R Ls Rs Rls Rrs Cs.
public let kAudioChannelLayoutTag_AAC_Octagonal: AudioChannelLayoutTag = (144 << 16) | 8

// MARK: - TMH
// Tomlinson Holman 10.2 layouts.

/// L R C Vhc Lsd Rsd Ls Rs Vhl Vhr Lw Rw Csd Cs LFE1 LFE2.
public let kAudioChannelLayoutTag_TMH_10_2_std: AudioChannelLayoutTag = (145 << 16) | 16
/// L R C Vhc Lsd Rsd Ls Rs Vhl Vhr Lw Rw Csd Cs LFE1 LFE2 Lc Rc HI VI Haptic. TMH_10_2_std plus Lc Rc HI VI Haptic.
public let kAudioChannelLayoutTag_TMH_10_2_full: AudioChannelLayoutTag = (146 << 16) | 21

// MARK: - AC3
// AC-3 (Dolby Digital) channel orders.

/// C LFE.
public let kAudioChannelLayoutTag_AC3_1_0_1: AudioChannelLayoutTag = (149 << 16) | 2
/// L C R.
public let kAudioChannelLayoutTag_AC3_3_0: AudioChannelLayoutTag = (150 << 16) | 3
/// L C R Cs.
public let kAudioChannelLayoutTag_AC3_3_1: AudioChannelLayoutTag = (151 << 16) | 4
/// L C R LFE.
public let kAudioChannelLayoutTag_AC3_3_0_1: AudioChannelLayoutTag = (152 << 16) | 4
/// L R Cs LFE.
public let kAudioChannelLayoutTag_AC3_2_1_1: AudioChannelLayoutTag = (153 << 16) | 4
/// L C R Cs LFE.
public let kAudioChannelLayoutTag_AC3_3_1_1: AudioChannelLayoutTag = (154 << 16) | 5

// MARK: - EAC3
// Enhanced AC-3 (Dolby Digital Plus) channel orders.

/// L C R Ls Rs Cs.
public let kAudioChannelLayoutTag_EAC_6_0_A: AudioChannelLayoutTag = (155 << 16) | 6
/// L C R Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_EAC_7_0_A: AudioChannelLayoutTag = (156 << 16) | 7
/// L C R Ls Rs LFE Cs.
public let kAudioChannelLayoutTag_EAC3_6_1_A: AudioChannelLayoutTag = (157 << 16) | 7
/// L C R Ls Rs LFE Ts.
public let kAudioChannelLayoutTag_EAC3_6_1_B: AudioChannelLayoutTag = (158 << 16) | 7
/// L C R Ls Rs LFE Vhc.
public let kAudioChannelLayoutTag_EAC3_6_1_C: AudioChannelLayoutTag = (159 << 16) | 7
/// L C R Ls Rs LFE Rls Rrs.
public let kAudioChannelLayoutTag_EAC3_7_1_A: AudioChannelLayoutTag = (160 << 16) | 8
/// L C R Ls Rs LFE Lc Rc.
public let kAudioChannelLayoutTag_EAC3_7_1_B: AudioChannelLayoutTag = (161 << 16) | 8
/// L C R Ls Rs LFE Lsd Rsd.
public let kAudioChannelLayoutTag_EAC3_7_1_C: AudioChannelLayoutTag = (162 << 16) | 8
/// L C R Ls Rs LFE Lw Rw.
public let kAudioChannelLayoutTag_EAC3_7_1_D: AudioChannelLayoutTag = (163 << 16) | 8
/// L C R Ls Rs LFE Vhl Vhr.
public let kAudioChannelLayoutTag_EAC3_7_1_E: AudioChannelLayoutTag = (164 << 16) | 8
/// L C R Ls Rs LFE Cs Ts.
public let kAudioChannelLayoutTag_EAC3_7_1_F: AudioChannelLayoutTag = (165 << 16) | 8
/// L C R Ls Rs LFE Cs Vhc.
public let kAudioChannelLayoutTag_EAC3_7_1_G: AudioChannelLayoutTag = (166 << 16) | 8
/// L C R Ls Rs LFE Ts Vhc.
public let kAudioChannelLayoutTag_EAC3_7_1_H: AudioChannelLayoutTag = (167 << 16) | 8

// MARK: - DTS
// DTS channel orders.

/// C L R LFE.
public let kAudioChannelLayoutTag_DTS_3_1: AudioChannelLayoutTag = (168 << 16) | 4
/// C L R Cs LFE.
public let kAudioChannelLayoutTag_DTS_4_1: AudioChannelLayoutTag = (169 << 16) | 5
/// Lc Rc L R Ls Rs.
public let kAudioChannelLayoutTag_DTS_6_0_A: AudioChannelLayoutTag = (170 << 16) | 6
/// C L R Rls Rrs Ts.
public let kAudioChannelLayoutTag_DTS_6_0_B: AudioChannelLayoutTag = (171 << 16) | 6
/// C Cs L R Rls Rrs.
public let kAudioChannelLayoutTag_DTS_6_0_C: AudioChannelLayoutTag = (172 << 16) | 6
/// Lc Rc L R Ls Rs LFE.
public let kAudioChannelLayoutTag_DTS_6_1_A: AudioChannelLayoutTag = (173 << 16) | 7
/// C L R Rls Rrs Ts LFE.
public let kAudioChannelLayoutTag_DTS_6_1_B: AudioChannelLayoutTag = (174 << 16) | 7
/// C Cs L R Rls Rrs LFE.
public let kAudioChannelLayoutTag_DTS_6_1_C: AudioChannelLayoutTag = (175 << 16) | 7
/// Lc C Rc L R Ls Rs.
public let kAudioChannelLayoutTag_DTS_7_0: AudioChannelLayoutTag = (176 << 16) | 7
/// Lc C Rc L R Ls Rs LFE.
public let kAudioChannelLayoutTag_DTS_7_1: AudioChannelLayoutTag = (177 << 16) | 8
/// Lc Rc L R Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_DTS_8_0_A: AudioChannelLayoutTag = (178 << 16) | 8
/// Lc C Rc L R Ls Cs Rs.
public let kAudioChannelLayoutTag_DTS_8_0_B: AudioChannelLayoutTag = (179 << 16) | 8
/// Lc Rc L R Ls Rs Rls Rrs LFE.
public let kAudioChannelLayoutTag_DTS_8_1_A: AudioChannelLayoutTag = (180 << 16) | 9
/// Lc C Rc L R Ls Cs Rs LFE.
public let kAudioChannelLayoutTag_DTS_8_1_B: AudioChannelLayoutTag = (181 << 16) | 9
/// C L R Ls Rs LFE Cs.
public let kAudioChannelLayoutTag_DTS_6_1_D: AudioChannelLayoutTag = (182 << 16) | 7

// MARK: - WAVE
// WAVE (WAVEFORMATEXTENSIBLE) orders: channels in ascending speaker-bit order, where the WAVE back pair is Rls Rrs and the WAVE side pair is Ls Rs.

/// Same value as `kAudioChannelLayoutTag_DVD_4`: L R LFE.
public let kAudioChannelLayoutTag_WAVE_2_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_DVD_4
/// Same value as `kAudioChannelLayoutTag_MPEG_3_0_A`: L R C.
public let kAudioChannelLayoutTag_WAVE_3_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_3_0_A
/// Same value as `kAudioChannelLayoutTag_ITU_2_2`: L R Ls Rs.
public let kAudioChannelLayoutTag_WAVE_4_0_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_ITU_2_2
/// L R Rls Rrs.
public let kAudioChannelLayoutTag_WAVE_4_0_B: AudioChannelLayoutTag = (185 << 16) | 4
/// Same value as `kAudioChannelLayoutTag_MPEG_5_0_A`: L R C Ls Rs.
public let kAudioChannelLayoutTag_WAVE_5_0_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_A
/// L R C Rls Rrs.
public let kAudioChannelLayoutTag_WAVE_5_0_B: AudioChannelLayoutTag = (186 << 16) | 5
/// Same value as `kAudioChannelLayoutTag_MPEG_5_1_A`: L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_WAVE_5_1_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A
/// L R C LFE Rls Rrs.
public let kAudioChannelLayoutTag_WAVE_5_1_B: AudioChannelLayoutTag = (187 << 16) | 6
/// L R C LFE Cs Ls Rs.
public let kAudioChannelLayoutTag_WAVE_6_1: AudioChannelLayoutTag = (188 << 16) | 7
/// L R C LFE Rls Rrs Ls Rs.
public let kAudioChannelLayoutTag_WAVE_7_1: AudioChannelLayoutTag = (189 << 16) | 8

// MARK: - HOA
// Higher-order ambisonics in ACN channel order. OR the tag with the number of channels (not the order): `kAudioChannelLayoutTag_HOA_ACN_SN3D | 16` is third order.

/// SN3D normalization; channels are `kAudioChannelLabel_HOA_ACN_0 + n`.
public let kAudioChannelLayoutTag_HOA_ACN_SN3D: AudioChannelLayoutTag = (190 << 16) | 0
/// N3D normalization; channels are `kAudioChannelLabel_HOA_N3D | n`.
public let kAudioChannelLayoutTag_HOA_ACN_N3D: AudioChannelLayoutTag = (191 << 16) | 0

// MARK: - Atmos
// Dolby Atmos beds.

/// L R C LFE Ls Rs Ltm Rtm.
public let kAudioChannelLayoutTag_Atmos_5_1_2: AudioChannelLayoutTag = (194 << 16) | 8
/// L R C LFE Ls Rs Vhl Vhr Ltr Rtr.
public let kAudioChannelLayoutTag_Atmos_5_1_4: AudioChannelLayoutTag = (195 << 16) | 10
/// L R C LFE Ls Rs Rls Rrs Ltm Rtm.
public let kAudioChannelLayoutTag_Atmos_7_1_2: AudioChannelLayoutTag = (196 << 16) | 10
/// L R C LFE Ls Rs Rls Rrs Vhl Vhr Ltr Rtr.
public let kAudioChannelLayoutTag_Atmos_7_1_4: AudioChannelLayoutTag = (192 << 16) | 12
/// L R C LFE Ls Rs Rls Rrs Lw Rw Vhl Vhr Ltm Rtm Ltr Rtr.
public let kAudioChannelLayoutTag_Atmos_9_1_6: AudioChannelLayoutTag = (193 << 16) | 16

// MARK: - Logic
// Logic Pro's layout names; most are aliases of the layouts above.

/// Same value as `kAudioChannelLayoutTag_Mono`: C.
public let kAudioChannelLayoutTag_Logic_Mono: AudioChannelLayoutTag = kAudioChannelLayoutTag_Mono
/// Same value as `kAudioChannelLayoutTag_Stereo`: L R.
public let kAudioChannelLayoutTag_Logic_Stereo: AudioChannelLayoutTag = kAudioChannelLayoutTag_Stereo
/// Same value as `kAudioChannelLayoutTag_Quadraphonic`: L R Ls Rs.
public let kAudioChannelLayoutTag_Logic_Quadraphonic: AudioChannelLayoutTag = kAudioChannelLayoutTag_Quadraphonic
/// Same value as `kAudioChannelLayoutTag_MPEG_4_0_A`: L R C Cs.
public let kAudioChannelLayoutTag_Logic_4_0_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_4_0_A
/// Same value as `kAudioChannelLayoutTag_MPEG_4_0_B`: C L R Cs.
public let kAudioChannelLayoutTag_Logic_4_0_B: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_4_0_B
/// L R Cs C.
public let kAudioChannelLayoutTag_Logic_4_0_C: AudioChannelLayoutTag = (197 << 16) | 4
/// Same value as `kAudioChannelLayoutTag_MPEG_5_0_A`: L R C Ls Rs.
public let kAudioChannelLayoutTag_Logic_5_0_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_A
/// Same value as `kAudioChannelLayoutTag_MPEG_5_0_B`: L R Ls Rs C.
public let kAudioChannelLayoutTag_Logic_5_0_B: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_B
/// Same value as `kAudioChannelLayoutTag_MPEG_5_0_C`: L C R Ls Rs.
public let kAudioChannelLayoutTag_Logic_5_0_C: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_C
/// Same value as `kAudioChannelLayoutTag_MPEG_5_0_D`: C L R Ls Rs.
public let kAudioChannelLayoutTag_Logic_5_0_D: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_D
/// Same value as `kAudioChannelLayoutTag_MPEG_5_1_A`: L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_Logic_5_1_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A
/// Same value as `kAudioChannelLayoutTag_MPEG_5_1_B`: L R Ls Rs C LFE.
public let kAudioChannelLayoutTag_Logic_5_1_B: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_B
/// Same value as `kAudioChannelLayoutTag_MPEG_5_1_C`: L C R Ls Rs LFE.
public let kAudioChannelLayoutTag_Logic_5_1_C: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_C
/// Same value as `kAudioChannelLayoutTag_MPEG_5_1_D`: C L R Ls Rs LFE.
public let kAudioChannelLayoutTag_Logic_5_1_D: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_D
/// Same value as `kAudioChannelLayoutTag_AAC_6_0`: C L R Ls Rs Cs.
public let kAudioChannelLayoutTag_Logic_6_0_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_AAC_6_0
/// L R Ls Rs Cs C.
public let kAudioChannelLayoutTag_Logic_6_0_B: AudioChannelLayoutTag = (198 << 16) | 6
/// Same value as `kAudioChannelLayoutTag_AudioUnit_6_0`: L R Ls Rs C Cs.
public let kAudioChannelLayoutTag_Logic_6_0_C: AudioChannelLayoutTag = kAudioChannelLayoutTag_AudioUnit_6_0
/// Same value as `kAudioChannelLayoutTag_AAC_6_1`: C L R Ls Rs Cs LFE.
public let kAudioChannelLayoutTag_Logic_6_1_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_AAC_6_1
/// L R Ls Rs Cs C LFE.
public let kAudioChannelLayoutTag_Logic_6_1_B: AudioChannelLayoutTag = (199 << 16) | 7
/// Same value as `kAudioChannelLayoutTag_MPEG_6_1_A`: L R C LFE Ls Rs Cs.
public let kAudioChannelLayoutTag_Logic_6_1_C: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_6_1_A
/// L C R Ls Cs Rs LFE.
public let kAudioChannelLayoutTag_Logic_6_1_D: AudioChannelLayoutTag = (200 << 16) | 7
/// Same value as `kAudioChannelLayoutTag_AudioUnit_7_1`: L R C LFE Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_Logic_7_1_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_AudioUnit_7_1
/// L R Ls Rs Rls Rrs C LFE.
public let kAudioChannelLayoutTag_Logic_7_1_B: AudioChannelLayoutTag = (201 << 16) | 8
/// Same value as `kAudioChannelLayoutTag_MPEG_7_1_C`: L R C LFE Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_Logic_7_1_C: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_C
/// Same value as `kAudioChannelLayoutTag_MPEG_7_1_A`: L R C LFE Ls Rs Lc Rc.
public let kAudioChannelLayoutTag_Logic_7_1_SDDS_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_A
/// Same value as `kAudioChannelLayoutTag_MPEG_7_1_B`: C Lc Rc L R Ls Rs LFE.
public let kAudioChannelLayoutTag_Logic_7_1_SDDS_B: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_B
/// Same value as `kAudioChannelLayoutTag_Emagic_Default_7_1`: L R Ls Rs C LFE Lc Rc.
public let kAudioChannelLayoutTag_Logic_7_1_SDDS_C: AudioChannelLayoutTag = kAudioChannelLayoutTag_Emagic_Default_7_1
/// Same value as `kAudioChannelLayoutTag_Atmos_5_1_2`: L R C LFE Ls Rs Ltm Rtm.
public let kAudioChannelLayoutTag_Logic_Atmos_5_1_2: AudioChannelLayoutTag = kAudioChannelLayoutTag_Atmos_5_1_2
/// Same value as `kAudioChannelLayoutTag_Atmos_5_1_4`: L R C LFE Ls Rs Vhl Vhr Ltr Rtr.
public let kAudioChannelLayoutTag_Logic_Atmos_5_1_4: AudioChannelLayoutTag = kAudioChannelLayoutTag_Atmos_5_1_4
/// Same value as `kAudioChannelLayoutTag_Atmos_7_1_2`: L R C LFE Ls Rs Rls Rrs Ltm Rtm.
public let kAudioChannelLayoutTag_Logic_Atmos_7_1_2: AudioChannelLayoutTag = kAudioChannelLayoutTag_Atmos_7_1_2
/// Same value as `kAudioChannelLayoutTag_Atmos_7_1_4`: L R C LFE Ls Rs Rls Rrs Vhl Vhr Ltr Rtr.
public let kAudioChannelLayoutTag_Logic_Atmos_7_1_4_A: AudioChannelLayoutTag = kAudioChannelLayoutTag_Atmos_7_1_4
/// L R Rls Rrs Ls Rs C LFE Vhl Vhr Ltr Rtr.
public let kAudioChannelLayoutTag_Logic_Atmos_7_1_4_B: AudioChannelLayoutTag = (202 << 16) | 12
/// L R Rls Rrs Ls Rs C LFE Vhl Vhr Ltm Rtm Ltr Rtr.
public let kAudioChannelLayoutTag_Logic_Atmos_7_1_6: AudioChannelLayoutTag = (203 << 16) | 14

// MARK: - Discrete
// Channels with no speaker position. OR the tag with the number of channels; channel n is `kAudioChannelLabel_Discrete_0 + n`.

public let kAudioChannelLayoutTag_DiscreteInOrder: AudioChannelLayoutTag = (147 << 16) | 0

// MARK: - CICP
// ISO/IEC 23091-3 (CICP) ChannelConfiguration values 1-7 and 9-20. CICP_7 is numerically MPEG_7_1_B, so its channels are in MPEG_7_1_B's order.

/// Same value as `kAudioChannelLayoutTag_MPEG_1_0`: C.
public let kAudioChannelLayoutTag_CICP_1: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_1_0
/// Same value as `kAudioChannelLayoutTag_MPEG_2_0`: L R.
public let kAudioChannelLayoutTag_CICP_2: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_2_0
/// Same value as `kAudioChannelLayoutTag_MPEG_3_0_A`: L R C.
public let kAudioChannelLayoutTag_CICP_3: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_3_0_A
/// Same value as `kAudioChannelLayoutTag_MPEG_4_0_A`: L R C Cs.
public let kAudioChannelLayoutTag_CICP_4: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_4_0_A
/// Same value as `kAudioChannelLayoutTag_MPEG_5_0_A`: L R C Ls Rs.
public let kAudioChannelLayoutTag_CICP_5: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_0_A
/// Same value as `kAudioChannelLayoutTag_MPEG_5_1_A`: L R C LFE Ls Rs.
public let kAudioChannelLayoutTag_CICP_6: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_5_1_A
/// Same value as `kAudioChannelLayoutTag_MPEG_7_1_B`: C Lc Rc L R Ls Rs LFE.
public let kAudioChannelLayoutTag_CICP_7: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_B
/// Same value as `kAudioChannelLayoutTag_ITU_2_1`: L R Cs.
public let kAudioChannelLayoutTag_CICP_9: AudioChannelLayoutTag = kAudioChannelLayoutTag_ITU_2_1
/// Same value as `kAudioChannelLayoutTag_ITU_2_2`: L R Ls Rs.
public let kAudioChannelLayoutTag_CICP_10: AudioChannelLayoutTag = kAudioChannelLayoutTag_ITU_2_2
/// Same value as `kAudioChannelLayoutTag_MPEG_6_1_A`: L R C LFE Ls Rs Cs.
public let kAudioChannelLayoutTag_CICP_11: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_6_1_A
/// Same value as `kAudioChannelLayoutTag_MPEG_7_1_C`: L R C LFE Ls Rs Rls Rrs.
public let kAudioChannelLayoutTag_CICP_12: AudioChannelLayoutTag = kAudioChannelLayoutTag_MPEG_7_1_C
/// Lc Rc C LFE2 Rls Rrs L R Cs LFE3 Lss Rss Vhl Vhr Vhc Ts Ltr Rtr Ltm Rtm Ctr Cb Lb Rb. 22.2.
public let kAudioChannelLayoutTag_CICP_13: AudioChannelLayoutTag = (204 << 16) | 24
/// L R C LFE Ls Rs Vhl Vhr.
public let kAudioChannelLayoutTag_CICP_14: AudioChannelLayoutTag = (205 << 16) | 8
/// L R C LFE2 Rls Rrs LFE3 Lss Rss Vhl Vhr Ctr.
public let kAudioChannelLayoutTag_CICP_15: AudioChannelLayoutTag = (206 << 16) | 12
/// L R C LFE Ls Rs Vhl Vhr Lts Rts.
public let kAudioChannelLayoutTag_CICP_16: AudioChannelLayoutTag = (207 << 16) | 10
/// L R C LFE Ls Rs Vhl Vhr Vhc Lts Rts Ts.
public let kAudioChannelLayoutTag_CICP_17: AudioChannelLayoutTag = (208 << 16) | 12
/// L R C LFE Ls Rs Lbs Rbs Vhl Vhr Vhc Lts Rts Ts.
public let kAudioChannelLayoutTag_CICP_18: AudioChannelLayoutTag = (209 << 16) | 14
/// L R C LFE Rls Rrs Lss Rss Vhl Vhr Ltr Rtr.
public let kAudioChannelLayoutTag_CICP_19: AudioChannelLayoutTag = (210 << 16) | 12
/// L R C LFE Rls Rrs Lss Rss Vhl Vhr Ltr Rtr Leos Reos.
public let kAudioChannelLayoutTag_CICP_20: AudioChannelLayoutTag = (211 << 16) | 14

// MARK: - Ogg
// Ogg Vorbis / Opus channel orders.

/// Same value as `kAudioChannelLayoutTag_AC3_3_0`: L C R.
public let kAudioChannelLayoutTag_Ogg_3_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_AC3_3_0
/// Same value as `kAudioChannelLayoutTag_WAVE_4_0_B`: L R Rls Rrs.
public let kAudioChannelLayoutTag_Ogg_4_0: AudioChannelLayoutTag = kAudioChannelLayoutTag_WAVE_4_0_B
/// L C R Rls Rrs.
public let kAudioChannelLayoutTag_Ogg_5_0: AudioChannelLayoutTag = (212 << 16) | 5
/// L C R Rls Rrs LFE.
public let kAudioChannelLayoutTag_Ogg_5_1: AudioChannelLayoutTag = (213 << 16) | 6
/// L C R Ls Rs Cs LFE.
public let kAudioChannelLayoutTag_Ogg_6_1: AudioChannelLayoutTag = (214 << 16) | 7
/// L C R Ls Rs Rls Rrs LFE.
public let kAudioChannelLayoutTag_Ogg_7_1: AudioChannelLayoutTag = (215 << 16) | 8

// MARK: - MPEG_E
// Further MPEG orders.

/// L R Rls Rrs C.
public let kAudioChannelLayoutTag_MPEG_5_0_E: AudioChannelLayoutTag = (216 << 16) | 5
/// L R Rls Rrs C LFE.
public let kAudioChannelLayoutTag_MPEG_5_1_E: AudioChannelLayoutTag = (217 << 16) | 6
/// L R Ls Rs C Cs LFE.
public let kAudioChannelLayoutTag_MPEG_6_1_B: AudioChannelLayoutTag = (218 << 16) | 7
/// L R Rls Rrs Ls Rs C LFE.
public let kAudioChannelLayoutTag_MPEG_7_1_D: AudioChannelLayoutTag = (219 << 16) | 8

// MARK: - Reserved
// Tag values Apple reserves for internal use, and the unknown layout.

/// Tags from here through EndReserved are reserved for internal use.
public let kAudioChannelLayoutTag_BeginReserved: AudioChannelLayoutTag = 0xF000_0000
public let kAudioChannelLayoutTag_EndReserved: AudioChannelLayoutTag = 0xFFFE_FFFF
/// A layout with no known channel assignment; OR with the number of channels.
public let kAudioChannelLayoutTag_Unknown: AudioChannelLayoutTag = 0xFFFF_0000

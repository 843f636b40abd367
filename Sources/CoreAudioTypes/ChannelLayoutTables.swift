// Channel orders of the predefined layout tags, and conversions between layout tags, channel-label
// lists, Core Audio channel bitmaps and WAVE channel masks. `package` access: these serve OpenAVFAudio's
// own modules (AVFAudio, the avaudio tool) and are not part of the public API.
//
// Channel orders are those Apple's CoreAudioTypes.h gives in its comment on each tag, written here with
// the header's abbreviations (legend in AudioChannelLayoutTags.swift). Where a header comment and the
// tag's value disagree, the value decides: CICP_7 is defined as MPEG_7_1_B, so it has MPEG_7_1_B's order.

// MARK: - Channel abbreviations

/// Abbreviation ↔ label. The first abbreviation listed for a label is the one
/// `channelLabelAbbreviation(_:)` returns ("LFE" rather than "LFE1").
private let channelAbbreviations: [(String, AudioChannelLabel)] = [
    ("L", kAudioChannelLabel_Left),
    ("R", kAudioChannelLabel_Right),
    ("C", kAudioChannelLabel_Center),
    ("LFE", kAudioChannelLabel_LFEScreen),
    ("LFE1", kAudioChannelLabel_LFEScreen),
    ("Ls", kAudioChannelLabel_LeftSurround),
    ("Rs", kAudioChannelLabel_RightSurround),
    ("Lc", kAudioChannelLabel_LeftCenter),
    ("Rc", kAudioChannelLabel_RightCenter),
    ("Cs", kAudioChannelLabel_CenterSurround),
    ("Lsd", kAudioChannelLabel_LeftSurroundDirect),
    ("Rsd", kAudioChannelLabel_RightSurroundDirect),
    ("Ts", kAudioChannelLabel_TopCenterSurround),
    ("Vhl", kAudioChannelLabel_VerticalHeightLeft),
    ("Vhc", kAudioChannelLabel_VerticalHeightCenter),
    ("Vhr", kAudioChannelLabel_VerticalHeightRight),
    ("Tbl", kAudioChannelLabel_TopBackLeft),
    ("Tbc", kAudioChannelLabel_TopBackCenter),
    ("Tbr", kAudioChannelLabel_TopBackRight),
    ("Rls", kAudioChannelLabel_RearSurroundLeft),
    ("Rrs", kAudioChannelLabel_RearSurroundRight),
    ("Lw", kAudioChannelLabel_LeftWide),
    ("Rw", kAudioChannelLabel_RightWide),
    ("LFE2", kAudioChannelLabel_LFE2),
    ("Lt", kAudioChannelLabel_LeftTotal),
    ("Rt", kAudioChannelLabel_RightTotal),
    ("HI", kAudioChannelLabel_HearingImpaired),
    ("VI", kAudioChannelLabel_Narration),
    ("Mono", kAudioChannelLabel_Mono),
    ("Dlg", kAudioChannelLabel_DialogCentricMix),
    ("Csd", kAudioChannelLabel_CenterSurroundDirect),
    ("Haptic", kAudioChannelLabel_Haptic),
    ("Ltm", kAudioChannelLabel_LeftTopMiddle),
    ("Rtm", kAudioChannelLabel_RightTopMiddle),
    ("Ltr", kAudioChannelLabel_LeftTopRear),
    ("Ctr", kAudioChannelLabel_CenterTopRear),
    ("Rtr", kAudioChannelLabel_RightTopRear),
    ("Lss", kAudioChannelLabel_LeftSideSurround),
    ("Rss", kAudioChannelLabel_RightSideSurround),
    ("Lb", kAudioChannelLabel_LeftBottom),
    ("Rb", kAudioChannelLabel_RightBottom),
    ("Cb", kAudioChannelLabel_CenterBottom),
    ("Lts", kAudioChannelLabel_LeftTopSurround),
    ("Rts", kAudioChannelLabel_RightTopSurround),
    ("LFE3", kAudioChannelLabel_LFE3),
    ("Lbs", kAudioChannelLabel_LeftBackSurround),
    ("Rbs", kAudioChannelLabel_RightBackSurround),
    ("Leos", kAudioChannelLabel_LeftEdgeOfScreen),
    ("Reos", kAudioChannelLabel_RightEdgeOfScreen),
    ("W", kAudioChannelLabel_Ambisonic_W),
    ("X", kAudioChannelLabel_Ambisonic_X),
    ("Y", kAudioChannelLabel_Ambisonic_Y),
    ("Z", kAudioChannelLabel_Ambisonic_Z),
    ("Mid", kAudioChannelLabel_MS_Mid),
    ("Side", kAudioChannelLabel_MS_Side),
    ("XY_X", kAudioChannelLabel_XY_X),
    ("XY_Y", kAudioChannelLabel_XY_Y),
    ("BinL", kAudioChannelLabel_BinauralLeft),
    ("BinR", kAudioChannelLabel_BinauralRight),
    ("HPL", kAudioChannelLabel_HeadphonesLeft),
    ("HPR", kAudioChannelLabel_HeadphonesRight),
    ("Click", kAudioChannelLabel_ClickTrack),
    ("Lang", kAudioChannelLabel_ForeignLanguage),
    ("Discrete", kAudioChannelLabel_Discrete),
    ("HOA_ACN", kAudioChannelLabel_HOA_ACN),
    ("Unused", kAudioChannelLabel_Unused),
    ("Unknown", kAudioChannelLabel_Unknown),
    ("UseCoordinates", kAudioChannelLabel_UseCoordinates),
]

// MARK: - The tag table

private struct LayoutEntry {
    let name: String
    let tag: AudioChannelLayoutTag
    /// The channel order in abbreviations; nil for an alias (it has its target's order) and for tags
    /// without a fixed order.
    let order: String?

    init(_ name: String, _ tag: AudioChannelLayoutTag, _ order: String? = nil) {
        self.name = name
        self.tag = tag
        self.order = order
    }
}

private typealias E = LayoutEntry

/// Every `kAudioChannelLayoutTag_*` constant, in CoreAudioTypes.h order (which puts the canonical name of
/// a value first: Mono before MPEG_1_0, MPEG_5_1_A before ITU_3_2_1 and AudioUnit_5_1).
private let layoutEntries: [LayoutEntry] = [
    E("UseChannelDescriptions", kAudioChannelLayoutTag_UseChannelDescriptions),
    E("UseChannelBitmap", kAudioChannelLayoutTag_UseChannelBitmap),
    E("Mono", kAudioChannelLayoutTag_Mono, "C"),
    E("Stereo", kAudioChannelLayoutTag_Stereo, "L R"),
    E("StereoHeadphones", kAudioChannelLayoutTag_StereoHeadphones, "HPL HPR"),
    E("MatrixStereo", kAudioChannelLayoutTag_MatrixStereo, "Lt Rt"),
    E("MidSide", kAudioChannelLayoutTag_MidSide, "Mid Side"),
    E("XY", kAudioChannelLayoutTag_XY, "XY_X XY_Y"),
    E("Binaural", kAudioChannelLayoutTag_Binaural, "BinL BinR"),
    E("Ambisonic_B_Format", kAudioChannelLayoutTag_Ambisonic_B_Format, "W X Y Z"),
    E("Quadraphonic", kAudioChannelLayoutTag_Quadraphonic, "L R Ls Rs"),
    E("Pentagonal", kAudioChannelLayoutTag_Pentagonal, "L R Ls Rs C"),
    E("Hexagonal", kAudioChannelLayoutTag_Hexagonal, "L R Ls Rs C Cs"),
    E("Octagonal", kAudioChannelLayoutTag_Octagonal, "L R Ls Rs C Cs Lw Rw"),
    E("Cube", kAudioChannelLayoutTag_Cube, "L R Ls Rs Vhl Vhr Ltr Rtr"),
    E("MPEG_1_0", kAudioChannelLayoutTag_MPEG_1_0),
    E("MPEG_2_0", kAudioChannelLayoutTag_MPEG_2_0),
    E("MPEG_3_0_A", kAudioChannelLayoutTag_MPEG_3_0_A, "L R C"),
    E("MPEG_3_0_B", kAudioChannelLayoutTag_MPEG_3_0_B, "C L R"),
    E("MPEG_4_0_A", kAudioChannelLayoutTag_MPEG_4_0_A, "L R C Cs"),
    E("MPEG_4_0_B", kAudioChannelLayoutTag_MPEG_4_0_B, "C L R Cs"),
    E("MPEG_5_0_A", kAudioChannelLayoutTag_MPEG_5_0_A, "L R C Ls Rs"),
    E("MPEG_5_0_B", kAudioChannelLayoutTag_MPEG_5_0_B, "L R Ls Rs C"),
    E("MPEG_5_0_C", kAudioChannelLayoutTag_MPEG_5_0_C, "L C R Ls Rs"),
    E("MPEG_5_0_D", kAudioChannelLayoutTag_MPEG_5_0_D, "C L R Ls Rs"),
    E("MPEG_5_1_A", kAudioChannelLayoutTag_MPEG_5_1_A, "L R C LFE Ls Rs"),
    E("MPEG_5_1_B", kAudioChannelLayoutTag_MPEG_5_1_B, "L R Ls Rs C LFE"),
    E("MPEG_5_1_C", kAudioChannelLayoutTag_MPEG_5_1_C, "L C R Ls Rs LFE"),
    E("MPEG_5_1_D", kAudioChannelLayoutTag_MPEG_5_1_D, "C L R Ls Rs LFE"),
    E("MPEG_6_1_A", kAudioChannelLayoutTag_MPEG_6_1_A, "L R C LFE Ls Rs Cs"),
    E("MPEG_7_1_A", kAudioChannelLayoutTag_MPEG_7_1_A, "L R C LFE Ls Rs Lc Rc"),
    E("MPEG_7_1_B", kAudioChannelLayoutTag_MPEG_7_1_B, "C Lc Rc L R Ls Rs LFE"),
    E("MPEG_7_1_C", kAudioChannelLayoutTag_MPEG_7_1_C, "L R C LFE Ls Rs Rls Rrs"),
    E("Emagic_Default_7_1", kAudioChannelLayoutTag_Emagic_Default_7_1, "L R Ls Rs C LFE Lc Rc"),
    E("SMPTE_DTV", kAudioChannelLayoutTag_SMPTE_DTV, "L R C LFE Ls Rs Lt Rt"),
    E("ITU_1_0", kAudioChannelLayoutTag_ITU_1_0),
    E("ITU_2_0", kAudioChannelLayoutTag_ITU_2_0),
    E("ITU_2_1", kAudioChannelLayoutTag_ITU_2_1, "L R Cs"),
    E("ITU_2_2", kAudioChannelLayoutTag_ITU_2_2, "L R Ls Rs"),
    E("ITU_3_0", kAudioChannelLayoutTag_ITU_3_0),
    E("ITU_3_1", kAudioChannelLayoutTag_ITU_3_1),
    E("ITU_3_2", kAudioChannelLayoutTag_ITU_3_2),
    E("ITU_3_2_1", kAudioChannelLayoutTag_ITU_3_2_1),
    E("ITU_3_4_1", kAudioChannelLayoutTag_ITU_3_4_1),
    E("DVD_0", kAudioChannelLayoutTag_DVD_0),
    E("DVD_1", kAudioChannelLayoutTag_DVD_1),
    E("DVD_2", kAudioChannelLayoutTag_DVD_2),
    E("DVD_3", kAudioChannelLayoutTag_DVD_3),
    E("DVD_4", kAudioChannelLayoutTag_DVD_4, "L R LFE"),
    E("DVD_5", kAudioChannelLayoutTag_DVD_5, "L R LFE Cs"),
    E("DVD_6", kAudioChannelLayoutTag_DVD_6, "L R LFE Ls Rs"),
    E("DVD_7", kAudioChannelLayoutTag_DVD_7),
    E("DVD_8", kAudioChannelLayoutTag_DVD_8),
    E("DVD_9", kAudioChannelLayoutTag_DVD_9),
    E("DVD_10", kAudioChannelLayoutTag_DVD_10, "L R C LFE"),
    E("DVD_11", kAudioChannelLayoutTag_DVD_11, "L R C LFE Cs"),
    E("DVD_12", kAudioChannelLayoutTag_DVD_12),
    E("DVD_13", kAudioChannelLayoutTag_DVD_13),
    E("DVD_14", kAudioChannelLayoutTag_DVD_14),
    E("DVD_15", kAudioChannelLayoutTag_DVD_15),
    E("DVD_16", kAudioChannelLayoutTag_DVD_16),
    E("DVD_17", kAudioChannelLayoutTag_DVD_17),
    E("DVD_18", kAudioChannelLayoutTag_DVD_18, "L R Ls Rs LFE"),
    E("DVD_19", kAudioChannelLayoutTag_DVD_19),
    E("DVD_20", kAudioChannelLayoutTag_DVD_20),
    E("AudioUnit_4", kAudioChannelLayoutTag_AudioUnit_4),
    E("AudioUnit_5", kAudioChannelLayoutTag_AudioUnit_5),
    E("AudioUnit_6", kAudioChannelLayoutTag_AudioUnit_6),
    E("AudioUnit_8", kAudioChannelLayoutTag_AudioUnit_8),
    E("AudioUnit_5_0", kAudioChannelLayoutTag_AudioUnit_5_0),
    E("AudioUnit_6_0", kAudioChannelLayoutTag_AudioUnit_6_0, "L R Ls Rs C Cs"),
    E("AudioUnit_7_0", kAudioChannelLayoutTag_AudioUnit_7_0, "L R Ls Rs C Rls Rrs"),
    E("AudioUnit_7_0_Front", kAudioChannelLayoutTag_AudioUnit_7_0_Front, "L R Ls Rs C Lc Rc"),
    E("AudioUnit_5_1", kAudioChannelLayoutTag_AudioUnit_5_1),
    E("AudioUnit_6_1", kAudioChannelLayoutTag_AudioUnit_6_1),
    E("AudioUnit_7_1", kAudioChannelLayoutTag_AudioUnit_7_1),
    E("AudioUnit_7_1_Front", kAudioChannelLayoutTag_AudioUnit_7_1_Front),
    E("AAC_3_0", kAudioChannelLayoutTag_AAC_3_0),
    E("AAC_Quadraphonic", kAudioChannelLayoutTag_AAC_Quadraphonic),
    E("AAC_4_0", kAudioChannelLayoutTag_AAC_4_0),
    E("AAC_5_0", kAudioChannelLayoutTag_AAC_5_0),
    E("AAC_5_1", kAudioChannelLayoutTag_AAC_5_1),
    E("AAC_6_0", kAudioChannelLayoutTag_AAC_6_0, "C L R Ls Rs Cs"),
    E("AAC_6_1", kAudioChannelLayoutTag_AAC_6_1, "C L R Ls Rs Cs LFE"),
    E("AAC_7_0", kAudioChannelLayoutTag_AAC_7_0, "C L R Ls Rs Rls Rrs"),
    E("AAC_7_1", kAudioChannelLayoutTag_AAC_7_1),
    E("AAC_7_1_B", kAudioChannelLayoutTag_AAC_7_1_B, "C L R Ls Rs Rls Rrs LFE"),
    E("AAC_7_1_C", kAudioChannelLayoutTag_AAC_7_1_C, "C L R Ls Rs LFE Vhl Vhr"),
    E("AAC_Octagonal", kAudioChannelLayoutTag_AAC_Octagonal, "C L R Ls Rs Rls Rrs Cs"),
    E("TMH_10_2_std", kAudioChannelLayoutTag_TMH_10_2_std, "L R C Vhc Lsd Rsd Ls Rs Vhl Vhr Lw Rw Csd Cs LFE1 LFE2"),
    E("TMH_10_2_full", kAudioChannelLayoutTag_TMH_10_2_full, "L R C Vhc Lsd Rsd Ls Rs Vhl Vhr Lw Rw Csd Cs LFE1 LFE2 Lc Rc HI VI Haptic"),
    E("AC3_1_0_1", kAudioChannelLayoutTag_AC3_1_0_1, "C LFE"),
    E("AC3_3_0", kAudioChannelLayoutTag_AC3_3_0, "L C R"),
    E("AC3_3_1", kAudioChannelLayoutTag_AC3_3_1, "L C R Cs"),
    E("AC3_3_0_1", kAudioChannelLayoutTag_AC3_3_0_1, "L C R LFE"),
    E("AC3_2_1_1", kAudioChannelLayoutTag_AC3_2_1_1, "L R Cs LFE"),
    E("AC3_3_1_1", kAudioChannelLayoutTag_AC3_3_1_1, "L C R Cs LFE"),
    E("EAC_6_0_A", kAudioChannelLayoutTag_EAC_6_0_A, "L C R Ls Rs Cs"),
    E("EAC_7_0_A", kAudioChannelLayoutTag_EAC_7_0_A, "L C R Ls Rs Rls Rrs"),
    E("EAC3_6_1_A", kAudioChannelLayoutTag_EAC3_6_1_A, "L C R Ls Rs LFE Cs"),
    E("EAC3_6_1_B", kAudioChannelLayoutTag_EAC3_6_1_B, "L C R Ls Rs LFE Ts"),
    E("EAC3_6_1_C", kAudioChannelLayoutTag_EAC3_6_1_C, "L C R Ls Rs LFE Vhc"),
    E("EAC3_7_1_A", kAudioChannelLayoutTag_EAC3_7_1_A, "L C R Ls Rs LFE Rls Rrs"),
    E("EAC3_7_1_B", kAudioChannelLayoutTag_EAC3_7_1_B, "L C R Ls Rs LFE Lc Rc"),
    E("EAC3_7_1_C", kAudioChannelLayoutTag_EAC3_7_1_C, "L C R Ls Rs LFE Lsd Rsd"),
    E("EAC3_7_1_D", kAudioChannelLayoutTag_EAC3_7_1_D, "L C R Ls Rs LFE Lw Rw"),
    E("EAC3_7_1_E", kAudioChannelLayoutTag_EAC3_7_1_E, "L C R Ls Rs LFE Vhl Vhr"),
    E("EAC3_7_1_F", kAudioChannelLayoutTag_EAC3_7_1_F, "L C R Ls Rs LFE Cs Ts"),
    E("EAC3_7_1_G", kAudioChannelLayoutTag_EAC3_7_1_G, "L C R Ls Rs LFE Cs Vhc"),
    E("EAC3_7_1_H", kAudioChannelLayoutTag_EAC3_7_1_H, "L C R Ls Rs LFE Ts Vhc"),
    E("DTS_3_1", kAudioChannelLayoutTag_DTS_3_1, "C L R LFE"),
    E("DTS_4_1", kAudioChannelLayoutTag_DTS_4_1, "C L R Cs LFE"),
    E("DTS_6_0_A", kAudioChannelLayoutTag_DTS_6_0_A, "Lc Rc L R Ls Rs"),
    E("DTS_6_0_B", kAudioChannelLayoutTag_DTS_6_0_B, "C L R Rls Rrs Ts"),
    E("DTS_6_0_C", kAudioChannelLayoutTag_DTS_6_0_C, "C Cs L R Rls Rrs"),
    E("DTS_6_1_A", kAudioChannelLayoutTag_DTS_6_1_A, "Lc Rc L R Ls Rs LFE"),
    E("DTS_6_1_B", kAudioChannelLayoutTag_DTS_6_1_B, "C L R Rls Rrs Ts LFE"),
    E("DTS_6_1_C", kAudioChannelLayoutTag_DTS_6_1_C, "C Cs L R Rls Rrs LFE"),
    E("DTS_7_0", kAudioChannelLayoutTag_DTS_7_0, "Lc C Rc L R Ls Rs"),
    E("DTS_7_1", kAudioChannelLayoutTag_DTS_7_1, "Lc C Rc L R Ls Rs LFE"),
    E("DTS_8_0_A", kAudioChannelLayoutTag_DTS_8_0_A, "Lc Rc L R Ls Rs Rls Rrs"),
    E("DTS_8_0_B", kAudioChannelLayoutTag_DTS_8_0_B, "Lc C Rc L R Ls Cs Rs"),
    E("DTS_8_1_A", kAudioChannelLayoutTag_DTS_8_1_A, "Lc Rc L R Ls Rs Rls Rrs LFE"),
    E("DTS_8_1_B", kAudioChannelLayoutTag_DTS_8_1_B, "Lc C Rc L R Ls Cs Rs LFE"),
    E("DTS_6_1_D", kAudioChannelLayoutTag_DTS_6_1_D, "C L R Ls Rs LFE Cs"),
    E("WAVE_2_1", kAudioChannelLayoutTag_WAVE_2_1),
    E("WAVE_3_0", kAudioChannelLayoutTag_WAVE_3_0),
    E("WAVE_4_0_A", kAudioChannelLayoutTag_WAVE_4_0_A),
    E("WAVE_4_0_B", kAudioChannelLayoutTag_WAVE_4_0_B, "L R Rls Rrs"),
    E("WAVE_5_0_A", kAudioChannelLayoutTag_WAVE_5_0_A),
    E("WAVE_5_0_B", kAudioChannelLayoutTag_WAVE_5_0_B, "L R C Rls Rrs"),
    E("WAVE_5_1_A", kAudioChannelLayoutTag_WAVE_5_1_A),
    E("WAVE_5_1_B", kAudioChannelLayoutTag_WAVE_5_1_B, "L R C LFE Rls Rrs"),
    E("WAVE_6_1", kAudioChannelLayoutTag_WAVE_6_1, "L R C LFE Cs Ls Rs"),
    E("WAVE_7_1", kAudioChannelLayoutTag_WAVE_7_1, "L R C LFE Rls Rrs Ls Rs"),
    E("HOA_ACN_SN3D", kAudioChannelLayoutTag_HOA_ACN_SN3D),
    E("HOA_ACN_N3D", kAudioChannelLayoutTag_HOA_ACN_N3D),
    E("Atmos_5_1_2", kAudioChannelLayoutTag_Atmos_5_1_2, "L R C LFE Ls Rs Ltm Rtm"),
    E("Atmos_5_1_4", kAudioChannelLayoutTag_Atmos_5_1_4, "L R C LFE Ls Rs Vhl Vhr Ltr Rtr"),
    E("Atmos_7_1_2", kAudioChannelLayoutTag_Atmos_7_1_2, "L R C LFE Ls Rs Rls Rrs Ltm Rtm"),
    E("Atmos_7_1_4", kAudioChannelLayoutTag_Atmos_7_1_4, "L R C LFE Ls Rs Rls Rrs Vhl Vhr Ltr Rtr"),
    E("Atmos_9_1_6", kAudioChannelLayoutTag_Atmos_9_1_6, "L R C LFE Ls Rs Rls Rrs Lw Rw Vhl Vhr Ltm Rtm Ltr Rtr"),
    E("Logic_Mono", kAudioChannelLayoutTag_Logic_Mono),
    E("Logic_Stereo", kAudioChannelLayoutTag_Logic_Stereo),
    E("Logic_Quadraphonic", kAudioChannelLayoutTag_Logic_Quadraphonic),
    E("Logic_4_0_A", kAudioChannelLayoutTag_Logic_4_0_A),
    E("Logic_4_0_B", kAudioChannelLayoutTag_Logic_4_0_B),
    E("Logic_4_0_C", kAudioChannelLayoutTag_Logic_4_0_C, "L R Cs C"),
    E("Logic_5_0_A", kAudioChannelLayoutTag_Logic_5_0_A),
    E("Logic_5_0_B", kAudioChannelLayoutTag_Logic_5_0_B),
    E("Logic_5_0_C", kAudioChannelLayoutTag_Logic_5_0_C),
    E("Logic_5_0_D", kAudioChannelLayoutTag_Logic_5_0_D),
    E("Logic_5_1_A", kAudioChannelLayoutTag_Logic_5_1_A),
    E("Logic_5_1_B", kAudioChannelLayoutTag_Logic_5_1_B),
    E("Logic_5_1_C", kAudioChannelLayoutTag_Logic_5_1_C),
    E("Logic_5_1_D", kAudioChannelLayoutTag_Logic_5_1_D),
    E("Logic_6_0_A", kAudioChannelLayoutTag_Logic_6_0_A),
    E("Logic_6_0_B", kAudioChannelLayoutTag_Logic_6_0_B, "L R Ls Rs Cs C"),
    E("Logic_6_0_C", kAudioChannelLayoutTag_Logic_6_0_C),
    E("Logic_6_1_A", kAudioChannelLayoutTag_Logic_6_1_A),
    E("Logic_6_1_B", kAudioChannelLayoutTag_Logic_6_1_B, "L R Ls Rs Cs C LFE"),
    E("Logic_6_1_C", kAudioChannelLayoutTag_Logic_6_1_C),
    E("Logic_6_1_D", kAudioChannelLayoutTag_Logic_6_1_D, "L C R Ls Cs Rs LFE"),
    E("Logic_7_1_A", kAudioChannelLayoutTag_Logic_7_1_A),
    E("Logic_7_1_B", kAudioChannelLayoutTag_Logic_7_1_B, "L R Ls Rs Rls Rrs C LFE"),
    E("Logic_7_1_C", kAudioChannelLayoutTag_Logic_7_1_C),
    E("Logic_7_1_SDDS_A", kAudioChannelLayoutTag_Logic_7_1_SDDS_A),
    E("Logic_7_1_SDDS_B", kAudioChannelLayoutTag_Logic_7_1_SDDS_B),
    E("Logic_7_1_SDDS_C", kAudioChannelLayoutTag_Logic_7_1_SDDS_C),
    E("Logic_Atmos_5_1_2", kAudioChannelLayoutTag_Logic_Atmos_5_1_2),
    E("Logic_Atmos_5_1_4", kAudioChannelLayoutTag_Logic_Atmos_5_1_4),
    E("Logic_Atmos_7_1_2", kAudioChannelLayoutTag_Logic_Atmos_7_1_2),
    E("Logic_Atmos_7_1_4_A", kAudioChannelLayoutTag_Logic_Atmos_7_1_4_A),
    E("Logic_Atmos_7_1_4_B", kAudioChannelLayoutTag_Logic_Atmos_7_1_4_B, "L R Rls Rrs Ls Rs C LFE Vhl Vhr Ltr Rtr"),
    E("Logic_Atmos_7_1_6", kAudioChannelLayoutTag_Logic_Atmos_7_1_6, "L R Rls Rrs Ls Rs C LFE Vhl Vhr Ltm Rtm Ltr Rtr"),
    E("DiscreteInOrder", kAudioChannelLayoutTag_DiscreteInOrder),
    E("CICP_1", kAudioChannelLayoutTag_CICP_1),
    E("CICP_2", kAudioChannelLayoutTag_CICP_2),
    E("CICP_3", kAudioChannelLayoutTag_CICP_3),
    E("CICP_4", kAudioChannelLayoutTag_CICP_4),
    E("CICP_5", kAudioChannelLayoutTag_CICP_5),
    E("CICP_6", kAudioChannelLayoutTag_CICP_6),
    E("CICP_7", kAudioChannelLayoutTag_CICP_7),
    E("CICP_9", kAudioChannelLayoutTag_CICP_9),
    E("CICP_10", kAudioChannelLayoutTag_CICP_10),
    E("CICP_11", kAudioChannelLayoutTag_CICP_11),
    E("CICP_12", kAudioChannelLayoutTag_CICP_12),
    E("CICP_13", kAudioChannelLayoutTag_CICP_13, "Lc Rc C LFE2 Rls Rrs L R Cs LFE3 Lss Rss Vhl Vhr Vhc Ts Ltr Rtr Ltm Rtm Ctr Cb Lb Rb"),
    E("CICP_14", kAudioChannelLayoutTag_CICP_14, "L R C LFE Ls Rs Vhl Vhr"),
    E("CICP_15", kAudioChannelLayoutTag_CICP_15, "L R C LFE2 Rls Rrs LFE3 Lss Rss Vhl Vhr Ctr"),
    E("CICP_16", kAudioChannelLayoutTag_CICP_16, "L R C LFE Ls Rs Vhl Vhr Lts Rts"),
    E("CICP_17", kAudioChannelLayoutTag_CICP_17, "L R C LFE Ls Rs Vhl Vhr Vhc Lts Rts Ts"),
    E("CICP_18", kAudioChannelLayoutTag_CICP_18, "L R C LFE Ls Rs Lbs Rbs Vhl Vhr Vhc Lts Rts Ts"),
    E("CICP_19", kAudioChannelLayoutTag_CICP_19, "L R C LFE Rls Rrs Lss Rss Vhl Vhr Ltr Rtr"),
    E("CICP_20", kAudioChannelLayoutTag_CICP_20, "L R C LFE Rls Rrs Lss Rss Vhl Vhr Ltr Rtr Leos Reos"),
    E("Ogg_3_0", kAudioChannelLayoutTag_Ogg_3_0),
    E("Ogg_4_0", kAudioChannelLayoutTag_Ogg_4_0),
    E("Ogg_5_0", kAudioChannelLayoutTag_Ogg_5_0, "L C R Rls Rrs"),
    E("Ogg_5_1", kAudioChannelLayoutTag_Ogg_5_1, "L C R Rls Rrs LFE"),
    E("Ogg_6_1", kAudioChannelLayoutTag_Ogg_6_1, "L C R Ls Rs Cs LFE"),
    E("Ogg_7_1", kAudioChannelLayoutTag_Ogg_7_1, "L C R Ls Rs Rls Rrs LFE"),
    E("MPEG_5_0_E", kAudioChannelLayoutTag_MPEG_5_0_E, "L R Rls Rrs C"),
    E("MPEG_5_1_E", kAudioChannelLayoutTag_MPEG_5_1_E, "L R Rls Rrs C LFE"),
    E("MPEG_6_1_B", kAudioChannelLayoutTag_MPEG_6_1_B, "L R Ls Rs C Cs LFE"),
    E("MPEG_7_1_D", kAudioChannelLayoutTag_MPEG_7_1_D, "L R Rls Rrs Ls Rs C LFE"),
    E("BeginReserved", kAudioChannelLayoutTag_BeginReserved),
    E("EndReserved", kAudioChannelLayoutTag_EndReserved),
    E("Unknown", kAudioChannelLayoutTag_Unknown),
]

private struct LayoutTables {
    var labelsByTag: [AudioChannelLayoutTag: [AudioChannelLabel]] = [:]
    var tagByLabels: [[AudioChannelLabel]: AudioChannelLayoutTag] = [:]
    var nameByTag: [AudioChannelLayoutTag: String] = [:]
    var tagByName: [String: AudioChannelLayoutTag] = [:]
    var labelByAbbreviation: [String: AudioChannelLabel] = [:]
    var abbreviationByLabel: [AudioChannelLabel: String] = [:]
}

private let tables: LayoutTables = {
    var t = LayoutTables()
    for (abbreviation, label) in channelAbbreviations {
        t.labelByAbbreviation[abbreviation] = label
        if t.abbreviationByLabel[label] == nil { t.abbreviationByLabel[label] = abbreviation }
    }
    for entry in layoutEntries {
        t.tagByName[entry.name] = entry.tag
        if t.nameByTag[entry.tag] == nil { t.nameByTag[entry.tag] = entry.name }
        guard let order = entry.order else { continue }
        let labels = order.split(separator: " ").map { abbreviation -> AudioChannelLabel in
            guard let label = t.labelByAbbreviation[String(abbreviation)] else {
                preconditionFailure("channel layout table: unknown abbreviation \(abbreviation) in \(entry.name)")
            }
            return label
        }
        t.labelsByTag[entry.tag] = labels
        // Several tag values share an order (Quadraphonic and ITU_2_2: L R Ls Rs; Pentagonal and MPEG_5_0_B;
        // Hexagonal and AudioUnit_6_0). The lowest value, Apple's general layout, is the one kept.
        if let existing = t.tagByLabels[labels], existing < entry.tag { continue }
        t.tagByLabels[labels] = entry.tag
    }
    return t
}()

private let hoaMaximumChannels: UInt32 = 65025 // 254th order: (254 + 1)^2 channels

// MARK: - Tags → labels

/// The channels of a predefined layout tag, in stream order: the order Apple's CoreAudioTypes.h
/// documents for the tag (`kAudioChannelLayoutTag_MPEG_5_1_A` → Left Right Center LFEScreen LeftSurround
/// RightSurround). Aliases share their target's order.
///
/// - `kAudioChannelLayoutTag_DiscreteInOrder | n` gives `kAudioChannelLabel_Discrete_0 ... Discrete_(n-1)`.
/// - `kAudioChannelLayoutTag_HOA_ACN_SN3D | n` gives `kAudioChannelLabel_HOA_ACN_0 ... HOA_ACN_(n-1)`;
///   `kAudioChannelLayoutTag_HOA_ACN_N3D | n` gives `kAudioChannelLabel_HOA_N3D | 0 ... | (n-1)`
///   (n at most 65025, 254th order).
/// - nil for `UseChannelDescriptions`, `UseChannelBitmap`, `Unknown | n`, the reserved range, and any value
///   that is not a predefined tag (including a predefined layout with a different channel count).
package func channelLabels(forLayoutTag tag: AudioChannelLayoutTag) -> [AudioChannelLabel]? {
    if let labels = tables.labelsByTag[tag] { return labels }
    let count = AudioChannelLayoutTag_GetNumberOfChannels(tag)
    switch tag & 0xFFFF_0000 {
    case kAudioChannelLayoutTag_DiscreteInOrder:
        return (0..<count).map { kAudioChannelLabel_Discrete_0 | $0 }
    case kAudioChannelLayoutTag_HOA_ACN_SN3D:
        guard count <= hoaMaximumChannels else { return nil }
        return (0..<count).map { kAudioChannelLabel_HOA_ACN_0 | $0 }
    case kAudioChannelLayoutTag_HOA_ACN_N3D:
        guard count <= hoaMaximumChannels else { return nil }
        return (0..<count).map { kAudioChannelLabel_HOA_N3D | $0 }
    default:
        return nil
    }
}

// MARK: - Bitmaps and WAVE masks → labels

/// `AudioChannelBitmap` bit → label, as Apple pairs `kAudioChannelBit_X` with `kAudioChannelLabel_X`.
/// Bits 0-17 are labels 1-18 and coincide with the WAVEFORMATEXTENSIBLE speaker bits; bit 11 is also
/// CenterTopMiddle and bits 12-14 are also Left/Center/RightTopFront (same labels).
private let bitmapLabels: [(bit: UInt32, label: AudioChannelLabel)] = (0..<18).map { (UInt32($0), AudioChannelLabel($0 + 1)) } + [
    (21, kAudioChannelLabel_LeftTopMiddle),
    (23, kAudioChannelLabel_RightTopMiddle),
    (24, kAudioChannelLabel_LeftTopRear),
    (25, kAudioChannelLabel_CenterTopRear),
    (26, kAudioChannelLabel_RightTopRear),
]

/// The channels a Core Audio channel bitmap (`AudioChannelLayout.mChannelBitmap` with
/// `kAudioChannelLayoutTag_UseChannelBitmap`) describes, in ascending bit order. Bit i ↔ label per Apple's
/// `kAudioChannelBit_*` ↔ `kAudioChannelLabel_*` pairs: bit 4 (`kAudioChannelBit_LeftSurround`) is
/// `kAudioChannelLabel_LeftSurround`, bit 9 (`LeftSurroundDirect`) is `kAudioChannelLabel_LeftSurroundDirect`,
/// so 0x3F is L R C LFE Ls Rs (MPEG_5_1_A). Bits with no `kAudioChannelBit_*` constant are ignored.
///
/// This is the Core Audio (CAF, AudioChannelLayout) meaning of the bits. A WAVE file's `dwChannelMask`
/// uses the same bit numbers but Apple reads its back and side pairs differently; use
/// `channelLabels(forWAVChannelMask:)` for those.
package func channelLabels(forBitmap bitmap: UInt32) -> [AudioChannelLabel] {
    bitmapLabels.compactMap { bitmap & (1 << $0.bit) != 0 ? $0.label : nil }
}

/// `channelLabels(forBitmap: bitmap.rawValue)`.
package func channelLabels(forBitmap bitmap: AudioChannelBitmap) -> [AudioChannelLabel] {
    channelLabels(forBitmap: bitmap.rawValue)
}

/// WAVEFORMATEXTENSIBLE speaker bit i → label, as Apple's audio file code reads WAVE files: the WAVE
/// "back" pair (SPEAKER_BACK_LEFT/RIGHT, bits 4 and 5) is `RearSurroundLeft/Right` (Rls Rrs) and the
/// WAVE "side" pair (SPEAKER_SIDE_LEFT/RIGHT, bits 9 and 10) is `LeftSurround/RightSurround` (Ls Rs).
/// This is what makes Apple's WAVE_* tags the WAVE masks in ascending bit order (WAVE_7_1, mask 0x63F, is
/// L R C LFE Rls Rrs Ls Rs; WAVE_5_1_B, mask 0x3F, is L R C LFE Rls Rrs), and it is how afinfo labels a
/// WAVE file's channels. The other 14 bits mean what they mean in a Core Audio bitmap.
private let wavSpeakerLabels: [AudioChannelLabel] = [
    kAudioChannelLabel_Left,                  // SPEAKER_FRONT_LEFT
    kAudioChannelLabel_Right,                 // SPEAKER_FRONT_RIGHT
    kAudioChannelLabel_Center,                // SPEAKER_FRONT_CENTER
    kAudioChannelLabel_LFEScreen,             // SPEAKER_LOW_FREQUENCY
    kAudioChannelLabel_RearSurroundLeft,      // SPEAKER_BACK_LEFT
    kAudioChannelLabel_RearSurroundRight,     // SPEAKER_BACK_RIGHT
    kAudioChannelLabel_LeftCenter,            // SPEAKER_FRONT_LEFT_OF_CENTER
    kAudioChannelLabel_RightCenter,           // SPEAKER_FRONT_RIGHT_OF_CENTER
    kAudioChannelLabel_CenterSurround,        // SPEAKER_BACK_CENTER
    kAudioChannelLabel_LeftSurround,          // SPEAKER_SIDE_LEFT
    kAudioChannelLabel_RightSurround,         // SPEAKER_SIDE_RIGHT
    kAudioChannelLabel_TopCenterSurround,     // SPEAKER_TOP_CENTER
    kAudioChannelLabel_VerticalHeightLeft,    // SPEAKER_TOP_FRONT_LEFT
    kAudioChannelLabel_VerticalHeightCenter,  // SPEAKER_TOP_FRONT_CENTER
    kAudioChannelLabel_VerticalHeightRight,   // SPEAKER_TOP_FRONT_RIGHT
    kAudioChannelLabel_TopBackLeft,           // SPEAKER_TOP_BACK_LEFT
    kAudioChannelLabel_TopBackCenter,         // SPEAKER_TOP_BACK_CENTER
    kAudioChannelLabel_TopBackRight,          // SPEAKER_TOP_BACK_RIGHT
]

/// The channels a WAVEFORMATEXTENSIBLE `dwChannelMask` describes, in ascending bit order (the order of
/// the channels in the file), read as Apple reads WAVE files: 0x3F (5.1 "back") is L R C LFE Rls Rrs
/// (WAVE_5_1_B) and 0x60F (5.1 "side") is L R C LFE Ls Rs (MPEG_5_1_A). Bits above 17 (reserved, and
/// SPEAKER_ALL) are ignored.
package func channelLabels(forWAVChannelMask mask: UInt32) -> [AudioChannelLabel] {
    wavSpeakerLabels.indices.compactMap { mask & (1 << UInt32($0)) != 0 ? wavSpeakerLabels[$0] : nil }
}

// MARK: - Labels → tags and masks

/// The predefined tag whose channel order is exactly `labels`, or nil if none is.
///
/// When several tags share a value (Mono, MPEG_1_0, ITU_1_0, DVD_0, ...) there is one answer, that value;
/// `channelLayoutTagName(_:)` gives its canonical name. When distinct values share an order, the lowest
/// value wins, which is Apple's general layout: L R Ls Rs → Quadraphonic (not ITU_2_2), L R Ls Rs C →
/// Pentagonal (not MPEG_5_0_B), L R Ls Rs C Cs → Hexagonal (not AudioUnit_6_0).
///
/// Also recognised: `[kAudioChannelLabel_Mono]` → Mono; Discrete_0 ... Discrete_(n-1) → DiscreteInOrder | n;
/// HOA_ACN_0 ... HOA_ACN_(n-1) → HOA_ACN_SN3D | n; HOA_N3D | 0 ... | (n-1) → HOA_ACN_N3D | n.
/// An empty list gives nil.
package func layoutTag(forLabels labels: [AudioChannelLabel]) -> AudioChannelLayoutTag? {
    guard !labels.isEmpty, labels.count <= 0xFFFF else { return nil }
    if let tag = tables.tagByLabels[labels] { return tag }
    if labels == [kAudioChannelLabel_Mono] { return kAudioChannelLayoutTag_Mono }
    let count = UInt32(labels.count)
    func numbered(from base: AudioChannelLabel) -> Bool {
        labels.enumerated().allSatisfy { $0.element == base | UInt32($0.offset) }
    }
    if numbered(from: kAudioChannelLabel_Discrete_0) { return kAudioChannelLayoutTag_DiscreteInOrder | count }
    if count <= hoaMaximumChannels {
        if numbered(from: kAudioChannelLabel_HOA_ACN_0) { return kAudioChannelLayoutTag_HOA_ACN_SN3D | count }
        if numbered(from: kAudioChannelLabel_HOA_N3D) { return kAudioChannelLayoutTag_HOA_ACN_N3D | count }
    }
    return nil
}

/// The predefined tag for a WAVE `dwChannelMask`: `layoutTag(forLabels: channelLabels(forWAVChannelMask: mask))`.
/// 0x4 → Mono, 0x3 → Stereo, 0x60F → MPEG_5_1_A, 0x3F → WAVE_5_1_B, 0x63F → WAVE_7_1.
package func layoutTag(forWAVChannelMask mask: UInt32) -> AudioChannelLayoutTag? {
    layoutTag(forLabels: channelLabels(forWAVChannelMask: mask))
}

/// The WAVEFORMATEXTENSIBLE `dwChannelMask` for channels in this order, the inverse of
/// `channelLabels(forWAVChannelMask:)`: L R C LFE Ls Rs (MPEG_5_1_A) → 0x60F, L R C LFE Rls Rrs
/// (WAVE_5_1_B) → 0x3F. nil when a label has no WAVE speaker bit (LFE2, Lsd, Lw, the height layers beyond
/// Vhl Vhc Vhr and Tbl Tbc Tbr, discrete and ambisonic channels, ...), when the labels are not in strictly
/// ascending bit order (a WAVE file stores its channels in bit order), or when `labels` is empty.
package func wavChannelMask(forLabels labels: [AudioChannelLabel]) -> UInt32? {
    guard !labels.isEmpty else { return nil }
    var mask: UInt32 = 0
    var previousBit = -1
    for label in labels {
        guard let bit = wavSpeakerLabels.firstIndex(of: label), bit > previousBit else { return nil }
        mask |= 1 << UInt32(bit)
        previousBit = bit
    }
    return mask
}

// MARK: - Names

/// The name of a layout tag without the `kAudioChannelLayoutTag_` prefix ("MPEG_5_1_A"), for display.
/// A value with several names gets the first CoreAudioTypes.h defines, which is the canonical one:
/// 0x790006 → "MPEG_5_1_A" (not ITU_3_2_1, DVD_12, AudioUnit_5_1, WAVE_5_1_A, Logic_5_1_A or CICP_6),
/// 0x640001 → "Mono", 0x800008 → "MPEG_7_1_C". Tags that carry a channel count in their low bits give
/// their family name: DiscreteInOrder | 4 → "DiscreteInOrder", HOA_ACN_SN3D | 9 → "HOA_ACN_SN3D",
/// Unknown | 2 → "Unknown". nil for any other value.
package func channelLayoutTagName(_ tag: AudioChannelLayoutTag) -> String? {
    if let name = tables.nameByTag[tag] { return name }
    switch tag & 0xFFFF_0000 {
    case kAudioChannelLayoutTag_DiscreteInOrder: return "DiscreteInOrder"
    case kAudioChannelLayoutTag_HOA_ACN_SN3D: return "HOA_ACN_SN3D"
    case kAudioChannelLayoutTag_HOA_ACN_N3D: return "HOA_ACN_N3D"
    case kAudioChannelLayoutTag_Unknown: return "Unknown"
    default: return nil
    }
}

/// The tag with this name, with or without the `kAudioChannelLayoutTag_` prefix ("MPEG_5_1_A",
/// "kAudioChannelLayoutTag_AudioUnit_7_1"); every alias is accepted. nil for an unknown name.
package func channelLayoutTag(named name: String) -> AudioChannelLayoutTag? {
    let prefix = "kAudioChannelLayoutTag_"
    let bare = name.hasPrefix(prefix) ? String(name.dropFirst(prefix.count)) : name
    return tables.tagByName[bare]
}

/// Every `kAudioChannelLayoutTag_*` constant as (name without prefix, value), in CoreAudioTypes.h order,
/// aliases included.
package let channelLayoutTagNamesAndValues: [(name: String, tag: AudioChannelLayoutTag)] = layoutEntries.map { ($0.name, $0.tag) }

/// A short name for a channel label, as the tag documentation abbreviates it ("L", "Ls", "Rls", "Vhl",
/// "LFE2"); numbered labels read "Discrete_3", "HOA_ACN_15", "HOA_N3D_2", "Object_1"; other values give
/// their number.
package func channelLabelAbbreviation(_ label: AudioChannelLabel) -> String {
    if let abbreviation = tables.abbreviationByLabel[label] { return abbreviation }
    let index = label & 0xFFFF
    switch label & 0xFFFF_0000 {
    case kAudioChannelLabel_Discrete_0: return "Discrete_\(index)"
    case kAudioChannelLabel_HOA_ACN_0: return "HOA_ACN_\(index)"
    case kAudioChannelLabel_HOA_N3D: return "HOA_N3D_\(index)"
    case kAudioChannelLabel_Object: return "Object_\(index)"
    default: return String(label)
    }
}

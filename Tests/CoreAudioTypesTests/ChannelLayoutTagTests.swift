import Testing
import CoreAudioTypes

/// Channel layout tags, channel labels and the tag ↔ labels ↔ bitmap/WAVE-mask tables.
@Suite struct ChannelLayoutTagTests {
    // MARK: Values

    /// Values checked against sources other than the header copy the constants were written from:
    /// the Multi-OS Engine Java bindings of CoreAudioTypes (`apple.coreaudiotypes.enums.Enums`, hex values
    /// with the channel count folded in) and, for CICP/Ogg, a Free Pascal translation of
    /// CoreAudioBaseTypes.h (decimal values).
    @Test func tagValuesMatchIndependentSource() {
        let expected: [(AudioChannelLayoutTag, UInt32)] = [
            (kAudioChannelLayoutTag_UseChannelBitmap, 0x0001_0000),
            (kAudioChannelLayoutTag_Mono, 0x0064_0001),
            (kAudioChannelLayoutTag_Stereo, 0x0065_0002),
            (kAudioChannelLayoutTag_Ambisonic_B_Format, 0x006B_0004),
            (kAudioChannelLayoutTag_Cube, 0x0070_0008),
            (kAudioChannelLayoutTag_MPEG_5_1_A, 0x0079_0006),
            (kAudioChannelLayoutTag_MPEG_7_1_B, 0x007F_0008),
            (kAudioChannelLayoutTag_SMPTE_DTV, 0x0082_0008),
            (kAudioChannelLayoutTag_DVD_18, 0x008A_0005),
            (kAudioChannelLayoutTag_AudioUnit_7_1, 0x0080_0008),
            (kAudioChannelLayoutTag_AudioUnit_7_0_Front, 0x0094_0007),
            (kAudioChannelLayoutTag_AAC_7_1_C, 0x00B8_0008),
            (kAudioChannelLayoutTag_TMH_10_2_full, 0x0092_0015),
            (kAudioChannelLayoutTag_EAC3_7_1_H, 0x00A7_0008),
            (kAudioChannelLayoutTag_DTS_8_1_B, 0x00B5_0009),
            (kAudioChannelLayoutTag_DTS_6_1_D, 0x00B6_0007),
            (kAudioChannelLayoutTag_WAVE_5_1_B, 0x00BB_0006),
            (kAudioChannelLayoutTag_WAVE_7_1, 0x00BD_0008),
            (kAudioChannelLayoutTag_HOA_ACN_SN3D, 0x00BE_0000),
            (kAudioChannelLayoutTag_HOA_ACN_N3D, 0x00BF_0000),
            (kAudioChannelLayoutTag_Atmos_7_1_4, 0x00C0_000C),
            (kAudioChannelLayoutTag_Atmos_9_1_6, 0x00C1_0010),
            (kAudioChannelLayoutTag_Atmos_5_1_2, 0x00C2_0008),
            (kAudioChannelLayoutTag_Atmos_5_1_4, 0x00C3_000A),
            (kAudioChannelLayoutTag_Atmos_7_1_2, 0x00C4_000A),
            (kAudioChannelLayoutTag_Logic_4_0_C, 0x00C5_0004),
            (kAudioChannelLayoutTag_Logic_6_1_D, 0x00C8_0007),
            (kAudioChannelLayoutTag_Logic_Atmos_7_1_4_B, 0x00CA_000C),
            (kAudioChannelLayoutTag_Logic_Atmos_7_1_6, 0x00CB_000E),
            (kAudioChannelLayoutTag_DiscreteInOrder, 0x0093_0000),
            (kAudioChannelLayoutTag_EndReserved, 0xFFFE_FFFF),
            (kAudioChannelLayoutTag_Unknown, 0xFFFF_0000),
            (kAudioChannelLayoutTag_CICP_13, 13_369_368),
            (kAudioChannelLayoutTag_CICP_20, 13_828_110),
            (kAudioChannelLayoutTag_Ogg_5_0, 13_893_637),
            (kAudioChannelLayoutTag_Ogg_7_1, 14_090_248),
        ]
        for (tag, value) in expected {
            #expect(tag == value, "\(channelLayoutTagName(tag) ?? "?") = 0x\(String(tag, radix: 16))")
        }
        #expect(kAudioChannelLayoutTag_MPEG_7_1_D == (219 << 16) | 8)
    }

    @Test func aliasesShareTheirTargetsValue() {
        #expect(kAudioChannelLayoutTag_AudioUnit_5 == kAudioChannelLayoutTag_Pentagonal)
        #expect(kAudioChannelLayoutTag_ITU_3_2_1 == kAudioChannelLayoutTag_MPEG_5_1_A)
        #expect(kAudioChannelLayoutTag_DVD_17 == kAudioChannelLayoutTag_MPEG_5_1_A)
        #expect(kAudioChannelLayoutTag_Logic_7_1_SDDS_C == kAudioChannelLayoutTag_Emagic_Default_7_1)
        #expect(kAudioChannelLayoutTag_Logic_Atmos_7_1_4_A == kAudioChannelLayoutTag_Atmos_7_1_4)
        #expect(kAudioChannelLayoutTag_CICP_7 == kAudioChannelLayoutTag_MPEG_7_1_B)
        #expect(kAudioChannelLayoutTag_Ogg_3_0 == kAudioChannelLayoutTag_AC3_3_0)
        #expect(kAudioChannelLayoutTag_WAVE_2_1 == kAudioChannelLayoutTag_DVD_4)
    }

    @Test func labelValuesMatchIndependentSource() {
        let expected: [(AudioChannelLabel, UInt32)] = [
            (kAudioChannelLabel_Unknown, 0xFFFF_FFFF),
            (kAudioChannelLabel_Unused, 0),
            (kAudioChannelLabel_UseCoordinates, 0x64),
            (kAudioChannelLabel_Left, 1),
            (kAudioChannelLabel_TopBackRight, 0x12),
            (kAudioChannelLabel_RearSurroundLeft, 0x21),
            (kAudioChannelLabel_Haptic, 0x2D),
            (kAudioChannelLabel_LeftTopFront, 0x0D),
            (kAudioChannelLabel_CenterTopMiddle, 0x0C),
            (kAudioChannelLabel_LeftTopMiddle, 0x31),
            (kAudioChannelLabel_RightTopRear, 0x36),
            (kAudioChannelLabel_LeftSideSurround, 55),
            (kAudioChannelLabel_RightBottom, 58),
            (kAudioChannelLabel_LFE3, 62),
            (kAudioChannelLabel_RightEdgeOfScreen, 66),
            (kAudioChannelLabel_BinauralRight, 0xD1),
            (kAudioChannelLabel_ForeignLanguage, 0x131),
            (kAudioChannelLabel_Discrete, 0x190),
            (kAudioChannelLabel_Discrete_65535, 0x0001_FFFF),
            (kAudioChannelLabel_HOA_ACN, 0x1F4),
            (kAudioChannelLabel_HOA_ACN_65024, 0x0002_FE00),
            (kAudioChannelLabel_HOA_SN3D, 0x0002_0000),
            (kAudioChannelLabel_HOA_N3D, 0x0003_0000),
            (kAudioChannelLabel_Object, 0x0004_0000),
            (kAudioChannelLabel_BeginReserved, 0xF000_0000),
            (kAudioChannelLabel_EndReserved, 0xFFFF_FFFE),
        ]
        for (label, value) in expected {
            #expect(label == value, "\(channelLabelAbbreviation(label))")
        }
    }

    // MARK: Tags → labels

    @Test func everyTagHasAsManyLabelsAsItsChannelCount() {
        #expect(channelLayoutTagNamesAndValues.count == 208)
        let withoutFixedOrder: Set<String> = ["UseChannelDescriptions", "UseChannelBitmap", "Unknown",
                                              "BeginReserved", "EndReserved"]
        for (name, tag) in channelLayoutTagNamesAndValues {
            let labels = channelLabels(forLayoutTag: tag)
            if withoutFixedOrder.contains(name) {
                #expect(labels == nil, "\(name)")
                continue
            }
            guard let labels else {
                Issue.record("no channel order for \(name)")
                continue
            }
            #expect(UInt32(labels.count) == AudioChannelLayoutTag_GetNumberOfChannels(tag), "\(name)")
            #expect(Set(labels).count == labels.count, "\(name) repeats a channel")
        }
    }

    @Test func channelOrdersFollowTheHeader() {
        let L = kAudioChannelLabel_Left, R = kAudioChannelLabel_Right, C = kAudioChannelLabel_Center
        let LFE = kAudioChannelLabel_LFEScreen, Ls = kAudioChannelLabel_LeftSurround
        let Rs = kAudioChannelLabel_RightSurround, Rls = kAudioChannelLabel_RearSurroundLeft
        let Rrs = kAudioChannelLabel_RearSurroundRight
        let Vhl = kAudioChannelLabel_VerticalHeightLeft, Vhr = kAudioChannelLabel_VerticalHeightRight
        let Ltr = kAudioChannelLabel_LeftTopRear, Rtr = kAudioChannelLabel_RightTopRear
        #expect(channelLabels(forLayoutTag: kAudioChannelLayoutTag_Mono) == [C])
        #expect(channelLabels(forLayoutTag: kAudioChannelLayoutTag_Stereo) == [L, R])
        #expect(channelLabels(forLayoutTag: kAudioChannelLayoutTag_MPEG_5_1_A) == [L, R, C, LFE, Ls, Rs])
        #expect(channelLabels(forLayoutTag: kAudioChannelLayoutTag_AAC_5_1) == [C, L, R, Ls, Rs, LFE])
        #expect(channelLabels(forLayoutTag: kAudioChannelLayoutTag_WAVE_7_1) == [L, R, C, LFE, Rls, Rrs, Ls, Rs])
        #expect(channelLabels(forLayoutTag: kAudioChannelLayoutTag_Atmos_7_1_4)
            == [L, R, C, LFE, Ls, Rs, Rls, Rrs, Vhl, Vhr, Ltr, Rtr])
        #expect(channelLabels(forLayoutTag: kAudioChannelLayoutTag_MatrixStereo)
            == [kAudioChannelLabel_LeftTotal, kAudioChannelLabel_RightTotal])
        #expect(channelLabels(forLayoutTag: kAudioChannelLayoutTag_CICP_13)?.first == kAudioChannelLabel_LeftCenter)
        #expect(channelLabels(forLayoutTag: kAudioChannelLayoutTag_CICP_13)?.last == kAudioChannelLabel_RightBottom)
        // A predefined layout with the wrong count is not that layout.
        #expect(channelLabels(forLayoutTag: (121 << 16) | 5) == nil)
    }

    @Test func countedTags() {
        #expect(channelLabels(forLayoutTag: kAudioChannelLayoutTag_DiscreteInOrder | 3)
            == [kAudioChannelLabel_Discrete_0, kAudioChannelLabel_Discrete_1, kAudioChannelLabel_Discrete_2])
        #expect(channelLabels(forLayoutTag: kAudioChannelLayoutTag_DiscreteInOrder) == [])
        let foa = channelLabels(forLayoutTag: kAudioChannelLayoutTag_HOA_ACN_SN3D | 4)
        #expect(foa == [kAudioChannelLabel_HOA_ACN_0, kAudioChannelLabel_HOA_ACN_1,
                        kAudioChannelLabel_HOA_ACN_2, kAudioChannelLabel_HOA_ACN_3])
        #expect(channelLabels(forLayoutTag: kAudioChannelLayoutTag_HOA_ACN_N3D | 2)
            == [kAudioChannelLabel_HOA_N3D, kAudioChannelLabel_HOA_N3D | 1])
        #expect(channelLabels(forLayoutTag: kAudioChannelLayoutTag_Unknown | 6) == nil)
        #expect(layoutTag(forLabels: channelLabels(forLayoutTag: kAudioChannelLayoutTag_DiscreteInOrder | 5)!)
            == kAudioChannelLayoutTag_DiscreteInOrder | 5)
        #expect(layoutTag(forLabels: foa!) == kAudioChannelLayoutTag_HOA_ACN_SN3D | 4)
        #expect(layoutTag(forLabels: [kAudioChannelLabel_HOA_N3D, kAudioChannelLabel_HOA_N3D | 1])
            == kAudioChannelLayoutTag_HOA_ACN_N3D | 2)
        #expect(layoutTag(forLabels: [kAudioChannelLabel_Discrete_1]) == nil)
    }

    // MARK: Labels → tags

    @Test func canonicalTagsRoundTrip() {
        let sharedOrders: [AudioChannelLayoutTag: AudioChannelLayoutTag] = [
            kAudioChannelLayoutTag_ITU_2_2: kAudioChannelLayoutTag_Quadraphonic,
            kAudioChannelLayoutTag_MPEG_5_0_B: kAudioChannelLayoutTag_Pentagonal,
            kAudioChannelLayoutTag_AudioUnit_6_0: kAudioChannelLayoutTag_Hexagonal,
        ]
        var checked = 0
        for (name, tag) in channelLayoutTagNamesAndValues {
            guard let labels = channelLabels(forLayoutTag: tag), !labels.isEmpty else { continue }
            #expect(layoutTag(forLabels: labels) == sharedOrders[tag] ?? tag, "\(name)")
            checked += 1
        }
        #expect(checked > 190)
        #expect(layoutTag(forLabels: [kAudioChannelLabel_Mono]) == kAudioChannelLayoutTag_Mono)
        #expect(layoutTag(forLabels: []) == nil)
        #expect(layoutTag(forLabels: [kAudioChannelLabel_Right, kAudioChannelLabel_Left]) == nil)
    }

    @Test func canonicalNames() {
        #expect(channelLayoutTagName(kAudioChannelLayoutTag_MPEG_5_1_A) == "MPEG_5_1_A")
        #expect(channelLayoutTagName(kAudioChannelLayoutTag_AudioUnit_5_1) == "MPEG_5_1_A")
        #expect(channelLayoutTagName(kAudioChannelLayoutTag_DVD_0) == "Mono")
        #expect(channelLayoutTagName(kAudioChannelLayoutTag_Logic_7_1_A) == "MPEG_7_1_C")
        #expect(channelLayoutTagName(kAudioChannelLayoutTag_Atmos_7_1_4) == "Atmos_7_1_4")
        #expect(channelLayoutTagName(kAudioChannelLayoutTag_HOA_ACN_SN3D | 9) == "HOA_ACN_SN3D")
        #expect(channelLayoutTagName(kAudioChannelLayoutTag_Unknown | 2) == "Unknown")
        #expect(channelLayoutTagName(kAudioChannelLayoutTag_UseChannelDescriptions) == "UseChannelDescriptions")
        #expect(channelLayoutTagName(0x1234_5678) == nil)
        #expect(channelLayoutTag(named: "kAudioChannelLayoutTag_CICP_6") == kAudioChannelLayoutTag_MPEG_5_1_A)
        #expect(channelLayoutTag(named: "Ogg_7_1") == kAudioChannelLayoutTag_Ogg_7_1)
        #expect(channelLayoutTag(named: "Surround") == nil)
        for (name, tag) in channelLayoutTagNamesAndValues {
            #expect(channelLayoutTag(named: name) == tag)
            #expect(channelLayoutTag(named: channelLayoutTagName(tag)!) == tag, "\(name)")
        }
    }

    // MARK: Bitmaps and WAVE masks

    @Test func labelsForBitmap() {
        #expect(channelLabels(forBitmap: 0x3F) == channelLabels(forLayoutTag: kAudioChannelLayoutTag_MPEG_5_1_A))
        #expect(channelLabels(forBitmap: 0x60F) == [kAudioChannelLabel_Left, kAudioChannelLabel_Right,
                                                    kAudioChannelLabel_Center, kAudioChannelLabel_LFEScreen,
                                                    kAudioChannelLabel_LeftSurroundDirect,
                                                    kAudioChannelLabel_RightSurroundDirect])
        #expect(channelLabels(forBitmap: 0x3FFFF) == (1...18).map { AudioChannelLabel($0) })
        #expect(channelLabels(forBitmap: [.bit_LeftTopMiddle, .bit_RightTopRear, .bit_CenterTopMiddle])
            == [kAudioChannelLabel_CenterTopMiddle, kAudioChannelLabel_LeftTopMiddle, kAudioChannelLabel_RightTopRear])
        #expect(channelLabels(forBitmap: 0) == [])
        #expect(channelLabels(forBitmap: 1 << 22 | 1 << 31) == []) // no kAudioChannelBit_ there
    }

    /// WAVE masks read as Apple reads WAVE files: back pair = Rls Rrs, side pair = Ls Rs.
    @Test func wavMasks() {
        #expect(layoutTag(forWAVChannelMask: 0x4) == kAudioChannelLayoutTag_Mono)
        #expect(layoutTag(forWAVChannelMask: 0x3) == kAudioChannelLayoutTag_Stereo)
        #expect(layoutTag(forWAVChannelMask: 0x60F) == kAudioChannelLayoutTag_MPEG_5_1_A)
        #expect(layoutTag(forWAVChannelMask: 0x3F) == kAudioChannelLayoutTag_WAVE_5_1_B)
        #expect(layoutTag(forWAVChannelMask: 0x63F) == kAudioChannelLayoutTag_WAVE_7_1)
        #expect(layoutTag(forWAVChannelMask: 0x70F) == kAudioChannelLayoutTag_WAVE_6_1)
        #expect(layoutTag(forWAVChannelMask: 0x33) == kAudioChannelLayoutTag_WAVE_4_0_B)
        #expect(layoutTag(forWAVChannelMask: 0x607) == kAudioChannelLayoutTag_MPEG_5_0_A)
        #expect(layoutTag(forWAVChannelMask: 0x2F) == nil) // L R C LFE Rls: no predefined tag
        #expect(channelLabels(forWAVChannelMask: 0x3F)
            == [kAudioChannelLabel_Left, kAudioChannelLabel_Right, kAudioChannelLabel_Center,
                kAudioChannelLabel_LFEScreen, kAudioChannelLabel_RearSurroundLeft, kAudioChannelLabel_RearSurroundRight])
        #expect(channelLabels(forWAVChannelMask: 0x8000_0003) == [kAudioChannelLabel_Left, kAudioChannelLabel_Right])

        let l51 = channelLabels(forLayoutTag: kAudioChannelLayoutTag_MPEG_5_1_A)!
        #expect(wavChannelMask(forLabels: l51) == 0x60F)
        #expect(wavChannelMask(forLabels: channelLabels(forLayoutTag: kAudioChannelLayoutTag_WAVE_5_1_B)!) == 0x3F)
        #expect(wavChannelMask(forLabels: channelLabels(forLayoutTag: kAudioChannelLayoutTag_WAVE_7_1)!) == 0x63F)
        #expect(wavChannelMask(forLabels: channelLabels(forLayoutTag: kAudioChannelLayoutTag_Mono)!) == 0x4)
        // Not in WAVE bit order, or a channel WAVE cannot name.
        #expect(wavChannelMask(forLabels: channelLabels(forLayoutTag: kAudioChannelLayoutTag_AAC_5_1)!) == nil)
        #expect(wavChannelMask(forLabels: channelLabels(forLayoutTag: kAudioChannelLayoutTag_MPEG_7_1_C)!) == nil)
        #expect(wavChannelMask(forLabels: channelLabels(forLayoutTag: kAudioChannelLayoutTag_Atmos_7_1_4)!) == nil)
        #expect(wavChannelMask(forLabels: [kAudioChannelLabel_Left, kAudioChannelLabel_Left]) == nil)
        #expect(wavChannelMask(forLabels: []) == nil)

        // Every mask of the 18 speaker bits round-trips through labels.
        for mask in stride(from: UInt32(1), through: 0x3FFFF, by: 97) {
            #expect(wavChannelMask(forLabels: channelLabels(forWAVChannelMask: mask)) == mask)
        }
        // Every tag whose order WAVE can store maps back to its own mask and tag.
        for (name, tag) in channelLayoutTagNamesAndValues {
            guard let labels = channelLabels(forLayoutTag: tag), let mask = wavChannelMask(forLabels: labels) else { continue }
            #expect(channelLabels(forWAVChannelMask: mask) == labels, "\(name)")
        }
    }

    @Test func labelAbbreviations() {
        #expect(channelLabelAbbreviation(kAudioChannelLabel_LFEScreen) == "LFE")
        #expect(channelLabelAbbreviation(kAudioChannelLabel_RearSurroundLeft) == "Rls")
        #expect(channelLabelAbbreviation(kAudioChannelLabel_LeftTopFront) == "Vhl")
        #expect(channelLabelAbbreviation(kAudioChannelLabel_Discrete_0 | 3) == "Discrete_3")
        #expect(channelLabelAbbreviation(kAudioChannelLabel_HOA_ACN_15) == "HOA_ACN_15")
        #expect(channelLabelAbbreviation(kAudioChannelLabel_Object | 1) == "Object_1")
        #expect(channelLabelAbbreviation(1000) == "1000")
    }
}

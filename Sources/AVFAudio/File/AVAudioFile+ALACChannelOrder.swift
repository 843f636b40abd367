// Apple Lossless's fixed channel order against the layout a file declares.
//
// An ALAC packet carries its channels as syntax elements in one order per channel count — for
// 6 channels SCE CPE CPE LFE, that is C, L R, Ls Rs, LFE (Apple's ALAC description,
// ALACAudioTypes.h's ALACChannelLayoutTags: MPEG_3_0_B, MPEG_4_0_B, MPEG_5_0_D, MPEG_5_1_D,
// AAC_6_1, MPEG_7_1_B for 3–8 channels; `alacChannelLayout(channels:)`). Decoders rely on that
// order (ffmpeg names the decoded channels by it, whatever the container says), so the samples
// must be stored in it whatever layout the writer's buffers are in.
//
// Writing: when the settings' layout (AVChannelLayoutKey) holds the same speakers in another
// order — a WAV's 5.1, L R C LFE Ls Rs — the packet writers reorder each frame by label into
// ALAC's order before encoding; the file keeps the settings' layout (CAF: the 'chan' chunk;
// M4A/MP4: a `chan` box in the ALAC sample entry, where Apple's M4A files carry it).
// Reading: when the declared layout holds ALAC's speakers in another order (ours, or ffmpeg's
// CAF, which declares its own order's tag), the reader hands out the channels in that layout's
// order, each under its own label; a layout that is not a reordering of ALAC's speakers is
// ignored and ALAC's own is reported, as before.
//
// What this rests on: Apple documents ALAC's channel order but not what AVAudioFile does with a
// layout in another order. Keeping every sample under its label is the one choice that loses
// nothing: each channel comes back under the label it was written with, and ffmpeg decodes each
// named channel to the right samples (AVAudioFileALACChannelOrderTests checks both).
//
// Labels match exactly first; failing that, the surround pairs match by role (Ls, Rls and Lsd
// are all "left surround"; likewise right), since a WAV's 5.1 "back" mask reads as Rls Rrs
// while ALAC's 5.1 says Ls Rs.
import AudioFileFormats

extension AVAudioFile {
    /// For the codec's channel `s` (ALAC's order for `layout`'s channel count), the index in
    /// `layout` of the channel with the same label; nil when the orders agree, when there is
    /// no ALAC layout for the count (1–2 channels), or when `layout` is not a reordering of
    /// ALAC's speakers.
    static func alacChannelOrder(for layout: AVAudioChannelLayout?) -> [Int]? {
        guard let layout, let alac = alacChannelLayout(channels: Int(layout.channelCount)),
              let have = labelsOf(layout), let want = labelsOf(alac), have.count == want.count else { return nil }
        func match(_ key: (AudioChannelLabel) -> AudioChannelLabel) -> [Int]? {
            var used = [Bool](repeating: false, count: have.count)
            var order: [Int] = []
            for label in want {
                guard let i = have.indices.first(where: { !used[$0] && key(have[$0]) == key(label) }) else { return nil }
                used[i] = true
                order.append(i)
            }
            return order
        }
        guard let order = match({ $0 }) ?? match(surroundRole) else { return nil }
        return order == Array(order.indices) ? nil : order
    }

    /// The inverse of `order`: for each channel of the layout, the codec's channel.
    static func inverseChannelOrder(_ order: [Int]) -> [Int] {
        var inverse = [Int](repeating: 0, count: order.count)
        for (s, c) in order.enumerated() { inverse[c] = s }
        return inverse
    }

    /// A label's role for matching: the surround labels collapse onto Ls and Rs.
    private static func surroundRole(_ label: AudioChannelLabel) -> AudioChannelLabel {
        switch label {
        case kAudioChannelLabel_RearSurroundLeft, kAudioChannelLabel_LeftSurroundDirect: return kAudioChannelLabel_LeftSurround
        case kAudioChannelLabel_RearSurroundRight, kAudioChannelLabel_RightSurroundDirect: return kAudioChannelLabel_RightSurround
        default: return label
        }
    }
}

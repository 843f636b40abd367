// How AVAudioConverter maps input channels to output channels.
//
// Three ways, in order of precedence:
// 1. An explicit `channelMap` (output o copies input channelMap[o]; negative = silent).
// 2. `downmix == false` (the default): *remap*. Channels are matched by label when both formats
//    have (or imply) layouts; a mono input feeds both channels of a stereo output (or the centre of
//    a surround one); otherwise channel i feeds channel i and extra outputs are silent. Stereo to
//    mono therefore keeps the left channel, as on Apple platforms.
// 3. `downmix == true`: *mix*, with ITU-R BS.775 coefficients: a centre channel goes to left and
//    right at -3 dB (0.7071), surrounds go to their side at -3 dB, LFE is dropped; a mono output
//    is the average of that stereo mix. Mono to stereo copies at unity gain.
import AudioKernels

enum ChannelMixPlan {
    static let minus3dB: Float = 0.707_106_77

    static func matrix(from input: AVAudioFormat, to output: AVAudioFormat, downmix: Bool, channelMap: [Int]?) -> ChannelMatrix {
        let cin = Int(input.channelCount), cout = Int(output.channelCount)
        if let channelMap, !channelMap.isEmpty {
            let map = (0..<cout).map { $0 < channelMap.count ? channelMap[$0] : -1 }
            return ChannelMatrix(map: map, inputChannels: cin)
        }
        let inLabels = labels(of: input), outLabels = labels(of: output)
        if cin == cout && (inLabels == nil || outLabels == nil || inLabels == outLabels) {
            return ChannelMatrix(map: Array(0..<cout), inputChannels: cin)
        }
        return downmix ? mixMatrix(cin, cout, inLabels, outLabels) : remapMatrix(cin, cout, inLabels, outLabels)
    }

    /// Channel labels of a format: its layout's, or implied for mono and stereo.
    static func labels(of format: AVAudioFormat) -> [AudioChannelLabel]? {
        if let layout = format.channelLayout, let labels = AVAudioFile.labelsOf(layout), labels.count == Int(format.channelCount) {
            return labels
        }
        switch format.channelCount {
        case 1: return [kAudioChannelLabel_Center]
        case 2: return [kAudioChannelLabel_Left, kAudioChannelLabel_Right]
        default: return nil
        }
    }

    static func remapMatrix(_ cin: Int, _ cout: Int, _ inLabels: [AudioChannelLabel]?, _ outLabels: [AudioChannelLabel]?) -> ChannelMatrix {
        if cin == 1 {
            // Mono into a layout with a centre (other than stereo): the centre only; otherwise everywhere.
            if cout > 2, let outLabels, let c = outLabels.firstIndex(of: kAudioChannelLabel_Center) {
                return ChannelMatrix(map: (0..<cout).map { $0 == c ? 0 : -1 }, inputChannels: 1)
            }
            return ChannelMatrix(map: Array(repeating: 0, count: cout), inputChannels: 1)
        }
        if let inLabels, let outLabels {
            let map = outLabels.map { label in inLabels.firstIndex(of: label) ?? -1 }
            if map.contains(where: { $0 >= 0 }) { return ChannelMatrix(map: map, inputChannels: cin) }
        }
        return ChannelMatrix(map: (0..<cout).map { $0 < cin ? $0 : -1 }, inputChannels: cin)
    }

    enum Side { case left, right, center, lfe, other }

    static func side(_ label: AudioChannelLabel) -> Side {
        switch label {
        case kAudioChannelLabel_Left, kAudioChannelLabel_LeftSurround, kAudioChannelLabel_LeftCenter,
             kAudioChannelLabel_LeftSurroundDirect, kAudioChannelLabel_RearSurroundLeft, kAudioChannelLabel_LeftWide,
             kAudioChannelLabel_VerticalHeightLeft, kAudioChannelLabel_TopBackLeft, kAudioChannelLabel_LeftTotal,
             kAudioChannelLabel_HeadphonesLeft:
            return .left
        case kAudioChannelLabel_Right, kAudioChannelLabel_RightSurround, kAudioChannelLabel_RightCenter,
             kAudioChannelLabel_RightSurroundDirect, kAudioChannelLabel_RearSurroundRight, kAudioChannelLabel_RightWide,
             kAudioChannelLabel_VerticalHeightRight, kAudioChannelLabel_TopBackRight, kAudioChannelLabel_RightTotal,
             kAudioChannelLabel_HeadphonesRight:
            return .right
        case kAudioChannelLabel_Center, kAudioChannelLabel_Mono, kAudioChannelLabel_CenterSurround,
             kAudioChannelLabel_TopCenterSurround, kAudioChannelLabel_VerticalHeightCenter, kAudioChannelLabel_TopBackCenter:
            return .center
        case kAudioChannelLabel_LFEScreen, kAudioChannelLabel_LFE2:
            return .lfe
        default:
            return .other
        }
    }

    /// Front left/right/centre feed at unity; everything else on a side at -3 dB.
    static func frontGain(_ label: AudioChannelLabel) -> Float {
        label == kAudioChannelLabel_Left || label == kAudioChannelLabel_Right ? 1 : minus3dB
    }

    static func mixMatrix(_ cin: Int, _ cout: Int, _ inLabels: [AudioChannelLabel]?, _ outLabels: [AudioChannelLabel]?) -> ChannelMatrix {
        var gains = Array(repeating: Array(repeating: Float(0), count: cin), count: cout)
        if cin == 1 {
            // Upmix mono: copy to the centre of a surround layout, else to every channel.
            if cout > 2, let outLabels, let c = outLabels.firstIndex(of: kAudioChannelLabel_Center) {
                gains[c][0] = 1
            } else {
                for o in 0..<cout { gains[o][0] = 1 }
            }
            return ChannelMatrix(gains: gains, inputChannels: 1)
        }
        guard let inLabels else {
            // No labels: fold channel i into output i mod cout, averaged.
            for i in 0..<cin { gains[i % cout][i] += 1 }
            let perOutput = (0..<cout).map { o in Float((0..<cin).filter { $0 % cout == o }.count) }
            for o in 0..<cout where perOutput[o] > 1 { for i in 0..<cin { gains[o][i] /= perOutput[o] } }
            return ChannelMatrix(gains: gains, inputChannels: cin)
        }
        let outs = outLabels ?? (cout == 1 ? [kAudioChannelLabel_Center] : Array(repeating: kAudioChannelLabel_Unknown, count: cout))
        let leftOut = outs.firstIndex(of: kAudioChannelLabel_Left)
        let rightOut = outs.firstIndex(of: kAudioChannelLabel_Right)
        for (i, label) in inLabels.enumerated() {
            if cout > 1, let o = outs.firstIndex(of: label) { gains[o][i] = 1; continue }
            let s = side(label)
            if let l = leftOut, let r = rightOut {
                switch s {
                case .left: gains[l][i] = frontGain(label)
                case .right: gains[r][i] = frontGain(label)
                case .center: gains[l][i] = minus3dB; gains[r][i] = minus3dB
                case .lfe: break
                case .other: gains[i % cout][i] = 1
                }
            } else if cout == 1 {
                // Mono: the average of the stereo mix.
                switch s {
                case .left, .right: gains[0][i] = 0.5 * frontGain(label)
                case .center: gains[0][i] = minus3dB
                case .lfe: break
                case .other: gains[0][i] = 1 / Float(cin)
                }
            } else {
                gains[i % cout][i] = 1
            }
        }
        return ChannelMatrix(gains: gains, inputChannels: cin)
    }
}

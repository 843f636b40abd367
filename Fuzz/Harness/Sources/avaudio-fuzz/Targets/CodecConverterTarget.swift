// AVAudioConverter through its codec paths: PCM → Apple Lossless / FLAC packets and back, with
// hostile samples, packets, packet descriptions and magic cookies.
//
// One input decodes into:
//   * a stream: the codec, 1–8 channels, a source depth (16/20/24/32), a sample rate (usual and
//     odd rates), the PCM side's common format and interleaving, up to 9,000 frames of samples
//     (any bit patterns: NaN, infinities, full-scale integers);
//   * an encode: the PCM through an encoding converter, into compressed buffers of a capacity
//     from the input, giving packets, their descriptions and the converter's magic cookie;
//   * a set of mutations: bytes of packets or cookie overwritten, a cookie replaced by raw bytes or
//     dropped, descriptions given hostile offsets, sizes and frame counts, packets regrouped;
//   * a decode: the (mutated) packets through a decoding converter into Float32 or Int32 PCM,
//     fed in groups of a size from the input, at an output capacity from the input.
//
// Checks: no crash, no hang, no leak, no allocation beyond the input's bounds; every failure is
// an NSError in NSOSStatusErrorDomain with a sentence (never a trap); the encoder's packets each
// fit `maximumOutputPacketSize` and lie contiguously in the buffer; the decoder ends with
// .endOfStream (or an error) within a bounded number of calls; and when nothing was mutated and
// the PCM was integers, the decoded samples equal the samples encoded (the codecs are lossless).
import AVFoundation

extension FuzzTarget {
    static let codecconv = FuzzTarget(name: "codecconv", structure: nil) { fuzzCodecConverter($0) }
}

private let codecRates: [Double] = [44_100, 48_000, 8_000, 96_000, 192_000, 22_050, 1, 7, 655_350, 1_048_575, 384_000]

private func depthFlag(_ bits: Int) -> AudioFormatFlags {
    switch bits {
    case 16: return kAppleLosslessFormatFlag_16BitSourceData
    case 20: return kAppleLosslessFormatFlag_20BitSourceData
    case 24: return kAppleLosslessFormatFlag_24BitSourceData
    default: return kAppleLosslessFormatFlag_32BitSourceData
    }
}

/// The packets of one encode, as plain values the mutations edit.
private struct Packets {
    var bytes: [[UInt8]] = []
    var descriptions: [AudioStreamPacketDescription] = []
    var cookie: Data?
    var maximumPacketSize = 0
}

func fuzzCodecConverter(_ input: [UInt8]) {
    var r = ByteReader(input)
    let codec = r.bool() ? kAudioFormatAppleLossless : kAudioFormatFLAC
    let channels = Int(r.u8() % 8) + 1
    let bits = r.pick([16, 20, 24, 32])
    let rate = r.pick(codecRates)
    let common = r.pick([AVAudioCommonFormat.pcmFormatInt32, .pcmFormatInt16, .pcmFormatFloat32, .pcmFormatInt32])
    let interleaved = r.bool()
    let frames = Int(r.u16() % 9_000)
    let layout: AVAudioChannelLayout? = channels > 2 ? AVAudioChannelLayout(layoutTag: kAudioChannelLayoutTag_DiscreteInOrder | UInt32(channels)) : nil
    let pcm: AVAudioFormat
    if let layout {
        pcm = AVAudioFormat(commonFormat: common, sampleRate: rate, interleaved: interleaved, channelLayout: layout)
    } else {
        guard let f = AVAudioFormat(commonFormat: common, sampleRate: rate, channels: AVAudioChannelCount(channels), interleaved: interleaved) else { return }
        pcm = f
    }
    var asbd = AudioStreamBasicDescription(mSampleRate: rate, mFormatID: codec, mFormatFlags: depthFlag(bits), mBytesPerPacket: 0,
                                           mFramesPerPacket: 4096, mBytesPerFrame: 0, mChannelsPerFrame: UInt32(channels),
                                           mBitsPerChannel: 0, mReserved: 0)
    guard let compressed = layout.map({ AVAudioFormat(streamDescription: &asbd, channelLayout: $0) }) ?? AVAudioFormat(streamDescription: &asbd) else { return }

    // The samples: raw bytes from the input (Float32 with NaN, infinities, out-of-range values).
    guard let source = AVAudioPCMBuffer(pcmFormat: pcm, frameCapacity: AVAudioFrameCount(max(frames, 1))) else {
        fuzzFailure("no \(frames)-frame buffer in \(pcm)")
    }
    source.frameLength = AVAudioFrameCount(frames)
    fill(source, &r)

    // Encode. A converter that refuses the combination (a rate FLAC cannot code) is not a finding.
    guard let encoder = AVAudioConverter(from: pcm, to: compressed) else { return }
    var packets = Packets()
    packets.maximumPacketSize = encoder.maximumOutputPacketSize
    guard packets.maximumPacketSize > 0 else { fuzzFailure("\(compressed): maximumOutputPacketSize \(packets.maximumPacketSize)") }
    let packetCapacity = AVAudioPacketCount(1 + r.u8() % 4)
    let output = AVAudioCompressedBuffer(format: compressed, packetCapacity: packetCapacity, maximumPacketSize: packets.maximumPacketSize)
    var given = false
    var calls = 0
    encoding: while true {
        calls += 1
        guard calls <= frames / 4096 + 16 else { fuzzFailure("\(pcm) → \(compressed): no end of stream after \(calls) encode calls") }
        var error: NSError?
        let status = encoder.convert(to: output, error: &error) { _, s in
            if given { s.pointee = .endOfStream; return nil }
            given = true
            s.pointee = .haveData
            return source
        }
        if status == .error {
            // Hostile floats or odd rates may be refused, but only with a readable NSError.
            guard let error else { fuzzFailure("encode returned .error without an NSError") }
            expectReadableError(error, "AVAudioConverter encoding \(compressed)")
            return
        }
        // Apple's packet semantics: descriptions contiguous, each packet within the maximum size.
        var offset: Int64 = 0
        for k in 0..<Int(output.packetCount) {
            guard let d = output.packetDescriptions?[k] else { fuzzFailure("\(compressed): packets without descriptions") }
            guard d.mStartOffset == offset, Int(d.mDataByteSize) <= packets.maximumPacketSize, d.mDataByteSize > 0 else {
                fuzzFailure("\(compressed): packet \(k) at \(d.mStartOffset), \(d.mDataByteSize) bytes (expected at \(offset), at most \(packets.maximumPacketSize))")
            }
            packets.bytes.append(Array(UnsafeRawBufferPointer(start: output.data + Int(d.mStartOffset), count: Int(d.mDataByteSize))))
            packets.descriptions.append(d)
            offset += Int64(d.mDataByteSize)
        }
        guard offset == Int64(output.byteLength) else { fuzzFailure("\(compressed): byteLength \(output.byteLength), packets hold \(offset)") }
        switch status {
        case .endOfStream: break encoding
        case .haveData, .inputRanDry: continue
        default: fuzzFailure("encode status \(status.rawValue)")
        }
    }
    packets.cookie = encoder.magicCookie
    guard packets.cookie?.isEmpty == false else { fuzzFailure("\(compressed): the encoder gave no magic cookie") }
    let framesEncoded = packets.descriptions.count * 4096
    guard frames == 0 || (framesEncoded >= frames && framesEncoded - frames < 4096) else {
        fuzzFailure("\(compressed): \(packets.descriptions.count) packets for \(frames) frames")
    }

    // Mutations.
    var mutated = false
    var hostileOffsets = Set<Int>()
    let mutations = Int(r.u8() % 6)
    for _ in 0..<mutations {
        let what = r.u8() % 8
        if [0, 1, 4, 5, 6, 7].contains(what) && packets.bytes.isEmpty { continue }
        switch what {
        case 0, 1:   // overwrite a packet byte
            let k = Int(r.u16()) % packets.bytes.count
            guard !packets.bytes[k].isEmpty else { continue }
            let i = Int(r.u16()) % packets.bytes[k].count
            packets.bytes[k][i] = r.u8()
            mutated = true
        case 2:   // overwrite a cookie byte
            guard var cookie = packets.cookie, !cookie.isEmpty else { continue }
            cookie[Int(r.u8()) % cookie.count] = r.u8()
            packets.cookie = cookie
            mutated = true
        case 3:   // the cookie replaced by raw bytes, or dropped
            let n = Int(r.u8() % 64)
            packets.cookie = n == 0 ? nil : Data(r.bytes(n))
            mutated = true
        case 4:   // a hostile start offset
            let k = Int(r.u16()) % packets.descriptions.count
            packets.descriptions[k].mStartOffset = Int64(bitPattern: r.u64())
            hostileOffsets.insert(k)
            mutated = true
        case 5:   // a hostile size
            let k = Int(r.u16()) % packets.descriptions.count
            packets.descriptions[k].mDataByteSize = r.bool() ? r.u32() : UInt32(r.u16())
            mutated = true
        case 6:   // a frame count other than the packet's
            let k = Int(r.u16()) % packets.descriptions.count
            packets.descriptions[k].mVariableFramesInPacket = r.bool() ? r.u32() : UInt32(r.u16() % 8192)
            mutated = true
        case 7:   // a packet truncated or extended with input bytes
            let k = Int(r.u16()) % packets.bytes.count
            let n = Int(r.u16() % 512)
            if r.bool() { packets.bytes[k] = Array(packets.bytes[k].prefix(n)) } else { packets.bytes[k] += r.bytes(n) }
            packets.descriptions[k].mDataByteSize = UInt32(packets.bytes[k].count)
            mutated = true
        default:
            continue
        }
    }

    // Decode into Float32 deinterleaved or Int32 interleaved at the same rate and channels.
    let outCommon = r.bool() ? AVAudioCommonFormat.pcmFormatFloat32 : .pcmFormatInt32
    let outFormat = layout.map { AVAudioFormat(commonFormat: outCommon, sampleRate: rate, interleaved: outCommon == .pcmFormatInt32, channelLayout: $0) }
        ?? AVAudioFormat(commonFormat: outCommon, sampleRate: rate, channels: AVAudioChannelCount(channels), interleaved: outCommon == .pcmFormatInt32)!
    guard let decoder = AVAudioConverter(from: compressed, to: outFormat) else {
        fuzzFailure("no decoding converter \(compressed) → \(outFormat), though \(pcm) → \(compressed) encoded")
    }
    decoder.magicCookie = packets.cookie
    let group = Int(1 + r.u8() % 4)
    let outCapacity = AVAudioFrameCount(1 + Int(r.u16() % 10_000))
    guard let out = AVAudioPCMBuffer(pcmFormat: outFormat, frameCapacity: outCapacity) else { fuzzFailure("no output buffer in \(outFormat)") }
    var next = 0
    var decoded: [Int32] = []
    let compareSamples = !mutated && common != .pcmFormatFloat32
    calls = 0
    let callLimit = (framesEncoded + 70_000) / Int(outCapacity) + packets.bytes.count + 64
    decoding: while true {
        calls += 1
        guard calls <= callLimit else { fuzzFailure("\(compressed) → \(outFormat): no end of stream after \(calls) decode calls") }
        var error: NSError?
        let status = decoder.convert(to: out, error: &error) { _, s in
            guard next < packets.bytes.count else { s.pointee = .endOfStream; return nil }
            let n = min(group, packets.bytes.count - next)
            let size = packets.bytes[next..<next + n].reduce(0) { $0 + $1.count }
            let buffer = AVAudioCompressedBuffer(format: compressed, packetCapacity: AVAudioPacketCount(n), maximumPacketSize: max(1, (size + n - 1) / n + 1))
            var at = 0
            for j in 0..<n {
                let bytes = packets.bytes[next + j]
                bytes.withUnsafeBytes { if let b = $0.baseAddress { buffer.data.advanced(by: at).copyMemory(from: b, byteCount: bytes.count) } }
                var d = packets.descriptions[next + j]
                // Descriptions point at the packet where it now lies, unless made hostile.
                if !hostileOffsets.contains(next + j) { d.mStartOffset = Int64(at) }
                buffer.packetDescriptions![j] = d
                at += bytes.count
            }
            buffer.byteLength = UInt32(at)
            buffer.packetCount = AVAudioPacketCount(n)
            next += n
            s.pointee = .haveData
            return buffer
        }
        if status == .error {
            guard let error else { fuzzFailure("decode returned .error without an NSError") }
            expectReadableError(error, "AVAudioConverter decoding \(compressed)")
            if compareSamples { fuzzFailure("\(compressed): the encoder's own packets failed to decode: \(error.localizedDescription)") }
            return
        }
        if compareSamples, out.frameLength > 0 {
            let n = Int(out.frameLength) * channels
            if outCommon == .pcmFormatInt32 {
                decoded += UnsafeBufferPointer(start: out.int32ChannelData![0], count: n)
            } else {
                for i in 0..<Int(out.frameLength) {
                    for c in 0..<channels { decoded.append(Int32(clamping: Int64((Double(out.floatChannelData![c][i]) * 2_147_483_648).rounded()))) }
                }
            }
        }
        switch status {
        case .endOfStream: break decoding
        case .haveData, .inputRanDry: continue
        default: fuzzFailure("decode status \(status.rawValue)")
        }
    }
    guard compareSamples else { return }
    // Lossless: the samples encoded, at the source depth (left-justified in Int32): the encoder
    // rounds to the nearest step of the depth, clamped (AVAudioConverter+Encoding.swift).
    guard decoded.count == frames * channels else { fuzzFailure("\(compressed): decoded \(decoded.count / channels) frames of \(frames)") }
    func expected(_ v: Int32) -> Int32 {
        guard bits < 32 else { return v }
        let shift = Int64(32 - bits), largest = (Int64(1) << (Int64(bits) - 1)) - 1
        return Int32(min((Int64(v) + (Int64(1) << (shift - 1))) >> shift, largest) << shift)
    }
    let float = outCommon == .pcmFormatFloat32 && bits > 24   // Float32 holds 24 significant bits
    for i in 0..<frames {
        for c in 0..<channels {
            let v: Int32
            if common == .pcmFormatInt16 {
                v = Int32(interleaved ? source.int16ChannelData![0][i * channels + c] : source.int16ChannelData![c][i]) << 16
            } else {
                v = interleaved ? source.int32ChannelData![0][i * channels + c] : source.int32ChannelData![c][i]
            }
            let want = expected(v), got = decoded[i * channels + c]
            if float ? abs(Int64(want) - Int64(got)) > 256 : want != got {
                fuzzFailure("\(compressed): frame \(i) channel \(c) decodes to \(got), encoded \(want)")
            }
        }
    }
}

// AVAudioConverter encoding PCM into compressed packets (the packet semantics are in the design
// note at the top of AVAudioConverter+Codec.swift).
//
// The PCM pipeline fills a one-packet buffer of codec PCM; each time it is full (or the stream
// ends) its frames become right-justified Int32 samples of the encoder's depth and one packet.
//
// Depth. The output format's flags give the source depth as Apple's lossless formats declare it
// (kAppleLosslessFormatFlag_16BitSourceData … _32BitSourceData; AVAudioFile reports FLAC files
// with the same flags). A format with flags 0 (what AVAudioFormat(settings:) makes) takes the
// input's depth when the input is integer PCM (16 or 32 bits), and 24 bits for float input (the
// width of Float32's significand, so float samples on a 24-bit grid survive exactly): Apple
// documents no default; this is this implementation's choice. Samples reach depths below their
// container by rounding to the nearest step of the depth, clamped, as AVAudioFile's ALAC and FLAC
// writers do.
import AudioCodecs

/// The encoding side of a converter: the encoder and its one-packet PCM buffer.
final class CodecEncodeStage {
    let codec: UInt32
    let bitsPerSample: Int
    let setup: AudioStreamSetup
    /// The codec side of the PCM pipeline (Int16 for 16 bits, else Int32, interleaved).
    let pcmFormat: AVAudioFormat
    private(set) var encoder: AudioPacketEncoder
    /// Codec PCM waiting to become the next packet.
    let pending: AVAudioPCMBuffer
    private let samples: UnsafeMutablePointer<Int32>
    private var packet: [UInt8]
    /// A packet encoded but not yet delivered (it did not fit the last output buffer).
    var heldPacketSize: Int?
    /// The stream ended and its last packet has been encoded.
    var finished = false

    /// Nil when `to` is not a codec this library encodes or the encoder cannot take the format.
    init?(from: AVAudioFormat, to: AVAudioFormat) {
        let d = to.streamDescription.pointee
        guard let entry = AudioCodecRegistry.entry(for: d.mFormatID), entry.makeEncoder != nil,
              d.mChannelsPerFrame >= 1, to.sampleRate > 0 else { return nil }
        var bits: Int
        if let depth = AVAudioConverter.sourceDepth(flags: d.mFormatFlags) {
            bits = depth
        } else if d.mFormatFlags != 0 {
            return nil
        } else {
            switch from.commonFormat {
            case .pcmFormatInt16: bits = 16
            case .pcmFormatInt32: bits = 32
            default: bits = 24
            }
        }
        let setup = AudioStreamSetup(codec: d.mFormatID, sampleRate: to.sampleRate, channelCount: Int(d.mChannelsPerFrame), bitsPerSample: bits)
        guard let encoder = try? AudioCodecRegistry.encoder(for: setup),
              // The codecs choose their packet size (4,096 frames for both): a format asking another is refused.
              d.mFramesPerPacket == 0 || Int(d.mFramesPerPacket) == encoder.framesPerPacket,
              let pcmFormat = AVAudioConverter.codecPCMFormat(like: to, bits: bits <= 16 ? 16 : 32),
              let pending = AVAudioPCMBuffer(pcmFormat: pcmFormat, frameCapacity: AVAudioFrameCount(encoder.framesPerPacket)) else { return nil }
        codec = d.mFormatID
        bitsPerSample = bits
        self.setup = setup
        self.encoder = encoder
        self.pcmFormat = pcmFormat
        self.pending = pending
        samples = .allocate(capacity: encoder.framesPerPacket * setup.channelCount)
        packet = [UInt8](repeating: 0, count: encoder.maximumPacketSize)
    }

    deinit { samples.deallocate() }

    /// Starts a new stream: a fresh encoder (ALAC carries predictor state between packets, FLAC
    /// numbers its frames), nothing pending.
    func reset() {
        if let fresh = try? AudioCodecRegistry.encoder(for: setup) { encoder = fresh }
        pending.frameLength = 0
        heldPacketSize = nil
        finished = false
    }

    /// Encodes the pending frames as one packet into the packet scratch; returns its size.
    func encodePending() throws -> Int {
        let n = Int(pending.frameLength)
        let count = n * setup.channelCount
        if pcmFormat.commonFormat == .pcmFormatInt16 {
            let p = pending.int16ChannelData![0]
            for i in 0..<count { samples[i] = Int32(p[i]) }
        } else {
            let p = pending.int32ChannelData![0]
            let shift = Int64(32 - bitsPerSample)
            if shift == 0 {
                samples.update(from: p, count: count)
            } else {
                let half = Int64(1) << (shift - 1)
                let largest = (Int64(1) << Int64(bitsPerSample - 1)) - 1
                for i in 0..<count { samples[i] = Int32(min((Int64(p[i]) + half) >> shift, largest)) }
            }
        }
        pending.frameLength = 0
        let size = try packet.withUnsafeMutableBytes { try encoder.encode(samples, frameCount: n, into: $0.baseAddress!) }
        heldPacketSize = size
        return size
    }

    /// Appends the held packet to `buffer` when it fits; returns whether it did.
    func deliverHeldPacket(to buffer: AVAudioCompressedBuffer, descriptions: UnsafeMutablePointer<AudioStreamPacketDescription>) -> Bool {
        guard let size = heldPacketSize else { return true }
        let offset = Int(buffer.byteLength)
        guard buffer.packetCount < buffer.packetCapacity, offset + size <= Int(buffer.byteCapacity) else { return false }
        packet.withUnsafeBytes { (buffer.data + offset).copyMemory(from: $0.baseAddress!, byteCount: size) }
        descriptions[Int(buffer.packetCount)] = AudioStreamPacketDescription(mStartOffset: Int64(offset), mVariableFramesInPacket: 0,
                                                                              mDataByteSize: UInt32(size))
        buffer.byteLength = UInt32(offset + size)
        buffer.packetCount += 1
        heldPacketSize = nil
        return true
    }
}

extension AVAudioConverter {
    /// `convert(to:error:withInputFrom:)` for an encoding converter.
    func encode(_ stage: CodecEncodeStage, to outputBuffer: AVAudioBuffer, error outError: NSErrorPointer,
                withInputFrom inputBlock: AVAudioConverterInputBlock) -> AVAudioConverterOutputStatus {
        func fail(_ error: NSError) -> AVAudioConverterOutputStatus {
            outError?.pointee = error
            return .error
        }
        guard let output = outputBuffer as? AVAudioCompressedBuffer else {
            return fail(converterError(kAudioConverterErr_FormatNotSupported,
                                       "an encoding converter fills an AVAudioCompressedBuffer in \(outputFormat), not an AVAudioPCMBuffer"))
        }
        let want = outputFormat.streamDescription.pointee, got = output.format.streamDescription.pointee
        guard got.mFormatID == want.mFormatID, got.mChannelsPerFrame == want.mChannelsPerFrame, got.mSampleRate == want.mSampleRate else {
            return fail(converterError(kAudioConverterErr_FormatNotSupported,
                                       "the output buffer's format \(output.format) is not the converter's output format \(outputFormat)"))
        }
        guard let descriptions = output.packetDescriptions else {
            return fail(converterError(kAudioConverterErr_RequiresPacketDescriptionsError,
                                       "the output buffer has no packet descriptions; \(outputFormat) has packets of varying size"))
        }
        output.packetCount = 0
        output.byteLength = 0
        let perPacket = stage.encoder.framesPerPacket
        while true {
            if stage.heldPacketSize != nil {
                guard stage.deliverHeldPacket(to: output, descriptions: descriptions) else {
                    if output.packetCount > 0 { return .haveData }
                    return fail(converterError(kAudioConverterErr_InvalidOutputSize,
                                               "a packet of \(stage.heldPacketSize!) bytes does not fit the output buffer (\(output.byteCapacity) bytes, \(output.packetCapacity) packets); make it with maximumPacketSize \(maximumOutputPacketSize)"))
                }
            }
            if output.packetCount == output.packetCapacity { return .haveData }
            if stage.finished { return output.packetCount > 0 ? .haveData : .endOfStream }
            let status = fillPCM(stage.pending, upTo: perPacket, error: outError, withInputFrom: inputBlock)
            if status == .error { return .error }
            let full = Int(stage.pending.frameLength) == perPacket
            if full || (status == .endOfStream && stage.pending.frameLength > 0) {
                do { _ = try stage.encodePending() } catch {
                    return fail(codecError(error, "encoding a packet failed"))
                }
                continue
            }
            switch status {
            case .endOfStream: stage.finished = true
            case .inputRanDry: return .inputRanDry
            default: continue   // the stream ended inside this fill: the next fill reports it
            }
        }
    }
}

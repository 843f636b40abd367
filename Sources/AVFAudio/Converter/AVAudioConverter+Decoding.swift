// AVAudioConverter decoding compressed packets into PCM (the packet semantics are in the design
// note at the top of AVAudioConverter+Codec.swift).
//
// The PCM pipeline pulls its input through `nextDecoded`, which stands between it and the
// client's input block: it asks the client for packets, keeps the compressed buffer the client
// returned, and hands the pipeline one decoded packet at a time as codec PCM (Int32, interleaved,
// left-justified). The pipeline consumes that buffer before asking again, so one buffer of one
// packet's frames serves the whole stream.
//
// The decoder is made from the magic cookie when the first packet needs it (and again after the
// cookie changes): Apple Lossless takes its ALACSpecificConfig, FLAC its STREAMINFO block (the
// metadata blocks, with or without the "fLaC" marker: what MP4's `dfLa` box and this library's
// FLAC encoder hold). The format's flags give the depth a decoder checks the cookie against.
import AudioCodecs

/// The decoding side of a converter: the decoder, the compressed input held, one decoded packet.
final class CodecDecodeStage {
    let codec: UInt32
    let compressedFormat: AVAudioFormat
    /// The codec side of the PCM pipeline (Int32 interleaved, the compressed format's rate,
    /// channels and layout).
    let pcmFormat: AVAudioFormat
    private var cookie: [UInt8] = []
    private var decoder: AudioPacketDecoder?
    private var decoded: AVAudioPCMBuffer?
    private var scratch: UnsafeMutablePointer<Int32>?
    /// The client's compressed buffer being decoded, and its next packet.
    private var held: AVAudioCompressedBuffer?
    private var nextPacket = 0
    /// The client's block reported `.endOfStream`.
    private var clientEnded = false
    /// Set by `nextDecoded` when decoding failed; the conversion then reports it.
    var failure: NSError?

    /// Nil when `from` is not a codec this library decodes.
    init?(from: AVAudioFormat) {
        let d = from.streamDescription.pointee
        guard let entry = AudioCodecRegistry.entry(for: d.mFormatID), entry.makeDecoder != nil, d.mChannelsPerFrame >= 1,
              from.sampleRate > 0, let pcmFormat = AVAudioConverter.codecPCMFormat(like: from, bits: 32) else { return nil }
        codec = d.mFormatID
        compressedFormat = from
        self.pcmFormat = pcmFormat
    }

    deinit { scratch?.deallocate() }

    func setCookie(_ bytes: [UInt8]) {
        cookie = bytes
        decoder = nil
    }

    func reset() {
        decoder?.reset()
        held = nil
        nextPacket = 0
        clientEnded = false
        failure = nil
    }

    /// The decoder, made from the cookie on first use.
    private func makeDecoder(_ converter: AVAudioConverter) throws -> AudioPacketDecoder {
        if let decoder { return decoder }
        let name = AudioCodecRegistry.entry(for: codec)?.name ?? AudioCodecRegistry.fourCharacterName(codec)
        guard !cookie.isEmpty else {
            throw converter.converterError(kAudioConverterErr_UnspecifiedError,
                                           "decoding \(name) needs the stream's magic cookie; set the converter's magicCookie (from the file's container) before converting")
        }
        let d = compressedFormat.streamDescription.pointee
        let setup = AudioStreamSetup(codec: codec, sampleRate: d.mSampleRate, channelCount: Int(d.mChannelsPerFrame),
                                     bitsPerSample: AVAudioConverter.sourceDepth(flags: d.mFormatFlags) ?? 0, magicCookie: cookie)
        let made: AudioPacketDecoder
        do { made = try AudioCodecRegistry.decoder(for: setup) } catch {
            throw converter.codecError(error, "the magic cookie does not describe a \(name) stream this converter can decode")
        }
        guard made.channelCount == Int(d.mChannelsPerFrame), made.sampleRate == d.mSampleRate else {
            throw converter.converterError(kAudioConverterErr_FormatNotSupported,
                                           "the magic cookie describes \(made.channelCount) channels at \(made.sampleRate) Hz but the converter's input format is \(compressedFormat)")
        }
        let capacity = max(1, made.maximumFramesPerPacket)
        guard let buffer = AVAudioPCMBuffer(pcmFormat: pcmFormat, frameCapacity: AVAudioFrameCount(capacity)) else {
            throw converter.converterError(kAudioConverterErr_FormatNotSupported, "no buffer holds \(capacity) frames of \(pcmFormat)")
        }
        scratch?.deallocate()
        scratch = .allocate(capacity: capacity * made.channelCount)
        decoded = buffer
        decoder = made
        return made
    }

    /// Checks a buffer the client's block returned; throws the error to report.
    private func accept(_ buffer: AVAudioBuffer, _ converter: AVAudioConverter) throws -> AVAudioCompressedBuffer {
        guard let packets = buffer as? AVAudioCompressedBuffer else {
            throw converter.converterError(kAudioConverterErr_FormatNotSupported,
                                           "the input block returned an AVAudioPCMBuffer; a decoding converter takes AVAudioCompressedBuffers in \(compressedFormat)")
        }
        let want = compressedFormat.streamDescription.pointee, got = packets.format.streamDescription.pointee
        guard got.mFormatID == want.mFormatID, got.mChannelsPerFrame == want.mChannelsPerFrame, got.mSampleRate == want.mSampleRate else {
            throw converter.converterError(kAudioConverterErr_FormatNotSupported,
                                           "the input block returned a buffer in \(packets.format); the converter's input format is \(compressedFormat)")
        }
        guard packets.packetDescriptions != nil || packets.packetCount == 0 else {
            throw converter.converterError(kAudioConverterErr_RequiresPacketDescriptionsError,
                                           "the input buffer has no packet descriptions; \(compressedFormat) has packets of varying size")
        }
        return packets
    }

    /// Decodes packet `nextPacket` of the held buffer into `decoded`; returns its frame count.
    private func decodeNext(_ converter: AVAudioConverter) throws -> Int {
        let decoder = try makeDecoder(converter)
        let buffer = held!, k = nextPacket
        nextPacket += 1
        let description = buffer.packetDescriptions![k]
        // Checked in Int64 without forming start + size: a hostile mStartOffset near Int64.max
        // must be refused, not overflow (the codecconv fuzz target's first finding).
        let size = Int64(description.mDataByteSize)
        guard description.mStartOffset >= 0, description.mStartOffset <= Int64(buffer.byteLength) - size else {
            let end = description.mStartOffset.addingReportingOverflow(size)
            throw converter.converterError(kAudioConverterErr_InvalidInputSize,
                                           "packet \(k) of the input buffer is described as bytes \(description.mStartOffset)..<\(end.overflow ? "beyond 2^63" : String(end.partialValue)) but the buffer holds \(buffer.byteLength) bytes (byteLength)")
        }
        let start = Int(description.mStartOffset)
        let capacity = Int(decoded!.frameCapacity)
        var frames: Int
        do {
            frames = try decoder.decode(UnsafeRawBufferPointer(start: buffer.data + start, count: Int(size)), into: scratch!, frameCapacity: capacity)
        } catch {
            throw converter.codecError(error, "packet \(k) of the input buffer (\(size) bytes) is damaged")
        }
        // A description that counts fewer frames than the packet decodes to trims it (Apple's
        // mVariableFramesInPacket; 0 means the packet's own count).
        if description.mVariableFramesInPacket > 0 { frames = min(frames, Int(description.mVariableFramesInPacket)) }
        let out = decoded!.int32ChannelData![0], source = scratch!
        let shift = Int32(32 - decoder.bitsPerSample)
        for i in 0..<(frames * decoder.channelCount) { out[i] = source[i] << shift }
        decoded!.frameLength = AVAudioFrameCount(frames)
        return frames
    }

    /// The PCM pipeline's input block: the next decoded packet, pulling packets from `client`.
    func nextDecoded(_ frames: AVAudioPacketCount, _ status: UnsafeMutablePointer<AVAudioConverterInputStatus>,
                     client: AVAudioConverterInputBlock, converter: AVAudioConverter) -> AVAudioBuffer? {
        do {
            while true {
                if let held, nextPacket < Int(held.packetCount) {
                    if try decodeNext(converter) == 0 { continue }
                    status.pointee = .haveData
                    return decoded
                }
                held = nil
                nextPacket = 0
                if clientEnded {
                    status.pointee = .endOfStream
                    return nil
                }
                // Packets enough for the frames wanted: the format's frames per packet, else the
                // decoder's largest packet, else one packet.
                let perPacket = max(1, Int(compressedFormat.streamDescription.pointee.mFramesPerPacket))
                let wanted = AVAudioPacketCount(clamping: max(1, (Int(frames) + perPacket - 1) / perPacket))
                var clientStatus = AVAudioConverterInputStatus.haveData
                let buffer = client(wanted, &clientStatus)
                switch clientStatus {
                case .noDataNow:
                    status.pointee = .noDataNow
                    return nil
                case .endOfStream:
                    clientEnded = true
                    if let buffer { held = try accept(buffer, converter) }
                case .haveData:
                    guard let buffer else {
                        status.pointee = .noDataNow
                        return nil
                    }
                    let packets = try accept(buffer, converter)
                    guard packets.packetCount > 0 else {
                        status.pointee = .noDataNow
                        return nil
                    }
                    held = packets
                }
            }
        } catch {
            failure = error as NSError
            status.pointee = .noDataNow
            return nil
        }
    }
}

extension AVAudioConverter {
    /// `convert(to:error:withInputFrom:)` for a decoding converter.
    func decode(_ stage: CodecDecodeStage, to outputBuffer: AVAudioBuffer, error outError: NSErrorPointer,
                withInputFrom inputBlock: AVAudioConverterInputBlock) -> AVAudioConverterOutputStatus {
        guard let output = outputBuffer as? AVAudioPCMBuffer else {
            outError?.pointee = converterError(kAudioConverterErr_FormatNotSupported,
                                               "a decoding converter fills an AVAudioPCMBuffer in \(outputFormat), not an AVAudioCompressedBuffer")
            return .error
        }
        do { try checkOutput(output) } catch {
            outError?.pointee = error as NSError
            return .error
        }
        output.frameLength = 0
        stage.failure = nil
        let status = fillPCM(output, upTo: Int(output.frameCapacity), error: outError) { frames, inputStatus in
            stage.nextDecoded(frames, inputStatus, client: inputBlock, converter: self)
        }
        if let failure = stage.failure {
            stage.failure = nil
            outError?.pointee = failure
            return .error
        }
        return status
    }
}

// AVAudioConverter's codec stage: what a converter with compressed output (encoding) or
// compressed input (decoding) is made of, and the codec properties Apple's API names.
//
// Design note. A codec converter is the PCM converter with one more stage on its compressed side:
//
//     encoding:  client PCM ──► PCM pipeline ──► codec PCM ──► encoder ──► AVAudioCompressedBuffer
//     decoding:  AVAudioCompressedBuffer ──► decoder ──► codec PCM ──► PCM pipeline ──► client PCM
//
// "Codec PCM" is interleaved signed integers at the codec's rate and channel count, in the
// compressed format's channel layout (Int16 for a 16-bit encoder, else Int32, left-justified as
// AVAudioFormat's integer formats are; decoders always give Int32). So one converter does any
// PCM change the PCM pipeline does — sample type, interleaving, channel mapping with `channelMap`
// and `downmix`, a rate change — on the way in or out: FLAC 96 kHz 24-bit → Float32 48 kHz stereo
// is one converter whose PCM pipeline runs Int32 96 kHz → Float32 48 kHz. Codecs come from
// AudioCodecs' registry (AudioCodecRegistry), so a codec added there works here unchanged.
//
// Packet semantics follow Apple's AudioConverter (convert(to:error:withInputFrom:)):
// * Encoding fills the compressed buffer with whole packets, each with a packet description
//   (mStartOffset into `data`, mDataByteSize; mVariableFramesInPacket 0: Apple Lossless and FLAC
//   packets hold the format's frames per packet but the last, and declare their own length). The
//   input block is asked for frames. `.haveData` when the buffer is full (packetCapacity packets,
//   or no room in byteCapacity for the next), `.inputRanDry` when the block said `.noDataNow`
//   (the packets completed so far are in the buffer; the frames of an unfinished packet wait for
//   the next call), `.endOfStream` from the block encodes the frames left as a shorter last
//   packet, and the converter returns `.endOfStream` with no packets once that is delivered. A
//   packet that does not fit the buffer's remaining bytes waits for the next call.
// * Decoding asks the input block for packets (AVAudioCompressedBuffers with packet
//   descriptions) and needs `magicCookie` set first. Frames a packet decodes to beyond the output
//   buffer's capacity wait for the next call (the PCM pipeline holds them), so any output
//   capacity gives the same samples; packets of a buffer not yet decoded are held (by
//   reference, as the PCM pipeline holds PCM input) until they are needed.
//
// Errors are NSErrors in NSOSStatusErrorDomain with AudioConverter codes and a sentence: a buffer
// of the wrong class or format kAudioConverterErr_FormatNotSupported; compressed input without
// packet descriptions kAudioConverterErr_RequiresPacketDescriptionsError; a packet description
// outside the buffer's bytes kAudioConverterErr_InvalidInputSize; an output buffer too small for
// one packet kAudioConverterErr_InvalidOutputSize; a missing or unusable magic cookie and damaged
// packets kAudioConverterErr_UnspecifiedError (Apple documents no more specific code for either;
// the sentence says which it is).
import AudioCodecs

extension AVAudioConverter {
    /// A codec's source depth from an Apple Lossless/FLAC format's flags
    /// (kAppleLosslessFormatFlag_16BitSourceData … _32BitSourceData), nil when the flags say none.
    static func sourceDepth(flags: AudioFormatFlags) -> Int? {
        switch flags {
        case kAppleLosslessFormatFlag_16BitSourceData: return 16
        case kAppleLosslessFormatFlag_20BitSourceData: return 20
        case kAppleLosslessFormatFlag_24BitSourceData: return 24
        case kAppleLosslessFormatFlag_32BitSourceData: return 32
        default: return nil
        }
    }

    /// Interleaved signed-integer PCM of `bits` (16 or 32) bits at `format`'s rate, channel count
    /// and layout: the codec side of the PCM pipeline.
    static func codecPCMFormat(like format: AVAudioFormat, bits: Int) -> AVAudioFormat? {
        let channels = format.channelCount
        let bytes = UInt32(bits / 8)
        var asbd = AudioStreamBasicDescription(mSampleRate: format.sampleRate, mFormatID: kAudioFormatLinearPCM,
                                               mFormatFlags: kAudioFormatFlagIsSignedInteger | kAudioFormatFlagIsPacked,
                                               mBytesPerPacket: bytes * channels, mFramesPerPacket: 1, mBytesPerFrame: bytes * channels,
                                               mChannelsPerFrame: channels, mBitsPerChannel: UInt32(bits), mReserved: 0)
        if let layout = format.channelLayout, layout.channelCount == channels {
            return AVAudioFormat(streamDescription: &asbd, channelLayout: layout)
        }
        return AVAudioFormat(streamDescription: &asbd)
    }

    // MARK: Properties Apple names for codecs

    /// `magicCookie`'s getter: the encoder's cookie when encoding, else what was set. Apple
    /// Lossless: the ALACSpecificConfig wrapped in 'frma' and 'alac' atoms, the form this
    /// library's CAF writer stores in 'kuki' (decoders here and ffmpeg take it bare or wrapped);
    /// FLAC: the STREAMINFO block (FLACPacketEncoder).
    var codecMagicCookie: Data? {
        if let encodeStage { return Data(encodeStage.encoder.magicCookie) }
        return storedMagicCookie
    }

    /// `magicCookie`'s setter: a decoding converter takes the stream's cookie (its decoder is made
    /// again from it at the next conversion); an encoding converter's cookie is its encoder's and
    /// is not replaced (Apple's encoders make their own cookie).
    func setCodecMagicCookie(_ cookie: Data?) {
        guard encodeStage == nil else { return }
        storedMagicCookie = cookie
        decodeStage?.setCookie(cookie.map { [UInt8]($0) } ?? [])
    }

    /// `availableEncodeChannelLayoutTags` of an Apple Lossless encoder: the layouts Apple's ALAC
    /// reference (its ReadMe, "Channel orders for the supported formats") gives for one to eight
    /// channels — Mono, Stereo, MPEG 3.0 B, 4.0 B, 5.0 D, 5.1 D, AAC 6.1, MPEG 7.1 B. Nil for
    /// FLAC (no evidence of what Apple's FLAC encoder lists) and for PCM output.
    var codecChannelLayoutTags: [NSNumber]? {
        guard let encodeStage, encodeStage.codec == kAudioFormatAppleLossless else { return nil }
        return [kAudioChannelLayoutTag_Mono, kAudioChannelLayoutTag_Stereo, kAudioChannelLayoutTag_MPEG_3_0_B,
                kAudioChannelLayoutTag_MPEG_4_0_B, kAudioChannelLayoutTag_MPEG_5_0_D, kAudioChannelLayoutTag_MPEG_5_1_D,
                kAudioChannelLayoutTag_AAC_6_1, kAudioChannelLayoutTag_MPEG_7_1_B].map { NSNumber(value: $0) }
    }
    // The bit-rate and sample-rate lists (availableEncodeBitRates, applicableEncodeBitRates,
    // availableEncodeSampleRates, applicableEncodeSampleRates) stay nil for the lossless encoders,
    // and bitRate reads 0: a lossless encoder has no bit-rate setting (Core Audio answers
    // kAudioConverterEncodeBitRate with 'prop', kAudioConverterErr_PropertyNotSupported, on a
    // converter that does not take one — reported on Apple's coreaudio-api list, May 2010 — and
    // AVAudioConverter reports a property it cannot get as nil), and both codecs take any whole
    // sample rate up to their limits rather than a list (Apple's ALAC ReadMe: "any arbitrary
    // integer sample rate from 1 to 384,000 Hz"; FLAC: 1 to 1,048,575 Hz).

    /// Converts a CodecError into the NSError this converter reports.
    func codecError(_ error: Error, _ context: String) -> NSError {
        let message = (error as? CodecError)?.message ?? "\(error)"
        return converterError(kAudioConverterErr_UnspecifiedError, context + ": " + message)
    }
}

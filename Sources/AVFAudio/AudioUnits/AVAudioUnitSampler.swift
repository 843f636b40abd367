// AVAudioUnitSampler: Apple's sampler instrument (AUSampler), playing SoundFont 2 banks, DLS
// (Level 1 and 2) banks and audio files through the voice engine in Sources/SamplerSynth (bank parsing in Sources/SoundBanks).
//
// Loading reads the whole file and builds the instrument on the calling thread (as Apple says:
// "reads from the file and allocates memory, so it should not be called on a real-time thread");
// a running engine picks the new instrument up at its next cycle. Until something is loaded the
// sampler plays a built-in generated tone (Apple's sampler also sounds out of the box; its tone
// is not published, ours is described in SamplerInstrument.builtInTone).
//
// Errors (NSError, domain "com.apple.coreaudio.avfaudio"): a file that cannot be read — its
// POSIX reason (NSFileReadNoSuchFileError's −43 `fnfErr` for a missing file, as Apple's sampler
// reports it); a file that is not a valid bank — `kAudioUnitErr_InvalidFile` (−10871) with the
// chunk and byte offset; a bank without the requested preset — `kAudioUnitErr_InvalidPropertyValue`
// (−10851); EXS24 instruments — `kAudioUnitErr_InvalidFile` with a sentence saying they are not
// supported yet. A bank is recognised by its content ('RIFF' … 'sfbk' or 'RIFF' … 'DLS '),
// whatever its extension. AUSampler presets (`.aupreset`) load through
// AVAudioUnitSampler+Preset.swift: a malformed one is `kAudioUnitErr_InvalidFile` naming the key,
// a sample it names that cannot be found `fnfErr` (−43) naming the file.
import SoundBanks
import SamplerSynth
import AudioFileFormats
#if canImport(Glibc)
import Glibc
#endif

/// An instrument that plays samples: SoundFont or DLS banks, or audio files mapped to keys.
open class AVAudioUnitSampler: AVAudioUnitMIDIInstrument {
    private var samplerUnit: SamplerAudioUnit { auAudioUnit as! SamplerAudioUnit }

    /// Creates a sampler that plays the built-in tone until an instrument is loaded.
    public init() {
        super.init(wrapping: SamplerAudioUnit())
    }

    /// Creates a sampler for Apple's sampler component ('aumu'/'samp'/'appl'); other descriptions
    /// are created as AVAudioUnitMIDIInstrument does (a registered music device).
    public override init(audioComponentDescription description: AudioComponentDescription) {
        if description.componentType == kAudioUnitType_MusicDevice && description.componentSubType == kAudioUnitSubType_Sampler {
            super.init(wrapping: SamplerAudioUnit())
        } else {
            super.init(audioComponentDescription: description)
        }
    }

    open override var name: String { "AUSampler" }
    open override var manufacturerName: String { "Apple" }

    /// Loads one instrument (preset) of a SoundFont or DLS bank. `bankMSB` is usually
    /// `kAUSampler_DefaultMelodicBankMSB` (0x79: the SoundFont bank is `bankLSB`) or
    /// `kAUSampler_DefaultPercussionBankMSB` (0x78: the percussion bank, SoundFont bank 128, or a
    /// DLS bank's drum instruments, `F_INSTRUMENT_DRUMS`); any other MSB names the bank itself.
    /// A DLS instrument's bank is its bank-select MSB, or its LSB when the MSB is 0
    /// (`DLSInstrument.samplerBank`). The whole bank stays loaded, so program changes (with bank
    /// select) on any channel switch between its instruments; every channel plays the loaded
    /// instrument until it receives a program change.
    open func loadSoundBankInstrument(at bankURL: URL, program: UInt8, bankMSB: UInt8, bankLSB: UInt8) throws {
        let bank: Int
        switch Int(bankMSB) {
        case kAUSampler_DefaultPercussionBankMSB: bank = 128
        case kAUSampler_DefaultMelodicBankMSB: bank = Int(bankLSB)
        default: bank = Int(bankMSB)
        }
        switch try AVAudioUnitSampler.readSoundBank(bankURL) {
        case .soundFont(let font):
            guard font.preset(bank: bank, program: Int(program)) != nil else {
                let available = font.presets.prefix(8).map { "\($0.bank):\($0.program) \($0.name)" }.joined(separator: ", ")
                throw avfaudioError(kAudioUnitErr_InvalidPropertyValue,
                                    "'\(bankURL.path)' has no preset for bank \(bank) (MSB \(bankMSB), LSB \(bankLSB)) program \(program); it has \(font.presets.count) presets (\(available)\(font.presets.count > 8 ? ", …" : ""))")
            }
            samplerUnit.setInstrument(SamplerInstrument(soundFont: font, bank: bank, program: Int(program)))
        case .dls(let dls):
            guard dls.instrument(bank: bank, program: Int(program)) != nil else {
                let available = dls.instruments.prefix(8).map { "\($0.samplerBank):\($0.samplerProgram) \($0.name)" }.joined(separator: ", ")
                throw avfaudioError(kAudioUnitErr_InvalidPropertyValue,
                                    "'\(bankURL.path)' has no instrument for bank \(bank) (MSB \(bankMSB), LSB \(bankLSB)) program \(program); it has \(dls.instruments.count) instruments (\(available)\(dls.instruments.count > 8 ? ", …" : ""))")
            }
            samplerUnit.setInstrument(SamplerInstrument(dls: dls, bank: bank, program: Int(program)))
        }
    }

    /// Loads an instrument file: a SoundFont or DLS bank (its first preset or instrument), an
    /// AUSampler preset (`.aupreset`: its zones, samples, envelope, tuning, gain and pan, or the
    /// bank preset it names; see AVAudioUnitSampler+Preset.swift for what is honoured and
    /// ignored) or an audio file (mapped as `loadAudioFiles(at:)` maps one file). A bank is
    /// recognised by its content as well as its extension. EXS24 files are not supported yet (an
    /// error says so).
    open func loadInstrument(at instrumentURL: URL) throws {
        let ext = instrumentURL.pathExtension.lowercased()
        let isBank = ["sf2", "sf3", "sbk", "dls"].contains(ext) || AVAudioUnitSampler.bankKind(instrumentURL) != nil
        if isBank {
            switch try AVAudioUnitSampler.readSoundBank(instrumentURL) {
            case .soundFont(let font):
                guard let first = font.presets.first else {
                    throw avfaudioError(kAudioUnitErr_InvalidFile, "'\(instrumentURL.path)' holds no presets")
                }
                samplerUnit.setInstrument(SamplerInstrument(soundFont: font, bank: first.bank, program: first.program))
            case .dls(let dls):
                guard let first = dls.instruments.first else {
                    throw avfaudioError(kAudioUnitErr_InvalidFile, "'\(instrumentURL.path)' holds no instruments")
                }
                samplerUnit.setInstrument(SamplerInstrument(dls: dls, bank: first.samplerBank, program: first.samplerProgram))
            }
            return
        }
        switch ext {
        case "aupreset":
            try loadSamplerPreset(at: instrumentURL)
        case "exs":
            throw avfaudioError(kAudioUnitErr_InvalidFile,
                                "'\(instrumentURL.path)': EXS24 instruments are not supported yet; load a SoundFont (.sf2) or DLS (.dls) bank, an AUSampler preset (.aupreset) or audio files")
        default:
            try loadAudioFiles(at: [instrumentURL])
        }
    }

    /// Loads audio files as an instrument, each file in its own zone, placed from the file's own
    /// instrument metadata as Apple documents ("uses any information in the audio file for its
    /// placement in the instrument. For example, the root key and key range"): WAV's `smpl`,
    /// AIFF's `INST` (with its `MARK` loop markers) and CAF's `inst` chunk give the root key
    /// (with WAV's pitch fraction, AIFF's detune), AIFF and CAF the key and velocity ranges, WAV
    /// and AIFF a sustain loop, played while the key is held (then the sample plays on through
    /// its release), and AIFF's and CAF's gain (in decibels) scales the file's sample. CAF's `regn`
    /// loops are not read yet.
    ///
    /// Without metadata, one file plays across the whole keyboard with its original pitch on
    /// middle C (key 60), and several files are laid out on consecutive keys from middle C, each
    /// at its original pitch on its own key. Files that name a root key but no key range share the
    /// keyboard: each plays from halfway to the next lower file's root key to halfway to the next
    /// higher one's (the lowest down to key 0, the highest up to 127). Apple does not document
    /// either layout: both are our choice, the second the usual way samplers map multisamples.
    open func loadAudioFiles(at audioFiles: [URL]) throws {
        guard !audioFiles.isEmpty else {
            throw avfaudioError(kAudioUnitErr_InvalidPropertyValue, "loadAudioFiles(at:) needs at least one file")
        }
        var samples: [Float] = []
        var zones: [PlayZone] = []
        var infos: [AudioFileInstrumentInfo?] = []
        for (i, url) in audioFiles.enumerated() {
            let file = try AVAudioFile(forReading: url)
            let frames = AVAudioFrameCount(file.length)
            guard frames > 0, let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: frames) else { continue }
            try file.read(into: buffer)
            // (metadata is optional: a file whose instrument chunk cannot be read plays without it)
            let info = try? readAudioFileInstrumentInfo(path: url.path, frames: file.length)
            let n = Int(buffer.frameLength)
            let channels = Int(buffer.format.channelCount)
            var z = PlayZone()
            z.start = samples.count
            // (stereo files are mixed to mono at half level per side; the file's own gain — AIFF
            // INST, CAF inst — scales its points, boosts included)
            let gain = Float(pow(10, (info?.gainDecibels ?? 0) / 20))
            for f in 0..<n {
                var s: Float = 0
                for c in 0..<channels { s += buffer.floatChannelData![c][f] }
                samples.append((channels > 1 ? s / Float(channels) : s) * gain)
            }
            z.end = samples.count
            z.loopStart = z.start; z.loopEnd = z.end; z.loopMode = 0
            if let loop = info?.sustainLoop, loop.upperBound <= Int64(n), loop.count >= 2 {
                z.loopStart = z.start + Int(loop.lowerBound); z.loopEnd = z.start + Int(loop.upperBound)
                z.loopMode = 3
            }
            samples += [Float](repeating: 0, count: 64)
            z.sampleRate = file.processingFormat.sampleRate
            let key = audioFiles.count == 1 ? 60 : min(127, 60 + i)
            z.rootPitch = Float(key * 100)
            if audioFiles.count > 1 { z.keyLow = UInt8(key); z.keyHigh = UInt8(key) }
            if let info {
                z.rootPitch = Float(info.rootKey * 100)
                if let keys = info.keyRange { z.keyLow = keys.lowerBound; z.keyHigh = keys.upperBound }
                if let velocities = info.velocityRange { z.velLow = velocities.lowerBound; z.velHigh = velocities.upperBound }
            }
            z.volEnv = (-12_000, -12_000, -12_000, -12_000, 0, SamplerInstrument.timecents(0.1), 0, 0)
            zones.append(z)
            infos.append(info)
        }
        // Files with a root key and no key range share the keyboard between their root keys.
        let shared = zones.indices.filter { audioFiles.count > 1 && infos[$0] != nil && infos[$0]!.keyRange == nil }
            .sorted { zones[$0].rootPitch < zones[$1].rootPitch }
        for (k, index) in shared.enumerated() {
            let root = Double(zones[index].rootPitch) / 100
            let below = k > 0 ? Double(zones[shared[k - 1]].rootPitch) / 100 : nil
            let above = k + 1 < shared.count ? Double(zones[shared[k + 1]].rootPitch) / 100 : nil
            let low = below.map { Int((($0 + root) / 2).rounded(.down)) + 1 } ?? 0
            let high = above.map { Int(((root + $0) / 2).rounded(.down)) } ?? 127
            zones[index].keyLow = UInt8(max(0, min(127, low)))
            zones[index].keyHigh = UInt8(max(Int(zones[index].keyLow), min(127, high)))
        }
        samples += [Float](repeating: 0, count: 64)
        samplerUnit.setInstrument(SamplerInstrument(samples: samples, zones: zones,
                                                    presets: [PresetEntry(bank: 0, program: 0, firstZone: 0, zoneCount: Int32(zones.count))],
                                                    names: ["Audio Files"], defaultBank: 0, defaultProgram: 0))
    }

    /// Adjusts the sampler's output level in decibels (−90 … 12; default 0).
    open var overallGain: Float {
        get { samplerUnit.gainDecibels }
        set { samplerUnit.gainDecibels = Swift.max(-90, Swift.min(12, newValue.isNaN ? 0 : newValue)) }
    }

    /// The sampler's output level in decibels (the older name of `overallGain`).
    @available(*, deprecated, renamed: "overallGain")
    open var masterGain: Float {
        get { overallGain }
        set { overallGain = newValue }
    }

    /// Stereo balance of the output, −100 (left) … 100 (right); default 0.
    open var stereoPan: Float {
        get { samplerUnit.balance }
        set { samplerUnit.balance = Swift.max(-100, Swift.min(100, newValue.isNaN ? 0 : newValue)) }
    }

    /// Whether the sampler's own reverb and chorus play the voices' effect sends (SoundFont
    /// generators 16 and 15, CC91 and CC93, DLS's reverb and chorus connections); default true.
    /// Not part of Apple's API: Apple's AUSampler has no send effects of its own (its
    /// `kMusicDeviceProperty_UsesInternalReverb` belongs to the DLS synth). Set it false for the
    /// dry mix alone (an app that adds its own `AVAudioUnitReverb`, or a comparison against a
    /// renderer with its effects off); the sends then cost nothing.
    public var _usesInternalEffects: Bool {
        get { samplerUnit.usesInternalEffects }
        set { samplerUnit.usesInternalEffects = newValue }
    }

    /// Tuning of every note in cents, −2400 … 2400; default 0.
    open var globalTuning: Float {
        get { samplerUnit.tuningCents }
        set { samplerUnit.tuningCents = Swift.max(-2_400, Swift.min(2_400, newValue.isNaN ? 0 : newValue)) }
    }

    /// A parsed bank of either kind.
    enum SoundBank { case soundFont(SoundFont), dls(DLSBank) }

    /// The bank kind a file's first 12 bytes name ('RIFF' … 'sfbk' or 'DLS '), nil for others or an unreadable file.
    static func bankKind(_ url: URL) -> String? {
        let fd = open(url.path, O_RDONLY)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var header = [UInt8](repeating: 0, count: 12)
        let n = header.withUnsafeMutableBytes { read(fd, $0.baseAddress!, 12) }
        guard n == 12, header[0..<4].elementsEqual("RIFF".utf8) else { return nil }
        if header[8..<12].elementsEqual("sfbk".utf8) { return "sfbk" }
        if DLSBank.isDLS(header) { return "DLS " }
        return nil
    }

    /// Reads a SoundFont or DLS bank: DLS when the file says 'RIFF' … 'DLS ', else SoundFont
    /// (whose parser names what else the file is).
    static func readSoundBank(_ url: URL) throws -> SoundBank {
        try readBankBytes(url) { bytes, readSamples -> SoundBank in
            if DLSBank.isDLS(bytes) { return .dls(try DLSBank.parse(bytes)) }
            return .soundFont(try parseSoundFont(bytes, readSamples))
        }
    }

    static func readSoundFont(_ url: URL) throws -> SoundFont {
        try readBankBytes(url) { try parseSoundFont($0, $1) }
    }

    private static func parseSoundFont(_ bytes: UnsafeRawBufferPointer, _ readSamples: ((Int, UnsafeMutableRawBufferPointer) -> Bool)?) throws -> SoundFont {
        if let readSamples { return try SoundFont.parse(bytes, readSamples: readSamples) }
        return try SoundFont.parse(bytes)
    }

    /// Maps (or reads) a bank file and parses it; parse errors become `kAudioUnitErr_InvalidFile`
    /// NSErrors naming the chunk and byte offset. With a mapping, `parse` also gets a positional
    /// reader (file offset, destination → whether it was filled): a SoundFont's sample data, most
    /// of the file, is read with it straight into the pool instead of being copied out of the
    /// mapping page by page (half the time for FluidR3_GM's 141 MB), and the pool is a private
    /// copy, so a bank file replaced or truncated while it is loaded cannot reach the render thread.
    private static func readBankBytes<T>(_ url: URL, _ parse: (UnsafeRawBufferPointer, ((Int, UnsafeMutableRawBufferPointer) -> Bool)?) throws -> T) throws -> T {
        // POSIX calls, not Foundation's Data(contentsOf:), which leaks its buffer for an empty file
        // on Linux (found by the sf2 fuzz target) and copies a large bank before it is parsed.
        let fd = open(url.path, O_RDONLY)
        guard fd >= 0 else {
            let reason = String(cString: strerror(errno))
            throw avfaudioError(-43, "cannot read the sound bank '\(url.path)': \(reason)")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw avfaudioError(-43, "cannot read the sound bank '\(url.path)': \(String(cString: strerror(errno)))")
        }
        let size = Int(info.st_size)
        // Mapped, not read: the parser converts the sample data straight from the page cache.
        // (FileMapping turns a file truncated under us into zeros and a damaged flag instead of SIGBUS.)
        if let mapping = FileMapping(fd: fd, size: size) {
            let result: T
            do {
                result = try parse(mapping.bytes) { offset, destination in
                    var done = 0
                    while done < destination.count {
                        let n = pread(fd, destination.baseAddress! + done, destination.count - done, off_t(offset + done))
                        if n < 0 && errno == EINTR { continue }
                        guard n > 0 else { return false }
                        done += n
                    }
                    return true
                }
            } catch let e as SoundBankError {
                throw avfaudioError(kAudioUnitErr_InvalidFile, "'\(url.path)' is not a valid \(e.format) bank: \(e.description)")
            }
            guard mapping.isIntact else {
                throw avfaudioError(kAudioUnitErr_InvalidFile, "'\(url.path)' was truncated while it was being read")
            }
            return result
        }
        var bytes = [UInt8](repeating: 0, count: max(0, size))
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + done, size - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            done += n
        }
        if done < size { bytes.removeLast(size - done) }
        do {
            return try bytes.withUnsafeBytes { try parse($0, nil) }
        } catch let e as SoundBankError {
            throw avfaudioError(kAudioUnitErr_InvalidFile, "'\(url.path)' is not a valid \(e.format) bank: \(e.description)")
        }
    }
}

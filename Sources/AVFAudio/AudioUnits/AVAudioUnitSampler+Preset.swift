// AVAudioUnitSampler loading an AUSampler preset (`.aupreset`): the preset parsed
// (AUSamplerPreset.swift), its sample files found, read and laid out as zones the way
// `loadAudioFiles(at:)` lays out audio files, with what the preset says about each zone.
//
// Finding the samples. Apple's Technical Note TN2283 ("AUSampler - Loading Instruments",
// "Referencing External Audio Files"): the sampler loads a file from the path the preset stores;
// when it is not there, it looks for "/Sounds/", "/Sampler Files/" or "/Apple Loops/" in that path,
// in that order, drops what precedes it and tries the rest in the app's bundle and the Library
// folders; when none matches, the load fails. We try, in order:
//   1. the stored path (a relative one — AU Lab saves them for bundled presets — against the
//      preset's folder);
//   2. the file's name next to the preset (ours, not Apple's: a preset moved with its samples
//      still loads);
//   3. TN2283's rule: from the first of those folder names found in the stored path, the rest of
//      the path under the preset's folder and each folder above it (standing in for the bundle a
//      preset usually ships in), then under ~/Library/Audio and /Library/Audio.
// A sample found nowhere fails the load with `fnfErr` (−43) and a sentence naming the file: TN2283
// says only that "an error is returned"; −43 is the code this sampler already gives for a missing
// file (AVAudioUnitSampler.swift), as Apple's sampler does for a missing bank.
//
// What the voices honour: per zone its key and velocity range, root key (else the file's own,
// else 60), start/end points, loop (`loop enabled` with `loop start`/`loop end`, else the file's
// own sustain loop, else the whole sample; looped continuously, through the release — our
// choice: the preset names no loop mode), coarse and fine tune, gain (cuts only: the voice cannot amplify past 0 dB, so
// a positive zone gain plays at 0 dB) and pan; per layer the envelope routed to the amplifier
// (delay, attack, hold, decay, sustain level, release — times as SoundFont volume-envelope times,
// so a release of t seconds falls 96 dB in t seconds, as SamplerVoice.swift models it); the
// preset's global gain, tuning and pan, which set `overallGain`, `globalTuning` and `stereoPan`,
// the sampler's global parameters those keys mirror. Ignored: envelope curves, filters, LFOs, the
// modulation matrix beyond finding the amplifier's envelope, `trigger mode` (one-shot zones still
// stop on note-off), `voice count`, layer key ranges, per-zone output busses. Every layer's zones
// sound together, as layers do.
import SoundBanks
import SamplerSynth
import AudioFileFormats
#if canImport(Glibc)
import Glibc
#endif

extension AVAudioUnitSampler {
    /// Loads an AUSampler preset file (see the note at the top of this file).
    func loadSamplerPreset(at presetURL: URL) throws {
        let bytes = try Self.readPresetBytes(presetURL)
        let preset: AUSamplerPreset
        do {
            preset = try AUSamplerPreset.parse(Data(bytes))
        } catch let e as AUSamplerPreset.FormatError {
            throw avfaudioError(kAudioUnitErr_InvalidFile,
                                "'\(presetURL.path)' is not a valid AUSampler preset: " + (e.key.isEmpty ? e.problem : "the key '\(e.key)' \(e.problem)"))
        }
        let folder = presetURL.deletingLastPathComponent()

        // A preset that plays a sound bank's preset.
        if let (id, stored) = preset.fileReferences.sorted(by: { $0.key < $1.key })
            .first(where: { ["sf2", "sf3", "sbk", "dls"].contains(($0.value as NSString).pathExtension.lowercased()) }) {
            let bank = try Self.resolveSample(stored, id: id, preset: presetURL, folder: folder)
            try loadSoundBankInstrument(at: bank, program: UInt8(preset.program), bankMSB: UInt8(preset.bankMSB), bankLSB: UInt8(preset.bankLSB))
            applyGlobals(preset)
            return
        }

        // Each waveform read once, in the order zones name them.
        var samples: [Float] = []
        var waves: [Int64: Wave] = [:]
        var zones: [PlayZone] = []
        for (li, layer) in preset.layers.enumerated() {
            for (zi, zone) in layer.zones.enumerated() {
                if waves[zone.waveform] == nil {
                    guard let stored = preset.fileReferences[zone.waveform] else {
                        throw avfaudioError(kAudioUnitErr_InvalidFile,
                                            "'\(presetURL.path)' is not a valid AUSampler preset: zone \(zi) of layer \(li) plays waveform \(zone.waveform), which its 'file-references' do not list (no \"Sample:\(zone.waveform)\")")
                    }
                    let url = try Self.resolveSample(stored, id: zone.waveform, preset: presetURL, folder: folder)
                    waves[zone.waveform] = try Self.readWave(url, into: &samples)
                }
                zones.append(Self.playZone(zone, wave: waves[zone.waveform]!, envelope: layer.ampEnvelope))
            }
        }
        guard !zones.isEmpty else {
            throw avfaudioError(kAudioUnitErr_InvalidFile, "'\(presetURL.path)' is not a valid AUSampler preset: it has no enabled zone to play")
        }
        samples += [Float](repeating: 0, count: 64)
        (auAudioUnit as! SamplerAudioUnit).setInstrument(SamplerInstrument(samples: samples, zones: zones,
                                                    presets: [PresetEntry(bank: 0, program: 0, firstZone: 0, zoneCount: Int32(zones.count))],
                                                    names: [preset.name.isEmpty ? "AUSampler Preset" : preset.name], defaultBank: 0, defaultProgram: 0))
        applyGlobals(preset)
    }

    private func applyGlobals(_ preset: AUSamplerPreset) {
        overallGain = Float(preset.gain)
        globalTuning = Float(preset.coarseTune * 100 + preset.fineTune)
        stereoPan = Float(preset.pan * 100)
    }

    /// One sample file in the pool: where it starts, its length, rate and instrument metadata.
    struct Wave {
        var start: Int, frames: Int, rate: Double
        var info: AudioFileInstrumentInfo?
    }

    /// A preset zone in the voice's units (see SamplerInstrument.swift).
    static func playZone(_ zone: AUSamplerPreset.Zone, wave: Wave, envelope: AUSamplerPreset.Envelope?) -> PlayZone {
        var z = PlayZone()
        let n = Int64(wave.frames)
        let clamp = { (v: Int64) -> Int in Int(Swift.max(0, Swift.min(n, v))) }
        z.start = wave.start + clamp(zone.start ?? 0)
        z.end = Swift.max(z.start, wave.start + clamp(zone.end ?? n))
        z.loopStart = z.start; z.loopEnd = z.end; z.loopMode = 0
        if zone.loopEnabled {
            let own = wave.info?.sustainLoop
            z.loopStart = Swift.min(Swift.max(wave.start + clamp(zone.loopStart ?? own?.lowerBound ?? 0), z.start), z.end)
            z.loopEnd = Swift.min(Swift.max(wave.start + clamp(zone.loopEnd ?? own?.upperBound ?? n), z.loopStart), z.end)
            // (a loop shorter than 2 frames cannot loop: played unlooped, as SoundFont zones are)
            z.loopMode = z.loopEnd - z.loopStart >= 2 ? 1 : 0
        }
        z.sampleRate = wave.rate
        z.keyLow = zone.keyLow; z.keyHigh = zone.keyHigh; z.velLow = zone.velLow; z.velHigh = zone.velHigh
        z.rootPitch = Float((zone.rootKey.map(Double.init) ?? wave.info?.rootKey ?? 60) * 100)
        z.tune = Float(zone.coarseTune * 100 + zone.fineTune)
        z.attenuation = Float(Swift.max(0, -zone.gain * 10))
        z.pan = Float(zone.pan * 500)
        if let e = envelope {
            let tc = { (t: Double) -> Float in t <= 0.001 ? -12_000 : SamplerInstrument.timecents(t) }
            let sustain = e.sustain <= 0 ? 1_440 : Swift.min(1_440, Float(-200 * log10(e.sustain)))
            z.volEnv = (tc(e.delay), tc(e.attack), tc(e.hold), tc(e.decay), sustain, tc(e.release), 0, 0)
        } else {
            // (no envelope: the one loadAudioFiles(at:) gives, a 0.1 s release)
            z.volEnv = (-12_000, -12_000, -12_000, -12_000, 0, SamplerInstrument.timecents(0.1), 0, 0)
        }
        return z
    }

    /// Reads an audio file into the pool, mixed to mono as `loadAudioFiles(at:)` mixes it.
    static func readWave(_ url: URL, into samples: inout [Float]) throws -> Wave {
        let file = try AVAudioFile(forReading: url)
        let frames = AVAudioFrameCount(clamping: Swift.max(0, file.length))
        var wave = Wave(start: samples.count, frames: 0, rate: file.processingFormat.sampleRate, info: nil)
        guard frames > 0, let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: frames) else {
            samples += [Float](repeating: 0, count: 64)
            return wave
        }
        try file.read(into: buffer)
        // (metadata is optional: a file whose instrument chunk cannot be read plays without it)
        wave.info = try? readAudioFileInstrumentInfo(path: url.path, frames: file.length)
        let n = Int(buffer.frameLength)
        let channels = Int(buffer.format.channelCount)
        samples.reserveCapacity(samples.count + n + 64)
        for f in 0..<n {
            var s: Float = 0
            for c in 0..<channels { s += buffer.floatChannelData![c][f] }
            samples.append(channels > 1 ? s / Float(channels) : s)
        }
        wave.frames = n
        samples += [Float](repeating: 0, count: 64)
        return wave
    }

    /// The places a stored sample path is looked for, in order (see the note at the top).
    static func sampleCandidates(_ stored: String, folder: URL) -> [URL] {
        var out: [URL] = []
        let storedURL = stored.hasPrefix("/") ? URL(fileURLWithPath: stored) : folder.appendingPathComponent(stored)
        out.append(storedURL)
        let name = (stored as NSString).lastPathComponent
        if !name.isEmpty && name != "/" { out.append(folder.appendingPathComponent(name)) }
        let path = stored.hasPrefix("/") ? stored : "/" + stored
        for marker in ["/Sounds/", "/Sampler Files/", "/Apple Loops/"] {
            guard let r = path.range(of: marker) else { continue }
            let rest = String(path[path.index(after: r.lowerBound)...])   // "Sounds/…"
            var dir = folder.standardizedFileURL
            for _ in 0..<64 {
                out.append(dir.appendingPathComponent(rest))
                let up = dir.deletingLastPathComponent()
                if up.path == dir.path { break }
                dir = up
            }
            if let home = ProcessInfo.processInfo.environment["HOME"], !home.isEmpty {
                out.append(URL(fileURLWithPath: home).appendingPathComponent("Library/Audio").appendingPathComponent(rest))
            }
            out.append(URL(fileURLWithPath: "/Library/Audio").appendingPathComponent(rest))
            break
        }
        return out
    }

    static func resolveSample(_ stored: String, id: Int64, preset: URL, folder: URL) throws -> URL {
        for url in sampleCandidates(stored, folder: folder) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && !isDirectory.boolValue { return url }
        }
        throw avfaudioError(-43, "the preset '\(preset.path)' plays the file '\(stored)' (Sample:\(id)), which is not there, not next to the preset and not under a Sounds, Sampler Files or Apple Loops folder above it")
    }

    /// The preset's bytes, read with POSIX calls (Foundation's Data(contentsOf:) leaks its buffer
    /// for an empty file on Linux, see readSoundFont); at most 64 MB, far above any real preset.
    static func readPresetBytes(_ url: URL) throws -> [UInt8] {
        let fd = open(url.path, O_RDONLY)
        guard fd >= 0 else {
            throw avfaudioError(-43, "cannot read the preset '\(url.path)': \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        let limit = 64 << 20
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress!, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw avfaudioError(-43, "cannot read the preset '\(url.path)': \(String(cString: strerror(errno)))") }
            if n == 0 { break }
            bytes += chunk[0..<n]
            if bytes.count > limit {
                throw avfaudioError(kAudioUnitErr_InvalidFile, "'\(url.path)' is larger than 64 MB: not an AUSampler preset")
            }
        }
        return bytes
    }
}

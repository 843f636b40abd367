// AVAudioUnitSampler through the public API: a sampler attached to an engine in offline manual
// rendering, notes scheduled on exact frames with the unit's scheduleMIDIEventBlock, and checks
// against analytic values — pitch from the sample's root key and the tuning generators, envelope
// stage times, loop continuity, attenuation and velocity curves (SoundFont 2.04 §8, with
// FluidSynth's conventions where the specification leaves room: each is named where it is used).
import Foundation
import Testing
import AVFoundation
import AudioAnalysis

/// Renders a sampler offline: `events` are (frame, MIDI bytes), scheduled on their frames.
func renderSampler(_ sampler: AVAudioUnitSampler, events: [(Int, [UInt8])], frames: Int, chunk: Int = 512,
                   rate: Double = 48_000) throws -> (left: [Float], right: [Float]) {
    let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2)!
    let engine = AVAudioEngine()
    try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 4096)
    engine.attach(sampler)
    engine.connect(sampler, to: engine.mainMixerNode, format: format)
    try engine.start()
    let schedule = try #require(sampler.auAudioUnit.scheduleMIDIEventBlock)
    let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4096)!
    var left: [Float] = [], right: [Float] = []
    var next = 0
    let sorted = events.sorted { $0.0 < $1.0 }
    while left.count < frames {
        let n = min(chunk, frames - left.count)
        // schedule what falls in this chunk (the unit's timeline starts at 0 with the engine's)
        while next < sorted.count && sorted[next].0 < left.count + n {
            let (t, bytes) = sorted[next]
            bytes.withUnsafeBufferPointer { schedule(AUEventSampleTime(t), 0, bytes.count, $0.baseAddress!) }
            next += 1
        }
        let status = try engine.renderOffline(AVAudioFrameCount(n), to: buffer)
        #expect(status == .success)
        left += UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength))
        right += UnsafeBufferPointer(start: buffer.floatChannelData![1], count: Int(buffer.frameLength))
    }
    engine.stop()
    return (left, right)
}

func rmsDB(_ x: ArraySlice<Float>) -> Double { Levels.dB(Levels.rms(x)) }

@Suite struct AVAudioUnitSamplerTests {
    /// 440 Hz sine at 44 kHz: 100 points per period, root key 69.
    static func sineBank(_ configure: (inout SoundFontBuilder) -> Void = { _ in }) throws -> URL {
        var b = SoundFontBuilder.sine(period: 100, cycles: 40)
        configure(&b)
        b.instrumentGenerators.insert((Gen.sampleModes, 1), at: 0)
        return try b.write()
    }

    @Test func builtInToneSoundsAtItsPitchOnItsFrame() throws {
        let sampler = AVAudioUnitSampler()
        #expect(sampler.numberOfInputs == 0 && sampler.numberOfOutputs == 1)
        #expect(sampler.name == "AUSampler")
        let out = try renderSampler(sampler, events: [(1_000, [0x90, 69, 127]), (30_000, [0x80, 69, 0])], frames: 48_000)
        #expect(out.left[0..<1_000].allSatisfy { $0 == 0 })
        #expect(out.left[1_000] == 0 && out.left[1_001] != 0)   // the ramp starts on the note's frame
        let stats = ToneAnalysis.stats(out.left[6_000..<28_000], sampleRate: 48_000, expected: 440)
        #expect(abs(stats.centsError) < 0.05, "\(stats.frequency) Hz")
        // released: 0.3 s release (96 dB over 0.3 s)
        #expect(rmsDB(out.left[45_000..<48_000]) < -80)
    }

    @Test func pitchFollowsRootKeyTuningAndScaleTuning() throws {
        // (key, instrument generators, expected Hz): 440 · 2^(cents/1200), cents = scale·(key − root) + coarse·100 + fine
        let cases: [(Int, [(UInt16, Int16)], Double)] = [
            (69, [], 440),
            (76, [], 440 * pow(2, 7.0 / 12)),
            (69, [(Gen.fineTune, 37)], 440 * pow(2, 37.0 / 1200)),
            (69, [(Gen.coarseTune, -12)], 220),
            (81, [(Gen.scaleTuning, 50)], 440 * pow(2, 6.0 / 12)),
            (60, [(Gen.overridingRootKey, 60)], 440),
        ]
        for (key, gens, expected) in cases {
            let url = try Self.sineBank { $0.instrumentGenerators = gens }
            defer { try? FileManager.default.removeItem(at: url) }
            let sampler = AVAudioUnitSampler()
            try sampler.loadSoundBankInstrument(at: url, program: 0, bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB), bankLSB: 0)
            let out = try renderSampler(sampler, events: [(0, [0x90, UInt8(key), 127])], frames: 24_000)
            let stats = ToneAnalysis.stats(out.left[4_000..<24_000], sampleRate: 48_000, expected: expected)
            #expect(abs(stats.centsError) < 0.05, "key \(key) \(gens): \(stats.frequency) Hz, expected \(expected)")
            // a 37-cycle loop played ~100 times: continuous, the residual is the interpolation's error
            #expect(stats.thdnDB < -60, "key \(key): THD+N \(stats.thdnDB) dB")
        }
        // globalTuning adds cents to every note; pitch bend (default ±2 semitones) too
        let url = try Self.sineBank()
        defer { try? FileManager.default.removeItem(at: url) }
        let sampler = AVAudioUnitSampler()
        try sampler.loadInstrument(at: url)
        sampler.globalTuning = 100
        var out = try renderSampler(sampler, events: [(0, [0x90, 69, 127])], frames: 24_000)
        #expect(abs(ToneAnalysis.stats(out.left[4_000...], sampleRate: 48_000, expected: 466.16).centsError - 1200 * log2(440 * pow(2, 1.0 / 12) / 466.16)) < 0.05)
        sampler.globalTuning = 0
        out = try renderSampler(sampler, events: [(0, [0xE0, 0x7F, 0x7F]), (0, [0x90, 69, 127])], frames: 24_000)
        let bent = 440 * pow(2, 2 * (8191.0 / 8192) / 12)
        #expect(abs(ToneAnalysis.stats(out.left[4_000...], sampleRate: 48_000, expected: bent).centsError) < 0.05)
    }

    @Test func volumeEnvelopeStages() throws {
        // attack 0.2 s (linear in amplitude), hold 0.1 s, decay 1 s to a sustain of 200 cB, release 0.5 s
        let url = try Self.sineBank {
            $0.instrumentGenerators = [(Gen.attackVolEnv, Gen.timecents(0.2)), (Gen.holdVolEnv, Gen.timecents(0.1)),
                                       (Gen.decayVolEnv, Gen.timecents(1)), (Gen.sustainVolEnv, 200),
                                       (Gen.releaseVolEnv, Gen.timecents(0.5))]
        }
        defer { try? FileManager.default.removeItem(at: url) }
        let sampler = AVAudioUnitSampler()
        try sampler.loadInstrument(at: url)
        let rate = 48_000.0
        let out = try renderSampler(sampler, events: [(0, [0x90, 69, 127]), (96_000, [0x80, 69, 0])], frames: 144_000)
        let x = out.left
        func level(_ t: Double) -> Double { rmsDB(x[Int(t * rate) - 240 ..< Int(t * rate) + 240]) }
        let peak = level(0.25)
        // linear attack: half the amplitude at half the attack (−6 dB), within a block
        #expect(abs(level(0.1) - (peak - 6.02)) < 0.3, "\(level(0.1)) vs \(peak)")
        // hold: flat
        #expect(abs(level(0.29) - peak) < 0.1)
        // decay: 96 dB per second, decibel-linear, towards the sustain level (FluidSynth's model:
        // sustain 200 cB → x = 0.8 → 960 × 0.2 = 192 cB = 19.2 dB below the peak)
        #expect(abs(level(0.4) - (peak - 9.6)) < 0.5, "\(level(0.4) - peak)")
        #expect(abs(level(1.8) - (peak - 19.2)) < 0.2, "\(level(1.8) - peak)")
        // release from the sustain level: 96 dB per 0.5 s → 19.2 dB more after 0.1 s
        #expect(abs(level(2.1) - (peak - 19.2 - 19.2)) < 0.7, "\(level(2.1) - peak)")
        #expect(x[Int(2.7 * rate)...].allSatisfy { $0 == 0 })
    }

    @Test func attenuationVelocityAndPan() throws {
        let url = try Self.sineBank { $0.instrumentGenerators = [(Gen.initialAttenuation, 100)] }
        let plain = try Self.sineBank()
        defer { try? FileManager.default.removeItem(at: url); try? FileManager.default.removeItem(at: plain) }
        func level(_ bank: URL, _ events: [(Int, [UInt8])], gain: Float = 0, pan: Float = 0) throws -> (Double, Double) {
            let sampler = AVAudioUnitSampler()
            try sampler.loadInstrument(at: bank)
            sampler.overallGain = gain
            sampler.stereoPan = pan
            let out = try renderSampler(sampler, events: events, frames: 12_000)
            return (rmsDB(out.left[4_000...]), rmsDB(out.right[4_000...]))
        }
        let full = try level(plain, [(0, [0x90, 69, 127])])
        // a centred mono sample: sin(π/4) on each side (FluidSynth's pan law); sine RMS = peak/√2;
        // the default CC7 of 100: 40·log10(127/100) = 4.15 dB down; FluidSynth's low-pass (always
        // on there) has the DC gain 1/√q with q = 10^(−3.01/20) at 0 dB resonance: +1.505 dB
        let expected = Levels.dB(16_000.0 / 32_768 * sin(Double.pi / 4) / 2.0.squareRoot()) - 40 * log10(127.0 / 100) + 1.505
        #expect(abs(full.0 - expected) < 0.05, "\(full) vs \(expected)")
        // initialAttenuation 100 cB × 0.4 (EMU/FluidSynth) = 4 dB
        #expect(abs(try level(url, [(0, [0x90, 69, 127])]).0 - (full.0 - 4)) < 0.05)
        // velocity 64: 40·log10(127/64) dB
        let soft = try level(plain, [(0, [0x90, 69, 64])]).0
        #expect(abs(soft - (full.0 - 40 * log10(127.0 / 64))) < 0.05, "\(soft) vs \(full.0)")
        // CC7 127 removes the default volume's 4.15 dB (40·log10(127/100))
        #expect(abs(try level(plain, [(0, [0xB0, 7, 127]), (0, [0x90, 69, 127])]).0 - (full.0 + 40 * log10(127.0 / 100))) < 0.05)
        // overallGain −6 dB; stereoPan −100 silences the right side
        #expect(abs(try level(plain, [(0, [0x90, 69, 127])], gain: -6).0 - (full.0 - 6)) < 0.05)
        let panned = try level(plain, [(0, [0x90, 69, 127])], pan: -100)
        #expect(abs(panned.0 - full.0) < 0.05 && panned.1 < -200)
    }

    @Test func renderingIsChunkIndependentAndSampleAccurate() throws {
        let sampler = { () -> AVAudioUnitSampler in AVAudioUnitSampler() }
        let events: [(Int, [UInt8])] = [(1_234, [0x90, 60, 100]), (2_345, [0x90, 64, 90]), (9_999, [0x80, 60, 0]),
                                         (10_500, [0xB0, 7, 80]), (12_000, [0xE0, 0, 0x50]), (20_001, [0x80, 64, 0])]
        let a = try renderSampler(sampler(), events: events, frames: 30_000, chunk: 512)
        let b = try renderSampler(sampler(), events: events, frames: 30_000, chunk: 333)
        #expect(a.left == b.left && a.right == b.right)
        #expect(a.left[..<1_235].allSatisfy { $0 == 0 } && a.left[1_235] != 0)
    }

    @Test func loadErrorsAreReadable() throws {
        let sampler = AVAudioUnitSampler()
        // missing file
        #expect(throws: NSError.self) { try sampler.loadSoundBankInstrument(at: URL(fileURLWithPath: "/nonexistent.sf2"), program: 0, bankMSB: 0x79, bankLSB: 0) }
        do { try sampler.loadSoundBankInstrument(at: URL(fileURLWithPath: "/nonexistent.sf2"), program: 0, bankMSB: 0x79, bankLSB: 0) } catch let e as NSError {
            #expect(e.code == -43)
        }
        // a damaged bank: the pbag chunk's size cut to a non-multiple of its records
        var bytes = SoundFontBuilder.sine(period: 100, cycles: 4).bytes()
        let pbag = try #require(bytes.indices.first { bytes[$0] == 0x70 && Array(bytes[$0..<$0 + 4]) == Array("pbag".utf8) })
        bytes[pbag + 4] = 7
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("sampler-bad-\(UUID().uuidString).sf2")
        try Data(bytes).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        do { try sampler.loadInstrument(at: url); Issue.record("loaded a damaged bank") } catch let e as NSError {
            #expect(e.code == Int(kAudioUnitErr_InvalidFile))
            #expect(e.localizedDescription.contains("'pbag'") || e.localizedDescription.contains("'pmod'"), "\(e.localizedDescription)")
            #expect(e.localizedDescription.contains("byte"), "\(e.localizedDescription)")
        }
        // an empty file (the sf2 fuzz target's first finding: Foundation's reader leaked its buffer)
        let empty = FileManager.default.temporaryDirectory.appendingPathComponent("sampler-empty-\(UUID().uuidString).sf2")
        try Data().write(to: empty)
        defer { try? FileManager.default.removeItem(at: empty) }
        do { try sampler.loadInstrument(at: empty); Issue.record("loaded an empty bank") } catch let e as NSError {
            #expect(e.code == Int(kAudioUnitErr_InvalidFile) && e.localizedDescription.contains("RIFF"), "\(e.localizedDescription)")
        }
        // a preset the bank lacks
        let good = try Self.sineBank()
        defer { try? FileManager.default.removeItem(at: good) }
        do { try sampler.loadSoundBankInstrument(at: good, program: 5, bankMSB: 0x79, bankLSB: 0); Issue.record("no error") } catch let e as NSError {
            #expect(e.code == Int(kAudioUnitErr_InvalidPropertyValue))
        }
        // a missing DLS bank: the file's reason, as for a SoundFont (DLS banks load: DLSSamplerTests)
        let dls = FileManager.default.temporaryDirectory.appendingPathComponent("missing-\(UUID().uuidString).dls")
        do { try sampler.loadInstrument(at: dls); Issue.record("no error") } catch let e as NSError {
            #expect(e.code == -43)
        }
        // EXS24: not yet, said so
        let exs = FileManager.default.temporaryDirectory.appendingPathComponent("x.exs")
        do { try sampler.loadInstrument(at: exs); Issue.record("no error") } catch let e as NSError {
            #expect(e.localizedDescription.contains("not supported yet"))
        }
    }

    @Test func exclusiveClassAndStealing() throws {
        // exclusive class 1: a second note cuts the first (release −200 timecents, FluidSynth's cut)
        let url = try Self.sineBank { $0.instrumentGenerators = [(Gen.exclusiveClass, 1), (Gen.releaseVolEnv, Gen.timecents(5))] }
        defer { try? FileManager.default.removeItem(at: url) }
        let sampler = AVAudioUnitSampler()
        try sampler.loadInstrument(at: url)
        let out = try renderSampler(sampler, events: [(0, [0x90, 69, 127]), (24_000, [0x90, 57, 127])], frames: 96_000)
        // after 1.5 s only the second note (220 Hz) remains: the 440 Hz component is gone
        let tail = out.left[72_000..<96_000]   // whole periods of both tones
        #expect(Levels.amplitude(tail, frequency: 440, sampleRate: 48_000) < 1e-4)
        #expect(Levels.amplitude(tail, frequency: 220, sampleRate: 48_000) > 0.05)
    }

    @Test func theOldestVoiceIsStolenBeyondThePolyphony() throws {
        // 256 voices (FluidSynth's default polyphony) sound; a 257th note steals the oldest,
        // which fades out over one control block (64 frames) instead of stopping dead.
        var events: [(Int, [UInt8])] = [(0, [0x90, 33, 127])]     // 55 Hz on the built-in tone, the oldest
        var n = 0
        for channel in 1..<16 { for key in 60..<78 where n < 256 { events.append((4_800, [0x90 | UInt8(channel), UInt8(key), 20])); n += 1 } }
        let out = try renderSampler(AVAudioUnitSampler(), events: events, frames: 48_000)
        let before = out.left[2_400..<4_800], after = out.left[24_000..<48_000]
        #expect(Levels.amplitude(before, frequency: 55, sampleRate: 48_000) > 0.05)
        #expect(Levels.amplitude(after, frequency: 55, sampleRate: 48_000) < 1e-3)   // (the other voices leak about 1e-4 into this bin)
        // the fade: within the 64 frames after the steal the 55 Hz voice's share falls smoothly —
        // no sample-to-sample jump larger than the steady mixture's own
        let steady = zip(out.left[20_000..<24_000].dropFirst(), out.left[20_000..<24_000]).map { abs($0 - $1) }.max()!
        let atSteal = zip(out.left[4_790..<4_900].dropFirst(), out.left[4_790..<4_900]).map { abs($0 - $1) }.max()!
        #expect(atSteal < 2 * steady + 0.01, "\(atSteal) vs \(steady)")
    }

    @Test func audioFilesAreMappedToKeys() throws {
        // one file: the whole keyboard, its own pitch on middle C; two files: keys 60 and 61
        func sineFile(_ hz: Double) throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("sampler-\(UUID().uuidString).wav")
            let format = AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 1)!
            let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 44_100)!
            for i in 0..<44_100 { buffer.floatChannelData![0][i] = Float(0.5 * sin(2 * Double.pi * hz * Double(i) / 44_100)) }
            buffer.frameLength = 44_100
            let file = try AVAudioFile(forWriting: url, settings: format.settings)
            try file.write(from: buffer)
            return url
        }
        let a = try sineFile(440), b = try sineFile(300)
        defer { try? FileManager.default.removeItem(at: a); try? FileManager.default.removeItem(at: b) }
        let one = AVAudioUnitSampler()
        try one.loadAudioFiles(at: [a])
        var out = try renderSampler(one, events: [(0, [0x90, 72, 127])], frames: 24_000)
        #expect(abs(ToneAnalysis.stats(out.left[2_000..<20_000], sampleRate: 48_000, expected: 880).centsError) < 0.1)
        let two = AVAudioUnitSampler()
        try two.loadAudioFiles(at: [a, b])
        out = try renderSampler(two, events: [(0, [0x90, 61, 127])], frames: 24_000)
        #expect(abs(ToneAnalysis.stats(out.left[2_000..<20_000], sampleRate: 48_000, expected: 300).centsError) < 0.1)
        let three = AVAudioUnitSampler()
        try three.loadAudioFiles(at: [a, b])
        out = try renderSampler(three, events: [(0, [0x90, 62, 127])], frames: 24_000)
        #expect(out.left.allSatisfy { $0 == 0 })   // no file on key 62
    }

    @Test func twentyFourBitSamplesUseTheLowBytes() throws {
        // A looped constant sample of 16-bit value 1 played at its own rate (48 kHz, root key):
        // with sm24 low bytes of 0x80 each point is (1·256 + 128)/2^23 instead of 256/2^23 — 1.5×.
        func level(lowBytes: UInt8?) throws -> Float {
            var b = SoundFontBuilder(samples: [Int16](repeating: 1, count: 400))
            b.sampleRate = 48_000
            b.loop = (100, 300)
            b.instrumentGenerators = [(Gen.sampleModes, 1)]
            if let lowBytes { b.version = (2, 4); b.sm24 = [UInt8](repeating: lowBytes, count: 400) }
            let url = try b.write()
            defer { try? FileManager.default.removeItem(at: url) }
            let sampler = AVAudioUnitSampler()
            try sampler.loadInstrument(at: url)
            let out = try renderSampler(sampler, events: [(0, [0x90, 69, 127])], frames: 4_800)
            return out.left[4_000]
        }
        let plain = try level(lowBytes: nil), with24 = try level(lowBytes: 0x80)
        #expect(plain > 0)
        #expect(abs(with24 / plain - 1.5) < 1e-4, "\(with24) / \(plain)")
    }

    @Test func midi2EventListsPlayNotes() throws {
        // AVAudioUnitMIDIInstrument.send(_:) with a MIDI 2.0 note-on (type 4, velocity 0xFFFF):
        // the built-in tone sounds A4 as from a MIDI 1.0 note-on at velocity 127
        let sampler = AVAudioUnitSampler()
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 4_096)
        engine.attach(sampler)
        engine.connect(sampler, to: engine.mainMixerNode, format: format)
        try engine.start()
        let words: [UInt32] = [0x4090_4500, 0xFFFF_0000]
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(8 + 12 + 8, MemoryLayout<MIDIEventList>.size), alignment: 8)
        defer { raw.deallocate() }
        raw.storeBytes(of: MIDIProtocolID._2_0.rawValue, toByteOffset: 0, as: Int32.self)
        raw.storeBytes(of: UInt32(1), toByteOffset: 4, as: UInt32.self)
        raw.storeBytes(of: UInt64(0), toByteOffset: 8, as: UInt64.self)
        raw.storeBytes(of: UInt32(2), toByteOffset: 16, as: UInt32.self)
        for (i, w) in words.enumerated() { raw.storeBytes(of: w, toByteOffset: 20 + 4 * i, as: UInt32.self) }
        sampler.send(UnsafePointer(raw.assumingMemoryBound(to: MIDIEventList.self)))
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4_096)!
        var left: [Float] = []
        for _ in 0..<6 {
            _ = try engine.renderOffline(4_096, to: buffer)
            left += UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength))
        }
        engine.stop()
        let midi1 = try renderSampler(AVAudioUnitSampler(), events: [(0, [0x90, 69, 127])], frames: left.count)
        #expect(abs(ToneAnalysis.stats(left[6_000...], sampleRate: 48_000, expected: 440).centsError) < 0.05)
        #expect(abs(rmsDB(left[6_000...]) - rmsDB(midi1.left[6_000...])) < 0.01)
    }

    @Test func loopModes() throws {
        // 40 cycles of 100 points at 44 kHz (91 ms), loop over cycles 1…38; release 5 s.
        // Mode 1 keeps looping through the release; mode 3 leaves the loop at the note-off and
        // plays to the sample's end (then the voice ends); mode 0 plays the sample once.
        func render(mode: Int16) throws -> [Float] {
            var b = SoundFontBuilder.sine(period: 100, cycles: 40)
            b.instrumentGenerators = [(Gen.sampleModes, mode), (Gen.releaseVolEnv, Gen.timecents(5))]
            let url = try b.write()
            defer { try? FileManager.default.removeItem(at: url) }
            let sampler = AVAudioUnitSampler()
            try sampler.loadInstrument(at: url)
            return try renderSampler(sampler, events: [(0, [0x90, 69, 127]), (24_000, [0x80, 69, 0])], frames: 48_000).left
        }
        let looped = try render(mode: 1), untilRelease = try render(mode: 3), once = try render(mode: 0)
        // before the note-off: modes 1 and 3 loop alike; mode 0 has ended after 4000 points (≈ 4364 frames)
        #expect(rmsDB(looped[20_000..<24_000]) > -20 && abs(rmsDB(untilRelease[20_000..<24_000]) - rmsDB(looped[20_000..<24_000])) < 0.01)
        #expect(once[4_500...].allSatisfy { $0 == 0 })
        // after the note-off: mode 1 still sounds (a 5 s release), mode 3 has run off the end within 4000 points
        #expect(rmsDB(looped[30_000..<34_000]) > -25)
        #expect(untilRelease[(24_000 + 4_500)...].allSatisfy { $0 == 0 })
        #expect(rmsDB(untilRelease[24_000..<24_500]) > -25)
    }
}

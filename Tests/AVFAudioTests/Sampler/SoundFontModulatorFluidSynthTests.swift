// Custom SoundFont modulators rendered by AVAudioUnitSampler and by FluidSynth 2.3 (the `fluidsynth`
// command line, reverb and chorus off), same crafted bank, same events: per note, the level
// change a modulator makes (each note's RMS against the scenario's first note, within 0.5 dB of
// FluidSynth's) and the spectrum's shape (octave-band levels against the note's total, within
// 1 dB, bands within 40 dB of the loudest). Comparing changes rather than absolute levels keeps
// out a constant FluidSynth has on every bank (0.41 dB, Benchmarks/results/sampler-latest.md);
// the absolute differences are printed. Vibrato depth (channel pressure → vibrato LFO pitch
// depth) is compared as the peak-to-peak pitch swing, within 10 %. Skips visibly without
// `fluidsynth`.
import Foundation
import Testing
import AVFoundation
import AudioAnalysis

enum FluidSynthReference {
    static let available: Bool = {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["fluidsynth", "--version"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch { return false }
        p.waitUntilExit()
        return p.terminationStatus == 0
    }()

    /// A format-0 MIDI file: 480 ticks per quarter at 120 bpm, so one tick is 50 frames at 48 kHz.
    static func midiFile(_ events: [(Int, [UInt8])]) -> [UInt8] {
        func vlq(_ v: Int) -> [UInt8] {
            var bytes = [UInt8(v & 0x7F)]
            var x = v >> 7
            while x > 0 { bytes.insert(UInt8(x & 0x7F) | 0x80, at: 0); x >>= 7 }
            return bytes
        }
        var track: [UInt8] = []
        var last = 0
        for (frame, bytes) in events.sorted(by: { $0.0 < $1.0 }) {
            let tick = frame / 50
            track += vlq(tick - last) + bytes
            last = tick
        }
        track += [0x00, 0xFF, 0x2F, 0x00]
        func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
        return Array("MThd".utf8) + be32(6) + [0, 0, 0, 1, 0x01, 0xE0] + Array("MTrk".utf8) + be32(track.count) + track
    }

    /// FluidSynth's rendering (left channel) of `events` (frames at 48 kHz, multiples of 50) with `bank`.
    static func render(bank: URL, events: [(Int, [UInt8])]) throws -> [Float] {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("fluid-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let mid = dir.appendingPathComponent("song.mid"), wav = dir.appendingPathComponent("out.wav")
        try Data(midiFile(events)).write(to: mid)
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["fluidsynth", "-ni", "-q", "-F", wav.path, "-r", "48000", "-T", "wav", "-O", "float", "-g", "0.2",
                       "-R", "0", "-C", "0", bank.path, mid.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        let file = try AVAudioFile(forReading: wav)
        let buffer = try #require(AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length)))
        try file.read(into: buffer)
        return Array(UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength)))
    }
}

@Suite(.enabled(if: FluidSynthReference.available, "the fluidsynth command is not installed"))
struct SoundFontModulatorFluidSynthTests {
    static let rate = 48_000.0
    /// Notes start every 0.8 s and sound 0.6 s; measured from 0.15 s in.
    static let spacing = 38_400, length = 28_800, measureFrom = 7_200, measureFrames = 16_384

    /// A 440 Hz bank at 44 kHz (100 points a period, 40 periods, looped after the first): a sine,
    /// or a sawtooth of 20 harmonics (amplitudes 1/k) for the filter scenarios.
    static func bank(saw: Bool, generators: [(UInt16, Int16)], modulators: [Mod]) throws -> URL {
        var b = SoundFontBuilder.sine(period: 100, cycles: 40, amplitude: 12_000)
        if saw {
            b.samples = (0..<4_000).map { i in
                var v = 0.0
                for k in 1...20 { v += sin(2 * Double.pi * Double(k * i) / 100) / Double(k) }
                return Int16((v * 7_000).rounded())
            }
        }
        b.instrumentGenerators = [(Gen.sampleModes, 1)] + generators
        b.instrumentModulators = modulators
        return try b.write()
    }

    /// Per note: (RMS dB, octave-band levels re the note's total power, dB, at 440 · 2^k Hz, k = 0 … 4).
    static func measure(_ x: [Float], notes: Int) -> [(Double, [Double])] {
        (0..<notes).map { n in
            let start = n * spacing + measureFrom
            let w = x[start ..< min(x.count, start + measureFrames)]
            let (power, df) = Spectrum.blackmanHarris(w, sampleRate: rate)
            let total = power.reduce(0, +)
            let bands = (0..<5).map { k -> Double in
                let fc = 440 * pow(2, Double(k))
                let lo = Int(fc / sqrt(2) / df), hi = min(power.count, Int(fc * sqrt(2) / df))
                return 10 * log10(max(power[lo..<hi].reduce(0, +), 1e-30) / total)
            }
            return (rmsDB(w), bands)
        }
    }

    /// Renders `events` both ways, returns (ours, FluidSynth's) left channels.
    static func renderBoth(_ url: URL, _ events: [(Int, [UInt8])], notes: Int) throws -> ([Float], [Float]) {
        let sampler = AVAudioUnitSampler()
        try sampler.loadInstrument(at: url)
        sampler.overallGain = Float(20 * log10(0.2))   // FluidSynth's gain 0.2 (compare_sampler.py's calibration)
        let ours = try renderSampler(sampler, events: events, frames: notes * spacing)
        let fluid = try FluidSynthReference.render(bank: url, events: events)
        return (ours.left, fluid)
    }

    /// One scenario: per note, the events before it (at its start) and (key, velocity); extra events at absolute frames.
    static func compare(_ name: String, saw: Bool, generators: [(UInt16, Int16)] = [], modulators: [Mod],
                        notes: [([[UInt8]], UInt8)], extra: [(Int, [UInt8])] = []) throws {
        let url = try bank(saw: saw, generators: generators, modulators: modulators)
        defer { try? FileManager.default.removeItem(at: url) }
        var events: [(Int, [UInt8])] = extra
        for (i, (setup, velocity)) in notes.enumerated() {
            let t = i * spacing
            for e in setup { events.append((t, e)) }
            events.append((t + 50, [0x90, 69, velocity]))
            events.append((t + 50 + length, [0x80, 69, 0]))
        }
        let (ours, fluid) = try renderBoth(url, events, notes: notes.count)
        let a = measure(ours, notes: notes.count), b = measure(fluid, notes: notes.count)
        for n in notes.indices {
            let ourChange = a[n].0 - a[0].0, fluidChange = b[n].0 - b[0].0
            let loudest = b[n].1.max()!
            let bandDiffs = zip(a[n].1, b[n].1).filter { $0.1 > loudest - 40 }.map { $0.0 - $0.1 }
            let worstBand = bandDiffs.map(abs).max() ?? 0
            print(String(format: "[modulators vs FluidSynth] %@ note %d: level change ours %+.2f dB, FluidSynth %+.2f dB (abs. level diff %+.2f dB); worst band diff %.2f dB",
                         name, n, ourChange, fluidChange, a[n].0 - b[n].0, worstBand))
            #expect(abs(ourChange - fluidChange) <= 0.5, "\(name) note \(n): level change \(ourChange) dB, FluidSynth \(fluidChange) dB")
            #expect(worstBand <= 1, "\(name) note \(n): bands \(a[n].1) vs FluidSynth \(b[n].1)")
        }
    }

    @Test func modulationWheelLowersTheCutoff() throws {
        // CC1 → initialFilterFc, −2400 cents at full wheel, cutoff 10000 cents (2.64 kHz); the last note moves the wheel while it sounds
        let cc1: UInt16 = Mod.src(1, cc: true)
        try Self.compare("CC1→Fc", saw: true, generators: [(Gen.initialFilterFc, 10_000)],
                         modulators: [Mod(source: cc1, destination: Gen.initialFilterFc, amount: -2400)],
                         notes: [([[0xB0, 1, 0]], 100), ([[0xB0, 1, 64]], 100), ([[0xB0, 1, 127]], 100), ([[0xB0, 1, 0]], 100)],
                         extra: [(3 * Self.spacing + 4_800, [0xB0, 1, 96])])
    }

    @Test func velocityToAttenuationConvex() throws {
        // an added convex velocity curve (negative, unipolar) into attenuation, 48 dB at its most, beside the default concave one
        try Self.compare("vel→att convex", saw: false,
                         modulators: [Mod(source: Mod.src(2, negative: true, curve: 2), destination: Gen.initialAttenuation, amount: 480)],
                         notes: [([], 127), ([], 100), ([], 70), ([], 40), ([], 15)])
    }

    @Test func brightnessControllerRaisesTheResonance() throws {
        // CC74 → initialFilterQ, 20 dB at full, cutoff 9600 cents (2.09 kHz)
        try Self.compare("CC74→Q", saw: true, generators: [(Gen.initialFilterFc, 9_600)],
                         modulators: [Mod(source: Mod.src(74, cc: true), destination: Gen.initialFilterQ, amount: 200)],
                         notes: [([[0xB0, 74, 0]], 100), ([[0xB0, 74, 64]], 100), ([[0xB0, 74, 127]], 100)])
    }

    @Test func instrumentModulatorReplacesTheDefaultVelocityCurve() throws {
        // identical to the default velocity → attenuation (concave, negative) with half its amount: replaces it
        try Self.compare("vel→att override", saw: false,
                         modulators: [Mod(source: 0x0502, destination: Gen.initialAttenuation, amount: 480)],
                         notes: [([], 127), ([], 90), ([], 60), ([], 30), ([], 10)])
    }

    @Test func channelPressureDeepensTheVibrato() throws {
        // channel pressure → vibratoLfoToPitch, +100 cents at full pressure (with the default's +50); vibrato at 5 Hz
        let url = try Self.bank(saw: false, generators: [(Gen.freqVibLFO, Int16((1200 * log2(5 / 8.176)).rounded()))],
                                modulators: [Mod(source: Mod.src(13), destination: Gen.vibLfoToPitch, amount: 100)])
        defer { try? FileManager.default.removeItem(at: url) }
        let pressures: [UInt8] = [0, 64, 127]
        var events: [(Int, [UInt8])] = []
        for (i, p) in pressures.enumerated() {
            events += [(i * Self.spacing, [0xD0, p]), (i * Self.spacing + 50, [0x90, 69, 100]), (i * Self.spacing + 50 + Self.length, [0x80, 69, 0])]
        }
        let (ours, fluid) = try Self.renderBoth(url, events, notes: pressures.count)
        /// Peak-to-peak pitch swing in cents over the note's measured part (1024-frame fits, 256-frame hop).
        func swing(_ x: [Float], _ n: Int) -> Double {
            let start = n * Self.spacing + Self.measureFrom
            var cents: [Double] = []
            var s = start
            while s + 1_024 <= start + Self.measureFrames {
                let f = ToneAnalysis.stats(x[s ..< s + 1_024], sampleRate: Self.rate, expected: 440).frequency
                cents.append(1200 * log2(f / 440))
                s += 256
            }
            return cents.max()! - cents.min()!
        }
        for n in pressures.indices {
            let a = swing(ours, n), b = swing(fluid, n)
            print(String(format: "[modulators vs FluidSynth] pressure→vibrato note %d (pressure %d): swing ours %.1f cents, FluidSynth %.1f cents", n, Int(pressures[n]), a, b))
            if n == 0 { #expect(a < 2 && b < 2) } else { #expect(abs(a - b) <= 0.1 * b, "pressure \(pressures[n]): \(a) vs \(b) cents") }
        }
    }
}

// DLS banks (Level 1 and 2) through AVAudioUnitSampler: banks crafted byte by byte (DLSBuilder),
// parsed fields checked against what was written, and rendered notes checked against the values
// written (pitch from the unity note, fine tune and key split; envelope times from time cents;
// gains in centibels). The SoundFont equivalence check is a cross-check of the mapping against
// the SoundFont path (itself checked against FluidSynth 2.3, which has no DLS loader): not an
// external oracle for DLS.
import Foundation
import Testing
import AVFoundation
import AudioAnalysis
import SoundBanks

@Suite struct DLSSamplerTests {
    typealias C = DLSConnection

    /// A bank of one instrument with one region playing a 440 Hz looped sine (100 points at 44 kHz),
    /// unity note 69, with `connections` as the region's articulation.
    static func sineBank(bits: UInt16 = 16, connections: [DLSConnectionBlock] = [], wsmp: DLSBuilder.Wsmp? = nil,
                         configure: (inout DLSBuilder) -> Void = { _ in }) -> DLSBuilder {
        var wave = DLSBuilder.sineWave(period: 100, cycles: 40, bits: bits)
        wave.wsmp = DLSBuilder.Wsmp(unityNote: 69, loops: [(0, 100, 3_800)])
        var region = DLSBuilder.Region()
        region.wsmp = wsmp
        region.connections = connections
        var b = DLSBuilder()
        b.waves = [wave]
        b.instruments = [DLSBuilder.Instrument(name: "Sine", regions: [region])]
        configure(&b)
        return b
    }

    static func play(_ bank: DLSBuilder, events: [(Int, [UInt8])], frames: Int, load: (AVAudioUnitSampler, URL) throws -> Void = { try $0.loadInstrument(at: $1) }) throws -> [Float] {
        let url = try bank.write()
        defer { try? FileManager.default.removeItem(at: url) }
        let sampler = AVAudioUnitSampler()
        try load(sampler, url)
        return try renderSampler(sampler, events: events, frames: frames).left
    }

    @Test func everyChunkFieldRoundTrips() throws {
        var b = DLSBuilder()
        var w1 = DLSBuilder.sineWave(period: 100, cycles: 4)
        w1.wsmp = DLSBuilder.Wsmp(unityNote: 57, fineTune: -12, gain: -655_360, options: 2, loops: [(0, 100, 200)])
        w1.name = "Sine16"
        var w2 = DLSBuilder.sineWave(period: 50, cycles: 3, bits: 8)
        w2.rate = 22_050; w2.name = "Sine8"
        b.waves = [w1, w2]
        let art1 = [dlsConn(C.srcNone, C.dstEG1Attack, -2_400), dlsConn(C.srcKeyOnVelocity, C.dstGain, -480, transform: C.transformConcave)]
        let art2 = [dlsConn(C.srcVibrato, C.dstPitch, 25, control: C.srcCC0 + 1, transform: 0x4000)]
        let r1 = DLSBuilder.Region(keys: (10, 60), velocities: (0, 127), options: 1, keyGroup: 3, wsmp: nil, tableIndex: 1, connections: art1)
        let r2 = DLSBuilder.Region(keys: (61, 100), velocities: (20, 90), options: 0, keyGroup: 0, layer: 7, level2: true,
                                   wsmp: DLSBuilder.Wsmp(unityNote: 72, fineTune: 5, gain: 65_536, loops: [(1, 10, 80)]), tableIndex: 0, connections: art2)
        b.instruments = [DLSBuilder.Instrument(name: "Piano", bank: 0x0000_0203, program: 5, regions: [r1, r2],
                                               connections: [dlsConn(C.srcNone, C.dstEG1Release, 1_200)]),
                         DLSBuilder.Instrument(name: "Drums", bank: 0x8000_0000, program: 0, regions: [DLSBuilder.Region(tableIndex: 1)], level2: true)]
        let dls = try DLSBank.parse(b.bytes())
        #expect(dls.name == "Test DLS")
        #expect(dls.version.0 == 0x0001_0002 && dls.version.1 == 0x0003_0004)
        #expect(dls.declaredInstrumentCount == 2)
        #expect(dls.poolTable.count == 2 && dls.poolTable[0] == 0)
        #expect(dls.waves.count == 2)
        let a = dls.waves[0], c = dls.waves[1]
        #expect(a.name == "Sine16" && a.formatTag == 1 && a.channels == 1 && a.sampleRate == 44_000 && a.bitsPerSample == 16 && a.frameCount == 400)
        #expect(a.sampleInfo == DLSSampleInfo(unityNote: 57, fineTune: -12, gain: -655_360, options: 2, loops: [DLSLoop(type: 0, start: 100, length: 200)]))
        #expect(c.name == "Sine8" && c.bitsPerSample == 8 && c.sampleRate == 22_050 && c.frameCount == 150 && c.sampleInfo == nil)
        #expect(Int(dls.poolTable[1]) == c.poolOffset)
        // samples: 16-bit / 32768, 8-bit (unsigned) − 128 / 128
        let written16 = Float(Int16((32_767 * 0.5 * sin(2 * Double.pi * 25 / 100)).rounded())) / 32_768
        let written8 = (Float(UInt8(128 + (127 * 0.5 * sin(2 * Double.pi * 12 / 50)).rounded())) - 128) / 128
        let read16 = dls.samples[a.start + 25], read8 = dls.samples[c.start + 12]
        #expect(abs(read16 - written16) < 1e-6)
        #expect(abs(read8 - written8) < 1e-6)
        #expect(dls.samples[a.start + a.frameCount ..< a.start + a.frameCount + DLSBank.guardFrames].allSatisfy { $0 == 0 })
        #expect(dls.instruments.count == 2)
        let piano = dls.instruments[0]
        #expect(piano.name == "Piano" && piano.bankMSB == 2 && piano.bankLSB == 3 && !piano.isDrum && piano.program == 5 && piano.samplerBank == 2)
        #expect(piano.connections == [dlsConn(C.srcNone, C.dstEG1Release, 1_200)])
        #expect(piano.regions.count == 2)
        let g1 = piano.regions[0], g2 = piano.regions[1]
        #expect(g1.keyLow == 10 && g1.keyHigh == 60 && g1.velocityLow == 0 && g1.velocityHigh == 127 && g1.options == 1 && g1.keyGroup == 3)
        #expect(!g1.isLevel2 && g1.sampleInfo == nil && g1.waveLink == DLSWaveLink(options: 0, phaseGroup: 0, channel: 1, tableIndex: 1) && g1.wave == 1)
        #expect(g1.connections == art1)
        #expect(g2.isLevel2 && g2.layer == 7 && g2.velocityLow == 20 && g2.velocityHigh == 90 && g2.wave == 0)
        #expect(g2.sampleInfo == DLSSampleInfo(unityNote: 72, fineTune: 5, gain: 65_536, loops: [DLSLoop(type: 1, start: 10, length: 80)]))
        #expect(g2.connections == art2)
        let drums = dls.instruments[1]
        #expect(drums.isDrum && drums.samplerBank == 128 && drums.name == "Drums")
        #expect(dls.instrument(bank: 128, program: 0)?.name == "Drums" && dls.instrument(bank: 2, program: 5)?.name == "Piano")
    }

    @Test func pitchFollowsTheKeySplitAndUnityNotes() throws {
        // region 1 (keys 0 … 63): 440 Hz wave, unity 60; region 2 (64 … 127): 880 Hz wave, unity 69.
        // At key 72 region 1 would give 880 Hz, region 2 gives 880·2^(3/12): the pitch tells the region.
        var low = DLSBuilder.sineWave(period: 100, cycles: 40)
        low.wsmp = DLSBuilder.Wsmp(unityNote: 60, loops: [(0, 100, 3_800)])
        var high = DLSBuilder.sineWave(period: 50, cycles: 80)
        high.wsmp = DLSBuilder.Wsmp(unityNote: 69, loops: [(0, 50, 3_900)])
        var b = DLSBuilder()
        b.waves = [low, high]
        b.instruments = [DLSBuilder.Instrument(regions: [DLSBuilder.Region(keys: (0, 63), tableIndex: 0), DLSBuilder.Region(keys: (64, 127), tableIndex: 1)])]
        for key in [48, 60, 63, 64, 72, 84] {
            let expected = key <= 63 ? 440 * pow(2, Double(key - 60) / 12) : 880 * pow(2, Double(key - 69) / 12)
            let x = try Self.play(b, events: [(0, [0x90, UInt8(key), 127])], frames: 24_000)
            let stats = ToneAnalysis.stats(x[4_000..<24_000], sampleRate: 48_000, expected: expected)
            #expect(abs(stats.centsError) < 1, "key \(key): \(stats.frequency) Hz, expected \(expected)")
        }
    }

    @Test func wsmpFineTuneAndGain() throws {
        let plain = try Self.play(Self.sineBank(), events: [(0, [0x90, 69, 127])], frames: 24_000)
        // fine tune +37 cents, gain −6 dB (−60 cB × 65536) in the region's wsmp
        let tuned = try Self.play(Self.sineBank(wsmp: DLSBuilder.Wsmp(unityNote: 69, fineTune: 37, gain: -60 * 65_536, loops: [(0, 100, 3_800)])),
                                  events: [(0, [0x90, 69, 127])], frames: 24_000)
        let stats = ToneAnalysis.stats(tuned[4_000...], sampleRate: 48_000, expected: 440 * pow(2, 37.0 / 1_200))
        #expect(abs(stats.centsError) < 1, "\(stats.frequency)")
        #expect(abs(rmsDB(tuned[4_000...]) - (rmsDB(plain[4_000...]) - 6)) < 0.05)
        // a region wsmp replaces the wave's (unity 69): with unity 57, key 69 plays the 440 Hz wave an octave up
        let moved = try Self.play(Self.sineBank(wsmp: DLSBuilder.Wsmp(unityNote: 57, loops: [(0, 100, 3_800)])), events: [(0, [0x90, 69, 127])], frames: 24_000)
        #expect(abs(ToneAnalysis.stats(moved[4_000...], sampleRate: 48_000, expected: 880).centsError) < 1)
        // a constant pitch connection adds cents; a constant gain connection attenuates
        let art = try Self.play(Self.sineBank(connections: [dlsConn(C.srcNone, C.dstPitch, -100), dlsConn(C.srcNone, C.dstGain, -120)]),
                                events: [(0, [0x90, 69, 127])], frames: 24_000)
        #expect(abs(ToneAnalysis.stats(art[4_000...], sampleRate: 48_000, expected: 440 * pow(2, -1.0 / 12)).centsError) < 1)
        #expect(abs(rmsDB(art[4_000...]) - (rmsDB(plain[4_000...]) - 12)) < 0.05)
    }

    @Test func eg1StagesFollowTheTimeCentsWritten() throws {
        // EG1: attack 0.2 s, hold 0.1 s, decay 1 s, sustain 80 % (of the 96 dB log range: −19.2 dB), release 0.5 s
        let bank = Self.sineBank(connections: [dlsConn(C.srcNone, C.dstEG1Attack, dlsTimecents(0.2)), dlsConn(C.srcNone, C.dstEG1Hold, dlsTimecents(0.1)),
                                               dlsConn(C.srcNone, C.dstEG1Decay, dlsTimecents(1)), dlsConn(C.srcNone, C.dstEG1Sustain, 800),
                                               dlsConn(C.srcNone, C.dstEG1Release, dlsTimecents(0.5))])
        let rate = 48_000.0
        let x = try Self.play(bank, events: [(0, [0x90, 69, 127]), (96_000, [0x80, 69, 0])], frames: 144_000)
        func level(_ t: Double) -> Double { rmsDB(x[Int(t * rate) - 240 ..< Int(t * rate) + 240]) }
        let peak = level(0.25)
        #expect(abs(level(0.1) - (peak - 6.02)) < 0.3, "attack: \(level(0.1) - peak)")       // linear attack: half way, −6 dB
        #expect(abs(level(0.29) - peak) < 0.1, "hold")
        #expect(abs(level(0.4) - (peak - 9.6)) < 0.5, "decay: \(level(0.4) - peak)")          // 96 dB/s after 0.1 s of decay
        #expect(abs(level(1.8) - (peak - 19.2)) < 0.2, "sustain: \(level(1.8) - peak)")
        #expect(abs(level(2.1) - (peak - 38.4)) < 0.7, "release: \(level(2.1) - peak)")       // 96 dB per 0.5 s
        #expect(x[Int(2.7 * rate)...].allSatisfy { $0 == 0 })
        // key number → EG1 decay (Level 1): scale × key / 128 time cents: at key 69 + 12 = 81 the decay
        // is 1 s × 2^(−1200·12/128 / 1200) shorter than at 69; here −1200 × 128 / 12 per 128 keys:
        // key 81 decays twice as fast as key 69
        let keyed = Self.sineBank(connections: [dlsConn(C.srcNone, C.dstEG1Decay, dlsTimecents(1) + 1_200 * 69 / 12),
                                                dlsConn(C.srcKeyNumber, C.dstEG1Decay, -1_200 * 128 / 12), dlsConn(C.srcNone, C.dstEG1Sustain, 0)])
        let at69 = try Self.play(keyed, events: [(0, [0x90, 69, 127])], frames: 24_000)
        let at81 = try Self.play(keyed, events: [(0, [0x90, 81, 127])], frames: 24_000)
        func drop(_ y: [Float]) -> Double { rmsDB(y[2_000..<2_480]) - rmsDB(y[14_000..<14_480]) }
        // 0.25 s apart: 24 dB at 1 s decay, 48 dB at 0.5 s
        #expect(abs(drop(at69) - 24) < 0.5 && abs(drop(at81) - 48) < 0.7, "\(drop(at69)) \(drop(at81))")
    }

    @Test func velocityToAttenuation() throws {
        func level(_ connections: [DLSConnectionBlock], _ velocity: UInt8) throws -> Double {
            rmsDB(try Self.play(Self.sineBank(connections: connections), events: [(0, [0x90, 69, velocity])], frames: 12_000)[4_000...])
        }
        let full = try level([], 127)
        // the default: −96 dB concave, 40·log10(127/v) dB
        let at64 = try level([], 64), at32 = try level([], 32)
        #expect(abs(at64 - (full - 40 * log10(127.0 / 64))) < 0.05)
        #expect(abs(at32 - (full - 40 * log10(127.0 / 32))) < 0.05)
        // a −48 dB concave connection: half the decibels
        let half = [dlsConn(C.srcKeyOnVelocity, C.dstGain, -480, transform: C.transformConcave)]
        let half127 = try level(half, 127), half64 = try level(half, 64)
        // (at velocity 127 the custom curve reads FluidSynth's table between its last two points,
        // velocity over a range of 128: 0.068 dB of attenuation, where the built-in curve gives none)
        #expect(abs(half127 - full) < 0.08, "\(half127 - full)")
        #expect(abs(half64 - (full - 20 * log10(127.0 / 64))) < 0.1, "\(half64 - full)")
        // the same in Level 2's layout (the source transform in bits 10–13)
        let half2 = [dlsConn(C.srcKeyOnVelocity, C.dstGain, -480, transform: C.transformConcave << 10)]
        let level2at64 = try level(half2, 64)
        #expect(abs(level2at64 - (full - 20 * log10(127.0 / 64))) < 0.1)
    }

    @Test func keyGroupCutsTheEarlierNote() throws {
        // key group 1 with a 5 s release: a second note cuts the first; without a group both sound
        func render(group: UInt16) throws -> [Float] {
            let b = Self.sineBank(connections: [dlsConn(C.srcNone, C.dstEG1Release, dlsTimecents(5))]) { $0.instruments[0].regions[0].keyGroup = group }
            return try Self.play(b, events: [(0, [0x90, 69, 127]), (24_000, [0x90, 57, 127])], frames: 96_000)
        }
        let cut = try render(group: 1), both = try render(group: 0)
        #expect(Levels.amplitude(cut[72_000..<96_000], frequency: 440, sampleRate: 48_000) < 1e-4)
        #expect(Levels.amplitude(cut[72_000..<96_000], frequency: 220, sampleRate: 48_000) > 0.05)
        #expect(Levels.amplitude(both[72_000..<96_000], frequency: 440, sampleRate: 48_000) > 0.05)
    }

    @Test func releaseLoopPlaysOnToTheEndAfterNoteOff() throws {
        // a wave: 40 cycles of sine then 2000 frames of silence-free DC? No: sine, then silence after the loop.
        // Level 2 release loop (type 1) over cycles 1 … 3: held, it loops; released, it plays on to the
        // end of the wave (0.09 s at 44 kHz) and stops. A forward loop (type 0) keeps looping through the release.
        func render(loopType: UInt32) throws -> [Float] {
            let b = Self.sineBank(connections: [dlsConn(C.srcNone, C.dstEG1Release, dlsTimecents(4))]) {
                $0.waves[0].wsmp = DLSBuilder.Wsmp(unityNote: 69, loops: [(loopType, 100, 300)])
                $0.instruments[0].regions[0].level2 = true
            }
            return try Self.play(b, events: [(0, [0x90, 69, 127]), (24_000, [0x80, 69, 0])], frames: 48_000)
        }
        let release = try render(loopType: 1), forward = try render(loopType: 0)
        // held: both loop (still sounding at 0.45 s, long after the wave's 0.09 s)
        #expect(rmsDB(release[20_000..<22_000]) > -20 && rmsDB(forward[20_000..<22_000]) > -20)
        // released: the release loop's voice reaches the wave's end within 0.1 s and ends; the forward one sounds on
        #expect(release[30_000...].allSatisfy { $0 == 0 })
        #expect(rmsDB(forward[30_000..<32_000]) > -40)
    }

    @Test func eightBitWavesPlayAtTheirPitchAndLevel() throws {
        let x8 = try Self.play(Self.sineBank(bits: 8), events: [(0, [0x90, 69, 127])], frames: 24_000)
        let x16 = try Self.play(Self.sineBank(bits: 16), events: [(0, [0x90, 69, 127])], frames: 24_000)
        let stats = ToneAnalysis.stats(x8[4_000...], sampleRate: 48_000, expected: 440)
        #expect(abs(stats.centsError) < 1, "\(stats.frequency)")
        // same amplitude (0.5 of full scale; 8-bit: 64/128 vs 16-bit 16384/32768) within 8-bit rounding
        #expect(abs(rmsDB(x8[4_000...]) - rmsDB(x16[4_000...])) < 0.1)
        #expect(stats.thdnDB < -35, "8-bit quantisation: \(stats.thdnDB) dB")
    }

    @Test func drumInstrumentsLoadThroughThePercussionBank() throws {
        // a melodic instrument (program 0, 440 Hz) and a drum kit (program 0, bank flag F_INSTRUMENT_DRUMS, 880 Hz)
        var b = Self.sineBank()
        var high = DLSBuilder.sineWave(period: 50, cycles: 80)
        high.wsmp = DLSBuilder.Wsmp(unityNote: 69, loops: [(0, 50, 3_900)])
        b.waves.append(high)
        b.instruments.append(DLSBuilder.Instrument(name: "Kit", bank: 0x8000_0000, program: 0, regions: [DLSBuilder.Region(tableIndex: 1)]))
        let drums = try Self.play(b, events: [(0, [0x90, 69, 127])], frames: 24_000) {
            try $0.loadSoundBankInstrument(at: $1, program: 0, bankMSB: UInt8(kAUSampler_DefaultPercussionBankMSB), bankLSB: 0)
        }
        #expect(abs(ToneAnalysis.stats(drums[4_000...], sampleRate: 48_000, expected: 880).centsError) < 1)
        let melodic = try Self.play(b, events: [(0, [0x90, 69, 127])], frames: 24_000) {
            try $0.loadSoundBankInstrument(at: $1, program: 0, bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB), bankLSB: 0)
        }
        #expect(abs(ToneAnalysis.stats(melodic[4_000...], sampleRate: 48_000, expected: 440).centsError) < 1)
        // a program the bank lacks: kAudioUnitErr_InvalidPropertyValue
        let url = try b.write()
        defer { try? FileManager.default.removeItem(at: url) }
        do { try AVAudioUnitSampler().loadSoundBankInstrument(at: url, program: 9, bankMSB: 0x79, bankLSB: 0); Issue.record("no error") } catch let e as NSError {
            #expect(e.code == Int(kAudioUnitErr_InvalidPropertyValue))
        }
    }

    @Test func aBankIsRecognisedByItsContent() throws {
        // a DLS file named .bin loads as DLS (not as an audio file)
        let url = try Self.sineBank().write(ext: "bin")
        defer { try? FileManager.default.removeItem(at: url) }
        let sampler = AVAudioUnitSampler()
        try sampler.loadInstrument(at: url)
        let x = try renderSampler(sampler, events: [(0, [0x90, 69, 127])], frames: 24_000).left
        #expect(abs(ToneAnalysis.stats(x[4_000...], sampleRate: 48_000, expected: 440).centsError) < 1)
    }

    @Test func hostileFilesGiveErrorsNamingTheChunkAndOffset() throws {
        let good = Self.sineBank().bytes()
        func offset(of id: String, in bytes: [UInt8]) -> Int {
            bytes.indices.first { $0 + 4 <= bytes.count && Array(bytes[$0..<$0 + 4]) == Array(id.utf8) }!
        }
        func error(_ bytes: [UInt8]) -> NSError? {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("sampler-dls-bad-\(UUID().uuidString).dls")
            try? Data(bytes).write(to: url)
            defer { try? FileManager.default.removeItem(at: url) }
            do { try AVAudioUnitSampler().loadInstrument(at: url); return nil } catch let e as NSError { return e } catch { return nil }
        }
        var cases: [(String, [UInt8], String, Int?)] = []
        // truncated: the file cut inside the wave pool (the RIFF size still says more)
        let wvpl = offset(of: "wvpl", in: good) - 8
        cases.append(("truncated", Array(good[..<(wvpl + 40)]), "'LIST' chunk at byte \(wvpl)", wvpl))
        // a region linking past the pool table
        var past = Self.sineBank()
        past.instruments[0].regions[0].tableIndex = 5
        let pastBytes = past.bytes()
        let wlnk = offset(of: "wlnk", in: pastBytes)
        cases.append(("past the pool table", pastBytes, "'wlnk' chunk at byte \(wlnk)", wlnk))
        // an absurd loop count in a wsmp
        var loops = good
        let wsmp = offset(of: "wsmp", in: loops)
        loops[wsmp + 8 + 16] = 0xFF; loops[wsmp + 8 + 17] = 0xFF; loops[wsmp + 8 + 18] = 0xFF; loops[wsmp + 8 + 19] = 0x7F
        cases.append(("absurd loop count", loops, "'wsmp' chunk at byte \(wsmp)", wsmp))
        // an absurd connection count
        var art = Self.sineBank(connections: [dlsConn(C.srcNone, C.dstEG1Attack, 0)]).bytes()
        let art1 = offset(of: "art1", in: art)
        art[art1 + 12] = 0xFF; art[art1 + 13] = 0xFF; art[art1 + 14] = 0xFF; art[art1 + 15] = 0xFF
        cases.append(("absurd connection count", art, "'art1' chunk at byte \(art1)", art1))
        // a pool-table cue naming no wave
        var cue = Self.sineBank()
        cue.poolTable = [12_345]
        let cueBytes = cue.bytes()
        cases.append(("cue naming no wave", cueBytes, "'ptbl' chunk at byte \(offset(of: "ptbl", in: cueBytes))", nil))
        // an absurd chunk size
        var size = good
        let colh = offset(of: "colh", in: size)
        size[colh + 4] = 0xFF; size[colh + 5] = 0xFF; size[colh + 6] = 0xFF; size[colh + 7] = 0xFF
        cases.append(("absurd chunk size", size, "'colh' chunk at byte \(colh)", colh))
        // the region count in insh disagreeing with the regions
        var count = Self.sineBank()
        count.instruments[0].declaredRegions = 1_000_000
        let countBytes = count.bytes()
        cases.append(("region count", countBytes, "'insh' chunk at byte \(offset(of: "insh", in: countBytes))", nil))
        // a 24-bit wave
        var deep = good
        let fmt = offset(of: "fmt ", in: deep)
        deep[fmt + 8 + 14] = 24
        cases.append(("24-bit wave", deep, "'fmt ' chunk at byte \(fmt)", fmt))
        for (name, bytes, expected, _) in cases {
            let e = try #require(error(bytes), "\(name): loaded")
            #expect(e.code == Int(kAudioUnitErr_InvalidFile), "\(name)")
            #expect(e.localizedDescription.contains("DLS " + expected), "\(name): \(e.localizedDescription)")
        }
        // every truncation of a valid bank: an error or a bank, never a trap
        for cut in stride(from: 0, to: good.count, by: 7) { _ = try? DLSBank.parse(Array(good[..<cut])) }
    }

    @Test func aDLSAndASoundFontWithTheSameSampleAndEnvelopeRenderAlike() throws {
        // Cross-check of the mapping against the SoundFont path (checked against FluidSynth 2.3;
        // FluidSynth has no DLS loader, so this is not an external oracle): the same 440 Hz sine,
        // attack 0.05 s, decay 0.8 s, sustain 75 % (SoundFont: 250 cB), release 0.3 s.
        let dls = Self.sineBank(connections: [dlsConn(C.srcNone, C.dstEG1Attack, dlsTimecents(0.05)), dlsConn(C.srcNone, C.dstEG1Decay, dlsTimecents(0.8)),
                                              dlsConn(C.srcNone, C.dstEG1Sustain, 750), dlsConn(C.srcNone, C.dstEG1Release, dlsTimecents(0.3))])
        var sf2 = SoundFontBuilder.sine(period: 100, cycles: 40)
        sf2.samples = sf2.samples.map { Int16((Double($0) * 0.5 * 32_767 / 16_000).rounded()) }
        sf2.loop = (100, 3_900)
        sf2.instrumentGenerators = [(Gen.sampleModes, 1), (Gen.attackVolEnv, Gen.timecents(0.05)), (Gen.decayVolEnv, Gen.timecents(0.8)),
                                    (Gen.sustainVolEnv, 250), (Gen.releaseVolEnv, Gen.timecents(0.3))]
        let sf2URL = try sf2.write()
        defer { try? FileManager.default.removeItem(at: sf2URL) }
        var worst = 0.0
        for (key, velocity) in [(45, 127), (57, 100), (69, 127), (76, 64), (88, 30)] as [(UInt8, UInt8)] {
            let events: [(Int, [UInt8])] = [(0, [0x90, key, velocity]), (48_000, [0x80, key, 0])]
            let a = try Self.play(dls, events: events, frames: 72_000)
            let sampler = AVAudioUnitSampler()
            try sampler.loadInstrument(at: sf2URL)
            let b = try renderSampler(sampler, events: events, frames: 72_000).left
            for start in stride(from: 0, to: 60_000, by: 4_800) {
                let da = rmsDB(a[start..<start + 4_800]), db = rmsDB(b[start..<start + 4_800])
                guard db > -100 else { continue }
                worst = max(worst, abs(da - db))
            }
        }
        print("DLS vs SoundFont, same sample and envelope: largest difference per 0.1 s window \(worst) dB")
        #expect(worst < 0.5, "largest difference per 0.1 s window: \(worst) dB")
    }
}

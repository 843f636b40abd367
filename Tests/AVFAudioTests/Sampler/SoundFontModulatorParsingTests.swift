// SoundFont modulator records (SoundFont 2.04 §8.2–8.4, §9.5) as the bank reader resolves them:
// what a zone writes is what a region's voice list holds, the identity rule (an instrument
// record replaces an identical default, a preset record adds its amount), and hostile records
// (cyclic links, out-of-range destinations, reserved controllers, undefined transforms) dropped
// or neutralised without a trap.
import Foundation
import Testing
import SoundBanks
import AVFoundation

@Suite struct SoundFontModulatorParsingTests {
    static func parse(_ configure: (inout SoundFontBuilder) -> Void) throws -> (SoundFont, [SF2Modulator]) {
        var b = SoundFontBuilder.sine(period: 100, cycles: 40)
        configure(&b)
        let font = try SoundFont.parse(b.bytes())
        let region = try #require(font.regions.first)
        return (font, Array(font.modulators[region.modulators]))
    }

    @Test func writtenRecordsAreTheVoiceListAfterTheDefaults() throws {
        let cc1ToFc = Mod(source: Mod.src(1, cc: true), destination: Gen.initialFilterFc, amount: -2400)
        let velConvex = Mod(source: Mod.src(2, negative: true, curve: 2), destination: Gen.initialAttenuation, amount: 480,
                            amountSource: Mod.src(74, cc: true, bipolar: true), transform: 2)
        let (_, list) = try Self.parse { $0.instrumentModulators = [cc1ToFc, velConvex] }
        #expect(list.count == SF2Modulator.defaults.count + 2)
        #expect(Array(list.prefix(SF2Modulator.defaults.count)) == SF2Modulator.defaults)
        #expect(list[10] == SF2Modulator(source: 0x0081, destination: 8, amount: -2400, amountSource: 0, transform: 0))
        #expect(list[11] == SF2Modulator(source: 0x0902, destination: 48, amount: 480, amountSource: 0x02CA, transform: 2))
    }

    @Test func instrumentRecordReplacesAnIdenticalDefaultAndPresetRecordsAdd() throws {
        let vel = Mod(source: 0x0502, destination: Gen.initialAttenuation, amount: 480)
        let (_, list) = try Self.parse {
            $0.instrumentModulators = [vel]
            $0.presetModulators = [Mod(source: 0x0502, destination: Gen.initialAttenuation, amount: 100),
                                   Mod(source: Mod.src(74, cc: true), destination: Gen.initialFilterQ, amount: 50)]
        }
        #expect(list.count == SF2Modulator.defaults.count + 1)
        #expect(list[0].amount == 480 + 100)          // replaced by the instrument's, then the preset's added
        #expect(list[10].destination == 9 && list[10].amount == 50)
        // a preset-only record identical to a default adds to the default's amount
        let (_, presetOnly) = try Self.parse { $0.presetModulators = [Mod(source: 0x0587, destination: 48, amount: -460)] }
        #expect(presetOnly.count == SF2Modulator.defaults.count && presetOnly[4].amount == 500)
    }

    @Test func hostileRecordsAreDroppedNotTrapped() throws {
        let records: [Mod] = [
            Mod(source: Mod.src(1, cc: true), destination: 0x8001, amount: 100),     // 0: links to 1, which links back to 0's target…
            Mod(source: 127, destination: 0x8002, amount: 100),                         // 1: link source, links to 2
            Mod(source: 127, destination: 0x8001, amount: 100),                         // 2: link source, links to 1: a cycle 1 ⇄ 2
            Mod(source: Mod.src(1, cc: true), destination: 60, amount: 100),           // 3: destination past the generators
            Mod(source: Mod.src(1, cc: true), destination: 53, amount: 100),           // 4: sampleID: not a modulator destination
            Mod(source: Mod.src(6, cc: true), destination: 8, amount: 100),            // 5: CC6 (data entry) is reserved
            Mod(source: 0, destination: 8, amount: 100),                                // 6: "no controller" as primary source
            Mod(source: Mod.src(2), destination: 0x8000 | 999, amount: 100),           // 7: link past the list
            Mod(source: Mod.src(2), destination: 8, amount: 300, transform: 7),        // 8: undefined transform: kept, amount 0
            Mod(source: Mod.src(2, curve: 9), destination: 9, amount: 300),            // 9: undefined curve: kept, amount 0
            Mod(source: Mod.src(2), destination: 8, amount: 55, transform: 7),         // 10: identical to 8 in the same zone: dropped
        ]
        let (_, list) = try Self.parse { $0.instrumentModulators = records }
        let custom = Array(list.dropFirst(SF2Modulator.defaults.count))
        #expect(custom.count == 2)
        #expect(custom.allSatisfy { $0.amount == 0 })
        #expect(custom.map(\.destination) == [8, 9])
        // and the bank plays: notes on the unit with these records render finite output
        let url = try { var b = SoundFontBuilder.sine(period: 100, cycles: 40); b.instrumentModulators = records; return try b.write() }()
        defer { try? FileManager.default.removeItem(at: url) }
        let sampler = AVAudioUnitSampler()
        try sampler.loadInstrument(at: url)
        let out = try renderSampler(sampler, events: [(0, [0x90, 69, 100]), (0, [0xB0, 1, 90]), (4_800, [0x80, 69, 0])], frames: 9_600)
        #expect(out.left.allSatisfy { $0.isFinite } && out.left.contains { $0 != 0 })
    }

    @Test func chainEndingInALinkPastTheListIsDroppedWhole() {
        // The sf2 fuzz target's finding (Fuzz/findings/sf2-fixed-link-chain-past-the-list): the
        // cycle check walked a chain into a record that links past the list, and indexed there.
        let records = [
            SF2Modulator(source: 0x0081, destination: 0x8001, amount: 100, amountSource: 0, transform: 0),  // 0: CC1 → link into 1
            SF2Modulator(source: 127, destination: 0x8002, amount: 100, amountSource: 0, transform: 0),     // 1: link source → link into 2
            SF2Modulator(source: 127, destination: 0x8000 | 999, amount: 100, amountSource: 0, transform: 0), // 2: link source → past the list
            SF2Modulator(source: 0x0081, destination: 8, amount: -2400, amountSource: 0, transform: 0),     // 3: CC1 → filter cutoff
        ]
        // 2 links nowhere, so 1 links into a dropped record, so 0 does: only 3 is left
        #expect(SF2Modulator.checkedZoneList(records) == [records[3]])
    }

    @Test func linkedChainIsRenumberedAndEvaluated() throws {
        // 0: CC1 → link into 2; 1: an unrelated record; 2: link source → initialAttenuation
        let records: [Mod] = [
            Mod(source: Mod.src(1, cc: true), destination: 0x8002, amount: 2),
            Mod(source: Mod.src(74, cc: true), destination: Gen.initialFilterQ, amount: 10),
            Mod(source: 127, destination: Gen.initialAttenuation, amount: 100),
        ]
        let (_, list) = try Self.parse { $0.instrumentModulators = records }
        let custom = Array(list.dropFirst(SF2Modulator.defaults.count))
        #expect(custom.count == 3)
        #expect(custom[0].linkTarget == SF2Modulator.defaults.count + 2)
        #expect(custom[2].sourceIsLink)
        // Rendered: the link's input is CC1's output (2 × cc/128), × 100 → centibels of attenuation.
        // CC1 = 127 gives 2 × 127/128 × 100 = 198.4 cB = 19.84 dB below CC1 = 0.
        func level(cc1: UInt8) throws -> Double {
            let url = try { var b = SoundFontBuilder.sine(period: 100, cycles: 40); b.loop = (100, 3_900); b.instrumentGenerators = [(Gen.sampleModes, 1)]
                            b.instrumentModulators = records; return try b.write() }()
            defer { try? FileManager.default.removeItem(at: url) }
            let sampler = AVAudioUnitSampler()
            try sampler.loadInstrument(at: url)
            let out = try renderSampler(sampler, events: [(0, [0xB0, 1, cc1]), (0, [0x90, 69, 127])], frames: 24_000)
            return rmsDB(out.left[12_000..<24_000])
        }
        let drop = try level(cc1: 0) - level(cc1: 127)
        #expect(abs(drop - 19.84) < 0.05, "\(drop) dB")
    }

    @Test func modulatedVoicesAreIndependentOfTheRenderChunk() throws {
        // controllers, pressure, poly pressure and bend moving while modulated notes sound: the
        // re-evaluation happens at each voice's own control blocks, so any chunking gives the same samples
        var b = SoundFontBuilder.sine(period: 100, cycles: 40)
        b.instrumentGenerators = [(Gen.sampleModes, 1), (Gen.initialFilterFc, 9_000)]
        b.instrumentModulators = [Mod(source: Mod.src(1, cc: true), destination: Gen.initialFilterFc, amount: -2400),
                                  Mod(source: Mod.src(74, cc: true), destination: Gen.initialFilterQ, amount: 200),
                                  Mod(source: Mod.src(13), destination: Gen.vibLfoToPitch, amount: 100),
                                  Mod(source: Mod.src(10), destination: Gen.initialAttenuation, amount: 300),
                                  Mod(source: Mod.src(14, bipolar: true), destination: Gen.fineTune, amount: 50, amountSource: Mod.src(16))]
        let url = try b.write()
        defer { try? FileManager.default.removeItem(at: url) }
        let events: [(Int, [UInt8])] = [(0, [0x90, 60, 100]), (333, [0x90, 67, 80]), (1_000, [0xB0, 1, 90]), (1_777, [0xB0, 74, 120]),
                                        (2_500, [0xD0, 100]), (3_001, [0xA0, 60, 70]), (4_100, [0xE0, 0, 100]), (6_000, [0x80, 60, 0])]
        var outputs: [[Float]] = []
        for chunk in [64, 100, 512, 4_096] {
            let sampler = AVAudioUnitSampler()
            try sampler.loadInstrument(at: url)
            outputs.append(try renderSampler(sampler, events: events, frames: 9_600, chunk: chunk).left)
        }
        #expect(outputs[0].contains { $0 != 0 })
        for o in outputs.dropFirst() { #expect(o == outputs[0]) }
    }

    @Test func localZoneRecordsOverrideTheGlobalZonesAndLinksAreRenumbered() {
        let a = SF2Modulator(source: 0x0081, destination: 8, amount: -100, amountSource: 0, transform: 0)
        let aLocal = SF2Modulator(source: 0x0081, destination: 8, amount: -900, amountSource: 0, transform: 0)
        let b = SF2Modulator(source: 0x0002, destination: 9, amount: 30, amountSource: 0, transform: 0)
        // the global zone's chain: record 2 (CC1) feeds record 3 (link source → attenuation)
        let feed = SF2Modulator(source: 0x0081, destination: 0x8003, amount: 2, amountSource: 0, transform: 0)
        let sink = SF2Modulator(source: 127, destination: 48, amount: 100, amountSource: 0, transform: 0)
        let extra = SF2Modulator(source: 0x00CA, destination: 9, amount: 40, amountSource: 0, transform: 0)
        let zone = SF2Modulator.zoneList(global: [a, b, feed, sink], local: [aLocal, extra])
        // local records first; the global record identical to a local one left out; the chain's
        // link renumbered from global index 3 to its place in the zone's list, 4
        #expect(zone == [aLocal, extra, b, SF2Modulator(source: 0x0081, destination: 0x8004, amount: 2, amountSource: 0, transform: 0), sink])
        let voice = SF2Modulator.voiceList(instrument: zone, preset: [SF2Modulator(source: 0x0081, destination: 8, amount: 50, amountSource: 0, transform: 0)])
        let n = SF2Modulator.defaults.count
        #expect(voice.count == n + 5)
        #expect(voice[n].amount == -850)                                   // the preset's amount added to the instrument's
        #expect(voice[n + 3].linkTarget == n + 4 && voice[n + 4].sourceIsLink)
    }
}

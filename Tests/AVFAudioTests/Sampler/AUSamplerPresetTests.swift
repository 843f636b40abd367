// AVAudioUnitSampler.loadInstrument(at:) with AUSampler presets (`.aupreset`): presets written here
// as property lists (XML and binary) in the layout AU Lab saves (`Instrument` → `Layers` → `Zones`,
// `Envelopes`, `Connections`; `file-references`), sample files generated here, then played through
// the public API and measured: the pitch each key sounds at, which keys sound, how long a held note
// lasts, the release slope, levels and pan; where the samples are looked for; the errors.
import Foundation
import Testing
import AVFoundation
import AudioAnalysis

@Suite struct AUSamplerPresetTests {
    static let rate = 44_100

    /// A fresh folder for one test's files.
    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("aupreset-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// A mono 16-bit WAV of a sine (no instrument chunk).
    @discardableResult
    static func wav(_ hz: Double, seconds: Double, at url: URL) throws -> URL {
        let frames = Int(seconds * Double(rate))
        let samples = (0..<frames).map { Int16((0.5 * 32_767 * sin(2 * Double.pi * hz * Double($0) / Double(rate))).rounded()) }
        func le32(_ v: UInt32) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        func le16(_ v: UInt16) -> [UInt8] { withUnsafeBytes(of: v.littleEndian) { Array($0) } }
        var body = Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(1) + le32(UInt32(rate)) + le32(UInt32(rate * 2)) + le16(2) + le16(16)
        let data = samples.flatMap { le16(UInt16(bitPattern: $0)) }
        body += Array("data".utf8) + le32(UInt32(data.count)) + data
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(Array("RIFF".utf8) + le32(UInt32(body.count)) + body).write(to: url)
        return url
    }

    /// A zone dictionary as AU Lab saves one.
    static func zone(_ waveform: Int, keys: ClosedRange<Int> = 0...127, root: Int, extra: [String: Any] = [:]) -> [String: Any] {
        var z: [String: Any] = ["ID": waveform, "enabled": true, "waveform": waveform, "min key": keys.lowerBound, "max key": keys.upperBound,
                                "root key": root, "loop enabled": false]
        for (k, v) in extra { z[k] = v }
        return z
    }

    /// An envelope (ID 0) with AU Lab's seven stages.
    static func envelope(attack: Double = 0, decay: Double = 0, sustain: Double = 1, release: Double) -> [String: Any] {
        ["ID": 0, "enabled": true, "Stages": [
            ["curve": 20, "stage": 0, "time": 0.0], ["curve": 22, "stage": 1, "time": attack], ["curve": 20, "stage": 2, "time": 0.0],
            ["curve": 20, "stage": 3, "time": decay], ["stage": 4, "level": sustain], ["curve": 20, "stage": 5, "time": release],
            ["curve": 20, "stage": 6, "time": 0.005]]]
    }

    /// A whole preset: one layer with `zones`, `envelope` routed to the amplifier, `refs` as
    /// "Sample:<id>" → path, and top-level keys.
    static func preset(zones: [[String: Any]], refs: [Int: String], envelope: [String: Any]? = nil, top: [String: Any] = [:],
                       instrument: [String: Any] = [:]) -> [String: Any] {
        var layer: [String: Any] = ["ID": 0, "Zones": zones, "Amplifier": ["ID": 0, "enabled": true],
                                    "Oscillator": ["ID": 0, "enabled": true],
                                    "Connections": [["ID": 5, "control": 0, "destination": 0x5010_0000, "enabled": true, "inverse": true,
                                                     "scale": -96.0, "source": 0x2000_0000, "transform": 1]]]
        if let envelope { layer["Envelopes"] = [envelope] }
        var inst: [String: Any] = ["name": "Test Instrument", "Layers": [layer]]
        for (k, v) in instrument { inst[k] = v }
        var p: [String: Any] = ["AU version": 1.0, "Instrument": inst, "name": "Test", "type": 1_635_085_685, "subtype": 1_935_764_848,
                                "manufacturer": 1_634_758_764, "version": 0, "coarse tune": 0, "fine tune": 0.0, "gain": 0.0, "pan": 0.0,
                                "voice count": 64, "data": Data([0, 0, 0, 0]),
                                "file-references": Dictionary(uniqueKeysWithValues: refs.map { ("Sample:\($0.key)", $0.value) })]
        for (k, v) in top { p[k] = v }
        return p
    }

    @discardableResult
    static func write(_ plist: [String: Any], to url: URL, binary: Bool = false) throws -> URL {
        try PropertyListSerialization.data(fromPropertyList: plist, format: binary ? .binary : .xml, options: 0).write(to: url)
        return url
    }

    static func load(_ url: URL) throws -> AVAudioUnitSampler {
        let sampler = AVAudioUnitSampler()
        try sampler.loadInstrument(at: url)
        return sampler
    }

    static func play(_ sampler: AVAudioUnitSampler, key: UInt8, velocity: UInt8 = 127, frames: Int = 24_000,
                     releaseAt: Int? = nil) throws -> (left: [Float], right: [Float]) {
        var events: [(Int, [UInt8])] = [(0, [0x90, key, velocity])]
        if let releaseAt { events.append((releaseAt, [0x80, key, 0])) }
        return try renderSampler(sampler, events: events, frames: frames)
    }

    static func cents(_ x: [Float], _ expected: Double, _ range: Range<Int> = 2_000..<20_000) -> Double {
        ToneAnalysis.stats(x[range], sampleRate: 48_000, expected: expected).centsError
    }

    @Test("Zones map to their key ranges and sound at their root keys; zone and global tuning add")
    func zonesKeyRangesAndPitch() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let low = try Self.wav(300, seconds: 1, at: dir.appendingPathComponent("low.wav"))
        let high = try Self.wav(1_000, seconds: 1, at: dir.appendingPathComponent("high.wav"))
        let url = try Self.write(Self.preset(zones: [Self.zone(1, keys: 0...65, root: 60), Self.zone(2, keys: 66...100, root: 72)],
                                             refs: [1: low.path, 2: high.path]), to: dir.appendingPathComponent("two.aupreset"))
        // (a fresh sampler per note: a sampler keeps its voices from one engine to the next)
        for (key, hz) in [(60, 300.0), (62, 300 * pow(2, 2.0 / 12)), (65, 300 * pow(2, 5.0 / 12)), (66, 1_000 * pow(2, -6.0 / 12)),
                          (72, 1_000.0), (79, 1_000 * pow(2, 7.0 / 12))] {
            let c = Self.cents(try Self.play(try Self.load(url), key: UInt8(key)).left, hz)
            #expect(abs(c) < 1, "key \(key): \(c) cents from \(hz) Hz")
        }
        #expect(try Self.play(try Self.load(url), key: 101, frames: 4_800).left.allSatisfy { $0 == 0 }, "above every zone: silent")

        // a zone's coarse (+2 semitones) and fine (−30 cents) tune, then the preset's global tune (+1 semitone +10 cents)
        let tuned = try Self.write(Self.preset(zones: [Self.zone(1, root: 69, extra: ["coarse tune": 2, "fine tune": -30.0])],
                                               refs: [1: low.path], top: ["coarse tune": 1, "fine tune": 10.0]),
                                   to: dir.appendingPathComponent("tuned.aupreset"))
        let t = try Self.load(tuned)
        #expect(t.globalTuning == 110)
        let expected = 300 * pow(2, (200.0 - 30 + 110) / 1_200)
        let c = Self.cents(try Self.play(t, key: 69).left, expected)
        #expect(abs(c) < 1, "\(c) cents from \(expected) Hz")
    }

    @Test("Loop points: a looped zone sounds on while held, at its pitch; unlooped it ends with its sample")
    func loopPoints() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 0.25 s of 441 Hz (100 frames a period); the loop over whole periods
        let file = try Self.wav(441, seconds: 0.25, at: dir.appendingPathComponent("short.wav"))
        for looped in [true, false] {
            let url = try Self.write(Self.preset(zones: [Self.zone(1, root: 69, extra: ["loop enabled": looped, "loop start": 5_000, "loop end": 10_000])],
                                                 refs: [1: file.path]), to: dir.appendingPathComponent("loop-\(looped).aupreset"))
            let out = try Self.play(try Self.load(url), key: 69, frames: 48_000).left
            let late = rmsDB(out[36_000..<48_000])   // 0.75 … 1 s, three times the sample's length
            if looped {
                #expect(late > -20, "looped, held: \(late) dB at 0.75–1 s")
                let c = Self.cents(Array(out[24_000..<48_000]), 441, 0..<24_000)
                #expect(abs(c) < 1, "the loop keeps the pitch: \(c) cents")
            } else {
                #expect(late < -100, "unlooped: \(late) dB after the sample ended")
            }
        }
    }

    @Test("The amplifier envelope's release: 96 dB over the release time after note-off")
    func releaseMeasured() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.wav(441, seconds: 0.5, at: dir.appendingPathComponent("tone.wav"))
        for release in [0.5, 1.0] {
            let url = try Self.write(Self.preset(zones: [Self.zone(1, root: 69, extra: ["loop enabled": true, "loop start": 4_410, "loop end": 17_640])],
                                                 refs: [1: file.path], envelope: Self.envelope(release: release)),
                                     to: dir.appendingPathComponent("release.aupreset"))
            // note-off at 0.5 s; levels over 20 ms windows at 0.1 s and 0.3 s after it
            let out = try Self.play(try Self.load(url), key: 69, frames: 48_000, releaseAt: 24_000).left
            let held = rmsDB(out[20_000..<24_000])
            let a = rmsDB(out[28_320..<29_280]), b = rmsDB(out[37_920..<38_880])
            let slope = (a - b) / 0.2
            let expected = 96 / release
            #expect(abs(slope - expected) < 0.05 * expected, "release \(release) s: \(slope) dB/s, expected \(expected)")
            #expect(held > -20, "held at \(held) dB before note-off")
        }
    }

    @Test("Zone gain and pan, and the preset's global gain and pan")
    func gainAndPan() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.wav(441, seconds: 1, at: dir.appendingPathComponent("tone.wav"))
        func level(_ extra: [String: Any], top: [String: Any] = [:]) throws -> (left: Double, right: Double, sampler: AVAudioUnitSampler) {
            let url = try Self.write(Self.preset(zones: [Self.zone(1, root: 69, extra: extra)], refs: [1: file.path], top: top),
                                     to: dir.appendingPathComponent("g.aupreset"))
            let sampler = try Self.load(url)
            let out = try Self.play(sampler, key: 69)
            return (rmsDB(out.left[4_000..<20_000]), rmsDB(out.right[4_000..<20_000]), sampler)
        }
        let unity = try level([:])
        let cut = try level(["gain": -6.0])
        #expect(abs((unity.left - cut.left) - 6) < 0.05, "zone gain −6 dB: \(unity.left - cut.left) dB lower")
        let left = try level(["pan": -1.0])
        #expect(left.right < left.left - 60, "zone pan −1: right at \(left.right) dB, left at \(left.left) dB")
        let global = try level([:], top: ["gain": -10.0, "pan": 0.5])
        #expect(global.sampler.overallGain == -10)
        #expect(global.sampler.stereoPan == 50)
        #expect(global.left < unity.left - 10, "global gain −10 dB and pan right: left \(global.left - unity.left) dB")
    }

    @Test("A moved folder: the stale absolute path falls back to the file next to the preset, then to a Sounds folder")
    func relativeResolution() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let original = dir.appendingPathComponent("original")
        let file = try Self.wav(440, seconds: 1, at: original.appendingPathComponent("a.wav"))
        try Self.write(Self.preset(zones: [Self.zone(1, root: 69)], refs: [1: file.path]), to: original.appendingPathComponent("p.aupreset"))
        let moved = dir.appendingPathComponent("moved")
        try FileManager.default.moveItem(at: original, to: moved)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let c = Self.cents(try Self.play(try Self.load(moved.appendingPathComponent("p.aupreset")), key: 69).left, 440)
        #expect(abs(c) < 1, "loaded from next to the preset: \(c) cents")

        // TN2283's rule: "/Sounds/…" of a stale path found under a Sounds folder above the preset,
        // and a relative stored path against the preset's folder
        let project = dir.appendingPathComponent("project")
        try Self.wav(880, seconds: 1, at: project.appendingPathComponent("Sounds/Piano/b.wav"))
        let presets = project.appendingPathComponent("Presets/Keys")
        try FileManager.default.createDirectory(at: presets, withIntermediateDirectories: true)
        let viaSounds = try Self.write(Self.preset(zones: [Self.zone(1, root: 69)], refs: [1: "/Users/someone/Music/Sounds/Piano/b.wav"]),
                                       to: presets.appendingPathComponent("s.aupreset"))
        #expect(abs(Self.cents(try Self.play(try Self.load(viaSounds), key: 69).left, 880)) < 1)
        let relative = try Self.write(Self.preset(zones: [Self.zone(1, root: 69)], refs: [1: "Sounds/Piano/b.wav"]),
                                      to: project.appendingPathComponent("r.aupreset"))
        #expect(abs(Self.cents(try Self.play(try Self.load(relative), key: 69).left, 880)) < 1)
    }

    @Test("A sample found nowhere fails the load with fnfErr (−43), naming the file")
    func missingSample() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = try Self.write(Self.preset(zones: [Self.zone(1, root: 69)], refs: [1: "/nowhere/at/all/gone.wav"]),
                                 to: dir.appendingPathComponent("m.aupreset"))
        let sampler = AVAudioUnitSampler()
        do {
            try sampler.loadInstrument(at: url)
            Issue.record("a missing sample loaded")
        } catch let e as NSError {
            #expect(e.domain == "com.apple.coreaudio.avfaudio")
            #expect(e.code == -43)
            #expect(e.localizedDescription.contains("/nowhere/at/all/gone.wav"), "\(e.localizedDescription)")
        }
        // the sampler keeps playing what it had (the built-in tone)
        #expect(rmsDB(try Self.play(sampler, key: 69, frames: 4_800).left[1_000..<4_800]) > -40)
    }

    @Test("Binary and XML property lists load alike")
    func binaryAndXML() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.wav(500, seconds: 1, at: dir.appendingPathComponent("t.wav"))
        let plist = Self.preset(zones: [Self.zone(1, keys: 40...80, root: 64)], refs: [1: file.path])
        let xml = try Self.write(plist, to: dir.appendingPathComponent("x.aupreset"))
        let binary = try Self.write(plist, to: dir.appendingPathComponent("b.aupreset"), binary: true)
        #expect(try Data(contentsOf: binary).starts(with: Array("bplist00".utf8)))
        #expect(try Data(contentsOf: xml).starts(with: Array("<?xml".utf8)))
        let a = try Self.play(try Self.load(xml), key: 76).left, b = try Self.play(try Self.load(binary), key: 76).left
        #expect(abs(Self.cents(a, 1_000)) < 1)
        #expect(a == b, "the same instrument, the same samples")
    }

    @Test("A preset referencing a SoundFont bank plays the bank preset it names")
    func soundFontReference() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 440 Hz at key 69 (100 points a period at 44 kHz), as bank 0 program 5
        var builder = SoundFontBuilder.sine(period: 100, cycles: 20)
        builder.program = 5
        builder.instrumentGenerators = [(54, 1)]   // sampleModes: loop continuously
        let bank = dir.appendingPathComponent("bank.sf2")
        try Data(builder.bytes()).write(to: bank)
        let url = try Self.write(Self.preset(zones: [], refs: [268_435_457: bank.path], instrument: ["bank MSB": 0x79, "bank LSB": 0, "program": 5]),
                                 to: dir.appendingPathComponent("bank.aupreset"))
        let c = Self.cents(try Self.play(try Self.load(url), key: 81).left, 880)
        #expect(abs(c) < 1, "\(c) cents from 880 Hz")
        // a program the bank lacks: the bank's own error
        let wrong = try Self.write(Self.preset(zones: [], refs: [1: bank.path], instrument: ["program": 6]),
                                   to: dir.appendingPathComponent("wrong.aupreset"))
        #expect(throws: NSError.self) { try Self.load(wrong) }
        do { _ = try Self.load(wrong) } catch let e as NSError { #expect(e.code == Int(kAudioUnitErr_InvalidPropertyValue)) }
    }

    @Test("A preset referencing a DLS bank plays the instrument it names (bank and program)")
    func dlsReference() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        // a looped 440 Hz sine at unity note 69 (100 points a period at 44 kHz), as bank 0 program 5;
        // program 6 holds the same wave an octave up, so that the wrong instrument would show
        var wave = DLSBuilder.sineWave(period: 100, cycles: 20)
        wave.wsmp = DLSBuilder.Wsmp(unityNote: 69, loops: [(0, 100, 1_800)])
        var b = DLSBuilder()
        b.waves = [wave]
        b.instruments = [DLSBuilder.Instrument(name: "Five", program: 5, regions: [DLSBuilder.Region(tableIndex: 0)]),
                         DLSBuilder.Instrument(name: "Six", program: 6,
                                               regions: [DLSBuilder.Region(wsmp: DLSBuilder.Wsmp(unityNote: 57, loops: [(0, 100, 1_800)]), tableIndex: 0)])]
        let bank = dir.appendingPathComponent("bank.dls")
        try Data(b.bytes()).write(to: bank)
        for (program, expected) in [(5, 880.0), (6, 1_760.0)] {
            let url = try Self.write(Self.preset(zones: [], refs: [268_435_457: bank.path], instrument: ["bank MSB": 0x79, "bank LSB": 0, "program": program]),
                                     to: dir.appendingPathComponent("bank\(program).aupreset"))
            let c = Self.cents(try Self.play(try Self.load(url), key: 81).left, expected)
            #expect(abs(c) < 1, "program \(program): \(c) cents from \(expected) Hz")
        }
        // a program the bank lacks: the bank's own error
        let wrong = try Self.write(Self.preset(zones: [], refs: [1: bank.path], instrument: ["program": 7]),
                                   to: dir.appendingPathComponent("wrong.aupreset"))
        do { _ = try Self.load(wrong); Issue.record("a missing program loaded") } catch let e as NSError { #expect(e.code == Int(kAudioUnitErr_InvalidPropertyValue)) }
    }

    @Test("Hostile presets: wrong types, huge numbers, deep nesting, not a plist — an error naming the key, never a trap")
    func hostilePresets() throws {
        let dir = try Self.folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try Self.wav(440, seconds: 0.1, at: dir.appendingPathComponent("t.wav"))
        let good = Self.preset(zones: [Self.zone(1, root: 69)], refs: [1: file.path])
        func layer0(_ change: (inout [String: Any]) -> Void) -> [String: Any] {
            var p = good, inst = p["Instrument"] as! [String: Any], layers = inst["Layers"] as! [[String: Any]]
            change(&layers[0]); inst["Layers"] = layers; p["Instrument"] = inst
            return p
        }
        func zone0(_ key: String, _ value: Any) -> [String: Any] {
            layer0 { l in var z = l["Zones"] as! [[String: Any]]; z[0][key] = value; l["Zones"] = z }
        }
        var deep: Any = [1]
        for _ in 0..<300 { deep = [deep] }
        let cases: [(String, [String: Any], String)] = [
            ("Layers a string", { var p = good; var i = p["Instrument"] as! [String: Any]; i["Layers"] = "x"; p["Instrument"] = i; return p }(), "Instrument.Layers"),
            ("min key a string", zone0("min key", "abc"), "min key"),
            ("root key 1e300", zone0("root key", 1e300), "root key"),
            ("loop start negative", zone0("loop start", -5), "loop start"),
            ("waveform 2^62 without reference", zone0("waveform", 4_611_686_018_427_387_904), "waveform"),
            ("waveform missing", layer0 { l in var z = l["Zones"] as! [[String: Any]]; z[0]["waveform"] = nil; l["Zones"] = z }, "waveform"),
            ("Zones a dictionary", layer0 { $0["Zones"] = ["a": 1] }, "Zones"),
            ("envelope time a date", layer0 { $0["Envelopes"] = [["ID": 0, "Stages": [["stage": 5, "time": Date()]]]] }, "time"),
            ("deep nesting in a zone", zone0("gain", deep), "gain"),
            ("another unit", { var p = good; p["subtype"] = 1_684_828_960; return p }(), "subtype"),
            ("file reference not a path", { var p = good; p["file-references"] = ["Sample:1": 5]; return p }(), "Sample:1"),
            ("no Instrument", { var p = good; p["Instrument"] = nil; return p }(), "Instrument"),
        ]
        for (name, plist, key) in cases {
            for binary in [false, true] {
                let url = try Self.write(plist, to: dir.appendingPathComponent("h.aupreset"), binary: binary)
                do {
                    _ = try Self.load(url)
                    Issue.record("\(name): loaded")
                } catch let e as NSError {
                    #expect(e.code == Int(kAudioUnitErr_InvalidFile), "\(name): \(e.code) \(e.localizedDescription)")
                    #expect(e.localizedDescription.contains(key), "\(name): \(e.localizedDescription)")
                }
            }
        }
        // bytes that are no plist, an empty file, a plist whose top level is an array, nesting past Foundation's limit
        var deeper = String(repeating: "<array>", count: 100_000) + String(repeating: "</array>", count: 100_000)
        deeper = "<?xml version=\"1.0\"?><plist version=\"1.0\"><dict><key>Instrument</key>\(deeper)</dict></plist>"
        // a binary plist holding a set inside an array (Linux Foundation crashed bridging it: the
        // aupreset fuzz target's finding of 2026-11-28): objects 0 array [1], 1 set {2}, 2 integer 5
        var set: [UInt8] = Array("bplist00".utf8) + [0xA1, 1, 0xC1, 2, 0x10, 5]
        set += [8, 10, 12] + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 3] + [UInt8](repeating: 0, count: 8) + [0, 0, 0, 0, 0, 0, 0, 14]
        for bytes in [Data(set), Data("RIFF not a plist".utf8), Data(), Data("<?xml version=\"1.0\"?><plist version=\"1.0\"><array/></plist>".utf8), Data(deeper.utf8)] {
            let url = dir.appendingPathComponent("raw.aupreset")
            try bytes.write(to: url)
            #expect(throws: NSError.self) { try Self.load(url) }
        }
    }
}

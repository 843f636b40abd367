// The model of an AUSampler preset (`.aupreset`) and its parser: the property list Apple's sampler
// saves as its class info (`kAudioUnitProperty_ClassInfo`, `AUAudioUnit.fullState`), read into
// plain values with every number checked, so that building the instrument
// (AVAudioUnitSampler+Preset.swift) works on sane data only.
//
// Apple does not publish the schema. What each key means here rests on:
// - AudioUnitProperties.h (the SDK header): the top-level keys of every AU preset — `type`,
//   `subtype`, `manufacturer`, `version`, `data`, `name`, and `file-references`
//   (kAUPresetExternalFileRefs);
// - AudioUnitParameters.h: the sampler's global parameters, which the top-level `gain` (dB,
//   −90 … 12), `coarse tune` (semitones, −24 … 24), `fine tune` (cents, −99 … 99) and `pan`
//   (−1 … 1) keys sit beside, with those ranges;
// - presets saved by AU Lab and the ones AudioKit's AKAUPresetBuilder / AKPresetManager write for
//   Apple's sampler (read as reference, nothing copied): the `Instrument` dictionary with its
//   `Layers`, each layer's `Zones` (`waveform`, `min key`, `max key`, `root key`, `min vel`,
//   `max vel`, `loop enabled`, `loop start`, `loop end`, `ID`, `enabled`, `name`), its
//   `Envelopes` (an `ID` and `Stages`: stage 0 delay, 1 attack, 2 hold, 3 decay, 4 sustain with a
//   `level` from 0 to 1, 5 release, 6 the fast release used when a voice is stolen; times in
//   seconds) and its `Connections`, in which envelope 0 is routed to the amplifier's gain
//   (source 0x20000000, destination 0x50100000); `file-references` maps "Sample:<waveform id>"
//   to a file path. Zone keys `start`, `end`, `coarse tune`, `fine tune`, `gain` and `pan` are
//   read with the units of the same-named global keys (sample frames for `start`/`end`); no
//   saved preset we found shows them, so those units are our reading, not Apple's word.
// - A preset that plays a SoundFont preset: Apple's form is not published; we read a file
//   reference to a `.sf2`/`.sf3` bank, with the preset named by the `Instrument` dictionary's
//   `bank MSB`, `bank LSB` and `program` keys (the arguments of `loadSoundBankInstrument`; defaults
//   0x79, 0, 0). That form is ours.
//
// Hostile input: the property-list reader (AudioFileFormats/PropertyList) refuses nesting deeper
// than 512 levels (both XML and binary; Foundation's parser refuses a few hundred too), reference
// cycles, counts beyond the bytes present and sets; every number here is checked for type
// and range (a string where a number belongs, NaN, 1e300) and a wrong one is an error naming the
// key; the zone count is bounded.
import Foundation

/// An AUSampler preset read from its property list.
struct AUSamplerPreset {
    struct Envelope {
        var delay = 0.0, attack = 0.0, hold = 0.0, decay = 0.0
        /// Linear, 0 … 1.
        var sustain = 1.0
        var release = 0.0
    }
    struct Zone {
        var waveform: Int64
        var keyLow: UInt8 = 0, keyHigh: UInt8 = 127, velLow: UInt8 = 0, velHigh: UInt8 = 127
        /// nil: the file's own root key (its instrument metadata), else 60.
        var rootKey: UInt8?
        var loopEnabled = false
        /// Frames in the file; nil: the file's own loop (metadata), else its start/end.
        var loopStart: Int64?, loopEnd: Int64?
        var start: Int64?, end: Int64?
        var coarseTune = 0.0, fineTune = 0.0
        /// dB and −1 … 1.
        var gain = 0.0, pan = 0.0
    }
    struct Layer {
        var zones: [Zone] = []
        var ampEnvelope: Envelope?
    }
    var name = ""
    var layers: [Layer] = []
    /// Waveform id → stored path.
    var fileReferences: [Int64: String] = [:]
    var gain = 0.0, coarseTune = 0.0, fineTune = 0.0, pan = 0.0
    /// The SoundFont preset a bank reference plays (see the note at the top).
    var bankMSB = 0x79, bankLSB = 0, program = 0

    /// More zones than any real preset has: a bound for hostile files.
    static let maximumZones = 16_384

    /// A key or value that is not what the schema expects; `key` is its path in the plist.
    struct FormatError: Error {
        var key: String
        var problem: String
    }

    /// Parses preset bytes (XML or binary property list; `PropertyListValue+Foundation.swift`).
    static func parse(_ data: Data) throws -> AUSamplerPreset {
        let root: Any
        do {
            root = try readPropertyList(data)
        } catch {
            throw FormatError(key: "", problem: "it is not a property list (\(error))")
        }
        guard let top = root as? [String: Any] else { throw FormatError(key: "", problem: "its top level is not a dictionary") }
        return try parse(top)
    }

    static func parse(_ top: [String: Any]) throws -> AUSamplerPreset {
        var preset = AUSamplerPreset()
        // The component: when given, it must be the sampler ('aumu'/'samp'/'appl').
        for (key, expected) in [("type", 0x6175_6D75), ("subtype", 0x7361_6D70), ("manufacturer", 0x6170_706C)] {
            if let v = try integer(top[key], key), v != Int64(expected) {
                throw FormatError(key: key, problem: "is \(v), not the sampler's \(expected) ('aumu'/'samp'/'appl'): the preset belongs to another audio unit")
            }
        }
        preset.name = try string(top["name"], "name") ?? ""
        preset.gain = try number(top["gain"], "gain", -90 ... 12) ?? 0
        preset.coarseTune = try number(top["coarse tune"], "coarse tune", -24 ... 24) ?? 0
        preset.fineTune = try number(top["fine tune"], "fine tune", -99 ... 99) ?? 0
        preset.pan = try number(top["pan"], "pan", -1 ... 1) ?? 0
        if let refs = top["file-references"] {
            guard let refs = refs as? [String: Any] else { throw FormatError(key: "file-references", problem: "is not a dictionary") }
            for (k, v) in refs {
                let key = "file-references.\(k)"
                guard k.hasPrefix("Sample:"), let id = Int64(k.dropFirst("Sample:".count)) else {
                    throw FormatError(key: key, problem: "is not of the form \"Sample:<waveform id>\"")
                }
                guard let path = v as? String, !path.isEmpty else { throw FormatError(key: key, problem: "is not a file path") }
                preset.fileReferences[id] = path
            }
        }
        guard let instrument = top["Instrument"] else { throw FormatError(key: "Instrument", problem: "is missing: the preset describes no instrument") }
        guard let inst = instrument as? [String: Any] else { throw FormatError(key: "Instrument", problem: "is not a dictionary") }
        preset.bankMSB = Int(try number(inst["bank MSB"], "Instrument.bank MSB", 0 ... 127) ?? 0x79)
        preset.bankLSB = Int(try number(inst["bank LSB"], "Instrument.bank LSB", 0 ... 127) ?? 0)
        preset.program = Int(try number(inst["program"], "Instrument.program", 0 ... 127) ?? 0)
        if preset.name.isEmpty { preset.name = try string(inst["name"], "Instrument.name") ?? "" }
        let layers = try array(inst["Layers"], "Instrument.Layers") ?? []
        var zoneCount = 0
        for (li, l) in layers.enumerated() {
            let lk = "Instrument.Layers[\(li)]"
            guard let layer = l as? [String: Any] else { throw FormatError(key: lk, problem: "is not a dictionary") }
            var out = Layer()
            out.ampEnvelope = try ampEnvelope(layer, lk)
            for (zi, z) in (try array(layer["Zones"], "\(lk).Zones") ?? []).enumerated() {
                let zk = "\(lk).Zones[\(zi)]"
                guard let zone = z as? [String: Any] else { throw FormatError(key: zk, problem: "is not a dictionary") }
                if try bool(zone["enabled"], "\(zk).enabled") == false { continue }
                zoneCount += 1
                guard zoneCount <= maximumZones else { throw FormatError(key: zk, problem: "is one zone too many (at most \(maximumZones))") }
                out.zones.append(try parseZone(zone, zk))
            }
            preset.layers.append(out)
        }
        return preset
    }

    private static func parseZone(_ zone: [String: Any], _ zk: String) throws -> Zone {
        guard let waveform = try integer(zone["waveform"], "\(zk).waveform") else {
            throw FormatError(key: "\(zk).waveform", problem: "is missing: the zone names no sample")
        }
        var z = Zone(waveform: waveform)
        let key = { (name: String) throws -> UInt8? in try number(zone[name], "\(zk).\(name)", 0 ... 127).map { UInt8($0) } }
        z.keyLow = try key("min key") ?? 0
        z.keyHigh = try key("max key") ?? 127
        z.velLow = try key("min vel") ?? 0
        z.velHigh = try key("max vel") ?? 127
        z.rootKey = try key("root key")
        z.loopEnabled = try bool(zone["loop enabled"], "\(zk).loop enabled") ?? false
        let frame = { (name: String) throws -> Int64? in try number(zone[name], "\(zk).\(name)", 0 ... 1e15).map { Int64($0) } }
        z.loopStart = try frame("loop start"); z.loopEnd = try frame("loop end")
        z.start = try frame("start"); z.end = try frame("end")
        z.coarseTune = try number(zone["coarse tune"], "\(zk).coarse tune", -127 ... 127) ?? 0
        z.fineTune = try number(zone["fine tune"], "\(zk).fine tune", -1_200 ... 1_200) ?? 0
        z.gain = try number(zone["gain"], "\(zk).gain", -144 ... 48) ?? 0
        z.pan = try number(zone["pan"], "\(zk).pan", -1 ... 1) ?? 0
        if z.keyLow > z.keyHigh { throw FormatError(key: "\(zk).min key", problem: "is above its max key (\(z.keyLow) > \(z.keyHigh))") }
        if z.velLow > z.velHigh { throw FormatError(key: "\(zk).min vel", problem: "is above its max vel (\(z.velLow) > \(z.velHigh))") }
        return z
    }

    /// The envelope a layer routes to the amplifier: the one a `Connections` entry from an
    /// envelope source (0x20000000 + envelope ID) to the amplifier's gain (0x50100000) names,
    /// else the envelope with ID 0, else none (the sampler's default).
    private static func ampEnvelope(_ layer: [String: Any], _ lk: String) throws -> Envelope? {
        let envelopes = try array(layer["Envelopes"], "\(lk).Envelopes") ?? []
        var routed: Int64?
        for (ci, c) in (try array(layer["Connections"], "\(lk).Connections") ?? []).enumerated() {
            guard let c = c as? [String: Any] else { throw FormatError(key: "\(lk).Connections[\(ci)]", problem: "is not a dictionary") }
            guard let source = try integer(c["source"], "\(lk).Connections[\(ci)].source"),
                  let destination = try integer(c["destination"], "\(lk).Connections[\(ci)].destination") else { continue }
            // (the low byte of the destination carries the layer: AKAUPresetBuilder adds 256 × layer)
            if destination & ~0xFFFF == 0x5010_0000 && source & ~0xFF == 0x2000_0000 && routed == nil { routed = source & 0xFF }
        }
        var chosen: (Int, [String: Any])?
        for (ei, e) in envelopes.enumerated() {
            guard let e = e as? [String: Any] else { throw FormatError(key: "\(lk).Envelopes[\(ei)]", problem: "is not a dictionary") }
            let id = try integer(e["ID"], "\(lk).Envelopes[\(ei)].ID") ?? Int64(ei)
            if id == (routed ?? 0) && chosen == nil { chosen = (ei, e) }
        }
        guard let (ei, e) = chosen else { return nil }
        let ek = "\(lk).Envelopes[\(ei)]"
        if try bool(e["enabled"], "\(ek).enabled") == false { return nil }
        var env = Envelope()
        for (si, s) in (try array(e["Stages"], "\(ek).Stages") ?? []).enumerated() {
            let sk = "\(ek).Stages[\(si)]"
            guard let s = s as? [String: Any] else { throw FormatError(key: sk, problem: "is not a dictionary") }
            guard let stage = try integer(s["stage"], "\(sk).stage") else { continue }
            if stage == 4 {
                env.sustain = try number(s["level"], "\(sk).level", 0 ... 1) ?? 1
                continue
            }
            // (times up to 100 s: AU Lab's envelope sliders stop well below that)
            let time = try number(s["time"], "\(sk).time", 0 ... 100) ?? 0
            switch stage {
            case 0: env.delay = time
            case 1: env.attack = time
            case 2: env.hold = time
            case 3: env.decay = time
            case 5: env.release = time
            default: break   // 6: the fast release of a stolen voice; ours is a fixed one-block fade
            }
        }
        return env
    }

    // MARK: typed access (a wrong type or a value out of range names the key)

    private static func number(_ v: Any?, _ key: String, _ range: ClosedRange<Double>) throws -> Double? {
        guard let v else { return nil }
        guard let d = doubleValue(v) else { throw FormatError(key: key, problem: "is not a number (\(type(of: v)))") }
        guard d.isFinite, range.contains(d) else {
            throw FormatError(key: key, problem: "is \(d), outside \(range.lowerBound) … \(range.upperBound)")
        }
        return d
    }

    private static func integer(_ v: Any?, _ key: String) throws -> Int64? {
        guard let v else { return nil }
        guard let d = doubleValue(v) else { throw FormatError(key: key, problem: "is not a number (\(type(of: v)))") }
        guard d.isFinite, d.rounded() == d, abs(d) < 9.0e15 else { throw FormatError(key: key, problem: "is \(d), not an integer in range") }
        return Int64(d)
    }

    private static func bool(_ v: Any?, _ key: String) throws -> Bool? {
        guard let v else { return nil }
        if let b = v as? Bool { return b }
        if let d = doubleValue(v) { return d != 0 }
        throw FormatError(key: key, problem: "is not a boolean (\(type(of: v)))")
    }

    /// A plist number as Foundation gives it on Linux (Swift integers, Double, Bool or NSNumber).
    private static func doubleValue(_ v: Any) -> Double? {
        switch v {
        case is String, is Data, is Date, is [Any], is [String: Any]: return nil
        case let n as NSNumber: return n.doubleValue
        case let b as Bool: return b ? 1 : 0
        case let i as Int: return Double(i)
        case let i as Int64: return Double(i)
        case let u as UInt64: return Double(u)
        case let d as Double: return d
        case let f as Float: return Double(f)
        default: return nil
        }
    }

    private static func string(_ v: Any?, _ key: String) throws -> String? {
        guard let v else { return nil }
        guard let s = v as? String else { throw FormatError(key: key, problem: "is not a string (\(type(of: v)))") }
        return s
    }

    private static func array(_ v: Any?, _ key: String) throws -> [Any]? {
        guard let v else { return nil }
        guard let a = v as? [Any] else { throw FormatError(key: key, problem: "is not an array (\(type(of: v)))") }
        return a
    }
}

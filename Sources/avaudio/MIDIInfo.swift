// `avaudio info song.mid`: what a Standard MIDI File holds — format, time division, each track's
// name and events (notes, other channel messages, sysex, meta), the tempo map, and the length in
// beats and seconds. Read with the MIDIFiles reader (errors name the chunk and byte offset).
import Foundation
import MIDIFiles

/// Everything `info` reports about a MIDI file.
struct MIDIFileReport: Encodable {
    struct Track: Encodable {
        var index: Int
        var name: String?
        var events: Int
        var notes: Int
        var otherChannelMessages: Int
        var sysex: Int
        var meta: Int
        var channels: [Int]
        var endTick: UInt64
    }
    struct Tempo: Encodable {
        var tick: UInt64
        var beat: Double
        var seconds: Double
        var bpm: Double
    }
    var file: String
    var container = "Standard MIDI File"
    var format: Int
    var division: String
    var tracks: [Track]
    var tempoMap: [Tempo]
    var lengthInBeats: Double
    var lengthInSeconds: Double

    /// Whether `path` looks like a MIDI file (by its first bytes, else its extension).
    static func isMIDI(path: String) -> Bool {
        if let h = FileHandle(forReadingAtPath: path) {
            defer { try? h.close() }
            if let head = try? h.read(upToCount: 4), head == Data("MThd".utf8) { return true }
        }
        return ["mid", "midi", "smf", "kar"].contains((path as NSString).pathExtension.lowercased())
    }

    init(path: String) throws {
        file = path
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let smf: StandardMIDIFile
        do { smf = try SMFReader.read(bytes) } catch let error as SMFError {
            throw ToolError("not a valid Standard MIDI File: \(error)")
        }
        format = smf.format
        switch smf.division {
        case .ticksPerQuarterNote(let t): division = "\(t) ticks per quarter note"
        case .smpte(let fps, let tpf): division = "SMPTE \(fps == 29 ? "29.97 drop-frame" : "\(fps)") frames/s × \(tpf) ticks per frame"
        }
        tracks = smf.tracks.enumerated().map { index, t in
            var r = Track(index: index, name: nil, events: t.events.count, notes: 0, otherChannelMessages: 0, sysex: 0, meta: 0, channels: [], endTick: t.endTick)
            var channels = Set<Int>()
            for e in t.events {
                switch e.kind {
                case let .channel(status, _, d2):
                    channels.insert(Int(status & 0x0F))
                    if status & 0xF0 == 0x90 && d2 > 0 { r.notes += 1 } else if status & 0xF0 != 0x80 && status & 0xF0 != 0x90 { r.otherChannelMessages += 1 }
                case .sysex: r.sysex += 1
                case let .meta(type, data):
                    r.meta += 1
                    if type == SMFMetaType.trackName && r.name == nil { r.name = String(decoding: data, as: UTF8.self) }
                }
            }
            r.channels = channels.sorted()
            return r
        }
        let map = smf.tempoMap
        if case .ticksPerQuarterNote = smf.division {
            tempoMap = smf.tempoChanges.map { c in
                let beat = smf.beats(forTick: c.tick)
                return Tempo(tick: c.tick, beat: beat, seconds: map.seconds(forBeat: beat), bpm: 60_000_000 / Double(max(1, c.microsecondsPerQuarter)))
            }
        } else {
            tempoMap = []
        }
        let endTick = smf.tracks.map(\.endTick).max() ?? 0
        lengthInBeats = smf.beats(forTick: endTick)
        lengthInSeconds = map.seconds(forBeat: lengthInBeats)
    }

    var text: String {
        var lines = ["\(file)", "  Standard MIDI File, format \(format), \(tracks.count) track\(tracks.count == 1 ? "" : "s"), \(division)"]
        lines.append(String(format: "  length: %.3f beats, %.3f s", lengthInBeats, lengthInSeconds))
        if tempoMap.isEmpty {
            lines.append("  tempo: none (120 BPM)")
        } else {
            lines.append("  tempo map:")
            for t in tempoMap.prefix(20) { lines.append(String(format: "    beat %.3f (tick %llu, %.3f s): %.3f BPM", t.beat, t.tick, t.seconds, t.bpm)) }
            if tempoMap.count > 20 { lines.append("    … \(tempoMap.count - 20) more") }
        }
        for t in tracks {
            let name = t.name.map { " \"\($0)\"" } ?? ""
            let channels = t.channels.isEmpty ? "" : ", channels " + t.channels.map { String($0 + 1) }.joined(separator: ",")
            lines.append("  track \(t.index)\(name): \(t.events) events: \(t.notes) notes, \(t.otherChannelMessages) other channel messages, \(t.sysex) sysex, \(t.meta) meta\(channels)")
        }
        return lines.joined(separator: "\n")
    }

    func jsonLine() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}

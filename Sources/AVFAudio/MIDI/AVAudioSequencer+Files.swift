// Standard MIDI Files ↔ the sequencer's tracks.
//
// Loading (what each rule rests on):
//   * Notes: a note-on and the next note-off (or note-on with velocity 0) of the same channel and
//     key become one AVMIDINoteEvent with a duration (AVMIDINoteEvent carries "note on or off"
//     as one event with a duration). Notes still open at the end of their track last until it.
//   * The tempo track: Apple documents that "the framework places all tempo events into this
//     track along with other appropriate events, such as the time signature". Tempo meta events
//     become AVExtendedTempoEvents there; time signature, key signature and SMPTE offset meta
//     events go there too. In a format 1 file the first track is the conductor track (SMF 1.0):
//     when it holds no channel or sysex events, all its events go to the tempo track and it
//     makes no AVMusicTrack.
//   * End-of-track events set the track's length (`lengthInBeats`); they are not events of the track.
//   * SMPTE-division files have real-time ticks: a tick's beat is its seconds at 120 BPM (the
//     default tempo), and their tempo events are dropped: they must not retime a real-time file,
//     and kept as meta events they would retime it once written (the sequencer writes PPQ files).
//   * `smf_ChannelsToTracks`: channel events go to one track per channel (in channel order);
//     everything else stays in the first of them.
//   * Loading replaces the sequence's tracks and tempo track.
// Writing: format 1, the tempo track first, at the resolution given (ticks per quarter note;
// 0 means 480); notes as note-on/note-off pairs (note-off velocity 0; at a tick, the note-offs of
// earlier notes come before the note-ons, and a note that ends where it starts is released after
// its own note-on, so reading pairs every note as it was), sysex messages starting
// with F0 as F0 events and others as F7 escapes; user, parameter and preset events have no
// Standard MIDI File form and are left out.
import Foundation
import MIDIFiles

extension AVAudioSequencer {
    /// Loads a Standard MIDI File, replacing the sequence's tracks.
    public func load(from fileURL: URL, options: AVMusicSequenceLoadOptions) throws {
        let data: Data
        do { data = try Data(contentsOf: fileURL) } catch {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioFileFileNotFoundError),
                          userInfo: [NSLocalizedDescriptionKey: "AVAudioSequencer.load(from:): cannot read \(fileURL.path): \(error.localizedDescription)"])
        }
        try load(from: data, options: options, name: fileURL.lastPathComponent)
    }

    /// Parses Standard MIDI File data, replacing the sequence's tracks.
    public func load(from data: Data, options: AVMusicSequenceLoadOptions) throws {
        try load(from: data, options: options, name: "data")
    }

    func load(from data: Data, options: AVMusicSequenceLoadOptions, name: String) throws {
        let smf: StandardMIDIFile
        do { smf = try data.withUnsafeBytes { try SMFReader.read($0) } } catch let error as SMFError {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioFileInvalidFileError),
                          userInfo: [NSLocalizedDescriptionKey: "AVAudioSequencer.load(from:): \(name) is not a valid Standard MIDI File: \(error)"])
        }
        apply(smf, options: options)
    }

    func apply(_ smf: StandardMIDIFile, options: AVMusicSequenceLoadOptions) {
        lock.lock(); defer { lock.unlock() }
        let metrical: Bool
        if case .ticksPerQuarterNote(let ppq) = smf.division { timeResolution = ppq; metrical = true } else { timeResolution = 480; metrical = false }
        var tempoEntries: [AVMusicTrack.Entry] = []
        var tempoLength = 0.0
        var tracks: [AVMusicTrack] = []
        var info: [String: Any] = [:]

        func tempoMeta(_ type: UInt8) -> Bool {
            [SMFMetaType.tempo, SMFMetaType.timeSignature, SMFMetaType.keySignature, SMFMetaType.smpteOffset].contains(type)
        }
        for (index, smfTrack) in smf.tracks.enumerated() {
            let hasChannel = smfTrack.events.contains { if case .meta = $0.kind { return false } else { return true } }
            let conductor = smf.format == 1 && index == 0 && !hasChannel
            var trackEntries: [AVMusicTrack.Entry] = []
            var length = 0.0
            // (channel << 8 | key) → indices of open notes, oldest first from `head` (a queue, so
            // thousands of overlapping notes of one key cost no more than a few).
            var open: [UInt16: (notes: [Int], head: Int)] = [:]
            var trackName: String?
            for e in smfTrack.events {
                let beat = smf.beats(forTick: e.tick)
                switch e.kind {
                case let .meta(type, bytes):
                    if type == SMFMetaType.endOfTrack { length = max(length, beat); continue }
                    if type == SMFMetaType.tempo && metrical && bytes.count >= 3 {
                        let us = Double(UInt32(bytes[0]) << 16 | UInt32(bytes[1]) << 8 | UInt32(bytes[2]))
                        if us > 0 {
                            tempoEntries.append(.init(beat: beat, event: AVExtendedTempoEvent(tempo: 60_000_000 / us)))
                            if info[InfoDictionaryKey.tempo.rawValue] == nil { info[InfoDictionaryKey.tempo.rawValue] = 60_000_000 / us }
                        }
                        continue
                    }
                    if type == SMFMetaType.timeSignature && bytes.count >= 2 && info[InfoDictionaryKey.timeSignature.rawValue] == nil {
                        info[InfoDictionaryKey.timeSignature.rawValue] = "\(bytes[0])/\(1 << min(Int(bytes[1]), 16))"
                    }
                    if type == SMFMetaType.copyright && info[InfoDictionaryKey.copyright.rawValue] == nil {
                        info[InfoDictionaryKey.copyright.rawValue] = String(decoding: bytes, as: UTF8.self)
                    }
                    if type == SMFMetaType.trackName && trackName == nil { trackName = String(decoding: bytes, as: UTF8.self) }
                    let event = AVMIDIMetaEvent(typeByte: type, data: Data(bytes))
                    if type == SMFMetaType.tempo && !metrical {
                        // A real-time (SMPTE) file: its tempo events must not retime it, and kept
                        // as meta events they would on writing (the sequence is written at a PPQ
                        // division), so they are dropped.
                        continue
                    }
                    if tempoMeta(type) || conductor { tempoEntries.append(.init(beat: beat, event: event)) }
                    else { trackEntries.append(.init(beat: beat, event: event)) }
                case let .sysex(escape, bytes):
                    trackEntries.append(.init(beat: beat, event: AVMIDISysexEvent(data: Data(escape ? bytes : [0xF0] + bytes))))
                case let .channel(status, d1, d2):
                    let ch = UInt32(status & 0x0F)
                    switch status & 0xF0 {
                    case 0x90 where d2 > 0:
                        open[UInt16(ch) << 8 | UInt16(d1), default: ([], 0)].notes.append(trackEntries.count)
                        trackEntries.append(.init(beat: beat, event: AVMIDINoteEvent(channel: ch, key: UInt32(d1), velocity: UInt32(d2), duration: 0)))
                    case 0x80, 0x90:
                        let k = UInt16(ch) << 8 | UInt16(d1)
                        if let queue = open[k], queue.head < queue.notes.count {
                            let i = queue.notes[queue.head]
                            open[k]!.head += 1
                            (trackEntries[i].event as! AVMIDINoteEvent).duration = beat - trackEntries[i].beat
                        }
                    case 0xA0: trackEntries.append(.init(beat: beat, event: AVMIDIPolyPressureEvent(channel: ch, key: UInt32(d1), pressure: UInt32(d2))))
                    case 0xB0: trackEntries.append(.init(beat: beat, event: AVMIDIControlChangeEvent(channel: ch, controller: d1, value: UInt32(d2))))
                    case 0xC0: trackEntries.append(.init(beat: beat, event: AVMIDIProgramChangeEvent(channel: ch, programNumber: UInt32(d1))))
                    case 0xD0: trackEntries.append(.init(beat: beat, event: AVMIDIChannelPressureEvent(channel: ch, pressure: UInt32(d1))))
                    default: trackEntries.append(.init(beat: beat, event: AVMIDIPitchBendEvent(channel: ch, value: UInt32(d1) | UInt32(d2) << 7)))
                    }
                }
                length = max(length, beat)
            }
            // Notes never released last until the end of their track.
            for (_, queue) in open {
                for i in queue.notes[queue.head...] { (trackEntries[i].event as! AVMIDINoteEvent).duration = max(0, length - trackEntries[i].beat) }
            }
            if index == 0, let trackName, info[InfoDictionaryKey.title.rawValue] == nil { info[InfoDictionaryKey.title.rawValue] = trackName }
            if conductor { tempoLength = max(tempoLength, length); continue }

            if options.contains(.smf_ChannelsToTracks) {
                var byChannel: [UInt32: [AVMusicTrack.Entry]] = [:]
                var rest: [AVMusicTrack.Entry] = []
                for e in trackEntries {
                    if let c = (e.event as? AVMIDIChannelEvent)?.channel ?? (e.event as? AVMIDINoteEvent)?.channel { byChannel[c, default: []].append(e) }
                    else { rest.append(e) }
                }
                let channels = byChannel.keys.sorted()
                if channels.isEmpty { tracks.append(makeTrack(rest, length: length)) }
                for (n, c) in channels.enumerated() {
                    var entries = byChannel[c]!
                    if n == 0 { entries = (rest + entries).enumerated().sorted { $0.element.beat != $1.element.beat ? $0.element.beat < $1.element.beat : $0.offset < $1.offset }.map(\.element) }
                    tracks.append(makeTrack(entries, length: length))
                }
            } else {
                tracks.append(makeTrack(trackEntries, length: length))
            }
        }
        tempoEntries = tempoEntries.enumerated().sorted { $0.element.beat != $1.element.beat ? $0.element.beat < $1.element.beat : $0.offset < $1.offset }.map(\.element)
        replaceContent(tracks: tracks, tempoEntries: tempoEntries, tempoLength: tempoLength)
        let length = (tracks.map(\.lengthInBeats) + [tempoLength]).max() ?? 0
        info[InfoDictionaryKey.approximateDurationInSeconds.rawValue] = seconds(forBeats: length)
        _userInfo = info
    }

    private func makeTrack(_ entries: [AVMusicTrack.Entry], length: Double) -> AVMusicTrack {
        let track = AVMusicTrack(sequencer: self)
        track.entries = entries.enumerated().sorted { $0.element.beat != $1.element.beat ? $0.element.beat < $1.element.beat : $0.offset < $1.offset }.map(\.element)
        track.explicitLength = length
        return track
    }

    // MARK: Writing

    /// Creates and writes a Standard MIDI File (format 1) from the sequence. `resolution` is the
    /// ticks per quarter note (0: 480). Throws when the file exists and `replace` is false, or
    /// when it cannot be written.
    public func write(to fileURL: URL, smpteResolution resolution: Int, replaceExisting replace: Bool) throws {
        if !replace && FileManager.default.fileExists(atPath: fileURL.path) {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioFilePermissionsError),
                          userInfo: [NSLocalizedDescriptionKey: "AVAudioSequencer.write(to:): \(fileURL.path) exists and replaceExisting is false"])
        }
        let bytes = try smfBytes(resolution: resolution)
        do { try Data(bytes).write(to: fileURL) } catch {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioFilePermissionsError),
                          userInfo: [NSLocalizedDescriptionKey: "AVAudioSequencer.write(to:): cannot write \(fileURL.path): \(error.localizedDescription)"])
        }
    }

    /// The sequence as Standard MIDI File data (format 1; `SMPTEResolution` is the ticks per
    /// quarter note, 0: 480).
    public func data(withSMPTEResolution SMPTEResolution: Int, error outError: NSErrorPointer) -> Data {
        do { return Data(try smfBytes(resolution: SMPTEResolution)) } catch {
            outError?.pointee = error as NSError
            return Data()
        }
    }

    /// The sequence as a Standard MIDI File model.
    func standardMIDIFile(resolution: Int) -> StandardMIDIFile {
        lock.lock(); defer { lock.unlock() }
        let ppq = resolution > 0 ? min(resolution, 0x7FFF) : 480
        func tick(_ beat: Double) -> UInt64 { let t = (beat * Double(ppq)).rounded(); return t.isNaN ? 0 : UInt64(min(max(0, t), 1.8e19)) }
        func track(_ t: AVMusicTrack) -> SMFTrack {
            var items: [(tick: UInt64, rank: Int, seq: Int, kind: SMFEvent.Kind)] = []
            func add(_ beat: Double, _ rank: Int, _ kind: SMFEvent.Kind) { items.append((tick(beat), rank, items.count, kind)) }
            for e in t.entries {
                let b = e.beat
                switch e.event {
                case let n as AVMIDINoteEvent:
                    let ch = UInt8(n.channel & 0x0F), key = UInt8(n.key & 0x7F)
                    add(b, 1, .channel(status: 0x90 | ch, data1: key, data2: UInt8(n.velocity & 0x7F)))
                    add(b + max(0, n.duration), tick(b + max(0, n.duration)) > tick(b) ? 0 : 2, .channel(status: 0x80 | ch, data1: key, data2: 0))
                case let n as AVExtendedNoteOnEvent:
                    let ch = UInt8(n.groupID & 0x0F), key = UInt8(clamping: Int(n.midiNote.rounded()))
                    add(b, 1, .channel(status: 0x90 | ch, data1: key & 0x7F, data2: UInt8(clamping: Int(n.velocity.rounded())) & 0x7F))
                    add(b + max(0, n.duration), tick(b + max(0, n.duration)) > tick(b) ? 0 : 2, .channel(status: 0x80 | ch, data1: key & 0x7F, data2: 0))
                case let c as AVMIDIControlChangeEvent:
                    add(b, 1, .channel(status: 0xB0 | UInt8(c.channel & 0x0F), data1: c.controller, data2: UInt8(c.value & 0x7F)))
                case let c as AVMIDIProgramChangeEvent:
                    add(b, 1, .channel(status: 0xC0 | UInt8(c.channel & 0x0F), data1: UInt8(c.programNumber & 0x7F), data2: 0))
                case let c as AVMIDIPitchBendEvent:
                    add(b, 1, .channel(status: 0xE0 | UInt8(c.channel & 0x0F), data1: UInt8(c.value & 0x7F), data2: UInt8((c.value >> 7) & 0x7F)))
                case let c as AVMIDIChannelPressureEvent:
                    add(b, 1, .channel(status: 0xD0 | UInt8(c.channel & 0x0F), data1: UInt8(c.pressure & 0x7F), data2: 0))
                case let c as AVMIDIPolyPressureEvent:
                    add(b, 1, .channel(status: 0xA0 | UInt8(c.channel & 0x0F), data1: UInt8(c.key & 0x7F), data2: UInt8(c.pressure & 0x7F)))
                case let s as AVMIDISysexEvent:
                    let bytes = [UInt8](s.data)
                    if bytes.first == 0xF0 { add(b, 1, .sysex(escape: false, data: Array(bytes.dropFirst()))) }
                    else { add(b, 1, .sysex(escape: true, data: bytes)) }
                case let m as AVMIDIMetaEvent:
                    add(b, 1, .meta(type: m.typeByte, data: [UInt8](m.data)))
                case let tempo as AVExtendedTempoEvent:
                    let us = UInt32(max(1, min(0xFF_FFFF, (60_000_000 / max(tempo.tempo, 1e-6)).rounded())))
                    add(b, 1, .meta(type: SMFMetaType.tempo, data: [UInt8(us >> 16), UInt8((us >> 8) & 0xFF), UInt8(us & 0xFF)]))
                default:
                    break
                }
            }
            // Within a tick: note-offs first, in channel and key order (releases at one tick
            // commute, and an order of their own keeps a reloaded sequence writing the same bytes:
            // reloading pairs each release with the oldest sounding note of its key, which can
            // change which note a release belongs to — the smf fuzz target's finding of
            // 2026-11-28), then the other events in the order they were added, then the releases
            // of zero-length notes after their note-ons.
            func tie(_ item: (tick: UInt64, rank: Int, seq: Int, kind: SMFEvent.Kind)) -> Int {
                if item.rank == 0, case let .channel(status, key, _) = item.kind { return Int(status) << 8 | Int(key) }
                return 0
            }
            items.sort { $0.tick != $1.tick ? $0.tick < $1.tick : ($0.rank != $1.rank ? $0.rank < $1.rank : (tie($0) != tie($1) ? tie($0) < tie($1) : $0.seq < $1.seq)) }
            var events = items.map { SMFEvent(tick: $0.tick, kind: $0.kind) }
            events.append(SMFEvent(tick: max(events.last?.tick ?? 0, tick(t.lengthInBeats)), kind: .meta(type: SMFMetaType.endOfTrack, data: [])))
            return SMFTrack(events: events)
        }
        return StandardMIDIFile(format: 1, division: .ticksPerQuarterNote(ppq), tracks: [track(_tempoTrack)] + tracks.map(track))
    }

    /// The file's bytes; throws when two consecutive events of a track are further apart than a
    /// Standard MIDI File can say (0x0FFFFFFF ticks).
    func smfBytes(resolution: Int) throws -> [UInt8] {
        let file = standardMIDIFile(resolution: resolution)
        for (index, track) in file.tracks.enumerated() {
            var last: UInt64 = 0
            for e in track.events {
                if e.tick - last > 0x0FFF_FFFF {
                    throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioToolboxErr_InvalidEventType), userInfo: [
                        NSLocalizedDescriptionKey: "AVAudioSequencer: track \(index) has events \(e.tick - last) ticks apart, more than a Standard MIDI File's delta time holds (268435455); write at a lower resolution"])
                }
                last = e.tick
            }
        }
        return SMFWriter.write(file)
    }
}

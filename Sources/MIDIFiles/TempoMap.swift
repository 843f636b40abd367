// A tempo map: beats ↔ seconds through a list of tempo changes.
//
// Each segment starts at a beat with a tempo (seconds per beat) and the seconds elapsed at that
// beat, computed once when the map is built, so converting a time is one binary search and one
// multiply-add — the same arithmetic whatever the position, so a time read an hour into a song
// is as exact as one read at the start (no accumulation across calls).

/// Beats ↔ seconds under piecewise-constant tempo.
public struct TempoMap: Equatable, Sendable {
    public struct Segment: Equatable, Sendable {
        public var beat: Double
        public var seconds: Double
        public var secondsPerBeat: Double
    }
    /// Segments by increasing beat; the first starts at beat 0.
    public private(set) var segments: [Segment]

    /// The default tempo, 120 beats per minute (SMF 1.0: "if no tempo is set, 120 BPM is assumed").
    public static let defaultSecondsPerBeat = 0.5

    /// A map from tempo changes (beat, beats per minute), in any order; later changes at the same
    /// beat win. Tempos that are not positive and finite are ignored.
    public init(changes: [(beat: Double, bpm: Double)]) {
        var segs = [Segment(beat: 0, seconds: 0, secondsPerBeat: TempoMap.defaultSecondsPerBeat)]
        let sorted = changes.enumerated().sorted { $0.element.beat != $1.element.beat ? $0.element.beat < $1.element.beat : $0.offset < $1.offset }
        for (_, change) in sorted {
            guard change.bpm.isFinite, change.bpm > 0, change.beat.isFinite else { continue }
            let beat = max(0, change.beat)
            let spb = 60 / change.bpm
            let last = segs[segs.count - 1]
            if beat == last.beat {
                segs[segs.count - 1].secondsPerBeat = spb
            } else {
                segs.append(Segment(beat: beat, seconds: last.seconds + (beat - last.beat) * last.secondsPerBeat, secondsPerBeat: spb))
            }
        }
        segments = segs
    }

    /// The segment index containing `beat`.
    public func segmentIndex(forBeat beat: Double) -> Int {
        var lo = 0, hi = segments.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if segments[mid].beat <= beat { lo = mid } else { hi = mid - 1 }
        }
        return lo
    }

    public func seconds(forBeat beat: Double) -> Double {
        let s = segments[segmentIndex(forBeat: beat)]
        return s.seconds + (beat - s.beat) * s.secondsPerBeat
    }

    public func beat(forSeconds seconds: Double) -> Double {
        var lo = 0, hi = segments.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if segments[mid].seconds <= seconds { lo = mid } else { hi = mid - 1 }
        }
        let s = segments[lo]
        return s.beat + (seconds - s.seconds) / s.secondsPerBeat
    }

    /// Beats per minute at `beat`.
    public func bpm(atBeat beat: Double) -> Double { 60 / segments[segmentIndex(forBeat: beat)].secondsPerBeat }
}

extension StandardMIDIFile {
    /// The tempo changes (tick, microseconds per quarter note) of every track, in tick order.
    public var tempoChanges: [(tick: UInt64, microsecondsPerQuarter: UInt32)] {
        var out: [(tick: UInt64, microsecondsPerQuarter: UInt32)] = []
        for track in tracks {
            for e in track.events {
                if case let .meta(type, data) = e.kind, type == SMFMetaType.tempo, data.count >= 3 {
                    out.append((e.tick, UInt32(data[0]) << 16 | UInt32(data[1]) << 8 | UInt32(data[2])))
                }
            }
        }
        return out.enumerated().sorted { $0.element.tick != $1.element.tick ? $0.element.tick < $1.element.tick : $0.offset < $1.offset }.map(\.element)
    }

    /// Beats (quarter notes) for a tick: ticks / PPQ for metrical files; for SMPTE files the
    /// tick's seconds at 120 BPM (two beats per second).
    public func beats(forTick tick: UInt64) -> Double {
        switch division {
        case .ticksPerQuarterNote(let ppq): return Double(tick) / Double(ppq)
        case .smpte: return Double(tick) * (division.secondsPerSMPTETick ?? 0) / TempoMap.defaultSecondsPerBeat
        }
    }

    /// The file's tempo map in beats (SMPTE files: none, their ticks are already real time).
    public var tempoMap: TempoMap {
        guard case .ticksPerQuarterNote = division else { return TempoMap(changes: []) }
        return TempoMap(changes: tempoChanges.map { (beats(forTick: $0.tick), 60_000_000 / Double(max(1, $0.microsecondsPerQuarter))) })
    }
}

// AVMusicTrack: a time-ordered list of music events with playback properties (destination,
// offset, loop, mute, solo) and editing operations, as AVAudioSequencer.h declares it.
//
// Storage: events sorted by beat; events at the same beat keep the order they were added in
// (stable insertion), which is the order they are played and written in. Every change tells the
// owning sequencer, which republishes what the render thread plays (see
// SequencerRenderer.swift), so editing while playing is heard at the next render cycle.
import Foundation

/// Options that define the number of times a track loops.
public enum AVMusicTrackLoopCount: Int, @unchecked Sendable {
    /// A track that loops forever.
    case forever = -1
}

/// The block `enumerateEvents(in:using:)` calls for each event: the event, its time stamp (the
/// block may change it to move the event) and a flag the block sets to remove the event.
public typealias AVMusicEventEnumerationBlock = (AVMusicEvent, UnsafeMutablePointer<AVMusicTimeStamp>, UnsafeMutablePointer<ObjCBool>) -> Void

/// A collection of music events that you can offset, set to a muted state, modify independently
/// from other track events, and send to a specified destination.
open class AVMusicTrack: NSObject {
    struct Entry {
        var beat: AVMusicTimeStamp
        var event: AVMusicEvent
    }
    /// Events by beat (stable for equal beats).
    var entries: [Entry] = []
    /// The sequencer that owns the track (nil once removed).
    weak var sequencer: AVAudioSequencer?
    /// The length set by the client or read from a file's end-of-track event.
    var explicitLength: AVMusicTimeStamp = 0
    /// Whether this is the sequencer's tempo track.
    let isTempoTrack: Bool

    init(sequencer: AVAudioSequencer?, isTempoTrack: Bool = false) {
        self.sequencer = sequencer
        self.isTempoTrack = isTempoTrack
        super.init()
    }

    private func changed() { sequencer?.contentDidChange() }

    /// Runs `body` holding the owning sequencer's lock (tracks are edited from any thread while
    /// the sequencer compiles them for playback). Never held while client code runs.
    private func locked<T>(_ body: () -> T) -> T {
        guard let lock = sequencer?.lock else { return body() }
        lock.lock(); defer { lock.unlock() }
        return body()
    }

    // MARK: Destination

    /// The audio unit that receives the track's events (nil: the engine's first MIDI instrument).
    /// Setting it removes a MIDI endpoint destination.
    open var destinationAudioUnit: AVAudioUnit? {
        didSet { if destinationAudioUnit != nil { _endpoint = 0 }; changed() }
    }
    private var _endpoint: MIDIEndpointRef = 0
    /// The MIDI endpoint you specify as the track's target. There is no CoreMIDI on Linux: a
    /// track sent to an endpoint plays nowhere. Setting it removes an audio unit destination.
    open var destinationMIDIEndpoint: MIDIEndpointRef {
        get { _endpoint }
        set { _endpoint = newValue; if newValue != 0 { destinationAudioUnit = nil }; changed() }
    }

    // MARK: Playback properties

    /// The timestamp range for the loop, in beats (length 0: the whole track).
    open var loopRange: AVBeatRange = AVBeatRange() { didSet { changed() } }
    /// Whether the track loops. If you don't set `loopRange`, the whole track loops.
    open var isLoopingEnabled = false { didSet { changed() } }
    /// How many times the loop plays: `AVMusicTrackLoopCount.forever.rawValue` (-1) or 1 and up.
    /// Counted as MusicTrackLoopInfo counts (Apple's AudioToolbox, which AVMusicTrack wraps: "the
    /// number of times to play the designated portion of the music track"), so 1 plays it once.
    /// The default, forever, is an inference: MusicTrackLoopInfo's zero value means "loop
    /// forever", and Apple documents no other default.
    open var numberOfLoops: Int = AVMusicTrackLoopCount.forever.rawValue { didSet { changed() } }
    /// The offset of the track's start time, in beats.
    open var offsetTime: AVMusicTimeStamp = 0 { didSet { changed() } }
    /// Whether the track is muted.
    open var isMuted = false { didSet { changed() } }
    /// Whether the track is soloed (when any track is, only soloed tracks play).
    open var isSoloed = false { didSet { changed() } }

    /// The total duration of the track, in beats: the end of its last event (a note's end), or
    /// the length set (or read from the file's end-of-track event) when that is later.
    open var lengthInBeats: AVMusicTimeStamp {
        get { max(explicitLength, contentEnd) }
        set { explicitLength = max(0, newValue); changed() }
    }
    /// The total duration of the track, in seconds (through the sequence's tempo map).
    open var lengthInSeconds: TimeInterval {
        get { sequencer?.seconds(forBeats: lengthInBeats) ?? lengthInBeats * 0.5 }
        set { lengthInBeats = sequencer?.beats(forSeconds: newValue) ?? newValue * 2 }
    }
    /// The time resolution of the sequence, in ticks per quarter note (the file's, else 480).
    open var timeResolution: Int { sequencer?.timeResolution ?? 480 }
    /// Whether the track is an automation track: it then holds parameter events only. Apple
    /// documents that setting it on a track that holds other events raises; so does this (a trap).
    open var usesAutomatedParameters = false {
        willSet {
            if newValue {
                precondition(locked { entries.allSatisfy { $0.event is AVParameterEvent } },
                             "AVMusicTrack.usesAutomatedParameters: the track holds events other than AVParameterEvent")
            }
        }
    }

    var contentEnd: AVMusicTimeStamp {
        locked {
            var end = 0.0
            for e in entries { end = max(end, e.beat + e.event._duration) }
            return end
        }
    }

    // MARK: Editing

    /// Inserts a copy of `event` keeping beat order (after events at the same beat).
    func insert(_ event: AVMusicEvent, at beat: AVMusicTimeStamp) {
        var lo = 0, hi = entries.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if entries[mid].beat <= beat { lo = mid + 1 } else { hi = mid }
        }
        entries.insert(Entry(beat: beat, event: event), at: lo)
    }

    private static func end(of range: AVBeatRange) -> Double {
        range.length >= AVMusicTimeStampEndOfTrack ? .infinity : range.start + range.length
    }
    private static func contains(_ range: AVBeatRange, _ beat: Double) -> Bool { beat >= range.start && beat < end(of: range) }

    /// Adds a music event to a track at the time you specify (the track keeps a copy, so the
    /// same event can be added at several times). As Apple documents: only `AVExtendedTempoEvent`
    /// and `AVMIDIMetaEvent`s of type tempo, SMPTE offset and time signature go into the tempo
    /// track; only `AVParameterEvent`s into an automation track (`usesAutomatedParameters`); no
    /// tempo event elsewhere. Adding another is a programmer error (a trap naming the event).
    open func addEvent(_ event: AVMusicEvent, at beat: AVMusicTimeStamp) {
        precondition(beat.isFinite, "AVMusicTrack.addEvent: beat \(beat) is not a finite time stamp")
        let tempoKind: Bool
        if event is AVExtendedTempoEvent { tempoKind = true }
        else if let meta = event as? AVMIDIMetaEvent { tempoKind = [.tempo, .smpteOffset, .timeSignature].contains(meta.type) }
        else { tempoKind = false }
        if isTempoTrack {
            precondition(tempoKind, "AVMusicTrack.addEvent: the tempo track takes only AVExtendedTempoEvent and tempo, SMPTE offset and time signature meta events, not \(event)")
        } else if usesAutomatedParameters {
            precondition(event is AVParameterEvent, "AVMusicTrack.addEvent: an automation track takes only AVParameterEvent, not \(event)")
        } else {
            precondition(!(event is AVExtendedTempoEvent), "AVMusicTrack.addEvent: an AVExtendedTempoEvent can only be added to the sequencer's tempo track")
        }
        let copy = event._copy()
        locked { insert(copy, at: max(0, beat)) }
        changed()
    }

    /// Moves the beat location of all events in the given beat range by `beatAmount`.
    open func moveEvents(in range: AVBeatRange, by beatAmount: AVMusicTimeStamp) {
        locked {
            let moved = entries.filter { Self.contains(range, $0.beat) }
            entries.removeAll { Self.contains(range, $0.beat) }
            for e in moved { insert(e.event, at: max(0, e.beat + beatAmount)) }
        }
        changed()
    }

    /// Removes all events in the given beat range; later events stay where they are.
    open func clearEvents(in range: AVBeatRange) {
        locked { entries.removeAll { Self.contains(range, $0.beat) } }
        changed()
    }

    /// Removes all events in the given beat range and moves later events earlier by its length.
    open func cutEvents(in range: AVBeatRange) {
        let end = Self.end(of: range)
        locked {
            entries.removeAll { Self.contains(range, $0.beat) }
            if end.isFinite {
                for i in entries.indices where entries[i].beat >= end { entries[i].beat -= range.length }
            }
        }
        changed()
    }

    /// Copies the events of `sourceTrack` in `range` and splices them in at `insertStartBeat`:
    /// this track's events from that beat on move later by the range's length.
    open func copyEvents(in range: AVBeatRange, from sourceTrack: AVMusicTrack, insertAt insertStartBeat: AVMusicTimeStamp) {
        let copies = sourceTrack.locked { sourceTrack.entries.filter { Self.contains(range, $0.beat) }.map { Entry(beat: $0.beat - range.start + insertStartBeat, event: $0.event._copy()) } }
        var length = range.length
        if Self.end(of: range) == .infinity { length = max(0, sourceTrack.lengthInBeats - range.start) }
        locked {
            for i in entries.indices where entries[i].beat >= insertStartBeat { entries[i].beat += length }
            for c in copies { insert(c.event, at: c.beat) }
        }
        changed()
    }

    /// Copies the events of `sourceTrack` in `range` and merges them in at `mergeStartBeat`
    /// (nothing in this track moves).
    open func copyAndMergeEvents(in range: AVBeatRange, from sourceTrack: AVMusicTrack, mergeAt mergeStartBeat: AVMusicTimeStamp) {
        let copies = sourceTrack.locked { sourceTrack.entries.filter { Self.contains(range, $0.beat) }.map { Entry(beat: $0.beat - range.start + mergeStartBeat, event: $0.event._copy()) } }
        locked { for c in copies { insert(c.event, at: c.beat) } }
        changed()
    }

    /// Calls `block` for each event in the beat range, in time order. The block may change the
    /// event's properties, move it (by changing the time stamp) or remove it (by setting the flag);
    /// changes are kept when the block returns.
    open func enumerateEvents(in range: AVBeatRange, using block: AVMusicEventEnumerationBlock) {
        // The block runs without the lock (it is client code and may edit tracks itself); its
        // changes are applied afterwards to the events it was shown.
        let snapshot = locked { entries.filter { Self.contains(range, $0.beat) } }
        var kept: [Entry] = []
        var changedAny = false
        for e in snapshot {
            let copy = e.event._copy()
            var stamp = e.beat
            var remove = ObjCBool(false)
            block(copy, &stamp, &remove)
            changedAny = true
            if remove.boolValue { continue }
            kept.append(Entry(beat: stamp.isFinite ? max(0, stamp) : e.beat, event: copy))
        }
        guard changedAny else { return }
        let shown = Set(snapshot.map { ObjectIdentifier($0.event) })
        locked {
            entries.removeAll { shown.contains(ObjectIdentifier($0.event)) }
            for e in kept { insert(e.event, at: e.beat) }
        }
        changed()
    }
}

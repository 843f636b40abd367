// AVAudioSequencer: a sequence of music tracks and a tempo track, loaded from and written to
// Standard MIDI Files (MIDIFiles), and played through an engine's instruments with every event
// on its exact sample (the render side is SequencerRenderer.swift; its design note explains the
// timing). The file conversion is in AVAudioSequencer+Files.swift.
//
// Threading: the sequencer's state is guarded by its own lock; the render thread only sees the
// compiled program and a few atomics. The user callback runs on the sequencer's delivery queue,
// never on the render thread and never with the lock held.
import Foundation
import MIDIFiles
import Synchronization

/// A structure that defines whether data on different MIDI channels map to multiple tracks, or
/// whether the framework preserves the tracks as they are.
public struct AVMusicSequenceLoadOptions: OptionSet, @unchecked Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Keep the file's tracks (the default; raw value 0).
    public static var smf_PreserveTracks: AVMusicSequenceLoadOptions { AVMusicSequenceLoadOptions([]) }
    /// Put each MIDI channel's events into a track of its own.
    public static var smf_ChannelsToTracks: AVMusicSequenceLoadOptions { AVMusicSequenceLoadOptions(rawValue: 1) }
}

/// A callback the sequencer calls asynchronously during playback when it encounters a user event:
/// the track, the event's data and its beat.
public typealias AVAudioSequencerUserCallback = (AVMusicTrack, Data, AVMusicTimeStamp) -> Void

/// An object that plays audio from a collection of MIDI events the system organizes into music tracks.
open class AVAudioSequencer: NSObject {
    /// Metadata keys (their strings are Core Audio's `kAFInfoDictionary_*` values).
    public struct InfoDictionaryKey: Hashable, RawRepresentable, @unchecked Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public static let album = InfoDictionaryKey("album")
        public static let approximateDurationInSeconds = InfoDictionaryKey("approximate duration in seconds")
        public static let artist = InfoDictionaryKey("artist")
        public static let channelLayout = InfoDictionaryKey("channel layout")
        public static let comments = InfoDictionaryKey("comments")
        public static let composer = InfoDictionaryKey("composer")
        public static let copyright = InfoDictionaryKey("copyright")
        public static let encodingApplication = InfoDictionaryKey("encoding application")
        public static let genre = InfoDictionaryKey("genre")
        public static let ISRC = InfoDictionaryKey("ISRC")
        public static let keySignature = InfoDictionaryKey("key signature")
        public static let lyricist = InfoDictionaryKey("lyricist")
        public static let nominalBitRate = InfoDictionaryKey("nominal bit rate")
        public static let recordedDate = InfoDictionaryKey("recorded date")
        public static let sourceBitDepth = InfoDictionaryKey("source bit depth")
        public static let sourceEncoder = InfoDictionaryKey("source encoder")
        public static let subTitle = InfoDictionaryKey("subtitle")
        public static let tempo = InfoDictionaryKey("tempo")
        public static let timeSignature = InfoDictionaryKey("time signature")
        public static let title = InfoDictionaryKey("title")
        public static let trackNumber = InfoDictionaryKey("track number")
        public static let year = InfoDictionaryKey("year")
    }

    let lock = NSRecursiveLock()
    weak var engine: AVAudioEngine?
    let renderer = SequencerRenderer()
    private var registered = false

    private var _tracks: [AVMusicTrack] = []
    private(set) lazy var _tempoTrack = AVMusicTrack(sequencer: self, isTempoTrack: true)
    var _userInfo: [String: Any] = [:]
    /// Ticks per quarter note of the loaded file (480 for a new sequence).
    var timeResolution = 480
    /// Whether a program has been published (the sequencer was prepared or started).
    private var prepared = false
    private var userCallback: AVAudioSequencerUserCallback?
    private var deliveryTimer: DispatchSourceTimer?
    private let deliveryQueue = DispatchQueue(label: "AVAudioSequencer.userCallback")
    /// The program the render side plays (for the user callback's lookup).
    private var program: SequencerProgram?
    private var _isPlaying = false
    private var _rate: Float = 1
    /// Position while stopped, in seconds.
    private var stoppedPosition: Double = 0

    /// Creates an audio sequencer object (it can load, edit and write sequences; playing needs an engine).
    public override init() {
        super.init()
    }

    /// Creates an audio sequencer that plays through `engine`'s instruments.
    public init(audioEngine engine: AVAudioEngine) {
        self.engine = engine
        super.init()
        registered = engine.sequencerHooks.add(renderer)
        precondition(registered, "AVAudioSequencer(audioEngine:): more than \(SequencerHooks.capacity) sequencers on one engine")
    }

    deinit {
        deliveryTimer?.cancel()
        if registered { engine?.sequencerHooks.remove(renderer) }
    }

    // MARK: Tracks

    /// An array that contains all the tracks in the sequence (the tempo track is not among them).
    open var tracks: [AVMusicTrack] { lock.lock(); defer { lock.unlock() }; return _tracks }

    /// The track that contains tempo information about the sequence.
    open var tempoTrack: AVMusicTrack { lock.lock(); defer { lock.unlock() }; return _tempoTrack }

    /// A dictionary that contains metadata from a sequence (keys: `InfoDictionaryKey` raw values).
    open var userInfo: [String: Any] { lock.lock(); defer { lock.unlock() }; return _userInfo }

    /// Creates a new music track and appends it to the sequencer's list.
    open func createAndAppendTrack() -> AVMusicTrack {
        lock.lock(); defer { lock.unlock() }
        let track = AVMusicTrack(sequencer: self)
        _tracks.append(track)
        contentDidChange()
        return track
    }

    /// Removes the music track from the sequencer (false when it is not one of its tracks).
    open func removeTrack(_ track: AVMusicTrack) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard let i = _tracks.firstIndex(where: { $0 === track }) else { return false }
        _tracks.remove(at: i)
        track.sequencer = nil
        contentDidChange()
        return true
    }

    /// Reverses the order of all events in all music tracks, including the tempo track: an event
    /// at beat b of a track of length L moves to L − b (a note to L − b − duration, so it still
    /// sounds over the mirrored span).
    open func reverseEvents() {
        lock.lock(); defer { lock.unlock() }
        for track in _tracks + [_tempoTrack] {
            let length = track.lengthInBeats
            let old = track.entries
            track.entries = []
            for e in old.reversed() { track.insert(e.event, at: max(0, length - e.beat - e.event._duration)) }
        }
        contentDidChange()
    }

    /// Replaces the whole content (used by loading).
    func replaceContent(tracks: [AVMusicTrack], tempoEntries: [AVMusicTrack.Entry], tempoLength: Double) {
        for t in _tracks { t.sequencer = nil }
        _tracks = tracks
        _tempoTrack.entries = tempoEntries
        _tempoTrack.explicitLength = tempoLength
        contentDidChange()
    }

    // MARK: Time

    /// The sequence's tempo map (tempo events of the tempo track; 120 BPM before the first).
    var tempoMap: TempoMap {
        lock.lock(); defer { lock.unlock() }
        var changes: [(beat: Double, bpm: Double)] = []
        for e in _tempoTrack.entries {
            if let t = e.event as? AVExtendedTempoEvent { changes.append((e.beat, t.tempo)) }
            else if let m = e.event as? AVMIDIMetaEvent, m.typeByte == SMFMetaType.tempo, m.data.count >= 3 {
                let us = Double(UInt32(m.data[0]) << 16 | UInt32(m.data[1]) << 8 | UInt32(m.data[2]))
                if us > 0 { changes.append((e.beat, 60_000_000 / us)) }
            }
        }
        return TempoMap(changes: changes)
    }

    /// The time for a beat position, in seconds, through the tempo track.
    open func seconds(forBeats beats: AVMusicTimeStamp) -> TimeInterval { tempoMap.seconds(forBeat: beats) }

    /// The beat position for a time in seconds, through the tempo track.
    open func beats(forSeconds seconds: TimeInterval) -> AVMusicTimeStamp { tempoMap.beat(forSeconds: seconds) }

    // MARK: Player

    /// Whether the sequencer's player is playing.
    open var isPlaying: Bool { lock.lock(); defer { lock.unlock() }; return _isPlaying }

    /// The playback rate (1 is normal speed; 2 twice as fast). Apple documents no range; a rate
    /// that is not positive and finite plays as a near standstill (10⁻⁶), and reads back as set.
    open var rate: Float {
        get { lock.lock(); defer { lock.unlock() }; return _rate }
        set {
            lock.lock(); defer { lock.unlock() }
            _rate = newValue
            let effective = newValue > 0 && newValue.isFinite ? Double(newValue) : 1e-6
            renderer.rateBits.store(effective.bitPattern, ordering: .relaxed)
        }
    }
    /// The rate the render side plays at.
    private var effectiveRate: Double { _rate > 0 && _rate.isFinite ? Double(_rate) : 1e-6 }

    /// The playback position in seconds: while playing, the sequence time at the end of the last
    /// rendered cycle; setting it moves playback there at the next cycle.
    open var currentPositionInSeconds: TimeInterval {
        get {
            lock.lock(); defer { lock.unlock() }
            return _isPlaying ? renderer.position : stoppedPosition
        }
        set {
            lock.lock(); defer { lock.unlock() }
            stoppedPosition = max(0, newValue)
            if _isPlaying { renderer.requestAnchor(atSeconds: stoppedPosition) }
        }
    }

    /// The playback position in beats (through the tempo map).
    open var currentPositionInBeats: TimeInterval {
        get { beats(forSeconds: currentPositionInSeconds) }
        set { currentPositionInSeconds = seconds(forBeats: max(0, newValue)) }
    }

    /// Gets ready to play: compiles the tracks into the render side's program (prerolls events).
    open func prepareToPlay() {
        lock.lock(); defer { lock.unlock() }
        prepared = true
        publishProgram()
    }

    /// Starts the sequencer's player from the current position. Throws (NSOSStatusErrorDomain,
    /// `kAudioToolboxErr_InvalidPlayerState`) without an engine, and when the engine is not running.
    open func start() throws {
        lock.lock(); defer { lock.unlock() }
        guard let engine else {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioToolboxErr_InvalidPlayerState),
                          userInfo: [NSLocalizedDescriptionKey: "AVAudioSequencer.start(): the sequencer has no engine (create it with init(audioEngine:))"])
        }
        guard engine.isRunning else {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioToolboxErr_InvalidPlayerState),
                          userInfo: [NSLocalizedDescriptionKey: "AVAudioSequencer.start(): the engine is not running; start the engine first"])
        }
        if _isPlaying { return }
        prepared = true
        publishProgram()
        renderer.requestAnchor(atSeconds: stoppedPosition)
        renderer.playing.store(true, ordering: .releasing)
        _isPlaying = true
        startDelivery()
    }

    /// Stops the sequencer's player (sounding notes get "all notes off"); the position stays.
    open func stop() {
        lock.lock(); defer { lock.unlock() }
        guard _isPlaying else { return }
        stoppedPosition = renderer.position
        renderer.playing.store(false, ordering: .releasing)
        _isPlaying = false
    }

    /// The host time at which the sequence plays `inBeats` (while playing; otherwise an error).
    open func hostTime(forBeats inBeats: AVMusicTimeStamp, error outError: NSErrorPointer) -> UInt64 {
        lock.lock(); defer { lock.unlock() }
        guard _isPlaying, renderer.positionHostTime.load(ordering: .relaxed) != 0 else {
            outError?.pointee = NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioToolboxErr_InvalidPlayerState),
                                        userInfo: [NSLocalizedDescriptionKey: "AVAudioSequencer.hostTime(forBeats:): the sequencer is not playing"])
            return 0
        }
        let published = renderer.positionAndHostTime()
        let delta = (seconds(forBeats: inBeats) - published.position) / effectiveRate
        let host = Double(published.hostTime) + delta * 1e9
        return UInt64(max(0, host.rounded()))
    }

    /// The beat the sequence plays at a host time (while playing; otherwise an error).
    open func beats(forHostTime inHostTime: UInt64, error outError: NSErrorPointer) -> AVMusicTimeStamp {
        lock.lock(); defer { lock.unlock() }
        guard _isPlaying, renderer.positionHostTime.load(ordering: .relaxed) != 0 else {
            outError?.pointee = NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioToolboxErr_InvalidPlayerState),
                                        userInfo: [NSLocalizedDescriptionKey: "AVAudioSequencer.beats(forHostTime:): the sequencer is not playing"])
            return 0
        }
        let published = renderer.positionAndHostTime()
        let delta = (Double(inHostTime) - Double(published.hostTime)) * 1e-9 * effectiveRate
        return beats(forSeconds: published.position + delta)
    }

    /// Adds (or with nil removes) the callback called for each user event during playback.
    open func setUserCallback(_ userCallback: AVAudioSequencerUserCallback?) {
        lock.lock(); defer { lock.unlock() }
        self.userCallback = userCallback
    }

    // MARK: Program

    /// Called by tracks after every change: republish if the render side plays this sequence.
    func contentDidChange() {
        lock.lock(); defer { lock.unlock() }
        if prepared { publishProgram() }
    }

    /// The engine's first attached MIDI instrument: the destination of tracks that name none.
    /// Apple documents no default; this rests on how clients use it — Apple's own AVAEMixerSample
    /// attaches a sampler, creates `AVAudioSequencer(audioEngine:)`, loads a file and plays it
    /// without setting any track's destination, and it sounds on that sampler.
    private func defaultDestination() -> AVAudioUnit? {
        guard let engine else { return nil }
        engine.lock.lock(); defer { engine.lock.unlock() }
        for id in engine.attachOrder {
            if let instrument = engine.nodes[id] as? AVAudioUnitMIDIInstrument { return instrument }
        }
        return nil
    }

    private func publishProgram() {
        let map = tempoMap
        let fallback = defaultDestination()
        let anySolo = _tracks.contains { $0.isSoloed }
        var compiled: [(events: [PreparedSequencerEvent], scheduler: RenderEventScheduler?, offset: Double,
                        loopStart: Double, loopLength: Double, passes: Int, index: Int, rate: Double)] = []
        var users: [(track: AVMusicTrack, data: Data)] = []
        var sysex: [UInt8] = []
        for (index, track) in _tracks.enumerated() {
            guard !track.isMuted, !anySolo || track.isSoloed else { continue }
            let destination: AVAudioUnit? = track.destinationMIDIEndpoint != 0 ? nil : (track.destinationAudioUnit ?? fallback)
            var loopStart = 0.0, loopLength = 0.0, passes = 0
            if track.isLoopingEnabled {
                if track.loopRange.length > 0 { loopStart = track.loopRange.start; loopLength = track.loopRange.length }
                else { loopLength = track.lengthInBeats }
                passes = track.numberOfLoops < 0 ? -1 : max(1, track.numberOfLoops)
                if loopLength <= 0 { passes = 0 }
            }
            let loopEnd = passes != 0 ? loopStart + loopLength : .infinity
            var events: [(rank: Int, seq: Int, event: PreparedSequencerEvent)] = []
            func add(_ beat: Double, rank: Int, _ e: PreparedSequencerEvent) {
                var e = e
                e.beat = beat
                events.append((rank, events.count, e))
            }
            func midi(_ b0: UInt8, _ b1: UInt8, _ b2: UInt8, length: UInt8) -> PreparedSequencerEvent {
                PreparedSequencerEvent(beat: 0, kind: .midi, length: length, bytes: (b0, b1 & 0x7F, b2 & 0x7F))
            }
            func note(_ beat: Double, channel: UInt32, key: UInt8, velocity: UInt8, duration: Double) {
                let ch = UInt8(channel & 0x0F)
                add(beat, rank: 1, midi(0x90 | ch, key, velocity, length: 3))
                var off = beat + max(0, duration)
                // A note that starts inside the loop is released before the loop wraps, so no
                // pass leaves it hanging (its note-off would otherwise lie past the loop's end).
                if beat >= loopStart && beat < loopEnd && off >= loopEnd { off = loopEnd - 1e-9 }
                // At one beat, earlier notes end before new ones start; a note of no length ends
                // after its own start (a note-off before it would leave it hanging).
                add(off, rank: off > beat ? 0 : 2, midi(0x80 | ch, key, 0, length: 3))
            }
            for entry in track.entries {
                let b = entry.beat
                switch entry.event {
                case let e as AVMIDINoteEvent:
                    note(b, channel: e.channel, key: UInt8(e.key & 0x7F), velocity: UInt8(e.velocity & 0x7F), duration: e.duration)
                case let e as AVExtendedNoteOnEvent:
                    note(b, channel: e.groupID, key: UInt8(clamping: Int(e.midiNote.rounded())), velocity: UInt8(clamping: Int(e.velocity.rounded())), duration: e.duration)
                case let e as AVMIDIControlChangeEvent:
                    add(b, rank: 1, midi(0xB0 | UInt8(e.channel & 0x0F), e.controller, UInt8(e.value & 0x7F), length: 3))
                case let e as AVMIDIProgramChangeEvent:
                    add(b, rank: 1, midi(0xC0 | UInt8(e.channel & 0x0F), UInt8(e.programNumber & 0x7F), 0, length: 2))
                case let e as AVMIDIPitchBendEvent:
                    add(b, rank: 1, midi(0xE0 | UInt8(e.channel & 0x0F), UInt8(e.value & 0x7F), UInt8((e.value >> 7) & 0x7F), length: 3))
                case let e as AVMIDIChannelPressureEvent:
                    add(b, rank: 1, midi(0xD0 | UInt8(e.channel & 0x0F), UInt8(e.pressure & 0x7F), 0, length: 2))
                case let e as AVMIDIPolyPressureEvent:
                    add(b, rank: 1, midi(0xA0 | UInt8(e.channel & 0x0F), UInt8(e.key & 0x7F), UInt8(e.pressure & 0x7F), length: 3))
                case let e as AVParameterEvent:
                    add(b, rank: 1, PreparedSequencerEvent(beat: 0, kind: .parameter, address: AUParameterAddress(e.parameterID), value: e.value))
                case let e as AVMusicUserEvent:
                    add(b, rank: 1, PreparedSequencerEvent(beat: 0, kind: .user, userIndex: Int32(users.count)))
                    users.append((track, e.data))
                case let e as AVMIDISysexEvent where !e.data.isEmpty && e.data.count <= Int(UInt16.max):
                    add(b, rank: 1, PreparedSequencerEvent(beat: 0, kind: .sysex, userIndex: Int32(clamping: sysex.count), sysexLength: UInt16(e.data.count)))
                    sysex += e.data
                default:
                    // Meta events and preset events are not sent to the destination.
                    break
                }
            }
            events.sort { $0.event.beat != $1.event.beat ? $0.event.beat < $1.event.beat : ($0.rank != $1.rank ? $0.rank < $1.rank : $0.seq < $1.seq) }
            // (the destination's own rate: behind a mixer's rate converter it counts time in its
            // frames, not the engine output's; 0 when it has no output bus)
            let rate = destination.map { $0.numberOfOutputs > 0 ? $0.outputFormat(forBus: 0).sampleRate : 0 } ?? 0
            compiled.append((events.map(\.event), destination?.auAudioUnit.eventScheduler, track.offsetTime, loopStart, loopLength, passes, index, rate))
        }
        let program = SequencerProgram(tempo: map, tracks: compiled, userEvents: users, sysexBytes: sysex)
        self.program = program
        renderer.publish(program)
    }

    private func startDelivery() {
        guard deliveryTimer == nil else { return }
        let timer = DispatchSource.makeTimerSource(queue: deliveryQueue)
        timer.schedule(deadline: .now(), repeating: .milliseconds(5))
        timer.setEventHandler { [weak self] in self?.deliverUserEvents() }
        deliveryTimer = timer
        timer.resume()
    }

    /// Delivery queue: calls the user callback for the user events the render side reported.
    func deliverUserEvents() {
        lock.lock()
        let reported = renderer.takeUserEvents()
        let callback = userCallback
        let table = program?.userEvents ?? []
        lock.unlock()
        guard let callback else { return }
        for r in reported where Int(r.index) < table.count {
            callback(table[Int(r.index)].track, table[Int(r.index)].data, r.beat)
        }
    }
}

// Standard MIDI Files (SMF, the MIDI Manufacturers Association's "Standard MIDI Files 1.0"):
// the in-memory model shared by the reader and the writer. No Apple names: the AVFAudio façade
// (AVAudioSequencer, AVMusicTrack) turns these into music events and back.
//
// The model keeps a file's content exactly: every event with its absolute tick, channel messages
// as their status and data bytes (running status is expanded on reading and applied again on
// writing), system exclusive messages with the kind of their introducer (F0, or the F7 escape
// that carries any bytes), and every meta event with its type byte and its data untouched (so
// meta types this code does not know survive a round trip).

/// How ticks relate to time: ticks per quarter note, or SMPTE frames and ticks per frame.
public enum SMFDivision: Equatable, Sendable {
    /// Metrical time: `ticks` per quarter note (1 … 32767).
    case ticksPerQuarterNote(Int)
    /// Real time: `framesPerSecond` (24, 25, 29 meaning 29.97 drop-frame, or 30) and ticks per frame.
    case smpte(framesPerSecond: Int, ticksPerFrame: Int)

    /// The 16-bit division word of the header chunk.
    public var word: UInt16 {
        switch self {
        case .ticksPerQuarterNote(let t): return UInt16(t & 0x7FFF)
        case .smpte(let fps, let tpf): return (UInt16(UInt8(bitPattern: Int8(-fps))) << 8) | UInt16(tpf & 0xFF)
        }
    }

    /// Decodes a header's division word.
    public init(word: UInt16) {
        if word & 0x8000 == 0 {
            self = .ticksPerQuarterNote(Int(word))
        } else {
            self = .smpte(framesPerSecond: -Int(Int8(bitPattern: UInt8(word >> 8))), ticksPerFrame: Int(word & 0xFF))
        }
    }

    /// Seconds per tick for SMPTE division (29 means 29.97 frames per second); nil for metrical time.
    public var secondsPerSMPTETick: Double? {
        guard case .smpte(let fps, let tpf) = self, tpf > 0, fps > 0 else { return nil }
        let rate = fps == 29 ? 30000.0 / 1001.0 : Double(fps)
        return 1 / (rate * Double(tpf))
    }
}

/// One event of a track: its absolute time in ticks and what it is.
public struct SMFEvent: Equatable, Sendable {
    public enum Kind: Equatable, Sendable {
        /// A channel voice or mode message: the status byte (with its channel) and its data bytes
        /// (`data2` is 0 for the one-data-byte messages, program change and channel pressure).
        case channel(status: UInt8, data1: UInt8, data2: UInt8)
        /// A system exclusive event: `escape` false for an F0 event (the bytes after F0, usually
        /// ending with F7), true for an F7 event (any bytes, sent as they are).
        case sysex(escape: Bool, data: [UInt8])
        /// A meta event (FF type length data).
        case meta(type: UInt8, data: [UInt8])
    }
    public var tick: UInt64
    public var kind: Kind
    public init(tick: UInt64, kind: Kind) { self.tick = tick; self.kind = kind }

    /// Data bytes a channel message of this status carries (1 or 2).
    public static func dataLength(status: UInt8) -> Int {
        switch status & 0xF0 {
        case 0xC0, 0xD0: return 1
        default: return 2
        }
    }
}

/// Meta event types (SMF 1.0), the ones with a defined meaning.
public enum SMFMetaType {
    public static let sequenceNumber: UInt8 = 0x00
    public static let text: UInt8 = 0x01
    public static let copyright: UInt8 = 0x02
    public static let trackName: UInt8 = 0x03
    public static let instrumentName: UInt8 = 0x04
    public static let lyric: UInt8 = 0x05
    public static let marker: UInt8 = 0x06
    public static let cuePoint: UInt8 = 0x07
    public static let channelPrefix: UInt8 = 0x20
    public static let port: UInt8 = 0x21
    public static let endOfTrack: UInt8 = 0x2F
    public static let tempo: UInt8 = 0x51
    public static let smpteOffset: UInt8 = 0x54
    public static let timeSignature: UInt8 = 0x58
    public static let keySignature: UInt8 = 0x59
    public static let sequencerSpecific: UInt8 = 0x7F
}

/// A track chunk: its events in file order (ticks never decrease). The end-of-track meta event
/// is kept as the last event when the file has one.
public struct SMFTrack: Equatable, Sendable {
    public var events: [SMFEvent]
    public init(events: [SMFEvent] = []) { self.events = events }

    /// The tick of the end-of-track event, or of the last event.
    public var endTick: UInt64 { events.last?.tick ?? 0 }
}

/// A whole Standard MIDI File.
public struct StandardMIDIFile: Equatable, Sendable {
    /// 0 (one multi-channel track), 1 (simultaneous tracks) or 2 (independent patterns).
    public var format: Int
    public var division: SMFDivision
    public var tracks: [SMFTrack]
    /// Chunks other than MThd/MTrk, kept in order with the index of the track they followed
    /// (the standard asks readers to skip them; a writer may keep them).
    public var unknownChunks: [(afterTrack: Int, type: [UInt8], data: [UInt8])] = []

    public init(format: Int, division: SMFDivision, tracks: [SMFTrack]) {
        self.format = format
        self.division = division
        self.tracks = tracks
    }

    public static func == (a: StandardMIDIFile, b: StandardMIDIFile) -> Bool {
        a.format == b.format && a.division == b.division && a.tracks == b.tracks
            && a.unknownChunks.count == b.unknownChunks.count
            && zip(a.unknownChunks, b.unknownChunks).allSatisfy { $0.afterTrack == $1.afterTrack && $0.type == $1.type && $0.data == $1.data }
    }
}

/// A reading failure: what is wrong, in which chunk, at which byte offset of the file.
public struct SMFError: Error, Equatable, CustomStringConvertible, Sendable {
    /// The chunk ("MThd", "MTrk #2", or "file" before any chunk).
    public var chunk: String
    /// Byte offset in the file where the problem was found.
    public var offset: Int
    public var reason: String
    public init(chunk: String, offset: Int, reason: String) { self.chunk = chunk; self.offset = offset; self.reason = reason }
    public var description: String { "\(chunk) at byte \(offset): \(reason)" }
}

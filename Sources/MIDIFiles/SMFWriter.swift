// Writing Standard MIDI Files.
//
// Events are written in the order given (ticks must not decrease: a programmer error otherwise),
// channel messages with running status (a channel message whose status equals the previous
// channel message's omits it; sysex events cancel running status, as SMF 1.0 says, so the message
// after one always carries its status), and a track that does not end with an end-of-track meta
// event gets one at its last tick. Reading the bytes back gives the same events.
public enum SMFWriter {
    /// The bytes of `file`; `runningStatus` false writes every status byte.
    public static func write(_ file: StandardMIDIFile, runningStatus: Bool = true) -> [UInt8] {
        precondition((0 ... 2).contains(file.format), "SMFWriter: format \(file.format) is not 0, 1 or 2")
        precondition(file.tracks.count <= 0xFFFF, "SMFWriter: \(file.tracks.count) tracks do not fit a header (65535 at most)")
        var out: [UInt8] = Array("MThd".utf8)
        appendUInt32(&out, 6)
        appendUInt16(&out, UInt16(file.format))
        appendUInt16(&out, UInt16(file.tracks.count))
        appendUInt16(&out, file.division.word)
        var unknown = file.unknownChunks[...]
        for (index, track) in file.tracks.enumerated() {
            while let c = unknown.first, c.afterTrack <= index { appendChunk(&out, c.type, c.data); unknown = unknown.dropFirst() }
            appendChunk(&out, Array("MTrk".utf8), trackBytes(track, runningStatus: runningStatus, index: index))
        }
        for c in unknown { appendChunk(&out, c.type, c.data) }
        return out
    }

    static func trackBytes(_ track: SMFTrack, runningStatus useRunningStatus: Bool, index: Int) -> [UInt8] {
        var out: [UInt8] = []
        var last: UInt64 = 0
        var running: UInt8 = 0
        var endedWithEOT = false
        for e in track.events {
            precondition(e.tick >= last, "SMFWriter: track \(index) has an event at tick \(e.tick) after one at tick \(last)")
            appendVariableLength(&out, e.tick - last)
            last = e.tick
            endedWithEOT = false
            switch e.kind {
            case let .channel(status, d1, d2):
                precondition(status >= 0x80 && status < 0xF0, "SMFWriter: 0x\(hex1(status)) is not a channel status")
                if !(useRunningStatus && status == running) { out.append(status) }
                running = status
                out.append(d1 & 0x7F)
                if SMFEvent.dataLength(status: status) == 2 { out.append(d2 & 0x7F) }
            case let .sysex(escape, data):
                out.append(escape ? 0xF7 : 0xF0)
                appendVariableLength(&out, UInt64(data.count))
                out += data
                running = 0
            case let .meta(type, data):
                out.append(0xFF)
                out.append(type & 0x7F)
                appendVariableLength(&out, UInt64(data.count))
                out += data
                endedWithEOT = type == SMFMetaType.endOfTrack
            }
        }
        if !endedWithEOT { out += [0x00, 0xFF, SMFMetaType.endOfTrack, 0x00] }
        return out
    }

    static func appendChunk(_ out: inout [UInt8], _ type: [UInt8], _ data: [UInt8]) {
        out += type
        appendUInt32(&out, UInt32(data.count))
        out += data
    }
    static func appendUInt16(_ out: inout [UInt8], _ v: UInt16) { out += [UInt8(v >> 8), UInt8(v & 0xFF)] }
    static func appendUInt32(_ out: inout [UInt8], _ v: UInt32) { out += [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }

    /// A variable-length quantity (delta times larger than 0x0FFFFFFF are a programmer error).
    public static func appendVariableLength(_ out: inout [UInt8], _ value: UInt64) {
        precondition(value <= 0x0FFF_FFFF, "SMFWriter: \(value) does not fit a variable-length quantity (0x0FFFFFFF at most)")
        var v = value
        var buffer: [UInt8] = [UInt8(v & 0x7F)]
        v >>= 7
        while v > 0 { buffer.append(UInt8(v & 0x7F) | 0x80); v >>= 7 }
        out += buffer.reversed()
    }
}

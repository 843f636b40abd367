import XCTest
import MIDIFiles

/// The reader and writer on files built here byte by byte (every SMF feature), and round trips.
final class SMFRoundTripTests: XCTestCase {
    /// A format 1 file using running status, a meta event between running-status messages, F0 and
    /// F7 sysex, every common meta type, a long delta time, and an unknown chunk.
    static let handMade: [UInt8] = {
        var track1: [UInt8] = [
            0x00, 0xFF, 0x03, 0x04] + Array("Lead".utf8) + [
            0x00, 0x90, 0x3C, 0x64,         // note on C4
            0x60, 0x3E, 0x64,               // running status: note on D4, delta 96
            0x00, 0xFF, 0x06, 0x01, 0x41,   // marker "A" (running status stays)
            0x10, 0x3C, 0x00,               // running status: C4 velocity 0 (note off), delta 16
            0x81, 0x80, 0x00, 0x80, 0x3E, 0x40, // delta 16384: note off D4
            0x00, 0xF0, 0x05, 0x7E, 0x7F, 0x09, 0x01, 0xF7, // GM on sysex
            0x00, 0xF7, 0x02, 0xF3, 0x01,   // escape: song select
            0x00, 0xC1, 0x05,               // program change, one data byte
            0x00, 0xD1, 0x40,               // channel pressure
            0x00, 0xE1, 0x00, 0x40,         // pitch bend centre
            0x00, 0xA1, 0x3C, 0x10,         // poly pressure
            0x00, 0xB1, 0x07, 0x64,         // volume
            0x00, 0xFF, 0x2F, 0x00]
        let track0: [UInt8] = [
            0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20,  // 120 BPM
            0x00, 0xFF, 0x58, 0x04, 0x04, 0x02, 0x18, 0x08,
            0x00, 0xFF, 0x59, 0x02, 0xFD, 0x00,
            0x00, 0xFF, 0x54, 0x05, 0x60, 0x00, 0x03, 0x00, 0x00,
            0x00, 0xFF, 0x02, 0x03] + Array("(c)".utf8) + [
            0x83, 0x00, 0xFF, 0x51, 0x03, 0x0F, 0x42, 0x40,  // 60 BPM at tick 384
            0x00, 0xFF, 0x2F, 0x00]
        func chunk(_ id: String, _ body: [UInt8]) -> [UInt8] {
            Array(id.utf8) + [UInt8(body.count >> 24), UInt8((body.count >> 16) & 0xFF), UInt8((body.count >> 8) & 0xFF), UInt8(body.count & 0xFF)] + body
        }
        return chunk("MThd", [0, 1, 0, 2, 0x01, 0xE0]) + chunk("MTrk", track0) + chunk("XFIH", [1, 2, 3]) + chunk("MTrk", track1)
    }()

    func testReadsEveryFeature() throws {
        let f = try SMFReader.read(Self.handMade)
        XCTAssertEqual(f.format, 1)
        XCTAssertEqual(f.division, .ticksPerQuarterNote(480))
        XCTAssertEqual(f.tracks.count, 2)
        XCTAssertEqual(f.unknownChunks.count, 1)
        XCTAssertEqual(f.unknownChunks[0].afterTrack, 1)
        let t = f.tracks[1].events
        XCTAssertEqual(t[1], SMFEvent(tick: 0, kind: .channel(status: 0x90, data1: 0x3C, data2: 0x64)))
        XCTAssertEqual(t[2], SMFEvent(tick: 96, kind: .channel(status: 0x90, data1: 0x3E, data2: 0x64)))
        XCTAssertEqual(t[3], SMFEvent(tick: 96, kind: .meta(type: 0x06, data: [0x41])))
        XCTAssertEqual(t[4], SMFEvent(tick: 112, kind: .channel(status: 0x90, data1: 0x3C, data2: 0)))
        XCTAssertEqual(t[5], SMFEvent(tick: 112 + 16384, kind: .channel(status: 0x80, data1: 0x3E, data2: 0x40)))
        XCTAssertEqual(t[6].kind, .sysex(escape: false, data: [0x7E, 0x7F, 0x09, 0x01, 0xF7]))
        XCTAssertEqual(t[7].kind, .sysex(escape: true, data: [0xF3, 0x01]))
        XCTAssertEqual(t[8].kind, .channel(status: 0xC1, data1: 5, data2: 0))
        XCTAssertEqual(t[10].kind, .channel(status: 0xE1, data1: 0, data2: 0x40))
        XCTAssertEqual(t.last?.kind, .meta(type: 0x2F, data: []))
        // Tempo map: 120 BPM for 384 ticks (0.8 beats = 0.4 s), then 60 BPM.
        let map = f.tempoMap
        XCTAssertEqual(map.seconds(forBeat: 0.8), 0.4, accuracy: 1e-12)
        XCTAssertEqual(map.seconds(forBeat: 1.8), 1.4, accuracy: 1e-12)
        XCTAssertEqual(map.beat(forSeconds: 1.4), 1.8, accuracy: 1e-12)
    }

    func testRoundTripIsExact() throws {
        let f = try SMFReader.read(Self.handMade)
        for running in [true, false] {
            let bytes = SMFWriter.write(f, runningStatus: running)
            XCTAssertEqual(try SMFReader.read(bytes), f)
        }
        // Writing what was read gives the same bytes for a file that uses running status the way the writer does.
        let again = SMFWriter.write(try SMFReader.read(SMFWriter.write(f)))
        XCTAssertEqual(again, SMFWriter.write(f))
    }

    func testSMPTEDivisionAndFormats() throws {
        for format in [0, 2] {
            var f = StandardMIDIFile(format: format, division: .smpte(framesPerSecond: 25, ticksPerFrame: 40), tracks: [
                SMFTrack(events: [SMFEvent(tick: 1000, kind: .channel(status: 0x92, data1: 60, data2: 1)),
                                  SMFEvent(tick: 1000, kind: .meta(type: 0x2F, data: []))])])
            if format == 2 { f.tracks.append(f.tracks[0]) }
            let back = try SMFReader.read(SMFWriter.write(f))
            XCTAssertEqual(back, f)
            XCTAssertEqual(back.division.secondsPerSMPTETick!, 0.001, accuracy: 1e-15)
            XCTAssertEqual(back.beats(forTick: 1000), 2.0, accuracy: 1e-12) // 1 s at 120 BPM
        }
        XCTAssertEqual(SMFDivision(word: 0xE728), .smpte(framesPerSecond: 25, ticksPerFrame: 40))
        XCTAssertEqual(SMFDivision.smpte(framesPerSecond: 29, ticksPerFrame: 80).word, 0xE350)
    }

    /// Errors name the chunk and the byte offset.
    func testErrorsNameChunkAndOffset() {
        func error(_ bytes: [UInt8]) -> SMFError? {
            do { _ = try SMFReader.read(bytes); return nil } catch { return error as? SMFError }
        }
        XCTAssertEqual(error(Array("RIFF".utf8) + [UInt8](repeating: 0, count: 20))?.chunk, "file")
        var truncated = Self.handMade
        truncated.removeLast(3)
        let e = error(truncated)
        XCTAssertEqual(e?.chunk, "MTrk #1")
        XCTAssertNotNil(e?.offset)
        // Running status with nothing to repeat.
        let bad: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0, 96] + Array("MTrk".utf8) + [0, 0, 0, 3, 0x00, 0x40, 0x40]
        let e2 = error(bad)
        XCTAssertEqual(e2?.chunk, "MTrk #0")
        XCTAssertEqual(e2?.offset, 23)
        XCTAssert(e2!.description.contains("running status"))
        // A sysex length larger than the chunk: refused before allocating.
        let huge: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0, 96] + Array("MTrk".utf8) + [0, 0, 0, 6, 0x00, 0xF0, 0xFF, 0xFF, 0xFF, 0x7F]
        XCTAssert(error(huge)!.description.contains("runs past the end"))
        // A header announcing more tracks than there are.
        let missing: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 1, 0, 3, 0, 96] + Array("MTrk".utf8) + [0, 0, 0, 4, 0, 0xFF, 0x2F, 0]
        XCTAssert(error(missing)!.description.contains("announces 3 tracks"))
    }

    func testVariableLengthQuantities() throws {
        for v: UInt64 in [0, 0x40, 0x7F, 0x80, 0x2000, 0x3FFF, 0x4000, 0x100000, 0x1FFFFF, 0x200000, 0x8000000, 0xFFFFFFF] {
            var out: [UInt8] = []
            SMFWriter.appendVariableLength(&out, v)
            let f = StandardMIDIFile(format: 0, division: .ticksPerQuarterNote(96), tracks: [SMFTrack(events: [SMFEvent(tick: v, kind: .meta(type: 0x2F, data: []))])])
            XCTAssertEqual(try SMFReader.read(SMFWriter.write(f)).tracks[0].events[0].tick, v)
        }
    }
}

// AVMIDIPlayer through the public API on the null device: duration from the file's tempo, the
// completion handler at the end (once, at the rate's speed), stop() keeping the position without
// calling the handler, seeking, and bad input (NSErrors, never traps). Every wait has a deadline.
import Testing
import Foundation
import AVFoundation

@Suite("AVMIDIPlayer")
struct AVMIDIPlayerTests {
    /// A format-0 standard MIDI file: 120 bpm (tempo meta event), 480 ticks per beat, middle C
    /// from 0 to 2 beats (1 s).
    static func oneSecondFile() -> Data {
        let track: [UInt8] = [0x00, 0xFF, 0x51, 0x03, 0x07, 0xA1, 0x20,   // tempo 500,000 µs per beat
                              0x00, 0x90, 0x3C, 0x64,                     // note on
                              0x87, 0x40, 0x80, 0x3C, 0x40,               // 960 ticks later: note off
                              0x00, 0xFF, 0x2F, 0x00]                     // end of track
        var bytes: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xE0]
        bytes += Array("MTrk".utf8) + [0, 0, 0, UInt8(track.count)] + track
        return Data(bytes)
    }

    static func makePlayer(bank: URL? = nil) throws -> AVMIDIPlayer {
        // (plays on the device the session picks: the null device in CI, where AVAUDIO_BACKEND=null)
        return try AVMIDIPlayer(data: oneSecondFile(), soundBankURL: bank)
    }

    /// Counts completion-handler calls and when the first came.
    final class Completions: @unchecked Sendable {
        private let lock = NSLock()
        private var times: [Date] = []
        func record() { lock.lock(); times.append(Date()); lock.unlock() }
        var all: [Date] { lock.lock(); defer { lock.unlock() }; return times }
    }

    @Test("duration follows the file's tempo; a new player is stopped at 0 at rate 1")
    func properties() throws {
        let player = try Self.makePlayer()
        #expect(abs(player.duration - 1.0) < 1e-9, "\(player.duration)")
        #expect(!player.isPlaying)
        #expect(player.currentPosition == 0)
        #expect(player.rate == 1)
    }

    @Test("play: the position advances, the completion handler is called once at the end (about 1 s), and the player stops")
    func playsToTheEnd() throws {
        let player = try Self.makePlayer()
        player.prepareToPlay()
        let done = Completions()
        let start = Date()
        player.play { done.record() }
        #expect(player.isPlaying)
        usleep(400_000)
        let position = player.currentPosition
        #expect(position > 0.2 && position < 0.8, "position after 0.4 s: \(position)")
        #expect(waitUntil(5) { !done.all.isEmpty })
        let elapsed = done.all.first.map { $0.timeIntervalSince(start) } ?? 0
        #expect(elapsed > 0.9 && elapsed < 2.5, "the 1 s sequence completed after \(elapsed) s")
        usleep(200_000)
        #expect(done.all.count == 1)
        #expect(!player.isPlaying)
    }

    @Test("rate 2 plays the 1 s sequence in about 0.5 s; play() after the end starts again from 0")
    func rate() throws {
        let player = try Self.makePlayer()
        player.rate = 2
        #expect(player.rate == 2)
        let done = Completions()
        let start = Date()
        player.play { done.record() }
        #expect(waitUntil(5) { !done.all.isEmpty })
        let elapsed = done.all.first.map { $0.timeIntervalSince(start) } ?? 0
        #expect(elapsed > 0.4 && elapsed < 1.4, "at rate 2 the sequence completed after \(elapsed) s")
        let again = Completions()
        player.play { again.record() }
        #expect(player.isPlaying)
        #expect(player.currentPosition < 0.5)
        #expect(waitUntil(5) { !again.all.isEmpty })
    }

    @Test("stop() stops where it is, without calling the handler; play() resumes from there; currentPosition seeks")
    func stopAndSeek() throws {
        let player = try Self.makePlayer()
        let done = Completions()
        player.play { done.record() }
        usleep(300_000)
        player.stop()
        #expect(!player.isPlaying)
        let kept = player.currentPosition
        #expect(kept > 0.1 && kept < 0.9, "position kept at \(kept)")
        usleep(1_000_000)
        #expect(done.all.isEmpty, "stop() must not call the completion handler")
        #expect(abs(player.currentPosition - kept) < 1e-6)
        player.currentPosition = 0.9
        #expect(abs(player.currentPosition - 0.9) < 1e-6)
        let resumed = Completions()
        let start = Date()
        player.play { resumed.record() }
        #expect(waitUntil(5) { !resumed.all.isEmpty })
        let elapsed = resumed.all.first.map { $0.timeIntervalSince(start) } ?? 0
        #expect(elapsed < 0.7, "from 0.9 s the end came after \(elapsed) s")
    }

    @Test("A SoundFont given as the bank is loaded; a missing bank, a missing file and bytes that are no MIDI file throw NSErrors")
    func banksAndBadInput() throws {
        let bank = try SoundFontBuilder.sine(period: 100, cycles: 20).write()
        defer { try? FileManager.default.removeItem(at: bank) }
        let player = try Self.makePlayer(bank: bank)
        let done = Completions()
        player.play { done.record() }
        #expect(waitUntil(5) { !done.all.isEmpty })

        #expect(throws: NSError.self) { _ = try AVMIDIPlayer(data: Self.oneSecondFile(), soundBankURL: URL(fileURLWithPath: "/nonexistent/bank.sf2")) }
        #expect(throws: NSError.self) { _ = try AVMIDIPlayer(contentsOf: URL(fileURLWithPath: "/nonexistent/song.mid"), soundBankURL: nil) }
        do {
            _ = try AVMIDIPlayer(data: Data("not a MIDI file".utf8), soundBankURL: nil)
            Issue.record("text was accepted as a MIDI file")
        } catch let error as NSError {
            #expect(!error.localizedDescription.isEmpty)
        }
    }
}

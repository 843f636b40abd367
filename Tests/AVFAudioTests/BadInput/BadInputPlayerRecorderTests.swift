import Testing
import Foundation
import AVFoundation

/// Bad input to AVAudioPlayer and AVAudioRecorder (no audio device needed: every case fails
/// before one is opened).
///
/// What it rests on: both report NSOSStatusErrorDomain on Apple platforms (a missing file gives
/// 2003334207 'wht?' there, measured on the iOS simulator; see Types/AVAudioErrors.swift);
/// `prepareToRecord()` and `record()` report failure by returning false, as Apple documents.
@Suite struct BadInputPlayerRecorderTests {
    static let wht = 2003334207, typ = 1954115647, dta = 1685348671, fmt = 1718449215

    static func scratch(_ name: String = #function) throws -> URL { try BadInput.scratch("pr", name) }

    static func expectError(code: Int, _ text: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        BadInput.expectError(domain: NSOSStatusErrorDomain, code: code, text, sourceLocation: sourceLocation, body)
    }

    @Test func playerOnBadFilesThrows() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        Self.expectError(code: Self.wht, "is a directory") { _ = try AVAudioPlayer(contentsOf: dir) }
        Self.expectError(code: Self.wht, "does not exist") { _ = try AVAudioPlayer(contentsOf: dir.appendingPathComponent("missing.wav")) }
        let text = dir.appendingPathComponent("text.wav")
        try Data("not audio at all, just words\n".utf8).write(to: text)
        Self.expectError(code: Self.typ, "text.wav") { _ = try AVAudioPlayer(contentsOf: text) }
    }

    @Test func playerOnBadDataThrows() {
        Self.expectError(code: Self.dta, "the audio data (0 bytes)") { _ = try AVAudioPlayer(data: Data()) }
        Self.expectError(code: Self.typ, "the audio data (5 bytes)") { _ = try AVAudioPlayer(data: Data("hello".utf8)) }
        // A WAV header claiming more than is there: a player or an error, never a trap.
        var wav = Data("RIFF".utf8) + Data([0xFF, 0xFF, 0xFF, 0x7F]) + Data("WAVEfmt ".utf8)
        wav += Data([16, 0, 0, 0, 1, 0, 0xFF, 0xFF, 0x44, 0xAC, 0, 0, 0, 0, 0, 0, 0, 0, 16, 0])
        _ = try? AVAudioPlayer(data: wav)
    }

    @Test func recorderWithBadSettingsThrows() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("take.wav")
        for settings: [String: Any] in [[AVSampleRateKey: 0], [AVSampleRateKey: Double.nan], [AVSampleRateKey: "44100"],
                                        [AVNumberOfChannelsKey: 0], [AVNumberOfChannelsKey: 100_000],
                                        [AVLinearPCMBitDepthKey: "sixteen"]] {
            Self.expectError(code: Self.fmt, "the settings do not describe a format") { _ = try AVAudioRecorder(url: url, settings: settings) }
        }
        Self.expectError(code: Self.typ, "is not supported yet") {
            _ = try AVAudioRecorder(url: dir.appendingPathComponent("take.mp3"), settings: [AVSampleRateKey: 44_100])
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).isEmpty)
    }

    /// Where the file cannot be created (a missing directory, a directory at the path, a format no
    /// container holds, a file another writer holds): `prepareToRecord()` and `record()` return
    /// false and nothing is touched.
    @Test func recorderThatCannotCreateItsFileReturnsFalse() throws {
        let dir = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: dir) }
        let settings: [String: Any] = [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1]
        let missing = try AVAudioRecorder(url: dir.appendingPathComponent("no/such/take.wav"), settings: settings)
        #expect(!missing.prepareToRecord())
        #expect(!missing.record())
        let folder = dir.appendingPathComponent("folder.wav")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        #expect(try !AVAudioRecorder(url: folder, settings: settings).prepareToRecord())
        #expect(try !AVAudioRecorder(url: dir.appendingPathComponent("fast.wav"), settings: [AVSampleRateKey: 1e9]).prepareToRecord())
        let busy = dir.appendingPathComponent("busy.wav")
        let writer = try AVAudioFile(forWriting: busy, settings: settings)
        let buffer = AVAudioPCMBuffer(pcmFormat: writer.processingFormat, frameCapacity: 100)!
        buffer.frameLength = 100
        try writer.write(from: buffer)
        #expect(try !AVAudioRecorder(url: busy, settings: settings).prepareToRecord())
        writer.close()
        #expect(try AVAudioFile(forReading: busy).length == 100)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)) == ["folder.wav", "busy.wav"])
    }
}

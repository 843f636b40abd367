// `avaudio info song.mid`: format, tracks, events per track, tempo map, length in beats and seconds.
import Foundation
import Testing
import AVFoundation

@Suite(.enabled(if: AvaudioTool.url != nil, "the avaudio executable was not found (build it with `swift build --product avaudio`)"))
struct AvaudioMIDIInfoTests {
    @Test func infoDescribesAMIDIFile() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("info-\(UUID().uuidString).mid")
        defer { try? FileManager.default.removeItem(at: url) }
        // The tempo-change file of the playback tests: 120 BPM, 60 BPM at beat 4, 150 BPM at beat 6.
        try AVAudioSequencerPlaybackTests.tempoChangeFile.write(to: url)
        let run = try AvaudioTool.run(["info", "--json", url.path])
        #expect(run.status == 0, "\(run.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any], "\(run.stdout)")
        #expect(json["format"] as? Int == 1)
        #expect(json["division"] as? String == "480 ticks per quarter note")
        let tracks = try #require(json["tracks"] as? [[String: Any]])
        #expect(tracks.count == 2)
        #expect(tracks[1]["notes"] as? Int == 9)
        #expect(tracks[0]["meta"] as? Int == 4)   // three tempo events and the end of track
        let tempo = try #require(json["tempoMap"] as? [[String: Any]])
        #expect(tempo.map { $0["bpm"] as? Double } == [120, 60, 150])
        #expect(tempo.map { $0["seconds"] as? Double } == [0, 2, 4])
        // The last note-off is at beat 8.25: 4 s + 2.25 beats at 0.4 s.
        #expect(json["lengthInBeats"] as? Double == 8.25)
        #expect(abs((json["lengthInSeconds"] as? Double ?? 0) - 4.9) < 1e-12)

        let text = try AvaudioTool.run(["info", url.path])
        #expect(text.status == 0)
        #expect(text.stdout.contains("Standard MIDI File, format 1, 2 tracks, 480 ticks per quarter note"))
        #expect(text.stdout.contains("track 1: 19 events: 9 notes"))
    }

    @Test func infoOnADamagedMIDIFileNamesTheChunkAndOffset() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("bad-\(UUID().uuidString).mid")
        defer { try? FileManager.default.removeItem(at: url) }
        var bytes = [UInt8](AVAudioSequencerPlaybackTests.tempoChangeFile)
        bytes.removeLast(5)
        try Data(bytes).write(to: url)
        let run = try AvaudioTool.run(["info", url.path])
        #expect(run.status != 0)
        #expect(run.stderr.contains("MTrk #1"), "\(run.stderr)")
        #expect(run.stderr.contains("byte"), "\(run.stderr)")
    }
}

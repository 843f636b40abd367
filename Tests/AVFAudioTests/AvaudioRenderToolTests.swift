// `avaudio render`: a MIDI file written with AVAudioSequencer, rendered by the tool through the
// sampler (its built-in tone, so no SoundFont is needed): the output lasts the song plus the tail
// and sounds where the notes are, silent where they are not.
import Foundation
import Testing
import AVFoundation

@Suite(.enabled(if: AvaudioTool.url != nil, "the avaudio executable was not found (build it with `swift build --product avaudio`)"))
struct AvaudioRenderToolTests {
    @Test func rendersASongThroughTheSampler() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("render-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // two notes of one beat at 120 bpm (0.5 s): beats 0 and 2, so 0.5–1.0 s is silent
        let sequencer = AVAudioSequencer()
        let track = sequencer.createAndAppendTrack()
        track.addEvent(AVMIDINoteEvent(channel: 0, key: 60, velocity: 100, duration: 1), at: 0)
        track.addEvent(AVMIDINoteEvent(channel: 0, key: 67, velocity: 100, duration: 1), at: 2)
        let song = directory.appendingPathComponent("two.mid")
        try sequencer.write(to: song, smpteResolution: 0, replaceExisting: true)
        let out = directory.appendingPathComponent("two.wav")
        let run = try AvaudioTool.run(["render", song.path, "-o", out.path, "--tail", "1", "--quiet", "--rate", "44100"])
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        let file = try AVAudioFile(forReading: out)
        #expect(abs(Double(file.length) / 44_100 - 2.5) < 0.05, "\(file.length) frames")
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))!
        try file.read(into: buffer)
        func rms(_ from: Double, _ to: Double) -> Float {
            let a = Int(from * 44_100), b = Int(to * 44_100)
            let p = buffer.floatChannelData![0]
            return (UnsafeBufferPointer(start: p + a, count: b - a).reduce(0) { $0 + $1 * $1 } / Float(b - a)).squareRoot()
        }
        #expect(rms(0.05, 0.4) > 0.01, "the first note sounds")
        #expect(rms(1.05, 1.4) > 0.01, "the second note sounds")
        #expect(rms(0.75, 0.95) < rms(0.05, 0.4) / 10, "between the notes: only the release tail")
    }
}

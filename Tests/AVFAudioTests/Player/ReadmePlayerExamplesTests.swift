// The README's AVAudioPlayer, AVAudioRecorder and AVAudioSession examples, as written (only the
// file names and the recording's length differ), on the default device (`.ci/run` sets
// AVAUDIO_BACKEND=null; on a desktop they play a quiet 0.3 s tone and record 0.25 s).
import Testing
import Foundation
import AVFoundation

@Suite(.serialized)
struct ReadmePlayerExamplesTests {
    @Test("README: play a file in three lines; record with record(forDuration:)")
    func readmeExamples() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let song = try PlayerTestFiles.sine(dir.appendingPathComponent("song.wav"), seconds: 0.3, amplitude: 0.05)
        let started = Date()

        let player = try AVAudioPlayer(contentsOf: URL(fileURLWithPath: song.path))
        player.play()
        while player.isPlaying { usleep(100_000) }

        #expect(Date().timeIntervalSince(started) > 0.25)
        let take = dir.appendingPathComponent("take.wav")

        let recorder = try AVAudioRecorder(url: URL(fileURLWithPath: take.path),
                                           settings: [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1])
        recorder.record(forDuration: 0.25)
        while recorder.isRecording { usleep(100_000) }

        #expect(try AVAudioFile(forReading: take).length == 12_000)

        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playAndRecord, options: .defaultToSpeaker)
        try session.setActive(true)
        #expect(session.sampleRate > 0 && session.ioBufferDuration > 0 && !session.currentRoute.outputs.isEmpty)
        try session.setActive(false)
        try session.setCategory(.soloAmbient)
    }
}

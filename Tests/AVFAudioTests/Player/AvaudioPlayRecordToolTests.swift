// `avaudio play` and `avaudio record` run as the real executable on the null device: play with
// loops, a fade and meters takes the expected time and draws meter lines; record writes exactly
// the duration asked for in the format asked for. (Against PulseAudio, `record` is also killed
// with SIGKILL in PlayerDeviceTests.)
import Testing
import Foundation
import AVFoundation

@Suite(.enabled(if: AvaudioTool.url != nil, "the avaudio executable was not built"))
struct AvaudioPlayRecordToolTests {
    @Test("avaudio play --loops 1 --fade 0.1 --meter plays twice through, drawing meter lines")
    func play() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = try PlayerTestFiles.sine(dir.appendingPathComponent("tone.wav"), seconds: 0.4, channels: 2)
        let start = Date()
        let run = try AvaudioTool.run(["play", file.path, "--device", "null", "--loops", "1", "--fade", "0.1", "--meter"])
        let elapsed = Date().timeIntervalSince(start)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(elapsed > 0.75 && elapsed < 5, "two passes of 0.4 s took \(elapsed) s")
        #expect(run.stderr.contains("playing \(file.path)"))
        #expect(run.stderr.contains("dB") && run.stderr.contains("#"), "no meter lines: \(run.stderr.suffix(300))")
    }

    @Test("avaudio record --duration 0.5 --rate 44100 --channels 1 --bits 24 writes exactly 22 050 frames of 24-bit mono; .m4a records Apple Lossless, .mp3 is refused by name")
    func record() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("take.aif")
        let run = try AvaudioTool.run(["record", url.path, "--device", "null", "--duration", "0.5", "--rate", "44100", "--channels", "1", "--bits", "24", "--no-meter"])
        #expect(run.status == 0, "\(run.stderr)")
        let file = try AVAudioFile(forReading: url)
        #expect(file.length == 22_050)
        #expect(file.fileFormat.sampleRate == 44_100 && file.fileFormat.channelCount == 1)
        #expect(file.fileFormat.streamDescription.pointee.mBitsPerChannel == 24)
        #expect(run.stdout.contains("22050 frames"), "\(run.stdout)")
        // .m4a records Apple Lossless now; .mp3 waits for the lossy codecs and is refused by name.
        let lossless = dir.appendingPathComponent("take.m4a")
        let m4a = try AvaudioTool.run(["record", lossless.path, "--device", "null", "--duration", "0.1", "--rate", "44100", "--no-meter"])
        #expect(m4a.status == 0, "\(m4a.stderr)")
        let m4aFile = try AVAudioFile(forReading: lossless)
        #expect(m4aFile.fileFormat.streamDescription.pointee.mFormatID == kAudioFormatAppleLossless)
        #expect(m4aFile.length == 4_410)
        let refused = try AvaudioTool.run(["record", dir.appendingPathComponent("take.mp3").path, "--device", "null", "--duration", "0.1"])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("not supported yet"), "\(refused.stderr)")
    }
}

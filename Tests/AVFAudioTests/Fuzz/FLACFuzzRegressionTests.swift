// Inputs the fuzzing harness found (Scripts/fuzz.sh), kept as regression tests.
import Foundation
import Testing
import AVFoundation

@Suite struct FLACFuzzRegressionTests {
    /// A FLAC stream whose last frame is cut short (16 KiB, found by the `flac` target): the
    /// reader counted that frame in `length`, then threw while reading it. The last frame is now
    /// decoded once when the file opens and left out when it cannot be, so every frame `length`
    /// counts reads.
    @Test func truncatedLastFrameIsNotCounted() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Inputs/flac-truncated-last-frame.flac")
        let file = try AVAudioFile(forReading: url)
        #expect(file.length > 0)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 1000)!
        var total: AVAudioFramePosition = 0
        while true {
            try file.read(into: buffer)
            if buffer.frameLength == 0 { break }
            total += AVAudioFramePosition(buffer.frameLength)
        }
        #expect(total == file.length)
    }
}

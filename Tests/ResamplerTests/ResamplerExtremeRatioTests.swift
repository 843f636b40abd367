import AudioKernels
import Foundation
import Testing

/// Rate ratios far outside audio practice (a fuzzed converter found them: 282,055 Hz → 3 Hz took
/// over 10 s of CPU to design). Creation must stay cheap whatever the ratio, and the result must
/// still be a correct converter.
@Suite("SampleRateConverter extreme ratios")
struct ResamplerExtremeRatioTests {
    /// CPU seconds of `body` (this thread).
    static func cpuSeconds(_ body: () -> Void) -> Double {
        var a = timespec(), b = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a)
        body()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b)
        return Double(b.tv_sec - a.tv_sec) + Double(b.tv_nsec - a.tv_nsec) * 1e-9
    }

    @Test("creation stays cheap at the ratios the fuzzer found", arguments: [
        (282_055.0, 3.0, 1), (732_520.0, 999.0, 41), (3.0, 282_055.0, 1),
    ])
    func creationIsBounded(input: Double, output: Double, channels: Int) {
        var converter: SampleRateConverter?
        let seconds = Self.cpuSeconds {
            converter = SampleRateConverter(inputRate: input, outputRate: output, channels: channels, quality: .high)
        }
        print("extreme ratio: \(input) Hz → \(output) Hz, \(channels) channels: created in \(String(format: "%.3f", seconds)) s CPU")
        #expect(converter != nil)
        // Debug build (release is ~15x faster). The design's search is logarithmic in the kernel
        // length, but the polyphase table is not: its length grows with the decimation step
        // (94,018:1 here), at a few table rows however long it is (PolyphaseStage).
        #expect(seconds < 5, "creating a \(input) → \(output) Hz converter took \(seconds) s of CPU")
    }

    @Test("192,000 Hz → 100 Hz (1,920:1) keeps DC and removes a 70 Hz tone")
    func extremeDownsamplingIsCorrect() {
        let input = 192_000.0, output = 100.0
        // 10 s: the steep stage's impulse response spans ~1.4 s at this output rate (its length is
        // fixed in output samples), so the middle half is free of the tone's onset.
        let frames = Int(input * 10)
        func run(_ signal: (Int) -> Float) -> [Float] {
            convert([(0..<frames).map(signal)], from: input, to: output)[0]
        }
        let dc = run { _ in 0.5 }
        let tone = run { i in 0.5 * Float(sin(2 * Double.pi * 70 * Double(i) / input)) }
        // Away from the stream's two ends (the filter's settling), DC passes and the tone is gone.
        let middle = dc.count / 4 ..< dc.count * 3 / 4
        #expect(!middle.isEmpty)
        for i in middle {
            #expect(abs(dc[i] - 0.5) < 1e-3, "DC output \(dc[i]) at \(i)")
            #expect(abs(tone[i]) < 1e-4, "70 Hz tone (aliasing to 30 Hz) leaked \(tone[i]) at \(i)")
        }
    }
}

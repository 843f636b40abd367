// The input clock bridge (Sources/AudioDevices/InputClockBridge.swift) between a capture clock and
// a playback clock, simulated: capture periods arrive at the capture device's true rate and
// playback reads happen at the playback device's, event by event in time order, for minutes of
// simulated audio at 8 kHz (a debug build resamples slowly; the proportions are a PulseAudio
// duplex's: capture fragments of 10 ms, playback reads of 8 ms, 24 ms primed). The captured signal
// is a 440 Hz sine in the capture device's samples.
import Foundation
import Testing
import AudioDevices

@Suite struct InputClockBridgeTests {
    struct Run {
        var output: [Float] = []
        var bridge: InputClockBridge
        var correctionAt: [(seconds: Double, ppm: Double, fillError: Double)] = []
        /// The correction after each read (ppm).
        var corrections: [Double] = []
    }

    /// Simulates `seconds` of playback. `drift`: the capture clock's excess rate (300e-6 = the
    /// capture crystal runs 300 ppm fast). Capture chunks are `captureChunk` frames, or random
    /// sizes in `jitter` when given; reads are `readFrames`.
    static func simulate(seconds: Double, drift: Double, rate: Double = 8_000, captureChunk: Int = 80,
                         jitter: ClosedRange<Int>? = nil, readFrames: Int = 64, trims: Bool = false) -> Run {
        let bridge = InputClockBridge(channels: 1, sampleRate: rate, capacity: 8_192, primingFrames: 3 * readFrames,
                                      maximumReadFrames: readFrames, trimsAtPriming: trims)
        var run = Run(bridge: bridge)
        run.output.reserveCapacity(Int(seconds * rate) + readFrames)
        var generator = SystemRandomNumberGenerator()
        var captured = 0
        var captureTime = 0.0, playTime = 0.0
        var chunk = [Float](repeating: 0, count: 4_096)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: readFrames)
        defer { out.deallocate() }
        var outs = [out]
        let w = 2 * Double.pi * 440 / rate
        var nextReport = 10.0
        while playTime < seconds {
            if captureTime <= playTime {
                let n = jitter.map { Int.random(in: $0, using: &generator) } ?? captureChunk
                for i in 0..<n { chunk[i] = Float(0.5 * sin(w * Double(captured + i))) }
                chunk.withUnsafeBufferPointer { bridge.write(interleaved: $0.baseAddress!, frames: n) }
                captured += n
                captureTime += Double(n) / (rate * (1 + drift))
            } else {
                outs.withUnsafeBufferPointer { _ = bridge.read(into: $0.baseAddress!, frames: readFrames) }
                run.output.append(contentsOf: UnsafeBufferPointer(start: out, count: readFrames))
                run.corrections.append(bridge.correctionPPM)
                playTime += Double(readFrames) / rate
                if playTime >= nextReport {
                    run.correctionAt.append((playTime, bridge.correctionPPM, bridge.smoothedFill - (bridge.targetFill ?? bridge.smoothedFill)))
                    nextReport += 10
                }
            }
        }
        return run
    }

    /// The largest |second difference| of `x[range]`. A clean sine of amplitude A at ω radians
    /// per sample has at most A·ω²; a dropped or repeated frame gives about A·ω, far more.
    static func largestSecondDifference(_ x: [Float], from: Int) -> Float {
        var worst: Float = 0
        for k in max(1, from)..<(x.count - 1) { worst = max(worst, abs(x[k + 1] - 2 * x[k] + x[k - 1])) }
        return worst
    }

    /// RMS of what a least-squares sine of `frequency` (cycles per sample) plus offset leaves of
    /// `x[start..<start+count]`, relative to the sine's RMS.
    static func fitResidual(_ x: [Float], start: Int, count: Int, frequency: Double) -> Double {
        // Normal equations for a·sin + b·cos + c.
        var m = [[Double]](repeating: [Double](repeating: 0, count: 3), count: 3), v = [Double](repeating: 0, count: 3)
        for k in start..<(start + count) {
            let b = [sin(2 * .pi * frequency * Double(k)), cos(2 * .pi * frequency * Double(k)), 1.0]
            for i in 0..<3 { v[i] += b[i] * Double(x[k]); for j in 0..<3 { m[i][j] += b[i] * b[j] } }
        }
        // Gaussian elimination (3×3, well conditioned over many cycles).
        for i in 0..<3 {
            for r in (i + 1)..<3 {
                let f = m[r][i] / m[i][i]
                for j in i..<3 { m[r][j] -= f * m[i][j] }
                v[r] -= f * v[i]
            }
        }
        var c = [Double](repeating: 0, count: 3)
        for i in stride(from: 2, through: 0, by: -1) {
            var s = v[i]
            for j in (i + 1)..<3 { s -= m[i][j] * c[j] }
            c[i] = s / m[i][i]
        }
        var residual = 0.0
        for k in start..<(start + count) {
            let fit = c[0] * sin(2 * .pi * frequency * Double(k)) + c[1] * cos(2 * .pi * frequency * Double(k)) + c[2]
            residual += (Double(x[k]) - fit) * (Double(x[k]) - fit)
        }
        let amplitude = (c[0] * c[0] + c[1] * c[1]).squareRoot()
        return (residual / Double(count)).squareRoot() / (amplitude / 2.squareRoot())
    }

    // (trimming at priming, as PulseAudio's bridge does, changes where the fill starts, not how
    // the drift is absorbed)
    @Test(arguments: [(500e-6, 90.0, false), (-500e-6, 90.0, false), (2_000e-6, 60.0, false), (500e-6, 90.0, true), (-500e-6, 90.0, true)])
    func absorbsAClockDifference(_ drift: Double, _ seconds: Double, _ trims: Bool) {
        let rate = 8_000.0, readFrames = 64
        let run = Self.simulate(seconds: seconds, drift: drift, trims: trims)
        let bridge = run.bridge
        let ppm = drift * 1e6
        print("drift \(ppm) ppm: " + run.correctionAt.map { String(format: "%.0fs %.1f ppm fill %+.1f", $0.seconds, $0.ppm, $0.fillError) }.joined(separator: ", "))
        // Copying alone would have run dry (or piled up) within a minute; the bridge never does.
        #expect(bridge.isCompensating)
        #expect(bridge.underruns == 0 && bridge.overruns == 0)
        // The controller finds the clocks' ratio (the correction is the input frames consumed per
        // output frame minus 1: the drift itself), on average over the last 20 s within 10 ppm,
        // and never strays from it by more than 100 ppm there.
        let last = run.corrections.suffix(Int(20 * rate) / readFrames)
        let mean = last.reduce(0, +) / Double(last.count)
        #expect(abs(mean - ppm) < 10)
        #expect(last.allSatisfy { abs($0 - ppm) < 100 })
        // The fill is back near its target (within 4 ms; it wobbles as the periods slide).
        #expect(abs(bridge.smoothedFill - bridge.targetFill!) < 0.004 * rate)
        // No glitch anywhere after the first priming (the switch from copying included): the
        // largest second difference stays that of a clean sine.
        let firstSound = run.output.firstIndex { $0 != 0 }!
        let w = Float(2 * Double.pi * 440 / rate)
        #expect(Self.largestSecondDifference(run.output, from: firstSound + 1) < 0.5 * w * w * 1.05)
        // In the last seconds the output is the sine at the capture device's frequency as the
        // playback clock sees it (440·(1 + correction) Hz), clean to better than -60 dB, in 25 ms
        // windows.
        for window in 0..<8 {
            let start = run.output.count - (window + 1) * 200
            let correction = run.corrections[start / readFrames] * 1e-6
            #expect(Self.fitResidual(run.output, start: start, count: 200, frequency: 440 * (1 + correction) / rate) < 1e-3)
        }
    }

    @Test func oneClockStaysBitExact() {
        // Capture and playback on one clock, with capture arriving in uneven chunks: the bridge
        // never resamples, and the output is the captured sine frame for frame.
        let rate = 8_000.0
        let run = Self.simulate(seconds: 150, drift: 0, jitter: 30...130)
        #expect(!run.bridge.isCompensating)
        #expect(run.bridge.underruns == 0 && run.bridge.overruns == 0)
        let first = run.output.firstIndex { $0 != 0 }!
        let w = 2 * Double.pi * 440 / rate
        // The first nonzero frame is capture frame 1 (frame 0 is sin 0 = 0).
        var mismatches = 0
        for k in first..<run.output.count where run.output[k] != Float(0.5 * sin(w * Double(k - first + 1))) { mismatches += 1 }
        #expect(mismatches == 0)
    }

    @Test func runsDryAndRecovers() {
        // The capture device stops for a while: reads give silence (one underrun), the bridge
        // primes again and carries on.
        let bridge = InputClockBridge(channels: 2, sampleRate: 48_000, capacity: 4_096, primingFrames: 512, maximumReadFrames: 256)
        let a = UnsafeMutablePointer<Float>.allocate(capacity: 256), b = UnsafeMutablePointer<Float>.allocate(capacity: 256)
        defer { a.deallocate(); b.deallocate() }
        let outs = [a, b]
        let frames = [Float](repeating: 0.25, count: 2 * 600)
        frames.withUnsafeBufferPointer { bridge.write(interleaved: $0.baseAddress!, frames: 600) }
        outs.withUnsafeBufferPointer { #expect(bridge.read(into: $0.baseAddress!, frames: 256)) }
        #expect(a[0] == 0.25 && b[255] == 0.25)
        outs.withUnsafeBufferPointer { #expect(bridge.read(into: $0.baseAddress!, frames: 256)) }
        outs.withUnsafeBufferPointer { #expect(!bridge.read(into: $0.baseAddress!, frames: 256)) }   // 88 left
        #expect(a[87] == 0.25 && a[88] == 0 && b[255] == 0)
        #expect(bridge.underruns == 1)
        // Until it is primed again: silence, no further underrun.
        frames.withUnsafeBufferPointer { bridge.write(interleaved: $0.baseAddress!, frames: 300) }
        outs.withUnsafeBufferPointer { #expect(bridge.read(into: $0.baseAddress!, frames: 256)) }
        #expect(a[0] == 0 && bridge.underruns == 1)
        frames.withUnsafeBufferPointer { bridge.write(interleaved: $0.baseAddress!, frames: 300) }
        outs.withUnsafeBufferPointer { #expect(bridge.read(into: $0.baseAddress!, frames: 256)) }
        #expect(a[0] == 0.25)
    }

    @Test func primingTrimsTheFillToThePrimingLevel() {
        // Capture arrives in one burst of 1,000 frames before the first read: a trimming bridge
        // starts with exactly `primingFrames` queued (the newest ones), so the latency it adds is
        // the priming level, not wherever the burst left the fill; nothing was handed out before,
        // so the dropped frames cost no discontinuity. A non-trimming bridge keeps all 1,000. (A
        // bridge that may resample keeps the converter's look-ahead and the controller's dead
        // band on top: see the drift tests with `trims`.)
        let ramp = (0..<1_000).map { Float($0) }
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        defer { out.deallocate() }
        for trims in [true, false] {
            let bridge = InputClockBridge(channels: 1, sampleRate: 48_000, capacity: 4_096, primingFrames: 256,
                                          maximumReadFrames: 128, compensates: false, trimsAtPriming: trims)
            ramp.withUnsafeBufferPointer { bridge.write(interleaved: $0.baseAddress!, frames: 1_000) }
            [out].withUnsafeBufferPointer { #expect(bridge.read(into: $0.baseAddress!, frames: 128)) }
            #expect(out[0] == (trims ? 744 : 0) && out[127] == (trims ? 871 : 127))
            #expect(bridge.count == (trims ? 128 : 872))
            #expect(bridge.underruns == 0 && bridge.overruns == 0)
        }
    }

    @Test func adaptivePrimingGrowsAfterEachUnderrunUpToItsLimit() {
        // Priming starts at 128 frames and grows by 64 after each underrun, up to 256: a jitter
        // buffer that settles on the smallest margin the streams' timing allows.
        let bridge = InputClockBridge(channels: 1, sampleRate: 48_000, capacity: 4_096, primingFrames: 128,
                                      maximumPrimingFrames: 256, primingStep: 64, maximumReadFrames: 128, trimsAtPriming: true)
        let ones = [Float](repeating: 1, count: 512)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: 128)
        defer { out.deallocate() }
        var levels: [Int] = []
        for _ in 0..<4 {
            // Prime with 300 frames, then read until the bridge runs dry.
            ones.withUnsafeBufferPointer { bridge.write(interleaved: $0.baseAddress!, frames: 300) }
            var reads = 0
            while [out].withUnsafeBufferPointer({ bridge.read(into: $0.baseAddress!, frames: 128) }) { reads += 1; if reads > 10 { break } }
            levels.append(bridge.primingFrames)
        }
        #expect(levels == [192, 256, 256, 256])
        #expect(bridge.underruns == 4)
        // Before growing past the first level, a fixed bridge never moves.
        let fixed = InputClockBridge(channels: 1, sampleRate: 48_000, capacity: 4_096, primingFrames: 128, maximumReadFrames: 128)
        ones.withUnsafeBufferPointer { fixed.write(interleaved: $0.baseAddress!, frames: 200) }
        for _ in 0..<3 { [out].withUnsafeBufferPointer { _ = fixed.read(into: $0.baseAddress!, frames: 128) } }
        #expect(fixed.underruns == 1 && fixed.primingFrames == 128)
    }
}

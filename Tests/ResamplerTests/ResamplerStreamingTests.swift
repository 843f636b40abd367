import AudioKernels
import Testing

// Streaming behaviour: exact lengths, chunking invariance, flush and reset, rate pairs,
// multichannel, priming modes, the pull-model query and the variable ratio.

let rates: [Double] = [8000, 11025, 16000, 22050, 32000, 44100, 48000, 88200, 96000, 176_400, 192_000, 384_000]

@Suite("SampleRateConverter streaming")
struct ResamplerStreamingTests {
    @Test("exact output length: floor(N * out / in + 1/2)")
    func lengths() {
        for (a, b) in [(44100.0, 48000.0), (48000, 44100), (8000, 44100), (96000, 8000), (44100, 44100), (48000, 96000)] {
            for n in [0, 1, 2, 7, 100, 1234, 5000] {
                let src = SampleRateConverter(inputRate: a, outputRate: b, channels: 1, quality: .low)
                let y = convert([noise(frames: n, seed: 1)], from: a, to: b, converter: src)[0]
                // integer reference: (2 n b + a) / (2 a)
                let expected = (2 * n * Int(b) + Int(a)) / (2 * Int(a))
                #expect(y.count == expected, "\(a) -> \(b), \(n) frames: \(y.count) != \(expected)")
                #expect(src.outputFrames(forInputFrames: n) == expected)
            }
        }
    }

    @Test("output is bit-identical however input and output are chunked", arguments: [ResamplerQuality.high, .max])
    func chunking(_ q: ResamplerQuality) {
        for (a, b, channels) in [(44100.0, 48000.0, 2), (96000, 44100, 2), (44100, 44100 * 1.000_123, 2),
                                 (44100, 48000, 1), (96000, 44100, 1), (48000, 44100, 3)] {
            let x = (0..<channels).map { noise(frames: 6000, seed: 3 + UInt64($0)) }
            let whole = convert(x, from: a, to: b, quality: q)
            for (c, o) in [(1, 1 << 30), (7, 5), (512, 100), (100_000, 3)] {
                let y = convert(x, from: a, to: b, quality: q, chunk: c, outputChunk: o)
                #expect(y == whole, "\(a) -> \(b), \(channels) ch, input chunk \(c), output chunk \(o)")
            }
        }
    }

    @Test("reset starts a new, identical stream; flush drains exactly once")
    func flushAndReset() {
        let x = [noise(frames: 3000, seed: 5)]
        let src = SampleRateConverter(inputRate: 44100, outputRate: 32000, channels: 1, quality: .medium)
        let first = convert(x, from: 44100, to: 32000, converter: src)
        // a second flush gives nothing
        var sink = [Float](repeating: 0, count: 16)
        sink.withUnsafeMutableBufferPointer { p in
            let ptrs = [p.baseAddress!]
            ptrs.withUnsafeBufferPointer { #expect(src.flush(output: $0, outputCapacity: 16) == 0) }
        }
        src.reset()
        let second = convert(x, from: 44100, to: 32000, converter: src)
        #expect(first == second)
        #expect(src.framesConsumed == 3000 && src.framesProduced == first[0].count)
    }

    @Test("rate pairs 8 k ... 384 k: length, and a 1 kHz tone at the right frequency and level")
    func ratePairs() {
        let pairs: [(Double, Double)] = [(8000, 384_000), (384_000, 8000), (11025, 48000), (48000, 11025),
                                         (16000, 44100), (22050, 32000), (32000, 22050), (44100, 88200),
                                         (88200, 44100), (96000, 48000), (176_400, 192_000), (192_000, 176_400),
                                         (48000, 16000), (44100, 192_000)]
        for (a, b) in pairs {
            let n = Int(a / 10)
            let x = sine(1000, rate: a, frames: n)
            let src = SampleRateConverter(inputRate: a, outputRate: b, channels: 1, quality: .medium)
            let y = convert([x], from: a, to: b, converter: src)[0]
            #expect(y.count == (2 * n * Int(b) + Int(a)) / (2 * Int(a)))
            let edge = Int(Double(src.trailingFrames + 4) * b / a)
            let fit = SineFit(y, f: 1000, rate: b, range: edge..<(y.count - edge))
            #expect(abs(fit.levelDB - db20(0.5)) < 0.001, "\(a) -> \(b): level \(fit.levelDB)")
            #expect(fit.thdnDB < -110, "\(a) -> \(b): THD+N \(fit.thdnDB)")
        }
        // every listed rate converts to 44.1 k and 48 k with the right length
        for a in rates {
            for b in [44100.0, 48000] {
                let n = Int(a / 100)
                let y = convert([noise(frames: n, seed: 9)], from: a, to: b, quality: .min)[0]
                #expect(y.count == (2 * n * Int(b) + Int(a)) / (2 * Int(a)))
            }
        }
    }

    @Test("irrational ratio (44.1 k x sqrt 2, and 48 k x 0.999 987) keeps a tone clean")
    func irrational() {
        for b in [44100 * 2.squareRoot(), 48000 * 0.999_987] {
            let x = sine(3000, rate: 44100, frames: 6615)
            let y = convert([x], from: 44100, to: b, quality: .high)[0]
            let expected = Int((6615 * b / 44100 + 0.5).rounded(.down))
            #expect(abs(y.count - expected) <= 1)
            let fit = SineFit(y, f: 3000, rate: b, range: 600..<(y.count - 600))
            #expect(fit.thdnDB < -128, "\(b): THD+N \(fit.thdnDB)")
            #expect(abs(fit.phase) / (2 * pi * 3000) * b < 1e-3)
        }
    }

    @Test("channels are independent", arguments: [3, 5])
    func multichannel(_ channels: Int) {
        let x = (0..<channels).map { c in c == 1 ? [Float](repeating: 0, count: 4410) : sine(500 * Double(c + 1), rate: 44100, frames: 4410) }
        let y = convert(x, from: 44100, to: 48000, quality: .high)
        for c in 0..<channels {
            if c == 1 {
                // the silent channel stays silent (cross-talk below -140 dB re the others)
                #expect(rmsDB(y[c], range: 0..<y[c].count) < -140)
            } else {
                let f = 500 * Double(c + 1)
                let fit = SineFit(y[c], f: f, rate: 48000, range: 500..<(y[c].count - 500))
                #expect(fit.thdnDB < -125, "channel \(c): \(fit.thdnDB)")
                // same as converting that channel alone
                let alone = convert([x[c]], from: 44100, to: 48000, quality: .high)[0]
                var e = 0.0
                for n in 0..<alone.count { e = max(e, abs(Double(alone[n]) - Double(y[c][n]))) }
                #expect(e < 1e-6)
            }
        }
    }

    @Test("priming: .preroll consumes leadingFrames silently, .delayed lags by trailingFrames")
    func priming() {
        let a = 44100.0, b = 48000.0
        let body = sine(1000, rate: a, frames: 4410, phase: 0.2)
        let aligned = convert([body], from: a, to: b)[0]
        // preroll: the frames before the body are real history
        let pre = SampleRateConverter(inputRate: a, outputRate: b, channels: 1, priming: .preroll)
        let lead = pre.leadingFrames
        let history = sine(1000, rate: a, frames: lead + 4410, phase: 0.2 - 2 * pi * 1000 * Double(lead) / a)
        let y = convert([history], from: a, to: b, converter: pre)[0]
        #expect(y.count == aligned.count)
        let fit = SineFit(y, f: 1000, rate: b, range: 0..<(y.count - 500))   // clean from the first frame
        #expect(fit.thdnDB < -125, "preroll THD+N \(fit.thdnDB)")
        #expect(abs(fit.phase - 0.2) < 1e-4)
        // delayed: output = aligned output shifted by the latency
        let del = SampleRateConverter(inputRate: a, outputRate: b, channels: 1, priming: .delayed)
        let z = convert([body], from: a, to: b, converter: del)[0]
        let shift = Double(del.trailingFrames) * b / a
        #expect(z.count == Int((Double(4410 + del.trailingFrames) * b / a + 0.5).rounded(.down)))
        let zf = SineFit(z, f: 1000, rate: b, range: 1000..<(z.count - 1000))
        // the phase lag is known modulo one period (48 output frames)
        let period = b / 1000
        var lag = ((0.2 - zf.phase) / (2 * pi * 1000) * b - shift).truncatingRemainder(dividingBy: period)
        if lag > period / 2 { lag -= period } else if lag < -period / 2 { lag += period }
        #expect(abs(lag) < 1e-3, "lag error \(lag) frames")
        #expect(del.latency == Double(del.trailingFrames) / a)
    }

    @Test("pull model: inputFramesNeeded is enough and not more than one block too much")
    func pullModel() {
        for (a, b) in [(44100.0, 48000.0), (96000, 44100), (48000, 48000), (8000, 48000)] {
            for (q, channels) in [(ResamplerQuality.low, 2), (.high, 2), (.high, 1)] {
                let src = SampleRateConverter(inputRate: a, outputRate: b, channels: channels, quality: q)
                let x = noise(frames: 50000, seed: 11)
                var consumed = 0, produced = 0
                var out = [Float](repeating: 0, count: 80000), out2 = out
                x.withUnsafeBufferPointer { xb in
                    out.withUnsafeMutableBufferPointer { o1 in
                        out2.withUnsafeMutableBufferPointer { o2 in
                            let ins = Array([xb.baseAddress!, xb.baseAddress!].prefix(channels))
                            let outs = Array([o1.baseAddress!, o2.baseAddress!].prefix(channels))
                            ins.withUnsafeBufferPointer { ib in
                                outs.withUnsafeBufferPointer { ob in
                                    for want in [1, 512, 100, 4096, 7, 333] {
                                        let need = src.inputFramesNeeded(forOutputFrames: want)
                                        var got = 0
                                        let r = src.process(input: ib, offset: consumed, inputFrames: need,
                                                            output: ob, offset: produced, outputCapacity: want)
                                        consumed += r.consumed; produced += r.produced; got += r.produced
                                        #expect(r.consumed == need)
                                        #expect(got == want, "\(a)->\(b) \(q): wanted \(want), got \(got) from \(need)")
                                        // one frame fewer would not have been enough (unless 0 needed)
                                        #expect(src.inputFramesNeeded(forOutputFrames: 0) == 0)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    @Test("variable ratio: constant ratio is clean; a ramp glides without clicks")
    func variableRatio() {
        let a = 48000.0
        let src = SampleRateConverter(inputRate: a, outputRate: a, channels: 1, quality: .high, variableRatio: 0.5...2)
        // constant ratio 48 k -> 44.1 k equivalent
        src.setRatio(44100 / 48000)
        let x = sine(2000, rate: a, frames: 4800)
        var y = convert([x], from: a, to: a, converter: src)[0]
        var fit = SineFit(y, f: 2000, rate: 44100, range: 400..<(y.count - 400))
        #expect(fit.thdnDB < -125, "variable, constant ratio: \(fit.thdnDB)")
        #expect(abs(fit.phase) < 1e-3)
        // ramp from 1 to 2 (an octave down in pitch): no sample-to-sample jump beyond the
        // sine's own slope, and the end is at the new frequency
        src.reset()
        src.setRatio(1)
        let ramp = SampleRateConverter(inputRate: a, outputRate: a, channels: 1, quality: .medium, variableRatio: 0.5...2)
        ramp.setRatio(2, rampFrames: 2400)
        y = convert([sine(1000, rate: a, frames: 4800)], from: a, to: a, converter: ramp)[0]
        var worst = 0.0
        for n in 1..<(y.count - 200) { worst = max(worst, abs(Double(y[n]) - Double(y[n - 1]))) }
        #expect(worst <= 0.5 * 2 * pi * 1000 / a * 1.01)
        fit = SineFit(y, f: 500, rate: a, range: 3000..<(y.count - 300))
        #expect(fit.thdnDB < -100, "after the ramp: \(fit.thdnDB)")
        #expect(abs(ramp.ratio - 2) < 1e-12)
    }

    @Test("variable ratio: output independent of chunking, ramps included")
    func variableChunking() {
        func run(_ chunk: Int) -> [Float] {
            let src = SampleRateConverter(inputRate: 44100, outputRate: 48000, channels: 1, quality: .medium,
                                          variableRatio: 0.5...2)
            src.setRatio(0.8, rampFrames: 1000)
            return convert([noise(frames: 5000, seed: 21)], from: 44100, to: 48000, chunk: chunk, converter: src)[0]
        }
        let whole = run(1 << 30)
        #expect(!whole.isEmpty)
        for c in [1, 13, 700] { #expect(run(c) == whole, "chunk \(c)") }
    }

    @Test("pendingInputFrames is the input consumed beyond the next output's time, ramps included",
          arguments: [false, true])
    func pendingInputFrames(variable: Bool) {
        // 44.1 -> 48 kHz with .preroll (origin = leadingFrames): output m lies at input time
        // origin + m x 44.1/48 at a constant ratio; a variable converter glides from there to
        // step s1 over R outputs (step k = s0 + k (s1 - s0) / R, k = 1...R), so the time of the
        // next output after m outputs is the sum of the steps so far. Fed in pieces of 37 frames,
        // asked for 50 at most, checked after every call against that sum (analytic, to 1e-9).
        let src = variable
            ? SampleRateConverter(inputRate: 44_100, outputRate: 48_000, channels: 1, quality: .low, priming: .preroll, variableRatio: 0.9...1.1)
            : SampleRateConverter(inputRate: 44_100, outputRate: 48_000, channels: 1, quality: .low, priming: .preroll)
        let s0 = 44_100.0 / 48_000, s1 = 1 / 1.05, rampFrames = 700
        if variable { src.setRatio(1.05, rampFrames: rampFrames) }
        func time(afterOutputs m: Int) -> Double {
            guard variable else { return Double(m) * s0 }
            let r = min(m, rampFrames), d = (s1 - s0) / Double(rampFrames)
            return Double(r) * s0 + d * Double(r * (r + 1)) / 2 + Double(m - r) * s1
        }
        #expect(src.pendingInputFrames == -Double(src.leadingFrames))
        let x = [Float](repeating: 0.25, count: 37)
        var out = [Float](repeating: 0, count: 50)
        var worst = 0.0
        for _ in 0..<100 {
            x.withUnsafeBufferPointer { xb in
                out.withUnsafeMutableBufferPointer { ob in
                    [xb.baseAddress!].withUnsafeBufferPointer { i in
                        [ob.baseAddress!].withUnsafeBufferPointer { o in
                            var consumed = 0
                            while consumed < 37 {
                                consumed += src.process(input: i, offset: consumed, inputFrames: 37 - consumed, output: o, outputCapacity: 50).consumed
                                let expected = Double(src.framesConsumed - src.leadingFrames) - time(afterOutputs: src.framesProduced)
                                worst = max(worst, abs(src.pendingInputFrames - expected))
                            }
                        }
                    }
                }
            }
        }
        #expect(src.framesProduced > rampFrames + 1_000)
        #expect(worst < 1e-9, "pendingInputFrames off by \(worst)")
    }

    @Test("Float64 input and output give the Float32 result to within Float32 rounding")
    func float64() {
        let x = sine(3000, rate: 96000, frames: 9600)
        let y32 = convert([x], from: 96000, to: 44100, quality: .max)[0]
        let src = SampleRateConverter(inputRate: 96000, outputRate: 44100, channels: 1, quality: .max)
        let total = src.outputFrames(forInputFrames: x.count)
        var out = [Double](repeating: 0, count: total + 8)
        let xd = x.map(Double.init)
        var produced = 0
        xd.withUnsafeBufferPointer { xb in
            out.withUnsafeMutableBufferPointer { ob in
                [xb.baseAddress!].withUnsafeBufferPointer { ib in
                    [ob.baseAddress!].withUnsafeBufferPointer { obp in
                        produced += src.process(input: ib, inputFrames: xd.count, output: obp, outputCapacity: total).produced
                        while case let k = src.flush(output: obp, offset: produced, outputCapacity: total - produced), k > 0 {
                            produced += k
                        }
                    }
                }
            }
        }
        #expect(produced == total && total == y32.count)
        var worst = 0.0
        for i in 0..<total { worst = max(worst, abs(out[i] - Double(y32[i]))) }
        #expect(worst <= 3e-8)   // Float32 rounding of values below 0.5
    }

    @Test("latency queries are consistent")
    func latencyQueries() {
        let src = SampleRateConverter(inputRate: 44100, outputRate: 48000, channels: 2)
        #expect(src.latency == 0)
        #expect(src.leadingFrames > 50 && src.trailingFrames > 50)
        #expect(src.leadingFrames < 400 && src.trailingFrames < 400)
        let same = SampleRateConverter(inputRate: 48000, outputRate: 48000, channels: 2)
        #expect(same.leadingFrames == 0 && same.trailingFrames == 0)
    }
}

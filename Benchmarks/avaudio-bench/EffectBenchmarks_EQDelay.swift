// The fx-eqdelay suite: AVAudioUnitEQ and AVAudioUnitDelay on 60 s of stereo 48 kHz program
// material, through the public API only (AVAudioPlayerNode → effect → main mixer → offline
// manual rendering, 4096-frame calls, each call's output copied into a preallocated whole-length
// buffer), timed like the engine suite: graph built and buffer scheduled before the timed region,
// afresh for every run; times-realtime = rendered seconds / median wall seconds.
//
//   avaudio-bench fx-eqdelay [--seconds 60] [--runs 5] [--warmup 1] [--json] [--only KEY,...]
//
// Rows (the workloads of /work/shared/peers/bench_fx.py):
//   passthrough   player → main mixer, no effect: the engine's own cost, for reference
//   eq10          10-band EQ: low shelf 80 Hz +3 dB, 8 peaks, high shelf 14 kHz −3 dB, every
//                 band with the peers' Q (peaks and resonant shelves, bandwidth converted from Q
//                 with the cookbook relation), so the filters are the peers' RBJ biquads exactly.
//                 Checked by a null test against a Float64 direct-form cascade computed here
//                 (scipy sosfilt float64 in the peers' table).
//   delay         250 ms, feedback 40 %, mix 30 %, low-pass open (pedalboard Delay(0.25, 0.4, 0.3));
//                 checked like the peers: first echo time and level re the direct sound from the
//                 impulse response.
import AVFAudio
#if canImport(Glibc)
import Glibc
#endif

/// One graph (player → optional effect → main mixer), ready to render `frames` frames (default:
/// the store's capacity) into `store`. Shared by the effect suites.
final class EffectRig {
    let engine: AVAudioEngine
    let player: AVAudioPlayerNode
    let maximumFrames: Int
    let totalFrames: Int
    let block: AVAudioPCMBuffer
    let store: AVAudioPCMBuffer

    init(source: AVAudioPCMBuffer, effect: AVAudioNode?, store: AVAudioPCMBuffer, frames: Int? = nil, maximumFrames: Int = 4096) throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        let format = source.format
        if let effect {
            engine.attach(effect)
            engine.connect(player, to: effect, format: format)
            engine.connect(effect, to: engine.mainMixerNode, format: format)
        } else {
            engine.connect(player, to: engine.mainMixerNode, format: format)
        }
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: AVAudioFrameCount(maximumFrames))
        player.scheduleBuffer(source, at: nil, options: [], completionHandler: nil)
        try engine.start()
        player.play()
        self.engine = engine
        self.player = player
        self.maximumFrames = maximumFrames
        totalFrames = frames ?? Int(store.frameCapacity)
        block = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: AVAudioFrameCount(maximumFrames))!
        self.store = store
    }

    @inline(never)
    func render() throws {
        let channels = Int(block.format.channelCount)
        let src = block.floatChannelData!, dst = store.floatChannelData!
        var done = 0
        while done < totalFrames {
            let n = min(maximumFrames, totalFrames - done)
            let status = try engine.renderOffline(AVAudioFrameCount(n), to: block)
            guard status == .success else { throw BenchError("renderOffline returned \(status) at frame \(done)") }
            for c in 0 ..< channels { (dst[c] + done).update(from: src[c], count: n) }
            done += n
        }
        store.frameLength = AVAudioFrameCount(totalFrames)
    }
}

enum EQDelaySuite {
    static let rate = 48_000.0

    /// bench_fx.py's EQ: (type, frequency, gain dB, Q).
    static let eqBands: [(AVAudioUnitEQFilterType, Double, Double, Double)] = [
        (.resonantLowShelf, 80, 3, 0.707), (.parametric, 125, -4, 1), (.parametric, 250, 2, 1), (.parametric, 500, -3, 1.4),
        (.parametric, 1000, 4, 1), (.parametric, 2000, -2, 2), (.parametric, 4000, 3, 1), (.parametric, 6000, -4, 1),
        (.parametric, 10000, 2, 0.7), (.resonantHighShelf, 14000, -3, 0.707)]

    static func makeEQ() -> AVAudioUnitEQ {
        let eq = AVAudioUnitEQ(numberOfBands: eqBands.count)
        for (band, spec) in zip(eq.bands, eqBands) {
            let (type, f, g, q) = spec
            let w0 = 2 * Double.pi * f / rate
            band.filterType = type
            band.frequency = Float(f)
            band.gain = Float(g)
            band.bandwidth = Float(2 / log(2.0) * asinh(1 / (2 * q)) * sin(w0) / w0)   // 1/Q = 2 sinh(ln2/2 · BW · w0/sin w0)
            band.bypass = false
        }
        return eq
    }

    static func makeDelay() -> AVAudioUnitDelay {
        let d = AVAudioUnitDelay()
        d.delayTime = 0.25
        d.feedback = 40
        d.wetDryMix = 30
        d.auAudioUnit.parameterTree?.parameter(withAddress: 3)?.value = Float(rate / 2)   // low-pass open
        return d
    }

    /// The Float64 reference of the EQ: direct form I cookbook biquads from the Qs, cascaded.
    static func eqReference(_ source: AVAudioPCMBuffer) -> [[Double]] {
        let frames = Int(source.frameLength)
        return (0 ..< Int(source.format.channelCount)).map { c in
            let x = source.floatChannelData![c]
            var v = [Double](repeating: 0, count: frames)
            for i in 0 ..< frames { v[i] = Double(x[i]) }
            for (type, f, g, q) in eqBands {
                let A = pow(10, g / 40), w0 = 2 * Double.pi * f / rate, cs = cos(w0), alpha = sin(w0) / (2 * q)
                var b0, b1, b2, a0, a1, a2: Double
                switch type {
                case .resonantLowShelf:
                    let sq = 2 * A.squareRoot() * alpha
                    (b0, b1, b2) = (A * ((A + 1) - (A - 1) * cs + sq), 2 * A * ((A - 1) - (A + 1) * cs), A * ((A + 1) - (A - 1) * cs - sq))
                    (a0, a1, a2) = ((A + 1) + (A - 1) * cs + sq, -2 * ((A - 1) + (A + 1) * cs), (A + 1) + (A - 1) * cs - sq)
                case .resonantHighShelf:
                    let sq = 2 * A.squareRoot() * alpha
                    (b0, b1, b2) = (A * ((A + 1) + (A - 1) * cs + sq), -2 * A * ((A - 1) + (A + 1) * cs), A * ((A + 1) + (A - 1) * cs - sq))
                    (a0, a1, a2) = ((A + 1) - (A - 1) * cs + sq, 2 * ((A - 1) - (A + 1) * cs), (A + 1) - (A - 1) * cs - sq)
                default:
                    (b0, b1, b2) = (1 + alpha * A, -2 * cs, 1 - alpha * A)
                    (a0, a1, a2) = (1 + alpha / A, -2 * cs, 1 - alpha / A)
                }
                (b0, b1, b2, a1, a2) = (b0 / a0, b1 / a0, b2 / a0, a1 / a0, a2 / a0)
                var x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
                v.withUnsafeMutableBufferPointer { p in
                    for i in 0 ..< frames {
                        let xi = p[i]
                        let y = b0 * xi + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
                        x2 = x1; x1 = xi; y2 = y1; y1 = y
                        p[i] = y
                    }
                }
            }
            return v
        }
    }

    /// RMS of (output − reference) in dB re the reference.
    static func nullDB(_ output: AVAudioPCMBuffer, _ ref: [[Double]]) -> Double {
        var e = 0.0, s = 0.0
        for c in 0 ..< ref.count {
            let o = output.floatChannelData![c]
            for i in 0 ..< min(ref[c].count, Int(output.frameLength)) {
                let d = Double(o[i]) - ref[c][i]
                e += d * d
                s += ref[c][i] * ref[c][i]
            }
        }
        return e == 0 ? -.infinity : 10 * log10(e / s)
    }

    /// bench_fx.py's delay metrics from an 8 s stereo impulse response (impulse at 0.1 s).
    static func delayMetrics() throws -> [(String, JSONValue)] {
        let frames = Int(8 * rate), at = Int(0.1 * rate)
        let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2)!
        let impulse = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
        impulse.frameLength = AVAudioFrameCount(frames)
        for c in 0 ..< 2 { impulse.floatChannelData![c].update(repeating: 0, count: frames); impulse.floatChannelData![c][at] = 1 }
        let store = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
        let rig = try EffectRig(source: impulse, effect: makeDelay(), store: store)
        try rig.render()
        rig.engine.stop()
        let h = store.floatChannelData![0]
        var direct: Float = 0
        for i in (at - 5) ..< (at + 5) { direct = max(direct, abs(h[i])) }
        var k = 0, peak: Float = 0
        for i in (at + Int(0.005 * rate)) ..< frames where abs(h[i]) > peak { peak = abs(h[i]); k = i }
        return [("first_echo_ms", .number((1000 * Double(k - at) / rate * 100).rounded() / 100)),
                ("echo_re_direct_db", .number((20 * log10(Double(peak / direct)) * 100).rounded() / 100))]
    }

    static func run(_ args: Arguments) throws {
        var options = try SuiteOptions(args)
        if args.string("--seconds") == nil { options.seconds = 60 }
        if args.string("--runs") == nil { options.runs = 5 }
        let only = Set(args.values("--only").flatMap { $0.split(separator: ",").map(String.init) })
        let source = Material.make(seconds: options.seconds, sampleRate: rate)
        let store = AVAudioPCMBuffer(pcmFormat: source.format, frameCapacity: source.frameLength)!
        for c in 0 ..< 2 { store.floatChannelData![c].update(repeating: 0, count: Int(source.frameLength)) }

        let rows: [(key: String, label: String, make: () -> AVAudioNode?)] = [
            ("passthrough", "player -> mixer (no effect) \(Int(options.seconds))s stereo 48k", { nil }),
            ("eq10", "AVAudioUnitEQ 10-band \(Int(options.seconds))s stereo 48k", { makeEQ() }),
            ("delay", "AVAudioUnitDelay 250ms fb40% mix30% \(Int(options.seconds))s stereo 48k", { makeDelay() }),
        ]
        var results: [BenchResult] = []
        for row in rows where only.isEmpty || only.contains(row.key) {
            var rig: EffectRig?
            var samples: [Sample] = []
            for i in 0 ..< options.warmup + options.runs {
                rig = try EffectRig(source: source, effect: row.make(), store: store)
                let s = try timeOnce { try rig!.render() }
                if i >= options.warmup { samples.append(s) }
                rig!.engine.stop()
            }
            var metrics: [(String, JSONValue)] = [("key", .string(row.key))]
            if row.key == "eq10" {
                metrics.append(("null_vs_f64_ref_db", .number((nullDB(store, eqReference(source)) * 10).rounded() / 10)))
            } else if row.key == "delay" {
                metrics += try delayMetrics()
            }
            let result = BenchResult(suite: "fx-eqdelay", workload: row.label, audioSeconds: options.seconds, samples: samples, metrics: metrics)
            results.append(result)
            if !options.json { note("fx-eqdelay: \(row.key): \(fixed(result.timesRealtime, 1))x realtime") }
        }
        report(results, json: options.json)
    }
}

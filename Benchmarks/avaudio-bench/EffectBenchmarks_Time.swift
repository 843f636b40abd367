// The fx-time suite: AVAudioUnitTimePitch and AVAudioUnitVarispeed on 60 s of stereo 48 kHz
// program material, through the public API only (AVAudioPlayerNode → time effect → main mixer →
// offline manual rendering in 4096-frame calls into a preallocated whole-length buffer), timed
// like fx-eqdelay; times-realtime = INPUT seconds / median wall seconds (as the peers' table f).
// The rubberband CLI (R2 default, R3 --fine) is timed in the same run on the same material
// (whole process, WAV in and out of /tmp, as in the peers' table).
//
//   avaudio-bench fx-time [--seconds 60] [--runs 3] [--warmup 1] [--json] [--only KEY,...] [--dir D] [--no-rubberband]
//   avaudio-bench fx-time --input FILE [--rate R] [--cents=C] [--varispeed] [--dir D]   (render a file)
//
// Rows: tp-rate0.5, tp-rate1.5, tp-pitch500 (TimePitch), vs-rate0.5, vs-rate2 (Varispeed),
// and rb-r2-*/rb-r3-* (rubberband) for the TimePitch cases.
// Quality (bench_stretch.py's tone checks, on a 10 s stereo 440 Hz tone at 0.5): audible length
// (first to last sample above 0.01; the output files also hold our latency),
// pitch error in cents (sine fit), envelope dip (5th percentile of the short-time amplitude re its
// median, dB) and the median 200 ms-frame THD+N re the best-fit sine (dB), for ours and for the
// rubberband CLI on the same tone. Audio of the tone renders is left in --dir.
import AVFAudio
import AudioAnalysis
#if canImport(Glibc)
import Glibc
#endif

enum TimeEffectSuite {
    static let rate = 48_000.0

    struct Case {
        let key: String
        let label: String
        let timePitch: Bool
        let rate: Double
        let cents: Double
        var rubberbandArguments: [String] {
            (rate != 1 ? ["-T", "\(rate)"] : []) + (cents != 0 ? ["-p", "\(cents / 100)"] : [])
        }
    }

    static let cases: [Case] = [
        Case(key: "tp-rate0.5", label: "TimePitch rate 0.5", timePitch: true, rate: 0.5, cents: 0),
        Case(key: "tp-rate1.5", label: "TimePitch rate 1.5", timePitch: true, rate: 1.5, cents: 0),
        Case(key: "tp-pitch500", label: "TimePitch pitch +500 cents", timePitch: true, rate: 1, cents: 500),
        Case(key: "vs-rate0.5", label: "Varispeed rate 0.5", timePitch: false, rate: 0.5, cents: 0),
        Case(key: "vs-rate2", label: "Varispeed rate 2", timePitch: false, rate: 2, cents: 0),
    ]

    static func makeUnit(_ c: Case) -> AVAudioNode {
        if c.timePitch {
            let u = AVAudioUnitTimePitch()
            u.rate = Float(c.rate)
            u.pitch = Float(c.cents)
            return u
        }
        let u = AVAudioUnitVarispeed()
        u.rate = Float(c.rate)
        return u
    }

    /// Renders `source` through the case's unit: `outputFrames` frames into `store`.
    static func render(_ c: Case, source: AVAudioPCMBuffer, store: AVAudioPCMBuffer) throws -> EffectRig {
        let rig = try EffectRig(source: source, effect: makeUnit(c), store: store)
        try rig.render()
        rig.engine.stop()
        return rig
    }

    static func tone(seconds: Double, frequency: Double = 440, amplitude: Float = 0.5) -> AVAudioPCMBuffer {
        let frames = Int(seconds * rate)
        let b = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2)!, frameCapacity: AVAudioFrameCount(frames))!
        b.frameLength = AVAudioFrameCount(frames)
        for i in 0 ..< frames {
            let v = amplitude * Float(sin(2 * Double.pi * frequency * Double(i) / rate))
            b.floatChannelData![0][i] = v
            b.floatChannelData![1][i] = v
        }
        return b
    }

    /// `--input FILE [--rate R] [--cents=C] [--varispeed]`: renders a file through the unit into
    /// --dir/fx-time-input-out.wav (for listening and for the peers' analysis scripts).
    static func renderFile(_ path: String, _ args: Arguments, dir: String) throws {
        let file = try AVAudioFile(forReading: URL(fileURLWithPath: path))
        let source = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))!
        try file.read(into: source)
        let r = try args.double("--rate", default: 1)
        let cents = Double(args.string("--cents") ?? "0") ?? 0
        let c = Case(key: "input", label: "input", timePitch: !args.flag("--varispeed"), rate: r, cents: cents)
        let frames = Int(Double(source.frameLength) / r + file.processingFormat.sampleRate * 0.2)
        let store = AVAudioPCMBuffer(pcmFormat: source.format, frameCapacity: AVAudioFrameCount(frames))!
        let rig = try EffectRig(source: source, effect: makeUnit(c), store: store)
        let t = try timeOnce { try rig.render() }
        rig.engine.stop()
        try writeWAV(store, to: URL(fileURLWithPath: dir + "/fx-time-input-out.wav"))
        note("fx-time: \(path) at rate \(r), \(cents) cents: \(fixed(Double(source.frameLength) / source.format.sampleRate / t.wall, 1))x realtime -> \(dir)/fx-time-input-out.wav")
    }

    static func run(_ args: Arguments) throws {
        var options = try SuiteOptions(args)
        if let input = args.string("--input") {
            try FileManager.default.createDirectory(atPath: options.dir, withIntermediateDirectories: true)
            return try renderFile(input, args, dir: options.dir)
        }
        if args.string("--seconds") == nil { options.seconds = 60 }
        let only = Set(args.values("--only").flatMap { $0.split(separator: ",").map(String.init) })
        let withRubberband = !args.flag("--no-rubberband") && FileManager.default.isExecutableFile(atPath: "/usr/bin/rubberband")
        try FileManager.default.createDirectory(atPath: options.dir, withIntermediateDirectories: true)
        let source = Material.make(seconds: options.seconds, sampleRate: rate)
        let programURL = URL(fileURLWithPath: options.dir + "/fx-time-program.wav")
        let toneSeconds = 10.0
        let toneSource = tone(seconds: toneSeconds)
        let toneURL = URL(fileURLWithPath: options.dir + "/fx-time-tone440.wav")
        if withRubberband {
            try writeWAV(source, to: programURL)
            try writeWAV(toneSource, to: toneURL)
        }

        var results: [BenchResult] = []
        for c in cases where only.isEmpty || only.contains(c.key) {
            let outFrames = Int((Double(source.frameLength) / c.rate).rounded())
            let store = AVAudioPCMBuffer(pcmFormat: source.format, frameCapacity: AVAudioFrameCount(outFrames))!
            for ch in 0 ..< 2 { store.floatChannelData![ch].update(repeating: 0, count: outFrames) }
            var samples: [Sample] = []
            for i in 0 ..< options.warmup + options.runs {
                let rig = try EffectRig(source: source, effect: makeUnit(c), store: store)
                let s = try timeOnce { try rig.render() }
                if i >= options.warmup { samples.append(s) }
                rig.engine.stop()
            }
            // quality on the tone (ours)
            let toneOut = AVAudioPCMBuffer(pcmFormat: toneSource.format, frameCapacity: AVAudioFrameCount((toneSeconds / c.rate + 0.1) * rate))!
            _ = try render(c, source: toneSource, store: toneOut)
            try writeWAV(toneOut, to: URL(fileURLWithPath: options.dir + "/fx-time-\(c.key)-ours.wav"))
            let expected = 440 * pow(2, c.cents / 1200) * (c.timePitch ? 1 : c.rate)
            var metrics: [(String, JSONValue)] = [("key", .string(c.key))]
            metrics += ToneMetrics.stats(channel(toneOut), sampleRate: rate, expectedHz: expected).json
            let result = BenchResult(suite: "fx-time", workload: "\(c.label) \(Int(options.seconds))s stereo 48k (ours)",
                                     audioSeconds: options.seconds, samples: samples, metrics: metrics)
            results.append(result)
            if !options.json { note("fx-time: \(c.key): \(fixed(result.timesRealtime, 1))x realtime") }

            guard withRubberband && c.timePitch else { continue }
            for (name, extra) in [("r2", [String]()), ("r3", ["--fine"])] {
                let out = options.dir + "/fx-time-rb-out.wav"
                var rbSamples: [Sample] = []
                for i in 0 ..< options.warmup + options.runs {
                    let c0 = childCPU()
                    var s = try timeOnce { try runProcess("/usr/bin/rubberband", ["-q"] + extra + c.rubberbandArguments + [programURL.path, out]) }
                    s.cpu = childCPU() - c0
                    if i >= options.warmup { rbSamples.append(s) }
                }
                let toneRB = options.dir + "/fx-time-\(c.key)-rb-\(name).wav"
                try runProcess("/usr/bin/rubberband", ["-q"] + extra + c.rubberbandArguments + [toneURL.path, toneRB])
                let y = try readWAV(URL(fileURLWithPath: toneRB))
                var m: [(String, JSONValue)] = [("key", .string("rb-\(name)-\(c.key.dropFirst(3))"))]
                m += ToneMetrics.stats(y, sampleRate: rate, expectedHz: expected).json
                let r = BenchResult(suite: "fx-time", workload: "\(c.label) \(Int(options.seconds))s stereo 48k (rubberband \(name.uppercased()) CLI, whole process)",
                                    audioSeconds: options.seconds, samples: rbSamples, metrics: m)
                results.append(r)
                if !options.json { note("fx-time: rubberband \(name) \(c.key): \(fixed(r.timesRealtime, 1))x realtime") }
            }
        }
        report(results, json: options.json)
    }

    /// CPU seconds of the finished child processes.
    static func childCPU() -> Double {
        var u = rusage()
        getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &u)
        return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) * 1e-6 + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) * 1e-6
    }

    static func channel(_ b: AVAudioPCMBuffer, _ c: Int = 0) -> [Float] {
        Array(UnsafeBufferPointer(start: b.floatChannelData![c], count: Int(b.frameLength)))
    }

    static func writeWAV(_ b: AVAudioPCMBuffer, to url: URL) throws {
        try? FileManager.default.removeItem(at: url)
        let f = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: b.format.sampleRate,
                                                            AVNumberOfChannelsKey: b.format.channelCount, AVLinearPCMBitDepthKey: 32,
                                                            AVLinearPCMIsFloatKey: true])
        try f.write(from: b)
    }

    static func readWAV(_ url: URL) throws -> [Float] {
        let f = try AVAudioFile(forReading: url)
        let b = AVAudioPCMBuffer(pcmFormat: f.processingFormat, frameCapacity: AVAudioFrameCount(f.length))!
        try f.read(into: b)
        return channel(b)
    }

    @discardableResult
    static func runProcess(_ path: String, _ arguments: [String]) throws -> Int32 {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: path)
        p.arguments = arguments
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw BenchError("\(path) \(arguments.joined(separator: " ")) exited with \(p.terminationStatus)") }
        return p.terminationStatus
    }
}

/// bench_stretch.py's tone checks, in Swift: pitch (least-squares sine fit with Gauss-Newton
/// frequency refinement over the middle half), envelope dips (short-time amplitude, 2 periods
/// per window, 5th percentile re median over the middle 80 %), THD+N (median over 200 ms frames
/// of the residual after a refined sine fit, 5 % of each frame's residual ends dropped).
enum ToneMetrics {
    struct Stats {
        var seconds: Double
        var pitchHz: Double
        var pitchErrorCents: Double
        var envelopeDipDB: Double
        var thdnDB: Double
        var json: [(String, JSONValue)] {
            func r(_ x: Double, _ d: Double) -> JSONValue { .number((x * d).rounded() / d) }
            return [("audible_s", r(seconds, 1000)), ("pitch_err_cents", r(pitchErrorCents, 1000)),
                    ("env_dip_db", r(envelopeDipDB, 100)), ("tone_thdn_db", r(thdnDB, 100))]
        }
    }

    static func stats(_ y: [Float], sampleRate: Double, expectedHz: Double) -> Stats {
        // bench_stretch: the middle half of the output
        let seg = Array(y[(y.count / 4) ..< (3 * y.count / 4)])
        let w0 = 2 * Double.pi * expectedHz / sampleRate
        var first = -1, last = -1
        for i in 0 ..< y.count where abs(y[i]) > 0.01 {
            if first < 0 { first = i }
            last = i
        }
        let span = Double(max(0, last - first)) / sampleRate
        return seg.withUnsafeBufferPointer { x in
            let whole = ToneAnalysis.fit(x, w: w0, refine: 6)
            let f = whole.w * sampleRate / (2 * Double.pi)
            // envelope over the middle 80 %
            let lo = x.count / 10, hi = x.count - x.count / 10
            let win = max(8, Int((2 * sampleRate / f).rounded()))
            var env: [Double] = []
            var i = lo
            while i + win <= hi {
                env.append(ToneAnalysis.fit(UnsafeBufferPointer(rebasing: x[i ..< i + win]), w: whole.w, refine: 0).amp)
                i += win / 2
            }
            env.sort()
            let p5 = env.isEmpty ? 0 : env[env.count / 20], p50 = env.isEmpty ? 1 : env[env.count / 2]
            // 200 ms frames
            let frame = Int(0.2 * sampleRate)
            var thdn: [Double] = []
            var j = 0
            while j + frame <= x.count {
                let r = ToneAnalysis.fit(UnsafeBufferPointer(rebasing: x[j ..< j + frame]), w: whole.w, refine: 3)
                thdn.append(20 * log10(max(r.residual, 1e-15) / max(r.amp / 2.squareRoot(), 1e-15)))
                j += frame
            }
            thdn.sort()
            let median = thdn.isEmpty ? 0 : (thdn.count % 2 == 1 ? thdn[thdn.count / 2] : (thdn[thdn.count / 2 - 1] + thdn[thdn.count / 2]) / 2)
            return Stats(seconds: span, pitchHz: f, pitchErrorCents: 1200 * log2(f / expectedHz),
                         envelopeDipDB: 20 * log10(max(p5, 1e-15) / max(p50, 1e-15)), thdnDB: median)
        }
    }
}

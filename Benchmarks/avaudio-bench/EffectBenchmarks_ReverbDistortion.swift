// The fx-reverb suite: AVAudioUnitReverb and AVAudioUnitDistortion on 60 s of stereo 48 kHz
// program material, through the public API only (AVAudioPlayerNode → effect → main mixer →
// offline manual rendering in 4096-frame calls, each call's output copied into a preallocated
// whole-length buffer); graph built and buffer scheduled before the timed region, afresh for
// every run; times-realtime = rendered seconds / median wall seconds.
//
//   avaudio-bench fx-reverb [--seconds 60] [--runs 5] [--warmup 1] [--json] [--only KEY,...]
//                           [--peers] [--quality] [--dir DIR]
//
// Rows:
//   passthrough            player → main mixer: the engine's own cost, for reference
//   reverb                 AVAudioUnitReverb .mediumHall, wetDryMix 50
//   distortion             AVAudioUnitDistortion, default preset (.drumsBitBrush), wetDryMix 50
//   distortion-cubed       .multiDistortedCubed (the heavy waveshaper), wetDryMix 100
//   distortion-everything  .multiEverythingIsBroken (every stage on), wetDryMix 100
// --peers: the same run also times pedalboard's Reverb(room 0.5) and Distortion(25 dB) on 60 s
//   of stereo noise through python3 (the peers of /work/shared/peers/bench_fx.py), median of the
//   same number of runs.
// --quality: measurements in release on long responses: for every reverb preset a 6 s impulse
//   response at 48 kHz (wet only): RT60 by Schroeder backward integration (T20: −5…−25 dB,
//   T30: −5…−35 dB, EDT: 0…−10 dB, as audiometrics.rt60), normalized echo density (mean and
//   minimum over 30…300 ms after the onset; 20 ms Hann windows), spectral roughness of the tail
//   (100…600 ms; 1/12-octave levels 200 Hz…8 kHz minus their quadratic trend: rms and maximum,
//   dB) and the left/right correlation of the tail (from 50 ms); for the distortion the
//   largest inharmonic component (dB re the fundamental) of a −6 dBFS 5 kHz sine through the
//   heavy waveshaper (.multiDistortedCubed), the soft clip alone at the maximum pre-gain
//   (+20 dB) and .multiBrokenSpeaker, and the THD. With --dir DIR, the impulse responses are written there as 32-bit float WAV
//   files (reverb_PRESET.wav) for checking with audiometrics.py.
import AVFAudio
#if canImport(Glibc)
import Glibc
#endif

enum ReverbDistortionSuite {
    static let rate = 48_000.0

    static func reverb(_ preset: AVAudioUnitReverbPreset = .mediumHall, mix: Float = 50) -> AVAudioUnitReverb {
        let r = AVAudioUnitReverb()
        r.loadFactoryPreset(preset)
        r.wetDryMix = mix
        return r
    }

    static func distortion(_ preset: AVAudioUnitDistortionPreset?, mix: Float) -> AVAudioUnitDistortion {
        let d = AVAudioUnitDistortion()
        if let preset { d.loadFactoryPreset(preset) }
        d.wetDryMix = mix
        return d
    }

    static func run(_ args: Arguments) throws {
        var options = try SuiteOptions(args)
        if args.string("--seconds") == nil { options.seconds = 60 }
        if args.string("--runs") == nil { options.runs = 5 }
        let only = Set(args.values("--only").flatMap { $0.split(separator: ",").map(String.init) })
        var results: [BenchResult] = []

        if !args.flag("--quality") || !only.isEmpty {
            let source = Material.make(seconds: options.seconds, sampleRate: rate)
            let store = AVAudioPCMBuffer(pcmFormat: source.format, frameCapacity: source.frameLength)!
            for c in 0 ..< 2 { store.floatChannelData![c].update(repeating: 0, count: Int(source.frameLength)) }
            let s = Int(options.seconds)
            let rows: [(key: String, label: String, make: () -> AVAudioNode?)] = [
                ("passthrough", "player -> mixer (no effect) \(s)s stereo 48k", { nil }),
                ("reverb", "AVAudioUnitReverb mediumHall mix50 \(s)s stereo 48k", { reverb() }),
                ("distortion", "AVAudioUnitDistortion drumsBitBrush mix50 \(s)s stereo 48k", { distortion(nil, mix: 50) }),
                ("distortion-cubed", "AVAudioUnitDistortion multiDistortedCubed \(s)s stereo 48k", { distortion(.multiDistortedCubed, mix: 100) }),
                ("distortion-everything", "AVAudioUnitDistortion multiEverythingIsBroken \(s)s stereo 48k",
                 { distortion(.multiEverythingIsBroken, mix: 100) }),
            ]
            for row in rows where only.isEmpty || only.contains(row.key) {
                var samples: [Sample] = []
                for i in 0 ..< options.warmup + options.runs {
                    let rig = try EffectRig(source: source, effect: row.make(), store: store)
                    let t = try timeOnce { try rig.render() }
                    if i >= options.warmup { samples.append(t) }
                }
                let key = JSONValue.string(row.key)
                let r = BenchResult(suite: "fx-reverb", workload: row.label, audioSeconds: options.seconds, samples: samples,
                                    metrics: [("key", key)])
                results.append(r)
                if !options.json { note("fx-reverb: \(row.label): \(fixed(r.timesRealtime, 1))x realtime") }
            }
            if args.flag("--peers") { results += try peers(seconds: options.seconds, runs: options.runs, json: options.json) }
        }
        if args.flag("--quality") {
            results += try quality(dir: args.string("--dir"), json: options.json)
        }
        report(results, json: options.json)
    }

    // MARK: peers

    /// pedalboard's Reverb and Distortion, timed by python3 in this run (median of `runs`).
    static func peers(seconds: Double, runs: Int, json: Bool) throws -> [BenchResult] {
        let script = """
        import json, time, numpy as np, pedalboard as pb
        sr = 48000; n = int(\(seconds) * sr)
        rng = np.random.default_rng(7)
        x = (0.3 * rng.standard_normal((2, n))).astype(np.float32)
        out = {}
        for name, board in [("reverb", pb.Pedalboard([pb.Reverb(room_size=0.5, damping=0.5, wet_level=0.33, dry_level=0.4, width=1.0)])),
                            ("distortion", pb.Pedalboard([pb.Distortion(drive_db=25)]))]:
            board(x[:, :sr], sr)
            t = []
            for _ in range(\(runs)):
                t0 = time.perf_counter(); board(x, sr); t.append(time.perf_counter() - t0)
            out[name] = t
        print(json.dumps(out))
        """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script]
        let pipe = Pipe()
        process.standardOutput = pipe
        do { try process.run() } catch {
            note("fx-reverb: peers: python3 not runnable (\(error)); see /work/shared/peers/RESULTS.md")
            return []
        }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let obj = try? JSONSerialization.jsonObject(with: data) as? [String: [Double]] else {
            note("fx-reverb: peers: pedalboard run failed; see /work/shared/peers/RESULTS.md")
            return []
        }
        var out: [BenchResult] = []
        for (key, label) in [("reverb", "peer: pedalboard Reverb (room 0.5)"), ("distortion", "peer: pedalboard Distortion 25 dB")] {
            guard let times = obj[key] else { continue }
            let r = BenchResult(suite: "fx-reverb", workload: label + " \(Int(seconds))s stereo 48k", audioSeconds: seconds,
                                samples: times.map { Sample(wall: $0, cpu: $0) }, metrics: [("key", .string("peer-" + key))])
            out.append(r)
            if !json { note("fx-reverb: \(r.workload): \(fixed(r.timesRealtime, 1))x realtime") }
        }
        return out
    }

    // MARK: quality

    static func quality(dir: String?, json: Bool) throws -> [BenchResult] {
        var out: [BenchResult] = []
        let frames = Int(6 * rate)
        let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2)!
        let impulse = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
        impulse.frameLength = AVAudioFrameCount(frames)
        for c in 0 ..< 2 { impulse.floatChannelData![c].update(repeating: 0, count: frames); impulse.floatChannelData![c][0] = 1 }
        if let dir { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        for preset in AVAudioUnitReverbPreset.allCases {
            let store = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
            let rig = try EffectRig(source: impulse, effect: reverb(preset, mix: 100), store: store)
            let t = try timeOnce { try rig.render() }
            let l = Array(UnsafeBufferPointer(start: store.floatChannelData![0], count: frames))
            let r = Array(UnsafeBufferPointer(start: store.floatChannelData![1], count: frames))
            if let dir {
                let url = URL(fileURLWithPath: dir).appendingPathComponent("reverb_\(preset).wav")
                let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: rate,
                                                                       AVNumberOfChannelsKey: 2, AVLinearPCMBitDepthKey: 32,
                                                                       AVLinearPCMIsFloatKey: true])
                try file.write(from: store)
            }
            func r3(_ x: Double?) -> JSONValue { x.map { .number(($0 * 1000).rounded() / 1000) } ?? .string("-") }
            func r2(_ x: Double) -> JSONValue { .number((x * 100).rounded() / 100) }
            let ned = ReverbDistortionMetrics.echoDensity(l, rate: rate)
            let window = ned.count > 300 ? Array(ned[30 ..< 300]) : ned
            let onset = l.firstIndex { abs($0) > 1e-7 } ?? 0
            let tail = Array(l[(onset + Int(0.1 * rate)) ..< (onset + Int(0.6 * rate))])
            let rough = ReverbDistortionMetrics.spectralRoughness(tail, rate: rate)
            let corr = ReverbDistortionMetrics.correlation(l[Int(0.05 * rate)...], r[Int(0.05 * rate)...])
            let metrics: [(String, JSONValue)] = [
                ("key", .string("rt60-\(preset)")),
                ("t20_s", r3(ReverbDistortionMetrics.rt60(l, rate: rate, from: -5, to: -25))),
                ("t30_s", r3(ReverbDistortionMetrics.rt60(l, rate: rate, from: -5, to: -35))),
                ("edt_s", r3(ReverbDistortionMetrics.rt60(l, rate: rate, from: 0, to: -10))),
                ("ned_mean", r2(window.reduce(0, +) / Double(max(window.count, 1)))),
                ("ned_min", r2(window.min() ?? 0)),
                ("rough_rms_db", r2(rough.std)), ("rough_max_db", r2(rough.max)),
                ("lr_corr", .number((corr * 1000).rounded() / 1000)),
            ]
            out.append(BenchResult(suite: "fx-reverb", workload: "reverb \(preset) 6s impulse response", audioSeconds: 6,
                                   samples: [t], metrics: metrics))
        }
        // Distortion: the heavy waveshaper on a −6 dBFS 5 kHz sine.
        let n = 65_536 + 8192
        let mono = AVAudioFormat(standardFormatWithSampleRate: rate, channels: 1)!
        let sine = AVAudioPCMBuffer(pcmFormat: mono, frameCapacity: AVAudioFrameCount(n))!
        sine.frameLength = AVAudioFrameCount(n)
        for i in 0 ..< n { sine.floatChannelData![0][i] = 0.5 * Float(sin(2 * Double.pi * 5000 * Double(i) / rate)) }
        let configurations: [(key: String, label: String, make: () -> AVAudioUnitDistortion)] = [
            ("cubed", "multiDistortedCubed", { distortion(.multiDistortedCubed, mix: 100) }),
            ("drive", "preGain +20 dB, soft clip only", {
                let d = distortion(.multiDecimated1, mix: 100)
                for a: AUParameterAddress in [5, 9, 13] { d.auAudioUnit.parameterTree?.parameter(withAddress: a)?.value = 0 }
                d.preGain = 20
                return d
            }),
            ("speaker", "multiBrokenSpeaker", { distortion(.multiBrokenSpeaker, mix: 100) }),
        ]
        for config in configurations {
            let store = AVAudioPCMBuffer(pcmFormat: mono, frameCapacity: AVAudioFrameCount(n))!
            let rig = try EffectRig(source: sine, effect: config.make(), store: store)
            let t = try timeOnce { try rig.render() }
            let y = Array(UnsafeBufferPointer(start: store.floatChannelData![0] + 8192, count: 65_536))
            let a = ReverbDistortionMetrics.aliasAndTHD(y, rate: rate, fundamental: 5000)
            out.append(BenchResult(suite: "fx-reverb", workload: "distortion \(config.label), 5 kHz -6 dBFS", audioSeconds: Double(n) / rate,
                                   samples: [t], metrics: [("key", .string("alias-\(config.key)")),
                                                           ("alias_db", .number((a.db * 10).rounded() / 10)),
                                                           ("alias_hz", .number(a.hz.rounded())),
                                                           ("thd_pct", .number((a.thd * 10).rounded() / 10))]))
        }
        return out
    }
}

/// Measurements on responses (the same definitions as the tests' RDMetrics).
enum ReverbDistortionMetrics {
    /// RT60 (s) from the Schroeder energy decay curve (from the onset), fitted between `from`
    /// and `to` dB.
    static func rt60(_ h: [Float], rate: Double, from: Double, to: Double) -> Double? {
        guard let start = h.indices.max(by: { abs(h[$0]) < abs(h[$1]) }) else { return nil }
        let e = h[start...].map { Double($0) * Double($0) }
        var edc = [Double](repeating: 0, count: e.count)
        var acc = 0.0
        for k in stride(from: e.count - 1, through: 0, by: -1) { acc += e[k]; edc[k] = acc }
        var xs: [Double] = [], ys: [Double] = []
        for k in e.indices {
            let db = 10 * log10(max(edc[k], 1e-300) / edc[0])
            if db <= from && db >= to { xs.append(Double(k) / rate); ys.append(db) }
        }
        guard xs.count > 10 else { return nil }
        let n = Double(xs.count), mx = xs.reduce(0, +) / n, my = ys.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for i in xs.indices { sxy += (xs[i] - mx) * (ys[i] - my); sxx += (xs[i] - mx) * (xs[i] - mx) }
        let slope = sxy / sxx
        return slope < 0 ? -60 / slope : nil
    }

    static func echoDensity(_ h: [Float], rate: Double) -> [Double] {
        guard let start = h.firstIndex(where: { abs($0) > 1e-7 }) else { return [] }
        let x = h[start...].map(Double.init)
        var w = Int(rate * 0.02)
        if w % 2 == 0 { w += 1 }
        let win = (0 ..< w).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0 + 1) / Double(w + 1)) }
        let wsum = win.reduce(0, +)
        var out: [Double] = []
        var t = 0
        while t + w <= x.count && out.count < 400 {
            var energy = 0.0
            for k in 0 ..< w { energy += win[k] * x[t + k] * x[t + k] }
            let sigma = (energy / wsum).squareRoot()
            var count = 0.0
            for k in 0 ..< w where abs(x[t + k]) > sigma { count += win[k] }
            out.append(count / wsum / 0.317_310_507_862_914_1)
            t += Int(rate * 0.001)
        }
        return out
    }

    static func powerSpectrum(_ x: [Double]) -> [Double] {
        let n = x.count
        var re = x, im = [Double](repeating: 0, count: n)
        var j = 0
        for i in 1 ..< n {
            var bit = n >> 1
            while j & bit != 0 { j ^= bit; bit >>= 1 }
            j |= bit
            if i < j { re.swapAt(i, j) }
        }
        var len = 2
        while len <= n {
            let ang = -2 * Double.pi / Double(len)
            let wr = cos(ang), wi = sin(ang)
            var i = 0
            while i < n {
                var cr = 1.0, ci = 0.0
                for k in 0 ..< len / 2 {
                    let a = i + k, b = a + len / 2
                    let tr = re[b] * cr - im[b] * ci, ti = re[b] * ci + im[b] * cr
                    re[b] = re[a] - tr; im[b] = im[a] - ti
                    re[a] += tr; im[a] += ti
                    let ncr = cr * wr - ci * wi
                    ci = cr * wi + ci * wr
                    cr = ncr
                }
                i += len
            }
            len <<= 1
        }
        return (0 ... n / 2).map { re[$0] * re[$0] + im[$0] * im[$0] }
    }

    static func spectralRoughness(_ x: [Float], rate: Double) -> (std: Double, max: Double) {
        var n = 1
        while n * 2 <= x.count { n *= 2 }
        let p = powerSpectrum((0 ..< n).map { Double(x[$0]) * (0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(n))) })
        let df = rate / Double(n)
        var lx: [Double] = [], ly: [Double] = []
        var lo = 200.0
        while lo * pow(2, 1.0 / 12) <= 8000 {
            let hi = lo * pow(2, 1.0 / 12)
            let a = Int((lo / df).rounded(.up)), b = Int((hi / df).rounded(.down))
            if b >= a { lx.append(log2((lo * hi).squareRoot())); ly.append(10 * log10(p[a ... b].reduce(0, +) / Double(b - a + 1))) }
            lo = hi
        }
        let m = Double(lx.count), mx = lx.reduce(0, +) / m
        let u = lx.map { $0 - mx }
        var s = [Double](repeating: 0, count: 5), r = [Double](repeating: 0, count: 3)
        for i in u.indices {
            var pw = 1.0
            for k in 0 ..< 5 { s[k] += pw; pw *= u[i] }
            r[0] += ly[i]; r[1] += ly[i] * u[i]; r[2] += ly[i] * u[i] * u[i]
        }
        func det(_ a: [[Double]]) -> Double {
            a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        }
        let a = [[s[0], s[1], s[2]], [s[1], s[2], s[3]], [s[2], s[3], s[4]]]
        var coef = [0.0, 0.0, 0.0]
        for k in 0 ..< 3 {
            var ak = a
            for row in 0 ..< 3 { ak[row][k] = r[row] }
            coef[k] = det(ak) / det(a)
        }
        let residual = u.indices.map { ly[$0] - (coef[0] + coef[1] * u[$0] + coef[2] * u[$0] * u[$0]) }
        return ((residual.map { $0 * $0 }.reduce(0, +) / m).squareRoot(), residual.map(abs).max() ?? 0)
    }

    static func correlation(_ a: ArraySlice<Float>, _ b: ArraySlice<Float>) -> Double {
        var ab = 0.0, aa = 0.0, bb = 0.0
        for (x, y) in zip(a, b) { ab += Double(x) * Double(y); aa += Double(x) * Double(x); bb += Double(y) * Double(y) }
        return aa > 0 && bb > 0 ? ab / (aa * bb).squareRoot() : 0
    }

    /// Largest non-harmonic component (dB re the fundamental, and where) and THD (%), from a
    /// 4-term Blackman–Harris spectrum of a power-of-two length signal.
    static func aliasAndTHD(_ y: [Float], rate: Double, fundamental f0: Double) -> (db: Double, hz: Double, thd: Double) {
        let n = y.count
        let w = (0 ..< n).map { i -> Double in
            let p = 2 * Double.pi * Double(i) / Double(n)
            return Double(y[i]) * (0.35875 - 0.48829 * cos(p) + 0.14128 * cos(2 * p) - 0.01168 * cos(3 * p))
        }
        let p = powerSpectrum(w), df = rate / Double(n)
        func band(_ f: Double) -> ClosedRange<Int> {
            let k = Int((f / df).rounded())
            return max(0, k - 16) ... min(p.count - 1, k + 16)
        }
        let fund = p[band(f0)].reduce(0, +)
        var masked = p, harmonics = 0.0, k = 1.0
        while k * f0 < rate / 2 - 16 * df {
            if k > 1 { harmonics += p[band(k * f0)].reduce(0, +) }
            for i in band(k * f0) { masked[i] = 0 }
            k += 1
        }
        for i in 0 ... Int(30 / df) { masked[i] = 0 }
        var worst = 0.0, at = 0
        for i in 4 ..< masked.count - 4 {
            let s = masked[(i - 4) ... (i + 4)].reduce(0, +)
            if s > worst { worst = s; at = i }
        }
        return (10 * log10(max(worst, 1e-30) / fund), Double(at) * df, 100 * (harmonics / fund).squareRoot())
    }
}

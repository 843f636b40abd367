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
import AudioAnalysis
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
            let ned = ReverbMetrics.echoDensity(l, rate: rate, maximumWindows: 400)
            let window = ned.count > 300 ? Array(ned[30 ..< 300]) : ned
            let onset = l.firstIndex { abs($0) > 1e-7 } ?? 0
            let tail = Array(l[(onset + Int(0.1 * rate)) ..< (onset + Int(0.6 * rate))])
            let rough = ReverbMetrics.spectralRoughness(tail, rate: rate)
            let corr = ReverbMetrics.correlation(l[Int(0.05 * rate)...], r[Int(0.05 * rate)...])
            let metrics: [(String, JSONValue)] = [
                ("key", .string("rt60-\(preset)")),
                ("t20_s", r3(ReverbMetrics.rt60(l, rate: rate, from: -5, to: -25))),
                ("t30_s", r3(ReverbMetrics.rt60(l, rate: rate, from: -5, to: -35))),
                ("edt_s", r3(ReverbMetrics.rt60(l, rate: rate, from: 0, to: -10))),
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
            let a = DistortionMetrics.aliasAndTHD(y, sampleRate: rate, fundamental: 5000)
            out.append(BenchResult(suite: "fx-reverb", workload: "distortion \(config.label), 5 kHz -6 dBFS", audioSeconds: Double(n) / rate,
                                   samples: [t], metrics: [("key", .string("alias-\(config.key)")),
                                                           ("alias_db", .number((a.aliasDB * 10).rounded() / 10)),
                                                           ("alias_hz", .number(a.aliasHz.rounded())),
                                                           ("thd_pct", .number((a.thd * 10).rounded() / 10))]))
        }
        return out
    }
}

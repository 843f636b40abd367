// The engine suite: AVAudioEngine graphs rendered offline through the public API only
// (AVAudioPlayerNode → main mixer → manual rendering), timed like dawdreamer's render().
//
//   avaudio-bench engine [--seconds 60] [--runs 3] [--warmup 1] [--json] [--only KEY,...] [--input SOURCES.f32]
//   avaudio-bench engine --serve      line protocol for Benchmarks/compare_mix.py (see `EngineServer`)
//
// Every row renders `--seconds` of 48 kHz output with `renderOffline` in a loop of
// maximumFrameCount-sized calls (4096 unless the row says 512) and copies each call's output into a
// preallocated whole-length buffer (dawdreamer's render() also records its whole output). The graph
// is built, started and its buffers scheduled *before* the timed region, afresh for every run; the
// timed region is the render loop only. Times-realtime = rendered seconds / median wall seconds.
//
// Rows (webaudio-benchmark scenarios, ported to AVAudioEngine; loop buffers are `Material`,
// 5 s long, looping):
//   simple-mono / simple-stereo        one player, 48 kHz buffer (no resampling) → stereo out
//   resample-mono / resample-stereo    one player, 44.1 kHz buffer: the main mixer converts the rate
//   upmix                              mono player → stereo out (the graph of simple-mono: the
//                                      mixer's mono→stereo route *is* the upmix)
//   downmix                            stereo player → mono manual rendering format (matrix route)
//   mix100-same / mix100-different     100 mono players of one buffer / of 100 different buffers
//   mix100-gains                       100 mono players of one buffer, 100 different volumes
//   pan100-stereo                      100 stereo players of one buffer, pans spread over −1 … 1
//   mix64-512 / mix64-4096             the headline: 64 mono players, each its own 60 s
//                                      buffer, own volume and pan (the gains and pans of
//                                      /work/shared/peers/bench_mix.py), maximumFrameCount 512 / 4096.
//                                      Checked by a null test against a float64 reference
//                                      (Σ volume × equal-power pan gain × source per channel).
//
// The headline's sources are a Swift port of bench_mix.py's `sources()` (even: sine + 2nd harmonic,
// odd: 2 kHz Butterworth-lowpassed noise, |x| ≤ 0.5), or, with `--input FILE`, raw planar float32
// (64 × frames) — compare_mix.py passes the very array the peers mix.
import AVFAudio
#if canImport(Glibc)
import Glibc
#endif

// MARK: a built graph

/// One engine with its players started and buffers scheduled, ready to render (control side,
/// untimed); `render()` is the timed part.
final class EngineRig {
    let engine: AVAudioEngine
    let players: [AVAudioPlayerNode]
    let maximumFrames: Int
    let totalFrames: Int
    /// What one renderOffline call writes.
    let block: AVAudioPCMBuffer
    /// The whole output (preallocated and touched by the caller).
    let store: AVAudioPCMBuffer

    /// A source of the graph: its buffer, mixing parameters and whether it loops.
    struct Voice {
        let buffer: AVAudioPCMBuffer
        var volume: Float = 1
        var pan: Float = 0
        var loops = true
    }

    init(voices: [Voice], outputChannels: Int, maximumFrames: Int, store: AVAudioPCMBuffer) throws {
        let engine = AVAudioEngine()
        let outputFormat = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: AVAudioChannelCount(outputChannels))!
        var players: [AVAudioPlayerNode] = []
        let mixer = engine.mainMixerNode
        for v in voices {
            let p = AVAudioPlayerNode()
            engine.attach(p)
            engine.connect(p, to: mixer, format: v.buffer.format)
            players.append(p)
        }
        try engine.enableManualRenderingMode(.offline, format: outputFormat, maximumFrameCount: AVAudioFrameCount(maximumFrames))
        for (p, v) in zip(players, voices) {
            if v.volume != 1 { p.volume = v.volume }
            if v.pan != 0 { p.pan = v.pan }
            p.scheduleBuffer(v.buffer, at: nil, options: v.loops ? .loops : [], completionHandler: nil)
        }
        try engine.start()
        for p in players { p.play() }
        self.engine = engine
        self.players = players
        self.maximumFrames = maximumFrames
        self.totalFrames = Int(store.frameCapacity)
        block = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: AVAudioFrameCount(maximumFrames))!
        precondition(store.format.channelCount == outputFormat.channelCount, "EngineRig: store has the wrong channel count")
        self.store = store
    }

    /// The timed part: renderOffline until `totalFrames`, each block copied into `store`.
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

    /// Control side, after timing: stops the engine so the graph can be released.
    func tearDown() {
        engine.stop()
    }
}

// MARK: the headline workload (64 mono sources, gain + pan)

enum MixWorkload {
    static let sourceCount = 64
    static let sampleRate = 48_000.0

    /// bench_mix.py's gains and pans: g = 0.03 · 10^(−(i mod 8)/20), p = linspace(−1, 1, 64).
    static func gains(_ count: Int = sourceCount) -> [(volume: Float, pan: Float)] {
        (0 ..< count).map { i in
            let g = 0.03 * pow(10.0, -Double(i % 8) / 20)
            let p = count > 1 ? -1 + 2 * Double(i) / Double(count - 1) : 0
            return (Float(g), Float(p))
        }
    }

    /// A Swift port of bench_mix.py's `sources()` (not bit-identical: LCG noise, phasor sines).
    static func makeSources(count: Int = sourceCount, frames: Int) -> [AVAudioPCMBuffer] {
        var rng = LCG(seed: 42)
        let format = AVAudioFormat(standardFormatWithSampleRate: sampleRate, channels: 1)!
        // 2nd-order Butterworth low-pass at 2 kHz (bilinear transform, as scipy's butter).
        let k = tan(Double.pi * 2000 / sampleRate), norm = 1 / (1 + 2.squareRoot() * k + k * k)
        let b0 = k * k * norm, b1 = 2 * b0, b2 = b0
        let a1 = 2 * (k * k - 1) * norm, a2 = (1 - 2.squareRoot() * k + k * k) * norm
        var scratch = [Double](repeating: 0, count: frames)
        return (0 ..< count).map { i in
            let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
            buffer.frameLength = AVAudioFrameCount(frames)
            let out = buffer.floatChannelData![0]
            if i % 2 == 0 {
                let f = 55.0 * pow(2.0, Double(i) / 12)
                let w = 2 * Double.pi * f / sampleRate
                let phi = rng.unit() * 6.28
                var (r1, i1) = (cos(phi), sin(phi)), (r2, i2) = (1.0, 0.0)
                let (c1, s1, c2, s2) = (cos(w), sin(w), cos(2 * w), sin(2 * w))
                for n in 0 ..< frames {
                    out[n] = Float(0.35 * i1 + 0.15 * i2)
                    (r1, i1) = (r1 * c1 - i1 * s1, r1 * s1 + i1 * c1)
                    (r2, i2) = (r2 * c2 - i2 * s2, r2 * s2 + i2 * c2)
                    if n & 1023 == 1023 {
                        let m1 = 1 / (r1 * r1 + i1 * i1).squareRoot(), m2 = 1 / (r2 * r2 + i2 * i2).squareRoot()
                        r1 *= m1; i1 *= m1; r2 *= m2; i2 *= m2
                    }
                }
            } else {
                var (x1, x2, y1, y2) = (0.0, 0.0, 0.0, 0.0)
                var peak = 0.0
                for n in 0 ..< frames {
                    let x = rng.gaussian()
                    let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
                    (x2, x1, y2, y1) = (x1, x, y1, y)
                    scratch[n] = y
                    peak = max(peak, abs(y))
                }
                let scale = 0.5 / max(peak, 1e-12)
                for n in 0 ..< frames { out[n] = Float(scratch[n] * scale) }
            }
            return buffer
        }
    }

    /// Raw planar float32 (count × frames), as numpy's `S.tofile()` writes a (count, frames) array.
    static func loadSources(_ path: String, count: Int = sourceCount) throws -> [AVAudioPCMBuffer] {
        guard let f = fopen(path, "rb") else { throw BenchError("cannot open \(path)") }
        defer { fclose(f) }
        fseek(f, 0, SEEK_END)
        let bytes = ftell(f)
        fseek(f, 0, SEEK_SET)
        guard bytes > 0, bytes % (4 * count) == 0 else { throw BenchError("\(path): \(bytes) bytes is not \(count) channels of float32") }
        let frames = bytes / (4 * count)
        let format = AVAudioFormat(standardFormatWithSampleRate: sampleRate, channels: 1)!
        return try (0 ..< count).map { i in
            let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(frames))!
            guard fread(buffer.floatChannelData![0], 4, frames, f) == frames else { throw BenchError("\(path): short read in source \(i)") }
            buffer.frameLength = AVAudioFrameCount(frames)
            return buffer
        }
    }

    static func voices(_ sources: [AVAudioPCMBuffer]) -> [EngineRig.Voice] {
        zip(sources, gains(sources.count)).map { EngineRig.Voice(buffer: $0, volume: $1.volume, pan: $1.pan, loops: false) }
    }

    /// The float64 reference (per channel: Σ volume × pan gain × source), computed once. The
    /// sources are mono, so the gains are the mixer's equal-power law for mono inputs.
    static func reference(_ sources: [AVAudioPCMBuffer], frames: Int) -> [[Double]] {
        var left = [Double](repeating: 0, count: frames), right = left
        for (s, gp) in zip(sources, gains(sources.count)) {
            let v = Double(gp.volume), p = Double(gp.pan)
            let gl = v * max(0, cos((1 + p) * Double.pi / 4)), gr = v * max(0, cos((1 - p) * Double.pi / 4))
            let x = s.floatChannelData![0]
            let n = min(frames, Int(s.frameLength))
            left.withUnsafeMutableBufferPointer { l in
                right.withUnsafeMutableBufferPointer { r in
                    for i in 0 ..< n {
                        let xi = Double(x[i])
                        l[i] += gl * xi
                        r[i] += gr * xi
                    }
                }
            }
        }
        let ref = [left, right]
        return ref
    }

    /// Null test: RMS of (output − reference) in dB re the reference's RMS, and the max abs diff.
    static func nullTest(_ output: AVAudioPCMBuffer, _ ref: [[Double]]) -> (db: Double, maxAbs: Double) {
        var e = 0.0, s = 0.0, m = 0.0
        let frames = min(Int(output.frameLength), ref[0].count)
        for c in 0 ..< min(2, Int(output.format.channelCount)) {
            let o = output.floatChannelData![c]
            for i in 0 ..< frames {
                let d = Double(o[i]) - ref[c][i]
                e += d * d
                s += ref[c][i] * ref[c][i]
                m = max(m, abs(d))
            }
        }
        return (e == 0 ? -.infinity : 10 * log10(e / max(s, 1e-300)), m)
    }
}

// MARK: the suite

enum EngineSuite {
    static let loopSeconds = 5.0

    static func run(_ args: Arguments) throws {
        if args.flag("--serve") {
            try EngineServer().serve()
            return
        }
        let seconds = try args.double("--seconds", default: 60)
        let runs = max(1, try args.int("--runs", default: 3))
        let warmup = try args.int("--warmup", default: 1)
        let json = args.flag("--json")
        let only = Set(args.values("--only").flatMap { $0.split(separator: ",").map(String.init) })
        let frames = Int((seconds * 48_000).rounded())
        func wanted(_ key: String) -> Bool { only.isEmpty || only.contains(key) }

        // Material (untimed, made once).
        var cache: [String: AVAudioPCMBuffer] = [:]
        func loop(_ rate: Double, _ channels: Int, seed: UInt64 = 99) -> AVAudioPCMBuffer {
            let key = "\(rate)-\(channels)-\(seed)"
            if let b = cache[key] { return b }
            let b = Material.make(seconds: loopSeconds, sampleRate: rate, channels: channels, seed: seed)
            cache[key] = b
            return b
        }
        var stores: [Int: AVAudioPCMBuffer] = [:]
        func store(_ channels: Int) -> AVAudioPCMBuffer {
            if let s = stores[channels] { return s }
            let s = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: AVAudioChannelCount(channels))!,
                                     frameCapacity: AVAudioFrameCount(frames))!
            for c in 0 ..< channels { s.floatChannelData![c].initialize(repeating: 0, count: frames) }   // touch the pages
            stores[channels] = s
            return s
        }

        var results: [BenchResult] = []
        func row(_ key: String, _ label: String, outputChannels: Int = 2, maximumFrames: Int = 4096,
                 voices: () throws -> [EngineRig.Voice], check: ((EngineRig) -> [(String, JSONValue)])? = nil) throws {
            guard wanted(key) else { return }
            let v = try voices()
            let out = store(outputChannels)
            let r = try timeRig(warmup: warmup, runs: runs, build: {
                try EngineRig(voices: v, outputChannels: outputChannels, maximumFrames: maximumFrames, store: out)
            }, check: check)
            // (A `.string(key)` literal inside this nested function trips a "circular reference" in
            // the Swift 6.3 type checker; spelling the type out avoids it.)
            let keyValue = JSONValue.string(key)
            let result = BenchResult(suite: "engine", workload: label, audioSeconds: seconds, samples: r.samples,
                                     metrics: [("key", keyValue)] + r.metrics)
            results.append(result)
            if !json { note("engine: \(label): \(fixed(result.timesRealtime, 1))x realtime") }
        }
        /// Output equals the looping buffer on both sides (a mono source at the centre gets the
        /// mixer's equal-power gain 1/√2 on each side; a stereo one unity): max abs difference.
        func loopCheck(_ buffer: AVAudioPCMBuffer) -> (EngineRig) -> [(String, JSONValue)] {
            return { rig in
                let n = Int(buffer.frameLength), oc = Int(rig.store.format.channelCount), ic = Int(buffer.format.channelCount)
                let gain: Float = ic == 1 && oc == 2 ? Float(0.5).squareRoot() : 1
                var m: Float = 0
                for c in 0 ..< oc {
                    let o = rig.store.floatChannelData![c], x = buffer.floatChannelData![min(c, ic - 1)]
                    for i in 0 ..< Int(rig.store.frameLength) { m = max(m, abs(o[i] - gain * x[i % n])) }
                }
                return [("max_abs_diff_vs_loop", .number(Double(m)))]
            }
        }

        try row("simple-mono", "simple source, mono 48k -> stereo (no SRC)", voices: { [.init(buffer: loop(48_000, 1))] },
                check: loopCheck(loop(48_000, 1)))
        try row("simple-stereo", "simple source, stereo 48k -> stereo (no SRC)", voices: { [.init(buffer: loop(48_000, 2))] },
                check: loopCheck(loop(48_000, 2)))
        try row("resample-mono", "simple source + SRC, mono 44.1k -> 48k stereo", voices: { [.init(buffer: loop(44_100, 1))] })
        try row("resample-stereo", "simple source + SRC, stereo 44.1k -> 48k stereo", voices: { [.init(buffer: loop(44_100, 2))] })
        try row("upmix", "upmix mono -> stereo", voices: { [.init(buffer: loop(48_000, 1))] })
        try row("downmix", "downmix stereo -> mono", outputChannels: 1, voices: { [.init(buffer: loop(48_000, 2))] })
        try row("mix100-same", "mixing 100 players, same mono buffer", voices: {
            Array(repeating: .init(buffer: loop(48_000, 1)), count: 100)
        })
        try row("mix100-different", "mixing 100 players, 100 different mono buffers", voices: {
            (0 ..< 100).map { .init(buffer: loop(48_000, 1, seed: 1000 + UInt64($0))) }
        })
        try row("mix100-gains", "mixing 100 players with gains (volume 0.01 ... 1)", voices: {
            (0 ..< 100).map { .init(buffer: loop(48_000, 1), volume: Float($0 + 1) / 100) }
        })
        try row("pan100-stereo", "stereo panning, 100 stereo players (pan -1 ... 1)", voices: {
            (0 ..< 100).map { .init(buffer: loop(48_000, 2), pan: -1 + 2 * Float($0) / 99) }
        })

        // The headline.
        if wanted("mix64-512") || wanted("mix64-4096") {
            let sources: [AVAudioPCMBuffer]
            if let path = args.string("--input") {
                sources = try MixWorkload.loadSources(path)
                guard Int(sources[0].frameLength) >= frames else {
                    throw BenchError("\(path): \(sources[0].frameLength) frames per source, fewer than --seconds \(seconds) needs")
                }
            } else {
                sources = MixWorkload.makeSources(frames: frames)
            }
            let ref = MixWorkload.reference(sources, frames: frames)
            let check: (EngineRig) -> [(String, JSONValue)] = { rig in
                let (db, m) = MixWorkload.nullTest(rig.store, ref)
                return [("null_vs_f64_db", .number((db * 10).rounded() / 10)), ("max_abs_diff", .number(m))]
            }
            for block in [512, 4096] {
                try row("mix64-\(block)", "64 mono players gain+pan -> stereo, block \(block)", maximumFrames: block,
                        voices: { MixWorkload.voices(sources) }, check: check)
            }
        }
        report(results, json: json)
    }

    /// warm-up + runs, each on a freshly built graph (built and torn down outside the timed region).
    static func timeRig(warmup: Int, runs: Int, build: () throws -> EngineRig,
                        check: ((EngineRig) -> [(String, JSONValue)])?) throws -> (samples: [Sample], metrics: [(String, JSONValue)]) {
        var samples: [Sample] = []
        var metrics: [(String, JSONValue)] = []
        for i in 0 ..< warmup + runs {
            let rig = try build()
            let s = try timeOnce { try rig.render() }
            if i >= warmup { samples.append(s) }
            if i == warmup + runs - 1, let check { metrics = check(rig) }
            rig.tearDown()
        }
        return (samples, metrics)
    }
}

// MARK: the line protocol for compare_mix.py

/// One command per line on standard input, one JSON line per answer:
///
///     sources FILE                load the headline's 64 sources: raw planar float32 (64 × frames)
///     generate SECONDS            or make them with the Swift port of bench_mix.py's sources()
///     mix BLOCK [SECONDS]         build the 64-player graph (untimed), render SECONDS (default: the
///                                 sources' length) with maximumFrameCount BLOCK (timed); answers
///                                 {"ok", "wall", "cpu", "frames", "null_vs_f64_db", "max_abs_diff"}
///     quit
final class EngineServer {
    private var sources: [AVAudioPCMBuffer] = []
    private var reference: [[Double]] = []
    private var store: AVAudioPCMBuffer?

    func serve() throws {
        setvbuf(stdout, nil, _IOLBF, 0)
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard let command = words.first else { continue }
            if command == "quit" { break }
            let answer: JSONValue
            do {
                answer = try handle(command, Array(words.dropFirst()))
            } catch {
                answer = .object([("ok", .bool(false)), ("error", .string("\(error)"))])
            }
            print(answer.text)
            fflush(stdout)
        }
    }

    private func setSources(_ s: [AVAudioPCMBuffer]) {
        sources = s
        let frames = Int(s[0].frameLength)
        reference = MixWorkload.reference(s, frames: frames)
        store = nil
    }

    private func handle(_ command: String, _ a: [String]) throws -> JSONValue {
        switch command {
        case "sources":
            guard a.count == 1 else { throw BenchError("sources FILE") }
            sources = []; reference = []
            setSources(try MixWorkload.loadSources(a[0]))
            return .object([("ok", .bool(true)), ("frames", .int(Int(sources[0].frameLength)))])
        case "generate":
            guard a.count == 1, let seconds = Double(a[0]) else { throw BenchError("generate SECONDS") }
            sources = []; reference = []
            setSources(MixWorkload.makeSources(frames: Int((seconds * MixWorkload.sampleRate).rounded())))
            return .object([("ok", .bool(true)), ("frames", .int(Int(sources[0].frameLength)))])
        case "mix":
            guard !sources.isEmpty else { throw BenchError("mix needs sources: send 'sources FILE' or 'generate SECONDS' first") }
            guard a.count >= 1, let block = Int(a[0]), block > 0 else { throw BenchError("mix BLOCK [SECONDS]") }
            var frames = Int(sources[0].frameLength)
            if a.count > 1, let s = Double(a[1]) { frames = min(frames, Int((s * MixWorkload.sampleRate).rounded())) }
            if store == nil || Int(store!.frameCapacity) != frames {
                store = nil
                let s = AVAudioPCMBuffer(pcmFormat: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!,
                                         frameCapacity: AVAudioFrameCount(frames))!
                for c in 0 ..< 2 { s.floatChannelData![c].initialize(repeating: 0, count: frames) }
                store = s
            }
            let rig = try EngineRig(voices: MixWorkload.voices(sources), outputChannels: 2, maximumFrames: block, store: store!)
            let sample = try timeOnce { try rig.render() }
            rig.tearDown()
            let (db, m) = MixWorkload.nullTest(store!, reference)
            return .object([("ok", .bool(true)), ("wall", .number(sample.wall)), ("cpu", .number(sample.cpu)),
                            ("frames", .int(frames)), ("null_vs_f64_db", .number((db * 100).rounded() / 100)),
                            ("max_abs_diff", .number(m))])
        default:
            throw BenchError("unknown command '\(command)'")
        }
    }
}

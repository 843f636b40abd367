// resampler-bench: converts a raw little-endian Float32 interleaved file with the
// SampleRateConverter and prints the conversion time (used by compare_src.py).
//
//   resampler-bench <in.f32> <out.f32> --in-rate 44100 --out-rate 48000 --channels 2
//                   [--quality min|low|medium|high|max] [--phase linear|minimum]
//                   [--chunk N] [--repeat R] [--variable]
//
// Timing: R runs of (reset, process in chunks of N frames, flush) on deinterleaved buffers
// already in memory: wall clock `time_s=<median> min_s=<min>`, thread CPU time `cpu_s`, `cpu_min_s`.
// Interleaving for the file I/O is outside the timed region.
import AudioKernels
#if canImport(Glibc)
import Glibc
#endif

func fail(_ s: String) -> Never {
    fputs("resampler-bench: \(s)\n", stderr)
    exit(2)
}

func now() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_MONOTONIC, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

func cpuNow() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

var args = Array(CommandLine.arguments.dropFirst())
var positional: [String] = []
var inRate = 44100.0, outRate = 48000.0, channels = 2
var quality = ResamplerQuality.high
var phase = ResamplerPhase.linear
var chunk = 1 << 30, repeats = 1
var variable = false
var i = 0
while i < args.count {
    let a = args[i]
    func value() -> String { i += 1; if i >= args.count { fail("missing value for \(a)") }; return args[i] }
    switch a {
    case "--in-rate": guard let v = Double(value()) else { fail("bad rate") }; inRate = v
    case "--out-rate": guard let v = Double(value()) else { fail("bad rate") }; outRate = v
    case "--channels": guard let v = Int(value()) else { fail("bad channels") }; channels = v
    case "--chunk": guard let v = Int(value()) else { fail("bad chunk") }; chunk = v
    case "--repeat": guard let v = Int(value()) else { fail("bad repeat") }; repeats = v
    case "--variable": variable = true
    case "--phase": phase = value() == "minimum" ? .minimum : .linear
    case "--quality":
        switch value() {
        case "min": quality = .min
        case "low": quality = .low
        case "medium": quality = .medium
        case "high": quality = .high
        case "max": quality = .max
        default: fail("bad quality")
        }
    default: positional.append(a)
    }
    i += 1
}
if positional.count != 2 { fail("usage: resampler-bench in.f32 out.f32 [options]") }

// read input
guard let f = fopen(positional[0], "rb") else { fail("cannot open \(positional[0])") }
fseek(f, 0, SEEK_END)
let bytes = ftell(f)
fseek(f, 0, SEEK_SET)
let frames = bytes / 4 / channels
var interleaved = [Float](repeating: 0, count: frames * channels)
_ = interleaved.withUnsafeMutableBytes { fread($0.baseAddress, 1, frames * channels * 4, f) }
fclose(f)

let inputs = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: max(frames, 1)) }
for c in 0..<channels { for n in 0..<frames { inputs[c][n] = interleaved[n * channels + c] } }

let converter = SampleRateConverter(inputRate: inRate, outputRate: outRate, channels: channels, quality: quality,
                                    phase: phase, variableRatio: variable ? (outRate / inRate)...(outRate / inRate) : nil)
let total = converter.outputFrames(forInputFrames: frames)
let outputs = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: total + 16) }
let inPtrs = inputs.map { UnsafePointer($0) }
var produced = 0
var times: [Double] = []
var cpuTimes: [Double] = []
inPtrs.withUnsafeBufferPointer { ins in
    outputs.withUnsafeBufferPointer { outs in
        for _ in 0..<max(1, repeats) {
            converter.reset()
            produced = 0
            let t0 = now(), c0 = cpuNow()
            var consumed = 0
            while consumed < frames {
                let n = min(chunk, frames - consumed)
                var fed = 0
                while fed < n {
                    let r = converter.process(input: ins, offset: consumed + fed, inputFrames: n - fed,
                                              output: outs, offset: produced, outputCapacity: total + 16 - produced)
                    fed += r.consumed
                    produced += r.produced
                }
                consumed += n
            }
            while true {
                let k = converter.flush(output: outs, offset: produced, outputCapacity: total + 16 - produced)
                if k == 0 { break }
                produced += k
            }
            times.append(now() - t0)
            cpuTimes.append(cpuNow() - c0)
        }
    }
}
times.sort()
cpuTimes.sort()
let median = times[times.count / 2]
print("frames_in=\(frames) frames_out=\(produced) expected=\(total) time_s=\(median) min_s=\(times[0]) cpu_s=\(cpuTimes[cpuTimes.count / 2]) cpu_min_s=\(cpuTimes[0]) leading=\(converter.leadingFrames) trailing=\(converter.trailingFrames)")

var out = [Float](repeating: 0, count: produced * channels)
for c in 0..<channels { for n in 0..<produced { out[n * channels + c] = outputs[c][n] } }
guard let g = fopen(positional[1], "wb") else { fail("cannot write \(positional[1])") }
_ = out.withUnsafeBytes { fwrite($0.baseAddress, 1, produced * channels * 4, g) }
fclose(g)

// The Apple Lossless suite: AVAudioFile encoding a WAV's audio to an ALAC CAF and decoding it
// back, each timed as wall time and reported as × realtime (best of --runs). Benchmarks/results/
// alac-*.md records it next to ffmpeg timed on the same files in the same run. Each best is
// reported as wall time and as the process's CPU time (best of the runs, each on its own).
//
//   avaudio-bench alac --input in.wav [--dir /tmp] [--runs 3]
import AVFAudio
#if canImport(Glibc)
import Glibc
#endif

enum ALACSuite {
    static func run(_ args: Arguments) throws {
        guard let input = args.string("--input") else { throw BenchError("alac: --input WAV is required") }
        let dir = args.string("--dir") ?? "/tmp"
        let runs = Int(args.string("--runs") ?? "3") ?? 3
        let source = try AVAudioFile(forReading: URL(fileURLWithPath: input))
        let frames = Int(source.length)
        let bits = Int(source.fileFormat.streamDescription.pointee.mBitsPerChannel)
        let seconds = Double(frames) / source.processingFormat.sampleRate
        let pcm = AVAudioPCMBuffer(pcmFormat: source.processingFormat, frameCapacity: AVAudioFrameCount(frames))!
        try source.read(into: pcm)
        let out = URL(fileURLWithPath: dir + "/avaudio-bench-alac.caf")
        func now() -> Double { var t = timespec(); clock_gettime(CLOCK_MONOTONIC, &t); return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9 }
        /// The process's CPU time (user + system): on a shared machine, less disturbed by other work than wall time.
        func cpu() -> Double { var t = timespec(); clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t); return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9 }
        var bestEncode = Double.infinity, bestDecode = Double.infinity
        var bestEncodeCPU = Double.infinity, bestDecodeCPU = Double.infinity
        for _ in 0..<runs {
            let t0 = now(), c0 = cpu()
            let file = try AVAudioFile(forWriting: out, settings: [AVFormatIDKey: kAudioFormatAppleLossless, AVSampleRateKey: source.processingFormat.sampleRate,
                                                                   AVNumberOfChannelsKey: source.processingFormat.channelCount, AVEncoderBitDepthHintKey: bits])
            try file.write(from: pcm)
            file.close()
            bestEncode = min(bestEncode, now() - t0)
            bestEncodeCPU = min(bestEncodeCPU, cpu() - c0)
            let t1 = now(), c1 = cpu()
            let back = try AVAudioFile(forReading: out)
            let chunk = AVAudioPCMBuffer(pcmFormat: back.processingFormat, frameCapacity: 65_536)!
            var total = 0
            while true {
                try back.read(into: chunk)
                if chunk.frameLength == 0 { break }
                total += Int(chunk.frameLength)
            }
            bestDecode = min(bestDecode, now() - t1)
            bestDecodeCPU = min(bestDecodeCPU, cpu() - c1)
            guard total == frames else { throw BenchError("alac: decoded \(total) of \(frames) frames") }
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: out.path)[.size] as? Int) ?? 0
        print(String(format: "alac %d-bit %d ch, %.1f s: encode %.3f s (%.0f× realtime; CPU %.3f s), decode %.3f s (%.0f× realtime; CPU %.3f s), %d bytes",
                     bits, Int(source.processingFormat.channelCount), seconds, bestEncode, seconds / bestEncode, bestEncodeCPU,
                     bestDecode, seconds / bestDecode, bestDecodeCPU, size))
    }
}

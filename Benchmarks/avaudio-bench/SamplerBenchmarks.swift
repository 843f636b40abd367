// The sampler suite: renders a MIDI event list with AVAudioUnitSampler and a SoundFont through
// AVAudioEngine offline (48 kHz stereo), timed; optionally writes the rendering as a float WAV.
// Benchmarks/sampler/compare_sampler.py drives it next to FluidSynth in one run.
//
//   avaudio-bench sampler --input=EVENTS --soundfont=BANK.sf2 [--out=OUT.wav] [--runs=N] [--no-effects]
//   (--no-effects: the sampler's reverb and chorus off, the dry mix alone, as FluidSynth with
//   reverb and chorus off renders)
//                         [--warmup=N] [--chunk=512] [--tail=1.0] [--rate=48000] [--gain=dB]
//
// EVENTS: one MIDI message per line, "frame status data1 [data2]" in decimal (the frame at the
// output rate). Every run loads the bank, builds the engine, schedules the events on their
// frames (just ahead of each rendered chunk) and renders to the end plus `tail` seconds; the load
// and the render are timed separately. The Standard MIDI File reader is not this suite's: the
// comparison script turns .mid files into event lists with mido.
import Foundation
import AVFAudio

enum SamplerSuite {
    struct Event { var frame: Int; var bytes: [UInt8] }

    static func readEvents(_ path: String) throws -> [Event] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var events: [Event] = []
        for line in text.split(separator: "\n") {
            let f = line.split(separator: " ").compactMap { Int($0) }
            guard f.count >= 3 else { continue }
            events.append(Event(frame: f[0], bytes: f[1...].map { UInt8(truncatingIfNeeded: $0) }))
        }
        return events.sorted { $0.frame < $1.frame }
    }

    static func run(_ args: Arguments) throws {
        guard let input = args.string("--input"), let bank = args.string("--soundfont") else {
            throw BenchError("sampler: needs --input=EVENTS and --soundfont=BANK.sf2")
        }
        let rate = Double(args.string("--rate") ?? "48000") ?? 48_000
        let runs = Int(args.string("--runs") ?? "1") ?? 1
        let warmup = Int(args.string("--warmup") ?? "0") ?? 0
        let chunk = Int(args.string("--chunk") ?? "512") ?? 512
        let tail = Double(args.string("--tail") ?? "1") ?? 1
        let events = try readEvents(input)
        let total = (events.last?.frame ?? 0) + Int(tail * rate)
        let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2)!
        var loads: [Double] = [], renders: [Sample] = []
        var output: AVAudioPCMBuffer?
        for r in 0..<(warmup + max(1, runs)) {
            let t0 = Clock.wall()
            let sampler = AVAudioUnitSampler()
            sampler.overallGain = Float(args.string("--gain") ?? "0") ?? 0
            if args.flag("--no-effects") { sampler._usesInternalEffects = false }
            try sampler.loadSoundBankInstrument(at: URL(fileURLWithPath: bank), program: 0,
                                                bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB), bankLSB: 0)
            let loaded = Clock.wall() - t0
            let engine = AVAudioEngine()
            try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: AVAudioFrameCount(chunk))
            engine.attach(sampler)
            engine.connect(sampler, to: engine.mainMixerNode, format: format)
            try engine.start()
            let schedule = sampler.auAudioUnit.scheduleMIDIEventBlock!
            let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(chunk))!
            let capture = r == warmup + max(1, runs) - 1 && args.string("--out") != nil
            let whole = capture ? AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(total)) : nil
            var next = 0, done = 0
            let sample = try timeOnce {
                while done < total {
                    let n = min(chunk, total - done)
                    while next < events.count && events[next].frame < done + n {
                        let e = events[next]
                        e.bytes.withUnsafeBufferPointer { schedule(AUEventSampleTime(e.frame), 0, e.bytes.count, $0.baseAddress!) }
                        next += 1
                    }
                    _ = try engine.renderOffline(AVAudioFrameCount(n), to: buffer)
                    if let whole {
                        for c in 0..<2 { (whole.floatChannelData![c] + done).update(from: buffer.floatChannelData![c], count: n) }
                    }
                    done += n
                }
            }
            whole?.frameLength = AVAudioFrameCount(total)
            engine.stop()
            if r >= warmup { loads.append(loaded); renders.append(sample) }
            if capture { output = whole }
        }
        if let out = args.string("--out"), let output {
            let settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: rate, AVNumberOfChannelsKey: 2,
                                           AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true]
            let file = try AVAudioFile(forWriting: URL(fileURLWithPath: out), settings: settings, commonFormat: .pcmFormatFloat32, interleaved: false)
            try file.write(from: output)
        }
        let seconds = Double(total) / rate
        let wall = median(renders.map(\.wall)), cpu = median(renders.map(\.cpu))
        print("{\"suite\": \"sampler\", \"audio_seconds\": \(seconds), \"load_s\": \(median(loads)), \"render_wall_s\": \(wall), "
              + "\"render_cpu_s\": \(cpu), \"x_realtime\": \(seconds / wall), \"runs\": \(renders.count), "
              + "\"render_walls\": [\(renders.map { String($0.wall) }.joined(separator: ", "))]}")
    }
}

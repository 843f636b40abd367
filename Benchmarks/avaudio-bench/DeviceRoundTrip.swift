// Round-trip latency and xruns through a JACK server, measured from outside the client under test.
//
// Two suites, driven by Benchmarks/devices/roundtrip_jack.py:
//
//   avaudio-bench jack-monitor --server=NAME --client=NAME --seconds=S
//       Our engine as a live monitor: inputNode → mainMixerNode → outputNode on the JACK backend
//       (AVAUDIO_BACKEND=jack:CLIENT@SERVER), running S seconds, then one JSON line: the engine's
//       xrun counter, whether JACK runs it in real time, the latencies it reports.
//
//   avaudio-bench jack-probe --server=NAME --target=CLIENT --seconds=S
//       The measuring client, the same for every client under test (ours, or miniaudio's duplex
//       stream): its out_1 feeds the target's first input port, the target's first output port
//       feeds its in_1. It plays a one-sample click every 4,800 frames and records in_1; each
//       click's amplitude (0.1, 0.2, … 0.8, cycling) tells which of eight consecutive clicks it
//       is, so a round trip up to 0.8 s is told apart from one 100 ms shorter; each
//       click's arrival minus its emission, in the probe's own frame count, is the round trip
//       through the target plus what the JACK graph adds (the same for every target). A click that
//       never arrives, arrives twice, or arrives at another latency than the first one did shows
//       a dropped, repeated or shifted stretch of audio. JACK's xrun callback is counted too.
//
// The probe's process callback allocates nothing: the recording buffer is allocated before the
// client is activated, and the callback only copies.
#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import AVFAudio
import AudioDevices

enum JACKMonitorSuite {
    static func run(_ args: Arguments) throws {
        let seconds = try args.double("--seconds", default: 60)
        guard let server = args.string("--server") else { throw BenchError("jack-monitor needs --server=NAME") }
        let client = args.string("--client") ?? "avaudio-monitor"
        setenv("AVAUDIO_BACKEND", "jack:\(client)@\(server)", 1)
        let engine = AVAudioEngine()
        let input = engine.inputNode
        let format = input.inputFormat(forBus: 0)
        engine.connect(input, to: engine.mainMixerNode, format: format)
        try engine.start()
        note("jack-monitor: running on \(engine._audioDeviceName ?? "?") for \(seconds) s")
        let start = Date()
        while Date().timeIntervalSince(start) < seconds, engine.isRunning { usleep(50_000) }
        let xruns = engine._audioDeviceXrunCount
        let realTime = engine._audioDeviceIsRealTime
        let out = engine.outputNode.presentationLatency
        let inp = engine.inputNode.presentationLatency
        let device = engine._audioDeviceName ?? ""
        engine.stop()
        print("{\"xruns\": \(xruns), \"realtime\": \(realTime), \"output_latency_s\": \(out), \"input_latency_s\": \(inp), \"device\": \"\(device)\"}")
    }
}

/// The measuring JACK client (see the top of this file).
final class JACKProbe: @unchecked Sendable {
    let jack: JACK.Library
    let client: OpaquePointer
    let server: String
    let input: OpaquePointer
    let output: OpaquePointer
    let capacity: Int
    let recording: UnsafeMutablePointer<Float>
    /// Frames processed (written by the process thread only; read after deactivation).
    var frames = 0
    let running = Atomic<Bool>(false)
    let xruns = Atomic<Int>(0)
    static let interval = 4_800
    /// Distinct click amplitudes: a click's index modulo this is coded in its amplitude.
    static let codes = 8
    /// The sample at frame `frame` of the probe's output: a click at each multiple of `interval`.
    @inline(__always)
    static func sample(atFrame frame: Int) -> Float {
        frame % interval == 0 ? amplitude(code: (frame / interval) % codes) : 0
    }
    static func amplitude(code: Int) -> Float { 0.1 * Float(code + 1) }

    init(server: String, seconds: Double) throws {
        self.server = server
        jack = try JACK.library()
        client = try jack.open(clientName: "avaudio-probe", server: server)
        let jack = self.jack, client = self.client
        func register(_ port: String, _ flags: UInt) throws -> OpaquePointer {
            guard let p = port.withCString({ p in JACK.audioType.withCString { jack.portRegister(client, p, $0, flags, 0) } })
            else { throw BenchError("jack_port_register(\(port)) failed") }
            return p
        }
        input = try register("in_1", JACK.portIsInput)
        output = try register("out_1", JACK.portIsOutput)
        capacity = Int(seconds * Double(jack.sampleRate(client))) + 48_000
        recording = .allocate(capacity: capacity)
        recording.initialize(repeating: 0, count: capacity)
        _ = jack.setProcessCallback(client, { n, me in
            Unmanaged<JACKProbe>.fromOpaque(me!).takeUnretainedValue().process(Int(n))
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        _ = jack.setXrunCallback(client, { me in
            Unmanaged<JACKProbe>.fromOpaque(me!).takeUnretainedValue().xruns.add(1, ordering: .relaxed)
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        guard jack.activate(client) == 0 else { throw BenchError("jack_activate failed") }
    }

    private func process(_ n: Int) {
        let inp = jack.portGetBuffer(input, UInt32(n))!.assumingMemoryBound(to: Float.self)
        let out = jack.portGetBuffer(output, UInt32(n))!.assumingMemoryBound(to: Float.self)
        guard running.load(ordering: .acquiring) else {
            out.update(repeating: 0, count: n)
            return
        }
        let m = min(n, capacity - frames)
        if m > 0 { (recording + frames).update(from: inp, count: m) }
        for k in 0..<n { out[k] = Self.sample(atFrame: frames + k) }
        frames += n
    }

    func connect(_ source: String, _ destination: String) throws {
        guard jack.connect(client, source, destination) == 0 else { throw BenchError("jack_connect \(source) → \(destination) failed") }
    }

    func close() {
        _ = jack.deactivate(client)
        jack.close(client, server: server)
    }
}

enum JACKProbeSuite {
    static func run(_ args: Arguments) throws {
        let seconds = try args.double("--seconds", default: 60)
        guard let server = args.string("--server"), let target = args.string("--target")
        else { throw BenchError("jack-probe needs --server=NAME --target=CLIENT") }
        let probe = try JACKProbe(server: server, seconds: seconds)
        let inputs = probe.jack.ports(probe.client, flags: JACK.portIsInput).filter { $0.hasPrefix(target + ":") }
        let outputs = probe.jack.ports(probe.client, flags: JACK.portIsOutput).filter { $0.hasPrefix(target + ":") }
        guard let targetIn = inputs.first, let targetOut = outputs.first
        else { throw BenchError("no JACK client '\(target)' with input and output ports on server '\(server)' (ports: \(inputs) \(outputs))") }
        let me = String(cString: probe.jack.clientName(probe.client)!)
        try probe.connect("\(me):out_1", targetIn)
        try probe.connect(targetOut, "\(me):in_1")
        let period = Int(probe.jack.bufferSize(probe.client))
        let rate = Int(probe.jack.sampleRate(probe.client))
        usleep(300_000)
        probe.running.store(true, ordering: .releasing)
        usleep(useconds_t(seconds * 1_000_000))
        probe.running.store(false, ordering: .releasing)
        usleep(100_000)
        probe.close()
        let result = ClickAnalysis(recording: probe.recording, frames: min(probe.frames, probe.capacity))
        print("{\"period\": \(period), \"rate\": \(rate), \(result.json), \"probe_xruns\": \(probe.xruns.load(ordering: .relaxed))}")
    }
}

// MARK: PulseAudio

/// Clicks in, clicks out: the measuring side of the PulseAudio round trip
/// (Benchmarks/devices/roundtrip_pulse.py). A duplex PulseAudio client of the project's own
/// backend: it plays a one-sample click every 4,800 frames into `--sink` (the sink the client
/// under test records the monitor of) and records `--source` (the monitor of the sink the client
/// under test plays into). Both of its streams run on the one server's clock, so their frame
/// counts stay aligned; the arrival minus the emission is the round trip through the client under
/// test plus the probe's own two streams (the same for every client measured).
enum PulseProbeSuite {
    static func run(_ args: Arguments) throws {
        let seconds = try args.double("--seconds", default: 60)
        guard let sink = args.string("--sink"), let source = args.string("--source")
        else { throw BenchError("pulse-probe needs --sink=NAME --source=NAME [--server=ADDRESS] [--period=FRAMES]") }
        let period = try args.int("--period", default: 240)
        let device = try PulseAudioDevice(server: args.string("--server"), sinkName: sink, sourceName: source,
                                          request: AudioDeviceRequest(direction: .duplex, sampleRate: 48_000, outputChannels: 1,
                                                                      inputChannels: 1, periodFrames: period, periods: 2))
        let rate = Int(device.sampleRate)
        let capacity = Int(seconds * Double(rate)) + 96_000
        let recording = UnsafeMutablePointer<Float>.allocate(capacity: capacity)
        recording.initialize(repeating: 0, count: capacity)
        defer { recording.deallocate() }
        final class Counter: @unchecked Sendable { var frames = 0; let running = Atomic<Bool>(false) }
        let counter = Counter()
        try device.start { cycle in
            let out = cycle.output[0]
            guard counter.running.load(ordering: .acquiring) else {
                out.update(repeating: 0, count: cycle.frames)
                return
            }
            let m = min(cycle.frames, capacity - counter.frames)
            if m > 0, let input = cycle.input { (recording + counter.frames).update(from: input[0], count: m) }
            for k in 0..<cycle.frames { out[k] = JACKProbe.sample(atFrame: counter.frames + k) }
            counter.frames += cycle.frames
        }
        usleep(500_000)
        counter.running.store(true, ordering: .releasing)
        usleep(useconds_t(seconds * 1_000_000))
        counter.running.store(false, ordering: .releasing)
        usleep(100_000)
        let xruns = device.xrunCount
        let outputLatency = device.outputLatency, inputLatency = device.inputLatency
        device.stop()
        let result = ClickAnalysis(recording: recording, frames: min(counter.frames, capacity))
        print("{\"period\": \(period), \"rate\": \(rate), \(result.json), \"probe_xruns\": \(xruns), \"probe_output_latency_s\": \(outputLatency), \"probe_input_latency_s\": \(inputLatency)}")
    }
}

/// Our engine as a live monitor on PulseAudio: AVAUDIO_BACKEND=pulse:SINK:SOURCE@SERVER,
/// inputNode → mainMixerNode → outputNode, `--period` frames per engine cycle.
enum PulseMonitorSuite {
    static func run(_ args: Arguments) throws {
        let seconds = try args.double("--seconds", default: 60)
        guard let sink = args.string("--sink"), let source = args.string("--source")
        else { throw BenchError("pulse-monitor needs --sink=NAME --source=NAME [--server=ADDRESS] [--period=FRAMES]") }
        let period = try args.int("--period", default: 240)
        let engine = AVAudioEngine()
        try engine._setAudioDevice("pulse:\(sink):\(source)" + (args.string("--server").map { "@\($0)" } ?? ""), periodFrames: period)
        let input = engine.inputNode
        engine.connect(input, to: engine.mainMixerNode, format: input.inputFormat(forBus: 0))
        try engine.start()
        note("pulse-monitor: running on \(engine._audioDeviceName ?? "?") for \(seconds) s")
        let start = Date()
        while Date().timeIntervalSince(start) < seconds, engine.isRunning { usleep(50_000) }
        let xruns = engine._audioDeviceXrunCount
        let out = engine.outputNode.presentationLatency, inp = engine.inputNode.presentationLatency
        engine.stop()
        print("{\"xruns\": \(xruns), \"output_latency_s\": \(out), \"input_latency_s\": \(inp)}")
    }
}

/// Click arrivals in a recording of the probe's input (see JACKProbe): each arrival paired with
/// the latest click emitted at or before it.
struct ClickAnalysis {
    var json: String

    init(recording: UnsafePointer<Float>, frames recorded: Int) {
        // Each arrival: where it starts and its peak amplitude (the click's code).
        var arrivals: [(frame: Int, code: Int)] = []
        var k = 0
        let threshold = JACKProbe.amplitude(code: 0) / 2
        while k < recorded {
            if abs(recording[k]) > threshold {
                let start = k
                var peak: Float = 0
                while k < recorded, abs(recording[k]) > threshold { peak = max(peak, abs(recording[k])); k += 1 }
                let code = min(JACKProbe.codes - 1, max(0, Int((peak / JACKProbe.amplitude(code: 0)).rounded()) - 1))
                arrivals.append((start, code))
            } else { k += 1 }
        }
        let interval = JACKProbe.interval
        let emitted = (recorded + interval - 1) / interval
        var latencies: [Int] = []
        var perClick = [Int](repeating: 0, count: max(1, emitted))
        for a in arrivals {
            // The latest click at or before the arrival whose index carries the arrival's code.
            var c = a.frame / interval
            while c >= 0, c % JACKProbe.codes != a.code { c -= 1 }
            guard c >= 0 else { continue }
            latencies.append(a.frame - c * interval)
            perClick[c] += 1
        }
        let first = latencies.first ?? -1
        let tail = first >= 0 ? (0..<emitted).filter { $0 * interval + first >= recorded }.count : 0
        let counted = max(0, emitted - tail)
        let missing = perClick.prefix(counted).filter { $0 == 0 }.count
        let repeated = perClick.filter { $0 > 1 }.count
        let shifted = latencies.filter { $0 != first }.count
        let sorted = latencies.sorted()
        let median = sorted.isEmpty ? -1 : sorted[sorted.count / 2]
        json = "\"frames\": \(recorded), \"clicks_emitted\": \(counted), \"clicks_received\": \(arrivals.count), \"missing\": \(missing), \"repeated\": \(repeated), \"shifted\": \(shifted), \"latency_frames_first\": \(first), \"latency_frames_median\": \(median), \"latency_frames_min\": \(sorted.first ?? -1), \"latency_frames_max\": \(sorted.last ?? -1)"
    }
}

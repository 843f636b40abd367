// avaudio-bench: times-realtime benchmarks of OpenAVFAudio, run in release:
//
//   swift build -c release --product avaudio-bench
//   .build/release/avaudio-bench io [--seconds 600] [--runs 3] [--warmup 1] [--json] [--dir /tmp/avaudio-bench]
//
// Each suite lives in its own file and registers itself in `suites` below; later suites
// (converter, engine, effects) add a line here. Benchmarks are not part of `swift test`.
// Benchmarks/compare_io.py runs the io suite interleaved with libsndfile and JUCE.
#if canImport(Glibc)
import Glibc
#endif

struct Suite {
    let name: String
    let summary: String
    let run: (Arguments) throws -> Void
}

let suites: [Suite] = [
    Suite(name: "io", summary: "AVAudioFile encode/decode of long WAV/CAF/AIFF files (--serve: driver protocol)", run: IOSuite.run),
    Suite(name: "io-profile", summary: "where the time of one decode/encode goes (pread, kernels, allocation); --input FILE", run: IOProfile.run),
    Suite(name: "engine", summary: "AVAudioEngine offline renders: webaudio-benchmark scenarios + 64-player mix (--serve: driver protocol)", run: EngineSuite.run),
    Suite(name: "fx-eqdelay", summary: "AVAudioUnitEQ (10 bands) and AVAudioUnitDelay on 60 s stereo 48 kHz, offline", run: EQDelaySuite.run),
    Suite(name: "fx-time", summary: "AVAudioUnitTimePitch / AVAudioUnitVarispeed on 60 s stereo 48 kHz, offline, vs the rubberband CLI", run: TimeEffectSuite.run),
    Suite(name: "sampler", summary: "AVAudioUnitSampler rendering a MIDI event list with a SoundFont, offline (--input=EVENTS --soundfont=SF2 [--out=WAV])", run: SamplerSuite.run),
    Suite(name: "fx-reverb", summary: "AVAudioUnitReverb / AVAudioUnitDistortion on 60 s stereo 48 kHz, offline (--peers: pedalboard; --quality: RT60, echo density, alias)", run: ReverbDistortionSuite.run),
    Suite(name: "jack-monitor", summary: "our engine as a live monitor (input → mixer → output) on a JACK server, --server=NAME --client=NAME --seconds=S (Benchmarks/devices/roundtrip_jack.py)", run: JACKMonitorSuite.run),
    Suite(name: "jack-probe", summary: "round-trip clicks through a JACK client: --server=NAME --target=CLIENT --seconds=S", run: JACKProbeSuite.run),
    Suite(name: "pulse-monitor", summary: "our engine as a live monitor on PulseAudio: --sink=NAME --source=NAME [--server=ADDR] [--period=N] --seconds=S (Benchmarks/devices/roundtrip_pulse.py)", run: PulseMonitorSuite.run),
    Suite(name: "pulse-probe", summary: "round-trip clicks through a PulseAudio client: --sink=NAME --source=NAME [--server=ADDR] --seconds=S", run: PulseProbeSuite.run),
    Suite(name: "alac", summary: "AVAudioFile Apple Lossless CAF encode and decode of --input WAV (compare ffmpeg: Benchmarks/results/alac-*.md)", run: ALACSuite.run),
]

func usage() -> String {
    var text = """
    usage: avaudio-bench SUITE [--seconds 600] [--runs 3] [--warmup 1] [--json] [--dir /tmp/avaudio-bench]
                               [--only KEY,...] [--input FILE ...]
    suites:

    """
    for s in suites { text += "  \(s.name.padding(12))\(s.summary)\n" }
    return text
}

extension String {
    func padding(_ n: Int) -> String { count >= n ? self + " " : self + String(repeating: " ", count: n - count) }
}

let argv = Array(CommandLine.arguments.dropFirst())
guard let name = argv.first, !name.hasPrefix("-") else {
    print(usage(), terminator: "")
    exit(argv.contains("--help") || argv.contains("-h") ? 0 : 2)
}
guard let suite = suites.first(where: { $0.name == name }) else {
    note("avaudio-bench: unknown suite '\(name)'\n" + usage())
    exit(2)
}
do {
    try suite.run(try Arguments(Array(argv.dropFirst())))
} catch {
    note("avaudio-bench \(name): \(error)")
    exit(1)
}

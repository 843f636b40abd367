// avaudio-examples: one small, runnable program per node and unit, written as client code for
// Apple's AVFAudio (`import AVFoundation`, nothing else), each rendering offline and checking
// what it hears against what it should (a level, a frequency, a time).
//
//     swift run avaudio-examples            # lists the examples
//     swift run avaudio-examples mixer      # runs one
//     swift run avaudio-examples all        # runs every one; exit status 1 if a check fails
//
// Each example writes what it rendered to a WAV file in a temporary directory and prints its path.
import AVFoundation

let examples: [(name: String, summary: String, run: () throws -> [Check])] = [
    ("player", "AVAudioPlayerNode: a buffer at a sample time, a looped buffer, completion handlers", PlayerExample.run),
    ("mixer", "AVAudioMixerNode: three voices with their own volume and pan", MixerExample.run),
    ("source", "AVAudioSourceNode: a synthesiser written as a render block", SourceExample.run),
    ("sink", "AVAudioSinkNode: receiving what the manual-rendering input block supplies", SinkExample.run),
    ("tap", "installTap: measuring levels while rendering", TapExample.run),
    ("eq", "AVAudioUnitEQ: a +9 dB peak and a high-pass", EQExample.run),
    ("delay", "AVAudioUnitDelay: an echo at exactly delayTime", DelayExample.run),
    ("reverb", "AVAudioUnitReverb: a hall's decay time", ReverbExample.run),
    ("distortion", "AVAudioUnitDistortion: presets that add harmonics", DistortionExample.run),
    ("timepitch", "AVAudioUnitTimePitch: half speed, same pitch; same speed, a fifth up", TimePitchExample.run),
    ("varispeed", "AVAudioUnitVarispeed: double speed, an octave up", VarispeedExample.run),
    ("converter", "AVAudioConverter: 44.1 kHz Int16 stereo to 48 kHz Float32 mono", ConverterExample.run),
    ("audiounit", "AUAudioUnit subclass: your own gain unit, registered, automated sample-accurately", AudioUnitExample.run),
]

let arguments = Array(CommandLine.arguments.dropFirst())
guard let choice = arguments.first else {
    print("usage: avaudio-examples NAME | all\n")
    for e in examples { print("  \(e.name.padding(toLength: 11, withPad: " ", startingAt: 0)) \(e.summary)") }
    exit(0)
}
let chosen = choice == "all" ? examples : examples.filter { $0.name == choice }
if chosen.isEmpty {
    FileHandle.standardError.write(Data("avaudio-examples: no example named \(choice)\n".utf8))
    exit(2)
}
var failures = 0
for example in chosen {
    print("== \(example.name): \(example.summary)")
    do {
        for check in try example.run() {
            print("   \(check.passed ? "ok  " : "FAIL") \(check.text)")
            if !check.passed { failures += 1 }
        }
    } catch {
        print("   FAIL threw: \(error)")
        failures += 1
    }
}
print(failures == 0 ? "all checks passed" : "\(failures) check(s) failed")
exit(failures == 0 ? 0 : 1)

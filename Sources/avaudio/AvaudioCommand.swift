// avaudio: a command-line client of OpenAVFAudio, in the spirit of macOS's afinfo and afconvert.
//
//     avaudio info song.wav [--json]
//     avaudio convert song.wav song.caf --bits 24
//     avaudio demo
//     avaudio devices [--json]
//     avaudio play song.wav --device pulse
//
// Each subcommand lives in its own file (Info.swift, Convert.swift, Demo.swift); shared helpers
// are in Support.swift.
import ArgumentParser

@main
struct AvaudioCommand: ParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "avaudio",
        abstract: "Inspect, convert and test audio files with OpenAVFAudio.",
        discussion: """
            Reads and writes WAV, AIFF, AIFF-C, CAF and NeXT/Sun AU files through the AVFAudio API \
            (AVAudioFile, AVAudioFormat, AVAudioPCMBuffer).
            """,
        version: "avaudio \(version) (OpenAVFAudio)",
        subcommands: [Info.self, Convert.self, Demo.self, Devices.self, Play.self, CrashWriter.self]
    )
}

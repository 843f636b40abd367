// `avaudio devices [--json]`: the audio devices the backends report (PulseAudio sinks and
// sources when a server answers, the JACK server and its physical ports when one runs, ALSA PCMs,
// the null device), with the selector that
// `AVAUDIO_BACKEND` and `avaudio play --device` accept.
//
//     $ avaudio devices
//     pulse:nullsink            NullSink                        out 2, in 0  48000 Hz  [default output]
//     pulse:nullsink.monitor    Monitor of NullSink             out 0, in 2  48000 Hz  [default input]
//     alsa:default              Default ALSA Output …           out 0, in 0
//     null:null                 Null device (timer-clocked, no sound)  out 2, in 2  48000 Hz
import AVFoundation
import AudioDevices
import ArgumentParser
import Foundation

struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List audio devices: PulseAudio sinks and sources, a running JACK server, ALSA PCMs, the null device.",
        discussion: """
            The first column is the selector for AVAUDIO_BACKEND and `avaudio play --device`. \
            ALSA plugins that reach for a server (pulse, jack, oss) are listed without probing \
            (0 channels: unknown).
            """
    )

    @Flag(help: "Print one JSON object per device (one per line) instead of text.")
    var json = false

    mutating func run() throws {
        let devices = AudioDevices.enumerate()
        for device in devices {
            if json {
                let object: [String: Any] = [
                    "selector": device.selector, "backend": device.backend, "id": device.id, "name": device.name,
                    "outputChannels": device.outputChannels, "inputChannels": device.inputChannels,
                    "sampleRates": device.sampleRates, "nominalSampleRate": device.nominalSampleRate,
                    "isDefaultOutput": device.isDefaultOutput, "isDefaultInput": device.isDefaultInput,
                ]
                let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
                print(String(decoding: data, as: UTF8.self))
            } else {
                let rate = device.nominalSampleRate > 0 ? "  \(Int(device.nominalSampleRate)) Hz" : ""
                let flags = (device.isDefaultOutput ? "  [default output]" : "") + (device.isDefaultInput ? "  [default input]" : "")
                let selector = device.selector.padding(toLength: max(26, device.selector.count + 1), withPad: " ", startingAt: 0)
                let name = device.name.padding(toLength: max(32, device.name.count + 1), withPad: " ", startingAt: 0)
                print("\(selector)\(name)out \(device.outputChannels), in \(device.inputChannels)\(rate)\(flags)")
            }
        }
    }
}

/// `avaudio play FILE... [--device SELECTOR] [--volume V] [--period FRAMES]`: plays files through
/// an AVAudioEngine (player → main mixer → output) on the chosen device, like macOS's afplay.
struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play audio files through the engine on a real device (PulseAudio, ALSA) or the null device.",
        discussion: """
            --device takes a selector as listed by `avaudio devices` (pulse, pulse:SINK, alsa:default, \
            alsa:hw:0, jack, jack:CLIENT@SERVER, null); without it AVAUDIO_BACKEND, else PulseAudio when a server answers, else \
            ALSA default, else the null device.
            """
    )

    @Argument(help: "The audio files to play, one after the other.")
    var files: [String]

    @Option(help: "The device selector (see `avaudio devices`).")
    var device: String?

    @Option(help: "Output volume, 0…1.")
    var volume: Float = 1

    @Option(help: "Device period in frames.")
    var period: Int = 512

    mutating func run() throws {
        let engine = AVAudioEngine()
        try engine._setAudioDevice(device, periodFrames: period)
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.mainMixerNode.outputVolume = volume
        for path in files {
            let file = try AVAudioFile(forReading: URL(fileURLWithPath: path))
            engine.disconnectNodeOutput(player)
            engine.connect(player, to: engine.mainMixerNode, format: file.processingFormat)
            let done = DispatchSemaphore(value: 0)
            player.scheduleFile(file, at: nil, completionCallbackType: .dataPlayedBack) { _ in done.signal() }
            try engine.start()
            FileHandle.standardError.write(Data("playing \(path) on \(engine._audioDeviceName ?? "?")\n".utf8))
            player.play()
            let seconds = Double(file.length) / file.processingFormat.sampleRate
            _ = done.wait(timeout: .now() + seconds + 5)
            player.stop()
            engine.stop()
            if engine._audioDeviceXrunCount > 0 {
                FileHandle.standardError.write(Data("\(engine._audioDeviceXrunCount) xruns\n".utf8))
            }
        }
    }
}

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
            (0 channels: unknown). Two ALSA PCMs combine as alsa:PLAYBACK|CAPTURE (output to one, \
            input from the other, resampled to the output's clock).
            """
    )

    @Flag(help: "Print one JSON object per device (one per line) instead of text.")
    var json = false

    mutating func run() throws {
        let devices = AudioDevices.enumerate()
        for device in devices {
            if json {
                var object: [String: Any] = [
                    "selector": device.selector, "backend": device.backend, "id": device.id, "name": device.name,
                    "outputChannels": device.outputChannels, "inputChannels": device.inputChannels,
                    "sampleRates": device.sampleRates, "nominalSampleRate": device.nominalSampleRate,
                    "isDefaultOutput": device.isDefaultOutput, "isDefaultInput": device.isDefaultInput,
                ]
                // What the device says it is (the session's port types come from these), when said:
                // for an ALSA PCM the card's bus and its active port (its jacks: headphones plugged in…).
                let described: [(String, String?)] = [("bus", device.bus), ("formFactor", device.formFactor),
                                                      ("deviceClass", device.deviceClass), ("api", device.api),
                                                      ("activePort", device.activePort), ("bluetoothProfile", device.bluetoothProfile)]
                for (key, value) in described { if let value { object[key] = value } }
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

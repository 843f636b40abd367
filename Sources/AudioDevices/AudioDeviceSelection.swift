// Choosing a backend and a device.
//
// `AVAUDIO_BACKEND` (or an explicit selector given to the engine) names one:
//   null                      the timer-clocked null device (no sound)
//   alsa  | alsa:PCM          an ALSA PCM: alsa:default, alsa:hw:0, alsa:plughw:1,0, any name
//                             defined in asound.conf
//   alsa:PLAYBACK|CAPTURE     two ALSA PCMs: output to PLAYBACK, input from CAPTURE (e.g.
//                             `alsa:hw:0|plughw:1,0`: the built-in card out, a USB microphone in),
//                             which may run on another clock and at another rate: its input is
//                             resampled to the playback clock (ALSAAudioDevice.swift). `|` because
//                             ALSA PCM names use `:` and `,` themselves and alsa-lib's
//                             configuration syntax never puts a bare `|` in a PCM name (it appears
//                             only inside a quoted argument, e.g. the `file` plugin's `"|command"`
//                             pipe, so a `|` inside quotes is not taken as the separator). An
//                             empty PLAYBACK or CAPTURE means `default`; CAPTURE equal to PLAYBACK
//                             is the plain one-PCM case.
//   pulse | pulse:SINK[:SOURCE][@SERVER]  PulseAudio (or PipeWire's pulse server): the default or
//                             named sink (and source; `default` or empty for the default); the
//                             server libpulse's default ($PULSE_SERVER, the user's socket) unless
//                             given after `@` (e.g. `pulse:nullsink@unix:/tmp/pulse/native`)
//   jack | jack:CLIENT[@SERVER]  a client of a running JACK server (jackd2 or pipewire-jack),
//                             named CLIENT (default "OpenAVFAudio"; `default` or empty for it),
//                             on the server libjack's default ($JACK_DEFAULT_SERVER, else
//                             "default") unless given after `@` (`jack:myapp@studio`, `jack@studio`);
//                             never starts a server
//   auto                      as when unset
//
// Unset (or `auto`): PulseAudio when a server answers; else ALSA `default` when the machine has a
// sound card (snd_card_next finds one); else the null device — so a headless machine (CI, the
// test suite) keeps running on the null device, clocked like hardware, as before this module
// existed. JACK is never chosen automatically, even when a JACK server runs: a JACK client's ports
// are wired by the user (or a patchbay), so the engine joins a JACK graph only when asked to by
// name (`AVAUDIO_BACKEND=jack`). Asking for a backend explicitly never falls back: it works or throws.
#if canImport(Glibc)
import Glibc
#endif

public enum AudioDeviceSelection: Sendable, Equatable, CustomStringConvertible {
    case automatic
    case null
    /// `capture`: the PCM to record from when it is not `pcm` (nil: `pcm` in both directions).
    case alsa(pcm: String, capture: String? = nil)
    case pulse(sink: String?, source: String?, server: String?)
    case jack(client: String?, server: String?)

    /// Parses a selector (see the top of this file). Throws for an unknown backend.
    public init(parsing selector: String) throws {
        let text = selector.trimmingWhitespace
        let (backend, rest): (Substring, Substring?) = {
            // `pulse@SERVER`: no device names, a server.
            if let at = text.firstIndex(of: "@"), !text[..<at].contains(":") { return (text[..<at], text[at...]) }
            guard let colon = text.firstIndex(of: ":") else { return (Substring(text), nil) }
            return (text[..<colon], text[text.index(after: colon)...])
        }()
        switch backend.lowercased() {
        case "", "auto", "automatic": self = .automatic
        case "null", "none-null": self = .null
        case "alsa":
            let names = rest.map(String.init) ?? ""
            if let bar = Self.unquotedBar(in: names) {
                let playback = String(names[..<bar]).isEmpty ? "default" : String(names[..<bar])
                let captureText = String(names[names.index(after: bar)...])
                let capture = captureText.isEmpty ? "default" : captureText
                self = .alsa(pcm: playback, capture: capture == playback ? nil : capture)
            } else {
                self = .alsa(pcm: names.isEmpty ? "default" : names)
            }
        case "pulse", "pulseaudio", "pipewire":
            var names = rest.map(String.init) ?? ""
            var server: String?
            if let at = names.firstIndex(of: "@") {
                server = String(names[names.index(after: at)...])
                names = String(names[..<at])
            }
            let parts = names.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            let sink = parts.first.flatMap { $0.isEmpty || $0 == "default" ? nil : $0 }
            let source = parts.count > 1 ? (parts[1].isEmpty || parts[1] == "default" ? nil : parts[1]) : nil
            self = .pulse(sink: sink, source: source, server: server.flatMap { $0.isEmpty ? nil : $0 })
        case "jack":
            var name = rest.map(String.init) ?? ""
            var server: String?
            if let at = name.firstIndex(of: "@") {
                server = String(name[name.index(after: at)...])
                name = String(name[..<at])
            }
            self = .jack(client: name.isEmpty || name == "default" ? nil : name, server: server.flatMap { $0.isEmpty ? nil : $0 })
        default:
            throw AudioDeviceError(.notFound, "unknown audio backend “\(backend)” in “\(selector)”; use null, alsa[:PCM[|CAPTURE]], pulse[:SINK[:SOURCE]][@SERVER] or jack[:CLIENT][@SERVER]")
        }
    }

    /// The first `|` outside single or double quotes (alsa-lib's quoting of PCM arguments).
    private static func unquotedBar(in text: String) -> String.Index? {
        var quote: Character?
        var i = text.startIndex
        while i < text.endIndex {
            let c = text[i]
            if let q = quote {
                if c == "\\" { i = text.index(after: i); if i == text.endIndex { break } } else if c == q { quote = nil }
            } else if c == "'" || c == "\"" {
                quote = c
            } else if c == "|" {
                return i
            }
            i = text.index(after: i)
        }
        return nil
    }

    /// `AVAUDIO_BACKEND`, or `.automatic` when unset or empty.
    public static func fromEnvironment() throws -> AudioDeviceSelection {
        guard let value = getenv("AVAUDIO_BACKEND").map({ String(cString: $0) }), !value.isEmpty else { return .automatic }
        return try AudioDeviceSelection(parsing: value)
    }

    public var description: String {
        switch self {
        case .automatic: "auto"
        case .null: "null"
        case .alsa(let pcm, let capture): "alsa:\(pcm)" + (capture.map { "|\($0)" } ?? "")
        case .pulse(let sink, let source, let server):
            "pulse" + (sink != nil || source != nil ? ":\(sink ?? "default")" : "") + (source.map { ":\($0)" } ?? "") + (server.map { "@\($0)" } ?? "")
        case .jack(let client, let server):
            "jack" + (client.map { ":\($0)" } ?? "") + (server.map { "@\($0)" } ?? "")
        }
    }
}

/// Opening and listing devices across backends.
public enum AudioDevices {
    /// Opens the device `selection` names for `request`. `.automatic` picks as described at the
    /// top of this file.
    public static func open(_ selection: AudioDeviceSelection, request: AudioDeviceRequest) throws -> AudioDevice {
        switch selection {
        case .null:
            return NullAudioDevice(sampleRate: request.sampleRate ?? 48_000, channelCount: request.direction.hasOutput ? request.outputChannels : 0,
                                   inputChannelCount: request.direction.hasInput ? request.inputChannels : 0, periodFrames: request.periodFrames)
        case .alsa(let pcm, let capture):
            return try ALSAAudioDevice(pcmName: pcm, capturePCMName: capture, request: request)
        case .pulse(let sink, let source, let server):
            return try PulseAudioDevice(server: server, sinkName: sink, sourceName: source, request: request)
        case .jack(let client, let server):
            return try JACKAudioDevice(clientName: client, server: server, request: request)
        case .automatic:
            if let device = try? PulseAudioDevice(request: request) { return device }
            if alsaHasSoundCard(), let device = try? ALSAAudioDevice(pcmName: "default", request: request) { return device }
            return try open(.null, request: request)
        }
    }

    /// Whether a PulseAudio (or pipewire-pulse) server answers at `server` (nil: libpulse's default address).
    public static func pulseServerAnswers(server: String? = nil) -> Bool {
        guard let pulse = try? Pulse.library(), let connection = try? PulseConnection(server: server, pulse: pulse) else { return false }
        connection.close()
        return true
    }

    /// Whether another process plays through the PulseAudio (or pipewire-pulse) server at
    /// `server` (nil: libpulse's default): a playback stream it owns that is not corked. Nil when
    /// no server answers (ALSA and JACK have no such list).
    public static func otherProcessIsPlaying(pulseServer server: String? = nil) -> Bool? {
        guard let pulse = try? Pulse.library(), let connection = try? PulseConnection(server: server, pulse: pulse) else { return nil }
        defer { connection.close() }
        let me = getpid()
        return connection.playbackStreams().contains { !$0.corked && $0.processID != me }
    }

    /// Whether ALSA sees a sound card.
    public static func alsaHasSoundCard() -> Bool {
        guard let alsa = try? ALSA.library() else { return false }
        var card: Int32 = -1
        return alsa.cardNext(&card) == 0 && card >= 0
    }

    /// Whether a JACK server runs (`server`, or libjack's default); never starts one. False
    /// without asking while this process has JACK clients on another server (libjack serves one
    /// server per process).
    public static func jackServerRuns(server: String? = nil) -> Bool {
        guard JACK.mayProbe(server: server), let jack = try? JACK.library(),
              let client = try? jack.open(clientName: "OpenAVFAudio-probe", server: server) else { return false }
        jack.close(client, server: server)
        return true
    }

    /// Every device the backends report: PulseAudio's sinks and sources (when a server answers),
    /// the JACK server (when one runs: its physical playback and capture ports), ALSA's PCM names
    /// (device name hints; channel counts and rates probed by opening each without blocking, 0
    /// when it cannot be opened), and the null device.
    public static func enumerate(pulseServer: String? = nil, jackServer: String? = nil) -> [AudioDeviceInfo] {
        var devices: [AudioDeviceInfo] = []
        if let pulse = try? Pulse.library(), let connection = try? PulseConnection(server: pulseServer, pulse: pulse) {
            devices += connection.enumerate()
            connection.close()
        }
        devices += JACKAudioDevice.enumerate(server: jackServer)
        devices += ALSAAudioDevice.enumerate()
        devices.append(NullAudioDevice().info)
        return devices
    }
}

extension String {
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" || f == "\n" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" || l == "\n" { s.removeLast() }
        return String(s)
    }
}

// Jacks on an ALSA card, read and watched without a sound server.
//
// What the kernel reports. A driver that can sense a plug (HD-Audio, most ASoC machine drivers,
// USB Audio Class 3) gives each sensed connector a read-only boolean control on the card
// interface named "<connector> Jack": "Headphone Jack", "Front Headphone Jack", "Mic Jack",
// "Headset Mic Jack", "Headphone Mic Jack", "Line Out Jack", "Line Jack", "Dock Headphone Jack",
// "HDMI/DP,pcm=3 Jack"; "… Phantom Jack" controls stand for fixed connectors (the internal
// speaker, the internal microphone) and are always on. The value is true while something is
// plugged in, and the control raises a value event when it changes. This is what PulseAudio
// reads to switch its ports (its mixer paths name the same controls), and what a machine with no
// sound server has.
//
// How it is read. The control device that belongs to a PCM is `hw:CARD` for a PCM that names its
// card (`hw:0,0`, `plughw:CARD=PCH,DEV=0`, `sysdefault:CARD=PCH`, `front:CARD=PCH,DEV=0`), and
// the control of the same name for one that does not (`default`, or a PCM a user's asoundrc
// defines together with a `ctl.NAME`, ALSA's convention), when the configuration defines one.
// PCMs and controls that reach a server (pulse, pipewire, jack, oss…; a desktop's `ctl.!default`
// is often one) are not asked: their control plugins would connect to it.
//
// How it reaches the session. Enumeration (ALSAAudioDevice.enumerate) turns the jacks of an
// analog PCM's card into the PulseAudio-style active port the session's port rules read
// (`analog-output-headphones`, `analog-input-mic`…; AVAudioSession+Devices.swift), and
// the session's ALSA watcher keeps an `ALSAJackMonitor` open on the route's control device: it
// waits on the control's poll descriptors (so a plug is seen at once, not at the next read of
// the cards file) and posts a route change when a jack's state changes the route.
//
// The playback level. The same control device carries the card's mixer: its main playback
// volume and switch ("Master Playback Volume"/"… Switch", else PCM, Speaker, Headphone) are what
// the volume keys drive on a machine without a sound server, so they are the output's volume and
// mute switch here, as a server's sink volume is (AVAudioSession.outputVolume and the unmute hint
// read them). The volume is the control's raw value as a fraction of its range, averaged over its
// channels — the scale alsamixer's percentages show; no dB mapping.
//
// Threading. An `ALSAJackMonitor` belongs to one thread (the session's watcher). Nothing here
// runs on a render thread.
#if canImport(Glibc)
import Glibc
#endif

/// A connector an ALSA card senses (a kernel "… Jack" control).
public struct ALSAJack: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// What is plugged into it, as far as its name says.
    public enum Kind: String, Sendable, Hashable {
        /// Headphones (an output).
        case headphones
        /// A headset: headphones and a microphone on one plug (both directions).
        case headset
        /// A microphone input (a headset's microphone, or a microphone jack).
        case microphone
        /// A line-level output.
        case lineOut
        /// A line-level input.
        case lineIn
        /// An HDMI or DisplayPort connector (a monitor's audio).
        case hdmi
        /// Anything else the card senses (a dock, a speaker connector); and phantom jacks.
        case other
    }

    /// The control's name (`Headphone Jack`).
    public var name: String
    public var kind: Kind
    /// Whether something is plugged in.
    public var isPluggedIn: Bool
    /// The control's numeric id on its control device.
    public var numid: UInt32

    public init(name: String, isPluggedIn: Bool, numid: UInt32 = 0) {
        self.name = name
        self.kind = Self.kind(ofControl: name)
        self.isPluggedIn = isPluggedIn
        self.numid = numid
    }

    public var description: String { "\(name): \(isPluggedIn ? "plugged in" : "unplugged")" }

    /// Whether a control with this name (on the card interface) is a jack.
    public static func isJackControl(_ name: String) -> Bool { name.hasSuffix(" Jack") }

    /// The kind of connector a jack control's name describes (the names HD-Audio's and ASoC's
    /// drivers give; see the top of this file). Phantom jacks are `.other`: they describe fixed
    /// connectors and never change.
    public static func kind(ofControl name: String) -> Kind {
        let n = name.lowercased()
        if n.contains("phantom") { return .other }
        if n.contains("hdmi") || n.contains("dp,") || n.contains("displayport") { return .hdmi }
        if n.contains("headset mic") || n.contains("headphone mic") { return .microphone }
        if n.contains("headset") { return .headset }
        if n.contains("headphone") { return .headphones }
        if n.contains("mic") { return .microphone }
        if n.contains("line out") || n.contains("lineout") || n.contains("line-out") { return .lineOut }
        if n.contains("line") { return .lineIn }
        return .other
    }
}

extension ALSAJack {
    /// The active port (PulseAudio's vocabulary, which the session's port rules read) an analog
    /// output shows with `jacks`: headphones (or a headset) plugged in win over a line output; nil
    /// when nothing that changes the output is plugged in (the output keeps what the kernel calls
    /// its PCM device, which the rules read as the built-in speaker).
    static func outputPort(_ jacks: [ALSAJack]) -> String? {
        let plugged = Set(jacks.filter(\.isPluggedIn).map(\.kind))
        if plugged.contains(.headphones) || plugged.contains(.headset) { return "analog-output-headphones" }
        if plugged.contains(.lineOut) { return "analog-output-lineout" }
        return nil
    }

    /// The active port an analog input shows with `jacks`: a microphone plugged in (a headset's
    /// or a microphone jack's; Apple's only wired-microphone port is `headsetMic`) wins over a
    /// line input; nil when nothing is plugged in (the built-in microphone).
    static func inputPort(_ jacks: [ALSAJack]) -> String? {
        let plugged = Set(jacks.filter(\.isPluggedIn).map(\.kind))
        if plugged.contains(.microphone) || plugged.contains(.headset) { return "analog-input-mic" }
        if plugged.contains(.lineIn) { return "analog-input-linein" }
        return nil
    }
}

extension AudioDevices {
    /// The ALSA control device that belongs to PCM `pcm` (see the top of ALSAJacks.swift), or
    /// nil when there is none to ask.
    public static func alsaControlName(forPCM pcm: String) -> String? {
        let plugin = pcm.split(separator: ":", maxSplits: 1).first.map(String.init) ?? pcm
        // Plugins that reach a server or have no card behind them.
        let serverPlugins = ["pulse", "jack", "oss", "pipewire", "null", "file", "usbstream", "a52", "lavrate",
                             "samplerate", "speexrate", "upmix", "vdownmix", "arcam_av", "bluealsa"]
        if serverPlugins.contains(plugin) { return nil }
        if let (_, card, _) = ALSACardTree.address(ofPCM: pcm) {
            guard let card, !card.isEmpty else { return nil }
            return "hw:\(card)"
        }
        // A control of the PCM's name, unless it is a server's plugin (on desktops `ctl.!default`
        // is often `type pulse` or `type pipewire`): its type names it.
        guard let control = try? ALSA.controlLibrary(), let type = control.configString("ctl.\(pcm).type"),
              !serverPlugins.contains(type) else { return nil }
        return pcm
    }

    /// The jacks of ALSA control device `control` (`hw:0`, `default`), empty when it cannot be
    /// opened or senses none.
    public static func alsaJacks(control: String) -> [ALSAJack] {
        guard let monitor = ALSAJackMonitor(control: control, subscribe: false) else { return [] }
        return monitor.jacks
    }
}

/// What one read of a control device found (enumeration's cache).
struct ALSAControlState {
    var jacks: [ALSAJack] = []
    var outputVolume: Double?
    var outputMuted: Bool?

    init(control: String) {
        guard let monitor = ALSAJackMonitor(control: control, subscribe: false) else { return }
        jacks = monitor.jacks
        outputVolume = monitor.outputVolume
        outputMuted = monitor.outputMuted
    }
}

/// An open ALSA control device, the jacks on it and its main playback level, watched for changes.
/// One thread uses it at a time (the session's watcher; it is created on the thread that starts
/// the watcher and handed over): `@unchecked Sendable` for that hand-over.
public final class ALSAJackMonitor: @unchecked Sendable {
    private let library: ALSA.ControlLibrary
    private let handle: OpaquePointer
    private let value: OpaquePointer
    private let event: OpaquePointer
    private var descriptors: [pollfd] = []
    /// The control device's name.
    public let control: String
    /// The jacks as last read.
    public private(set) var jacks: [ALSAJack]
    /// The card's main playback volume as last read: the mean of its channels' values as a
    /// fraction of the control's range (0 at its minimum, 1 at its maximum); nil when the card
    /// has none. The main control is the first of `Master`, `PCM`, `Speaker`, `Headphone` with a
    /// "… Playback Volume" control (the element PulseAudio's ALSA mixer paths take as the
    /// device volume when there is no server).
    public private(set) var outputVolume: Double?
    /// Whether the card's main playback switch is off on every channel (muted); nil when it has none.
    public private(set) var outputMuted: Bool?
    /// The main playback controls: numid, channel count, and the volume's range.
    private var volumeControl: (numid: UInt32, count: Int, min: Int, max: Int)?
    private var switchControl: (numid: UInt32, count: Int)?
    /// Whether the control device failed (a card unplugged): it will report nothing more.
    public private(set) var isBroken = false

    /// Opens `control` without blocking and reads its jacks; nil when it cannot be opened.
    /// With `subscribe`, asks for its events (for `waitForChange`).
    public init?(control: String, subscribe: Bool = true) {
        guard let library = try? ALSA.controlLibrary() else { return nil }
        var handle: OpaquePointer?
        guard control.withCString({ library.open(&handle, $0, ALSA.controlNonBlocking) }) >= 0, let handle else { return nil }
        var value: OpaquePointer?, event: OpaquePointer?
        guard library.valueMalloc(&value) == 0, let value else { _ = library.close(handle); return nil }
        guard library.eventMalloc(&event) == 0, let event else { library.valueFree(value); _ = library.close(handle); return nil }
        self.library = library
        self.handle = handle
        self.value = value
        self.event = event
        self.control = control
        self.jacks = []
        jacks = listControls()
        readLevels()
        if subscribe, !jacks.isEmpty || volumeControl != nil || switchControl != nil, library.subscribeEvents(handle, 1) >= 0 {
            let count = Int(library.pollDescriptorsCount(handle))
            if count > 0 {
                descriptors = [pollfd](repeating: pollfd(fd: -1, events: 0, revents: 0), count: count)
                let filled = Int(descriptors.withUnsafeMutableBufferPointer { library.pollDescriptors(handle, $0.baseAddress!, UInt32(count)) })
                descriptors = Array(descriptors.prefix(max(0, filled)))
            }
        }
    }

    deinit {
        library.eventFree(event)
        library.valueFree(value)
        _ = library.close(handle)
    }

    /// Whether the control device delivers events for its jacks or level (else `waitForChange`
    /// only sleeps).
    public var isWatching: Bool { !descriptors.isEmpty }

    /// Waits up to `timeout` seconds for the control device's events and reads the jacks and the
    /// playback level again when some came; true when any of them changed. Returns early on any
    /// event.
    public func waitForChange(timeout: Double) -> Bool {
        guard !isBroken, !descriptors.isEmpty else {
            if timeout > 0 { usleep(useconds_t(min(timeout, 10) * 1_000_000)) }
            return false
        }
        for i in descriptors.indices { descriptors[i].revents = 0 }
        let n = descriptors.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), Int32(max(0, timeout) * 1000)) }
        guard n > 0 else { return false }
        var revents: UInt16 = 0
        _ = descriptors.withUnsafeMutableBufferPointer { library.pollDescriptorsRevents(handle, $0.baseAddress!, UInt32($0.count), &revents) }
        if revents & UInt16(POLLERR | POLLHUP | POLLNVAL) != 0 {
            isBroken = true
            return false
        }
        // Drain the events (one per call; 0 or -EAGAIN when none is left). Which element changed
        // does not matter: the jacks are few, so all are read again.
        var drained = 0
        while drained < 1024 {
            let r = library.read(handle, event)
            if r <= 0 {
                if r < 0 && r != -EAGAIN && r != -EINTR { isBroken = true }
                break
            }
            drained += 1
        }
        let before = (jacks, outputVolume, outputMuted)
        jacks = before.0.map { jack in
            var jack = jack
            if let plugged = read(jack.numid) { jack.isPluggedIn = plugged }
            return jack
        }
        readLevels()
        return jacks != before.0 || outputVolume != before.1 || outputMuted != before.2
    }

    /// Reads the main playback volume and switch (see `outputVolume`).
    private func readLevels() {
        if let control = volumeControl, control.max > control.min, control.count > 0 {
            library.valueSetNumID(value, control.numid)
            if library.elemRead(handle, value) >= 0 {
                var sum = 0.0
                for c in 0..<control.count {
                    let v = min(max(library.valueGetInteger(value, UInt32(c)), control.min), control.max)
                    sum += Double(v - control.min) / Double(control.max - control.min)
                }
                outputVolume = sum / Double(control.count)
            }
        }
        if let control = switchControl, control.count > 0 {
            library.valueSetNumID(value, control.numid)
            if library.elemRead(handle, value) >= 0 {
                outputMuted = (0..<control.count).allSatisfy { library.valueGetBoolean(value, UInt32($0)) == 0 }
            }
        }
    }

    /// Lists the jack controls on the card interface with their values, and finds the main
    /// playback volume and switch on the mixer interface (`volumeControl`, `switchControl`).
    private func listControls() -> [ALSAJack] {
        var listPointer: OpaquePointer?
        guard library.listMalloc(&listPointer) == 0, let list = listPointer else { return [] }
        defer { library.listFree(list) }
        guard library.elemList(handle, list) >= 0 else { return [] }
        let count = min(library.listGetCount(list), 65_536)
        guard count > 0, library.listAllocSpace(list, count) >= 0 else { return [] }
        defer { library.listFreeSpace(list) }
        guard library.elemList(handle, list) >= 0 else { return [] }
        var jacks: [ALSAJack] = []
        var mixer: [String: UInt32] = [:]
        for i in 0..<library.listGetUsed(list) {
            guard let cName = library.listGetName(list, i) else { continue }
            let name = String(cString: cName)
            let numid = library.listGetNumID(list, i)
            switch library.listGetInterface(list, i) {
            case ALSA.elementInterfaceCard where ALSAJack.isJackControl(name):
                guard let plugged = read(numid) else { continue }
                jacks.append(ALSAJack(name: name, isPluggedIn: plugged, numid: numid))
            case ALSA.elementInterfaceMixer where name.hasSuffix(" Playback Volume") || name.hasSuffix(" Playback Switch"):
                if mixer[name] == nil { mixer[name] = numid }   // (index 0: the first listed)
            default:
                break
            }
        }
        let mains = ["Master", "PCM", "Speaker", "Headphone"]
        if let numid = mains.lazy.compactMap({ mixer[$0 + " Playback Volume"] }).first, let info = info(numid),
           info.type == ALSA.elementTypeInteger {
            volumeControl = (numid, info.count, info.min, info.max)
        }
        if let numid = mains.lazy.compactMap({ mixer[$0 + " Playback Switch"] }).first, let info = info(numid),
           info.type == ALSA.elementTypeBoolean {
            switchControl = (numid, info.count)
        }
        return jacks
    }

    /// Element `numid`'s type, channel count and (for integers) range.
    private func info(_ numid: UInt32) -> (type: Int32, count: Int, min: Int, max: Int)? {
        var pointer: OpaquePointer?
        guard library.infoMalloc(&pointer) == 0, let info = pointer else { return nil }
        defer { library.infoFree(info) }
        library.infoSetNumID(info, numid)
        guard library.elemInfo(handle, info) >= 0 else { return nil }
        let type = library.infoGetType(info)
        let count = Int(min(library.infoGetCount(info), 64))
        let isInteger = type == ALSA.elementTypeInteger
        return (type, count, isInteger ? library.infoGetMin(info) : 0, isInteger ? library.infoGetMax(info) : 1)
    }

    /// The boolean value of element `numid` (its first channel); nil when it cannot be read.
    private func read(_ numid: UInt32) -> Bool? {
        library.valueSetNumID(value, numid)
        guard library.elemRead(handle, value) >= 0 else { return nil }
        return library.valueGetBoolean(value, 0) != 0
    }
}

extension ALSAJack {
    /// Sets `info`'s active port from the jacks of its PCM's card — headphones or a microphone
    /// plugged into an analog PCM's card make it a headphones / headset-microphone port — and an
    /// output's volume and mute switch from the card's main playback controls. Digital PCMs
    /// (HDMI, S/PDIF) are left alone. `cache` holds what was read per control device during one
    /// enumeration (a card's PCMs share its control device).
    static func apply(to info: inout AudioDeviceInfo, cache: inout [String: ALSAControlState]) {
        let port = info.activePort ?? ""
        let pcm = info.id.lowercased()
        let digital = ["hdmi", "iec958", "spdif", "digital", "displayport"]
        guard !digital.contains(where: { port.contains($0) || pcm.hasPrefix($0) }),
              let control = AudioDevices.alsaControlName(forPCM: info.id) else { return }
        let state: ALSAControlState
        if let cached = cache[control] { state = cached } else {
            state = ALSAControlState(control: control)
            cache[control] = state
        }
        // The card's main playback level is the output's volume and mute switch, as a sound
        // server's sink volume is (AVAudioSession.outputVolume; the unmute hint).
        if info.outputChannels > 0 || info.inputChannels == 0 {
            if let volume = state.outputVolume { info.volume = volume }
            if let muted = state.outputMuted { info.isMuted = muted }
        }
        let jacks = state.jacks
        guard !jacks.isEmpty else { return }
        // A PCM that works both ways (a hw PCM probed in both directions) gets both ports, joined
        // by "+": the session's port rules read the part for the direction they describe.
        let output = info.outputChannels > 0 || info.inputChannels == 0 ? outputPort(jacks) : nil
        let input = info.inputChannels > 0 ? inputPort(jacks) : nil
        switch (output, input) {
        case let (output?, input?): info.activePort = output + "+" + input
        case let (output?, nil): info.activePort = output
        case let (nil, input?): info.activePort = input
        case (nil, nil): break
        }
    }
}

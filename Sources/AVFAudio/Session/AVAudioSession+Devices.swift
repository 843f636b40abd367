// AVAudioSession backed by the device layer: which devices the session describes, the route and
// its ports, the preferences applied to engines' devices, and the values read back.
//
// Port types come from what the device says about itself (AudioDeviceInfo's bus, formFactor,
// deviceClass, api, activePort, bluetoothProfile: PulseAudio's device properties and active
// port, the kernel's card description for ALSA), first rule that applies:
//
//   class monitor or abstract (a sink's monitor, a null sink/source)       → virtual
//   bus bluetooth (or api bluez…): profile headset/handsfree (HSP/HFP)    → bluetoothHFP
//                                  profile a2dp                           → bluetoothA2DP
//                                  profile bap (LE Audio)                 → bluetoothLE
//                                  no profile: input → bluetoothHFP, output → bluetoothA2DP
//   bus usb                                                               → usbAudio
//   active port hdmi…, or form factor tv                                  → HDMI
//   active port iec958/spdif (S/PDIF)                                     → lineOut / lineIn
//   active port …headphones → headphones; …headset-mic → headsetMic; …line… → lineOut/lineIn;
//     …speaker → builtInSpeaker; …internal-mic → builtInMic, another …mic (a jack) → headsetMic
//     (an ALSA PCM's active port comes from its card's jacks, one part per direction: ALSAJacks.swift)
//   form factor headphone → headphones (output); headset or hands-free → headsetMic (input) /
//     headphones (output); car → carAudio; internal, speaker, microphone → builtIn*
//   anything else the device describes (a pci card, a class-sound device) → builtInSpeaker /
//     builtInMic
//
// Apple's list has no S/PDIF port: lineOut ("line-level output") is the nearest, and the choice
// rests on that. A USB headset is usbAudio, as Apple reports a USB headset. A device that reports
// nothing at all (an ALSA name without a card, a JACK server, an old server) falls back to the
// name heuristics this file used before: bluez + a2dp → bluetoothA2DP, bluez + headset/handsfree
// (or a Bluetooth input) → bluetoothHFP, usb → usbAudio, hdmi → HDMI, monitor/null → virtual,
// headphone/headset → headphones/headsetMic, line-out/line-in → lineOut/lineIn, else built-in.
//
// A port's uid is the device selector (`pulse:SINK[@SERVER]`, `pulse::SOURCE[@SERVER]`,
// `alsa:PCM`, `null`): stable across runs, and what `AVAudioPlayer.currentDevice` and
// `AVAUDIO_BACKEND` take.
//
// Preferences reach the devices through `SessionDevicePreferences.apply`, which the engine's
// device registry calls for every device it opens (Devices/AudioDevice.swift): while the session
// is active, an engine opening the session's backend (and server) gets the preferred sample rate,
// period (IO buffer duration × rate), channel counts, and the preferred input as its capture
// device (PulseAudio; ALSA cannot join a capture PCM to another playback PCM yet). An engine that
// names another backend is left alone.
import Foundation
import AudioDevices

/// What the session last read from the device layer.
struct SessionDeviceSnapshot {
    var devices: [AudioDeviceInfo]
    /// Whether the backend answered (a PulseAudio server reachable; always true for ALSA and null).
    var reachable: Bool
    var output: AudioDeviceInfo?
    var input: AudioDeviceInfo?
    /// What the device grants for the session's preferences (nil until probed).
    var sampleRate: Double?
    var periodFrames: Int?
    var outputLatency: Double?
    var inputLatency: Double?
    var outputChannels: Int?
    var inputChannels: Int?
}

extension AVAudioSession {
    // MARK: Device selection

    /// Makes the session describe (and its preferences apply to) the devices `selector` names —
    /// a selector as `AVAUDIO_BACKEND` takes (`pulse`, `pulse@unix:/path/native`, `alsa`, `null`) —
    /// or, with nil, the default (`AVAUDIO_BACKEND`, else automatic). AVAudioPlayer and
    /// AVAudioRecorder objects that name no device of their own use it too. Not part of Apple's
    /// API (which has one system); throws for a selector that does not parse.
    public func _setDeviceSelector(_ selector: String?) throws {
        let selection: AudioDeviceSelection?
        do { selection = try selector.map(AudioDeviceSelection.init(parsing:)) } catch let error as AudioDeviceError {
            throw AVAudioSession.error(.badParam, error.message)
        }
        lock.lock()
        _selection = selection
        snapshot = nil
        let monitor = self.monitor
        self.monitor = nil
        let active = _active
        lock.unlock()
        monitor?.stop()
        if active { try setActive(true) }
    }

    /// The selection the session describes.
    var resolvedSelection: AudioDeviceSelection {
        lock.lock(); defer { lock.unlock() }
        return _selection ?? ((try? AudioDeviceSelection.fromEnvironment()) ?? .automatic)
    }

    /// The selector an AVAudioPlayer with no device of its own opens (nil: the engine's default).
    var playbackSelector: String? {
        lock.lock(); defer { lock.unlock() }
        return _selection?.description
    }

    /// The selector an AVAudioRecorder with no device of its own opens: the preferred input's
    /// uid, else the session's selection (nil: the engine's default).
    var recordingSelector: String? {
        lock.lock(); defer { lock.unlock() }
        return _preferredInput?.uid ?? _selection?.description
    }

    // MARK: Reading the device layer

    /// `isOtherAudioPlaying`: asks the session's PulseAudio server (the automatic selection asks
    /// the default server when one answers).
    func otherAudioIsPlaying() -> Bool {
        switch resolvedSelection {
        case .pulse(_, _, let server): return AudioDevices.otherProcessIsPlaying(pulseServer: server) ?? false
        case .automatic: return AudioDevices.otherProcessIsPlaying() ?? false
        default: return false
        }
    }

    /// Lists the devices of `selection`'s backend; `reachable` false when its server does not answer.
    static func enumerate(_ selection: AudioDeviceSelection) -> (devices: [AudioDeviceInfo], reachable: Bool, server: String?) {
        switch selection {
        case .null:
            return ([NullAudioDevice().info], true, nil)
        case .alsa:
            return (AudioDevices.enumerate(pulseServer: "unix:/nonexistent/avaudio-session").filter { $0.backend == "alsa" }, true, nil)
        case .pulse(_, _, let server):
            guard AudioDevices.pulseServerAnswers(server: server) else { return ([], false, server) }
            return (AudioDevices.enumerate(pulseServer: server).filter { $0.backend == "pulse" }, true, server)
        case .jack(_, let server):
            // (the JACK server as one device, with its physical ports; none when no server runs)
            let devices = AudioDevices.enumerate(pulseServer: "unix:/nonexistent/avaudio-session")
                .filter { $0.backend == "jack" && (server == nil || $0.id.hasSuffix("@\(server!)")) }
            return (devices, !devices.isEmpty, server)
        case .automatic:
            if AudioDevices.pulseServerAnswers() {
                return (AudioDevices.enumerate().filter { $0.backend == "pulse" }, true, nil)
            }
            if AudioDevices.alsaHasSoundCard() { return enumerate(.alsa(pcm: "default")) }
            return enumerate(.null)
        }
    }

    /// Reads the devices, picks the route, and probes what the device grants for the preferences.
    @discardableResult
    func refreshSnapshot(probe: Bool = true) throws -> SessionDeviceSnapshot {
        let selection = resolvedSelection
        var snapshot = routeSnapshot(selection)
        if probe, snapshot.reachable, let output = snapshot.output {
            var request = AudioDeviceRequest(direction: snapshot.input != nil ? .duplex : .output)
            request.periodFrames = 512
            applyPreferences(to: &request)
            if let device = try? AudioDevices.open(probeSelection(selection, output: output, input: snapshot.input), request: request) {
                snapshot.sampleRate = device.sampleRate
                snapshot.periodFrames = device.periodFrames
                snapshot.outputLatency = device.outputLatency
                snapshot.inputLatency = device.inputLatency
                snapshot.outputChannels = device.outputChannelCount
                snapshot.inputChannels = device.inputChannelCount
                device.stop()
            }
        }
        lock.lock()
        self.snapshot = snapshot
        lock.unlock()
        if !snapshot.reachable {
            throw AVAudioSession.error(.cannotStartPlaying, "the audio system (\(selection)) does not answer")
        }
        return snapshot
    }

    /// The devices and the route, without probing.
    func routeSnapshot(_ selection: AudioDeviceSelection) -> SessionDeviceSnapshot {
        let (devices, reachable, _) = AVAudioSession.enumerate(selection)
        lock.lock()
        let preferredInput = _preferredInput?.uid
        lock.unlock()
        var namedSink: String?, namedSource: String?
        if case .pulse(let sink, let source, _) = selection { namedSink = sink; namedSource = source }
        if case .alsa(let pcm, let capture) = selection { namedSink = pcm; namedSource = capture }
        let outputs = devices.filter { $0.outputChannels > 0 }
        let inputs = devices.filter { $0.inputChannels > 0 }
        let output = outputs.first { $0.id == namedSink } ?? outputs.first { $0.isDefaultOutput } ?? outputs.first
        let input = inputs.first { portUID($0, selection: selection, asInput: true) == preferredInput }
            ?? inputs.first { $0.id == namedSource } ?? inputs.first { $0.isDefaultInput } ?? inputs.first
        return SessionDeviceSnapshot(devices: devices, reachable: reachable, output: output, input: input)
    }

    func probeSelection(_ selection: AudioDeviceSelection, output: AudioDeviceInfo, input: AudioDeviceInfo?) -> AudioDeviceSelection {
        switch selection {
        case .pulse(_, _, let server): return .pulse(sink: output.id, source: input?.id, server: server)
        case .automatic where output.backend == "pulse": return .pulse(sink: output.id, source: input?.id, server: nil)
        case .automatic where output.backend == "alsa": return .alsa(pcm: output.id)
        case .automatic: return .null
        default: return selection
        }
    }

    func currentSnapshot() -> SessionDeviceSnapshot {
        lock.lock()
        let cached = snapshot
        lock.unlock()
        if let cached { return cached }
        return (try? refreshSnapshot()) ?? routeSnapshot(resolvedSelection)
    }

    // MARK: Ports and routes

    func server(of selection: AudioDeviceSelection) -> String? {
        if case .pulse(_, _, let server) = selection { return server }
        return nil
    }

    func portUID(_ info: AudioDeviceInfo, selection: AudioDeviceSelection, asInput: Bool) -> String {
        switch info.backend {
        case "pulse": return "pulse:" + (asInput ? ":" : "") + info.id + (server(of: selection).map { "@\($0)" } ?? "")
        case "null": return "null"
        default: return info.selector
        }
    }

    /// The port type for a device (rules at the top of this file).
    static func portType(_ info: AudioDeviceInfo, asInput: Bool) -> Port {
        if info.backend == "null" { return .virtual }
        guard info.reportsProperties else { return portTypeFromName(info, asInput: asInput) }
        if info.deviceClass == "monitor" || info.deviceClass == "abstract" { return .virtual }
        if info.bus == "bluetooth" || info.api?.hasPrefix("bluez") == true || info.bluetoothProfile != nil {
            let profile = info.bluetoothProfile ?? ""
            if ["headset", "handsfree", "hsp", "hfp"].contains(where: profile.contains) { return .bluetoothHFP }
            if profile.contains("a2dp") { return .bluetoothA2DP }
            if profile.contains("bap") { return .bluetoothLE }
            return asInput ? .bluetoothHFP : .bluetoothA2DP
        }
        if info.bus == "usb" { return .usbAudio }
        // An ALSA PCM that works both ways carries one port per direction, joined by "+"
        // (ALSAJacks.swift): the part for this direction.
        var port = info.activePort ?? ""
        if port.contains("+") {
            port = port.split(separator: "+").first { $0.contains(asInput ? "input" : "output") }.map(String.init) ?? port
        }
        // (a port of the other direction alone says nothing about this one)
        if port.contains(asInput ? "output" : "input") && !port.contains(asInput ? "input" : "output") { port = "" }
        if port.contains("hdmi") || info.formFactor == "tv" { return .HDMI }
        if port.contains("iec958") || port.contains("spdif") { return asInput ? .lineIn : .lineOut }
        if !port.isEmpty {
            if port.contains("headphone") && !asInput { return .headphones }
            if port.contains("headset") { return asInput ? .headsetMic : .headphones }
            if port.contains("line") { return asInput ? .lineIn : .lineOut }
            if port.contains("speaker") && !asInput { return .builtInSpeaker }
            // PulseAudio's `analog-input-internal-mic` is the built-in one; its `analog-input-mic`,
            // `…-front-mic`, `…-rear-mic` are jacks, and a microphone plugged into a jack is what
            // Apple calls a wired headset's microphone (its only wired-microphone port).
            if port.contains("mic") && asInput { return port.contains("internal") ? .builtInMic : .headsetMic }
        }
        switch info.formFactor {
        case "headphone" where !asInput: return .headphones
        case "headset", "hands-free": return asInput ? .headsetMic : .headphones
        case "car": return .carAudio
        default: return asInput ? .builtInMic : .builtInSpeaker
        }
    }

    /// The heuristics for a device that reports no properties: its names.
    static func portTypeFromName(_ info: AudioDeviceInfo, asInput: Bool) -> Port {
        let name = (info.id + " " + info.name).lowercased()
        if info.backend == "null" || name.contains(".monitor") || name.contains("null") { return .virtual }
        if name.contains("bluez") || name.contains("bluetooth") {
            if name.contains("a2dp") && !asInput { return .bluetoothA2DP }
            if asInput || ["headset", "handsfree", "hsp", "hfp"].contains(where: name.contains) { return .bluetoothHFP }
            return .bluetoothA2DP
        }
        if name.contains("usb") { return .usbAudio }
        if name.contains("hdmi") { return .HDMI }
        if name.contains("headphone") && !asInput { return .headphones }
        if name.contains("headset") && asInput { return .headsetMic }
        if name.contains("line-out") || name.contains("lineout") { return asInput ? .lineIn : .lineOut }
        if name.contains("line-in") || name.contains("linein") { return asInput ? .lineIn : .lineOut }
        return asInput ? .builtInMic : .builtInSpeaker
    }

    func port(_ info: AudioDeviceInfo, selection: AudioDeviceSelection, asInput: Bool) -> AVAudioSessionPortDescription {
        AVAudioSessionPortDescription(portType: AVAudioSession.portType(info, asInput: asInput), portName: info.name,
                                      uid: portUID(info, selection: selection, asInput: asInput),
                                      channelCount: asInput ? info.inputChannels : info.outputChannels, isInput: asInput)
    }

    func route(_ snapshot: SessionDeviceSnapshot, selection: AudioDeviceSelection, category: Category) -> AVAudioSessionRouteDescription {
        // As on Apple platforms the route's inputs are empty unless the category records.
        let records = category == .record || category == .playAndRecord || category == .multiRoute
        let plays = category != .record
        return AVAudioSessionRouteDescription(
            inputs: records ? snapshot.input.map { [port($0, selection: selection, asInput: true)] } ?? [] : [],
            outputs: plays ? snapshot.output.map { [port($0, selection: selection, asInput: false)] } ?? [] : [])
    }

    func currentRouteLocked() -> AVAudioSessionRouteDescription {
        route(currentSnapshot(), selection: resolvedSelection, category: _category)
    }

    /// The input and output ports in use.
    public var currentRoute: AVAudioSessionRouteDescription {
        let snapshot = currentSnapshot()
        return route(snapshot, selection: resolvedSelection, category: category)
    }

    /// The input ports the app may record from (every capture device of the backend; PulseAudio
    /// monitor sources appear as `.virtual` ports).
    public var availableInputs: [AVAudioSessionPortDescription]? {
        let selection = resolvedSelection
        return currentSnapshot().devices.filter { $0.inputChannels > 0 }.map { port($0, selection: selection, asInput: true) }
    }

    /// Whether a capture device exists.
    public var isInputAvailable: Bool { currentSnapshot().devices.contains { $0.inputChannels > 0 } }

    /// Selects the input to record from (one of `availableInputs`; nil: the default input).
    public func setPreferredInput(_ inPort: AVAudioSessionPortDescription?) throws {
        if let inPort, !(availableInputs ?? []).contains(inPort) {
            throw AVAudioSession.error(.badParam, "\(inPort.portName) (\(inPort.uid)) is not one of the available inputs")
        }
        lock.lock(); _preferredInput = inPort; snapshot = nil; lock.unlock()
    }
    public var preferredInput: AVAudioSessionPortDescription? { lock.lock(); defer { lock.unlock() }; return _preferredInput }

    /// Linux devices have no selectable data sources: nil, as Apple reports for a port without any.
    public var inputDataSources: [AVAudioSessionDataSourceDescription]? { nil }
    public var inputDataSource: AVAudioSessionDataSourceDescription? { nil }
    public var outputDataSources: [AVAudioSessionDataSourceDescription]? { nil }
    public var outputDataSource: AVAudioSessionDataSourceDescription? { nil }
    public func setInputDataSource(_ dataSource: AVAudioSessionDataSourceDescription?) throws {
        if dataSource != nil { throw AVAudioSession.error(.badParam, "the input has no data sources") }
    }
    public func setOutputDataSource(_ dataSource: AVAudioSessionDataSourceDescription?) throws {
        if dataSource != nil { throw AVAudioSession.error(.badParam, "the output has no data sources") }
    }

    // MARK: Preferences

    public func setPreferredSampleRate(_ sampleRate: Double) throws {
        guard sampleRate >= 0, sampleRate.isFinite else { throw AVAudioSession.error(.badParam, "preferred sample rate \(sampleRate) Hz") }
        lock.lock(); _preferredSampleRate = sampleRate; lock.unlock()
        try refreshIfActive()
    }
    public var preferredSampleRate: Double { lock.lock(); defer { lock.unlock() }; return _preferredSampleRate }

    public func setPreferredIOBufferDuration(_ duration: TimeInterval) throws {
        guard duration >= 0, duration.isFinite else { throw AVAudioSession.error(.badParam, "preferred IO buffer duration \(duration) s") }
        lock.lock(); _preferredIOBufferDuration = duration; lock.unlock()
        try refreshIfActive()
    }
    public var preferredIOBufferDuration: TimeInterval { lock.lock(); defer { lock.unlock() }; return _preferredIOBufferDuration }

    /// Throws paramErr for a count outside 1…maximumInputNumberOfChannels.
    public func setPreferredInputNumberOfChannels(_ count: Int) throws {
        let maximum = maximumInputNumberOfChannels
        guard count >= 1, count <= maximum else {
            throw AVAudioSession.error(.badParam, "preferred input channel count \(count) is outside 1…\(maximum)")
        }
        lock.lock(); _preferredInputChannels = count; lock.unlock()
        try refreshIfActive()
    }
    public var preferredInputNumberOfChannels: Int { lock.lock(); defer { lock.unlock() }; return _preferredInputChannels }

    /// Throws paramErr for a count outside 1…maximumOutputNumberOfChannels.
    public func setPreferredOutputNumberOfChannels(_ count: Int) throws {
        let maximum = maximumOutputNumberOfChannels
        guard count >= 1, count <= maximum else {
            throw AVAudioSession.error(.badParam, "preferred output channel count \(count) is outside 1…\(maximum)")
        }
        lock.lock(); _preferredOutputChannels = count; lock.unlock()
        try refreshIfActive()
    }
    public var preferredOutputNumberOfChannels: Int { lock.lock(); defer { lock.unlock() }; return _preferredOutputChannels }

    public func setPreferredInputOrientation(_ orientation: StereoOrientation) throws { lock.lock(); _preferredInputOrientation = orientation; lock.unlock() }
    public var preferredInputOrientation: StereoOrientation { lock.lock(); defer { lock.unlock() }; return _preferredInputOrientation }
    /// No Linux input reports an orientation.
    public var inputOrientation: StereoOrientation { .none }

    func refreshIfActive() throws {
        lock.lock()
        let active = _active
        snapshot = nil
        lock.unlock()
        if active { try refreshSnapshot() }
    }

    /// Puts the preferences into a device request (session lock taken here).
    func applyPreferences(to request: inout AudioDeviceRequest) {
        lock.lock(); defer { lock.unlock() }
        if _preferredSampleRate > 0 { request.sampleRate = _preferredSampleRate }
        if _preferredIOBufferDuration > 0 {
            let rate = request.sampleRate ?? snapshot?.output?.nominalSampleRate ?? 48_000
            request.periodFrames = min(65_536, max(16, Int((_preferredIOBufferDuration * (rate > 0 ? rate : 48_000)).rounded())))
        }
        if _preferredOutputChannels > 0 { request.outputChannels = _preferredOutputChannels }
        if _preferredInputChannels > 0 { request.inputChannels = _preferredInputChannels }
    }

    // MARK: What the device runs at

    /// The sample rate the device runs at (what it granted for `preferredSampleRate`).
    public var sampleRate: Double { currentSnapshot().sampleRate ?? currentSnapshot().output?.nominalSampleRate ?? 48_000 }
    /// The device period in seconds (what it granted for `preferredIOBufferDuration`).
    public var ioBufferDuration: TimeInterval {
        let s = currentSnapshot()
        return Double(s.periodFrames ?? 512) / (s.sampleRate ?? 48_000)
    }
    /// Input latency in seconds as the backend estimates it (device + server buffers).
    public var inputLatency: TimeInterval { currentSnapshot().inputLatency ?? 0 }
    /// Output latency in seconds as the backend estimates it (device + server buffers).
    public var outputLatency: TimeInterval { currentSnapshot().outputLatency ?? 0 }
    public var inputNumberOfChannels: Int {
        let s = currentSnapshot()
        guard category == .record || category == .playAndRecord || category == .multiRoute, let input = s.input else { return 0 }
        return s.inputChannels.flatMap { $0 > 0 ? $0 : nil } ?? input.inputChannels
    }
    public var outputNumberOfChannels: Int {
        let s = currentSnapshot()
        guard category != .record, let output = s.output else { return 0 }
        return s.outputChannels.flatMap { $0 > 0 ? $0 : nil } ?? output.outputChannels
    }
    public var maximumInputNumberOfChannels: Int { currentSnapshot().input?.inputChannels ?? 0 }
    public var maximumOutputNumberOfChannels: Int { currentSnapshot().output?.outputChannels ?? 0 }

    /// The input gain, 0…1: 1 (input gain is not settable on Linux devices through the session).
    public var inputGain: Float { 1 }
    public var isInputGainSettable: Bool { false }
    /// Throws (`unspecified`): as `isInputGainSettable` says, the gain cannot be set.
    public func setInputGain(_ gain: Float) throws {
        throw AVAudioSession.error(.unspecified, "the input gain is not settable (isInputGainSettable is false)")
    }

    /// The system output volume, 0…1: the output device's volume as the sound server reports it
    /// (1 for the null device and ALSA).
    public var outputVolume: Float { Float(currentSnapshot().output?.volume ?? 1) }

    // MARK: Notifications

    func postRouteChange(_ reason: RouteChangeReason, previous: AVAudioSessionRouteDescription) {
        NotificationCenter.default.post(name: AVAudioSession.routeChangeNotification, object: self, userInfo: [
            AVAudioSessionRouteChangeReasonKey: NSNumber(value: reason.rawValue),
            AVAudioSessionRouteChangePreviousRouteKey: previous,
        ])
    }

    /// Makes `snapshot` the session's devices and route, keeping what the device granted when
    /// last probed (rate, period, latencies, channel counts).
    func storeDevices(_ snapshot: SessionDeviceSnapshot) {
        lock.lock(); defer { lock.unlock() }
        var updated = snapshot
        updated.sampleRate = self.snapshot?.sampleRate
        updated.periodFrames = self.snapshot?.periodFrames
        updated.outputLatency = self.snapshot?.outputLatency
        updated.inputLatency = self.snapshot?.inputLatency
        updated.outputChannels = self.snapshot?.outputChannels
        updated.inputChannels = self.snapshot?.inputChannels
        self.snapshot = updated
    }

    /// Records the output device's volume and mute switch as the ALSA watcher read them from
    /// the card (`outputVolume` reads it), without enumerating again.
    func storeOutputLevel(selector: String, volume: Double?, isMuted: Bool?) {
        lock.lock(); defer { lock.unlock() }
        guard var snapshot, snapshot.output?.selector == selector else { return }
        snapshot.output?.volume = volume
        snapshot.output?.isMuted = isMuted
        for i in snapshot.devices.indices where snapshot.devices[i].selector == selector {
            snapshot.devices[i].volume = volume
            snapshot.devices[i].isMuted = isMuted
        }
        self.snapshot = snapshot
    }

    /// The capture devices in a device list (what `availableInputs` lists), by selector.
    static func inputSet(_ devices: [AudioDeviceInfo]) -> Set<String> {
        Set(devices.filter { $0.inputChannels > 0 }.map(\.selector))
    }

    /// `availableInputsChangeNotification` (no user info, as Apple documents).
    func postAvailableInputsChange() {
        NotificationCenter.default.post(name: AVAudioSession.availableInputsChangeNotification, object: self)
    }

    /// The sound server went away: the session becomes inactive, as an interrupted session does
    /// on Apple's systems (the iOS 27 header replaces the interruption notification by
    /// `didBecomeInactiveNotification`; the app reactivates with `setActive(true)`). The monitor
    /// keeps watching so that the server's return is reported. Posts the (deprecated) interruption
    /// notification, then `didBecomeInactiveNotification` with a system deactivation context whose
    /// interruption reason is the same `.default` (AVAudioSessionActivationContexts.swift).
    func systemInterruptionBegan() {
        lock.lock(); _active = false; lock.unlock()
        postInterruption(.began)
        postDidBecomeInactive(DeactivationContext(source: .system, interruptionContext: InterruptionContext(reason: .default)))
    }

    /// The sound server answers again: the interruption ended with `.shouldResume`, and
    /// `resumptionRecommendationNotification` recommends resuming.
    func systemInterruptionEnded() {
        postInterruption(.ended, options: .shouldResume)
        NotificationCenter.default.post(name: AVAudioSession.resumptionRecommendationNotification, object: self,
                                        userInfo: [AVAudioSession.resumptionContextKey: ResumptionContext(recommendation: .shouldResume)])
        postMessage(ResumptionRecommendationMessage(recommendation: .shouldResume))
    }

    func postInterruption(_ type: InterruptionType, options: InterruptionOptions = []) {
        var info: [String: Any] = [AVAudioSessionInterruptionTypeKey: NSNumber(value: type.rawValue)]
        if type == .ended { info[AVAudioSessionInterruptionOptionKey] = NSNumber(value: options.rawValue) }
        else { info[AVAudioSessionInterruptionReasonKey] = NSNumber(value: InterruptionReason.default.rawValue) }
        NotificationCenter.default.post(name: AVAudioSession.interruptionNotification, object: self, userInfo: info)
    }
}

/// The hook the engine's device registry calls (Devices/AudioDevice.swift).
enum SessionDevicePreferences {
    /// Whether `selection` opens a device of the session's backend (and PulseAudio server): the
    /// devices the session's preferences and its output mute apply to.
    static func sharesSessionBackend(_ selection: AudioDeviceSelection) -> Bool {
        switch (selection, AVAudioSession.sharedInstance().resolvedSelection) {
        case (.null, .null), (.alsa, .alsa), (.automatic, .automatic): return true
        case (.pulse(_, _, let a), .pulse(_, _, let b)) where a == b: return true
        default: return false
        }
    }

    /// While the session is active and `selection` opens the session's backend (and server):
    /// applies the preferences to `request`, and makes the preferred input the capture device.
    static func apply(to request: inout AudioDeviceRequest, selection: inout AudioDeviceSelection) {
        let session = AVAudioSession.sharedInstance()
        session.lock.lock()
        let active = session._active
        let preferredInput = session._preferredInput?.uid
        session.lock.unlock()
        guard active, sharesSessionBackend(selection) else { return }
        session.applyPreferences(to: &request)
        if let preferredInput, let input = try? AudioDeviceSelection(parsing: preferredInput),
           case .pulse(_, let source?, let server) = input {
            switch selection {
            case .pulse(let sink, nil, server): selection = .pulse(sink: sink, source: source, server: server)
            case .automatic where server == nil: selection = .pulse(sink: nil, source: source, server: nil)
            default: break
            }
        }
    }
}

/// Watches the session's devices while the session is active, on one thread:
///
/// * PulseAudio (every 250 ms): route changes, the server going away and coming back, and, while
///   the output is muted, the user's hint to unmute (AVAudioSession+OutputMute.swift).
/// * ALSA (every 500 ms): sound cards arriving and leaving, read from /proc/asound/cards.
///   Polling rather than inotify: procfs files send no inotify events, and an inotify watch on
///   /dev/snd would need its own descriptor and wake-up path for what a half-second read of a
///   file under 1 KB answers (the kernel builds it from its card table; no device is opened).
///   Only when the list changes are the PCMs enumerated again.
///
/// Either watcher also posts `availableInputsChangeNotification` when the set of capture devices
/// (what `availableInputs` lists) changed, after any route change it caused.
///
/// The null device and JACK are not watched.
final class SessionDeviceMonitor: @unchecked Sendable {
    private let stopped = NSCondition()
    private var stopRequested = false
    private var thread: Thread?

    init(session: AVAudioSession, initial: SessionDeviceSnapshot) {
        let selection = session.resolvedSelection
        var watch = false, alsa = false
        if case .pulse = selection { watch = true }
        if case .automatic = selection, initial.output?.backend == "pulse" { watch = true }
        if case .alsa = selection { alsa = true }
        if case .automatic = selection, initial.output?.backend == "alsa" { alsa = true }
        if alsa {
            startThread(watchingCardsFor: session, selection: selection, initial: initial)
            return
        }
        guard watch else { return }
        let thread = Thread { [weak session, self] in
            var last = initial
            var lastRoute = session.map { $0.route(initial, selection: selection, category: $0.category) }
            var interrupted = !initial.reachable
            while true {
                self.stopped.lock()
                if !self.stopRequested { _ = self.stopped.wait(until: Date().addingTimeInterval(0.25)) }
                let stop = self.stopRequested
                self.stopped.unlock()
                guard !stop, let session else { return }
                let now = session.routeSnapshot(selection)
                if !now.reachable {
                    if !interrupted {
                        interrupted = true
                        session.systemInterruptionBegan()
                    }
                    continue
                }
                let resumed = interrupted
                if interrupted {
                    interrupted = false
                    session.systemInterruptionEnded()
                }
                // A server that came back restores its devices' volumes: no gesture of the user.
                if !resumed, session.isOutputMuted, let before = last.output, let after = now.output,
                   AVAudioSession.hintsToUnmute(from: before, to: after) {
                    session.postUserIntentToUnmuteOutput()
                }
                let route = session.route(now, selection: selection, category: session.category)
                let oldIDs = Set(last.devices.map(\.selector)), newIDs = Set(now.devices.map(\.selector))
                // A device appearing or leaving updates the devices (availableInputs) even when the route stays.
                if oldIDs != newIDs || lastRoute.map({ $0 != route }) == true { session.storeDevices(now) }
                if let previous = lastRoute, previous != route {
                    let lostOld = (previous.outputs + previous.inputs).contains { port in
                        !now.devices.contains { session.portUID($0, selection: selection, asInput: port.uid.hasPrefix("pulse::")) == port.uid }
                    }
                    let reason: AVAudioSession.RouteChangeReason = lostOld ? .oldDeviceUnavailable
                        : !newIDs.subtracting(oldIDs).isEmpty ? .newDeviceAvailable : .routeConfigurationChange
                    session.postRouteChange(reason, previous: previous)
                }
                if AVAudioSession.inputSet(last.devices) != AVAudioSession.inputSet(now.devices) { session.postAvailableInputsChange() }
                last = now
                lastRoute = route
            }
        }
        thread.name = "AVAudioSession monitor"
        self.thread = thread
        thread.start()
    }

    /// Waits up to `seconds` for `stop()`; true when stopped.
    private func sleep(_ seconds: TimeInterval) -> Bool {
        stopped.lock()
        if !stopRequested { _ = stopped.wait(until: Date().addingTimeInterval(seconds)) }
        let stop = stopRequested
        stopped.unlock()
        return stop
    }

    /// The ALSA watcher: posts `newDeviceAvailable` when a card appears in /proc/asound/cards and
    /// `oldDeviceUnavailable` when one leaves (when both happen between two reads, one
    /// `oldDeviceUnavailable`: what was in use may have gone), with the route before the change as
    /// the previous route, after storing the re-enumerated devices in the session's snapshot.
    ///
    /// Jacks: it also keeps the control devices of the route's PCMs open (`ALSAJackMonitor`) and
    /// waits on their events instead of sleeping, so headphones or a microphone plugged into the
    /// card are seen at once: when a jack's change changes the route (the output becomes
    /// headphones, the input a headset microphone, or back), it posts `newDeviceAvailable` for a
    /// plug and `oldDeviceUnavailable` for an unplug, as Apple does for wired headphones.
    private func startThread(watchingCardsFor session: AVAudioSession, selection: AudioDeviceSelection, initial: SessionDeviceSnapshot) {
        let initialCards = Set(AudioDevices.alsaCards())   // read now: a card arriving after activation is a change
        let initialJacks = Self.jackMonitors(for: initial)  // likewise for a jack
        let thread = Thread { [weak session, self] in
            var cards = initialCards
            var jacks = initialJacks
            var lastInputs = AVAudioSession.inputSet(initial.devices)
            // The devices as last posted; routes are compared under the category of the moment
            // (a category change alone is not a device change; setCategory posts its own).
            var last = initial
            // The control device of the output's PCM (its level is the output's volume).
            var outputControl = initial.output.flatMap { AudioDevices.alsaControlName(forPCM: $0.id) }
            while true {
                var unplugged = false, jackChanged = false, unmuteHint = false
                var level: (volume: Double?, muted: Bool?)?
                if jacks.isEmpty {
                    guard !self.sleep(0.5) else { return }
                } else {
                    guard !self.sleep(0) else { return }
                    for monitor in jacks {
                        let before = monitor.jacks, volume = monitor.outputVolume, muted = monitor.outputMuted
                        guard monitor.waitForChange(timeout: 0.5 / Double(jacks.count)) else { continue }
                        if monitor.jacks != before {
                            jackChanged = true
                            unplugged = unplugged || zip(before, monitor.jacks).contains { $0.isPluggedIn && !$1.isPluggedIn }
                        }
                        // The output card's volume raised or its switch turned on: the user's hint
                        // to unmute, by the rule the PulseAudio watcher applies to its sink.
                        if monitor.control == outputControl, var old = last.output {
                            var new = old
                            old.volume = volume; old.isMuted = muted
                            new.volume = monitor.outputVolume; new.isMuted = monitor.outputMuted
                            unmuteHint = unmuteHint || AVAudioSession.hintsToUnmute(from: old, to: new)
                            if monitor.outputVolume != volume || monitor.outputMuted != muted {
                                level = (monitor.outputVolume, monitor.outputMuted)
                            }
                        }
                    }
                    jacks.removeAll { $0.isBroken }   // (a card gone: the cards file says so next)
                    // (stopped while waiting: a jack that changed since is not this session's news)
                    guard !self.sleep(0) else { return }
                }
                guard let session else { return }
                if let level, let output = last.output {
                    session.storeOutputLevel(selector: output.selector, volume: level.volume, isMuted: level.muted)
                }
                if unmuteHint && session.isOutputMuted { session.postUserIntentToUnmuteOutput() }
                let now = Set(AudioDevices.alsaCards())
                let cardsChanged = now != cards
                guard cardsChanged || jackChanged else { continue }
                let removed = !cards.subtracting(now).isEmpty
                cards = now
                let updated = session.routeSnapshot(selection)
                if cardsChanged { jacks = Self.jackMonitors(for: updated) }
                let category = session.category
                let previous = session.route(last, selection: selection, category: category)
                let route = session.route(updated, selection: selection, category: category)
                // A jack that changes nothing the session describes (a line input while the
                // category only plays) posts nothing.
                guard cardsChanged || route != previous else { continue }
                session.storeDevices(updated)
                last = updated
                outputControl = updated.output.flatMap { AudioDevices.alsaControlName(forPCM: $0.id) }
                let reason: AVAudioSession.RouteChangeReason = cardsChanged
                    ? (removed ? .oldDeviceUnavailable : .newDeviceAvailable)
                    : (unplugged ? .oldDeviceUnavailable : .newDeviceAvailable)
                session.postRouteChange(reason, previous: previous)
                let inputs = AVAudioSession.inputSet(updated.devices)
                if inputs != lastInputs { session.postAvailableInputsChange() }
                lastInputs = inputs
            }
        }
        thread.name = "AVAudioSession ALSA monitor"
        self.thread = thread
        thread.start()
    }

    /// The jack monitors for the control devices of a snapshot's output and input PCMs (one per
    /// control device; none for PCMs without one, or whose card senses no jack).
    private static func jackMonitors(for snapshot: SessionDeviceSnapshot) -> [ALSAJackMonitor] {
        var controls: [String] = []
        for device in [snapshot.output, snapshot.input].compactMap({ $0 }) where device.backend == "alsa" {
            if let control = AudioDevices.alsaControlName(forPCM: device.id), !controls.contains(control) { controls.append(control) }
        }
        return controls.compactMap { ALSAJackMonitor(control: $0) }.filter { $0.isWatching }   // (jacks or a playback level)
    }

    func stop() {
        stopped.lock()
        stopRequested = true
        stopped.signal()
        stopped.unlock()
    }
}

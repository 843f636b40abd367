// AVAudioSession on Linux: the app's audio configuration, backed by the device layer.
//
// Apple's session negotiates with the system (other apps, the phone, the hardware). On Linux the
// sound server (PulseAudio or PipeWire) or ALSA plays the system's part, so:
//
//   * Categories, modes, options and route sharing policies are kept and validated as Apple
//     documents (an option a category does not allow throws paramErr, −50); they do not change
//     how the device layer mixes (a sound server mixes every client; nothing ducks).
//   * Preferences (sample rate, IO buffer duration, channel counts, preferred input) are applied
//     to the devices the app's engines open — every AVAudioEngine, AVAudioPlayer and
//     AVAudioRecorder of the process that uses the session's device — and the read-only values
//     (`sampleRate`, `ioBufferDuration`, latencies, channel counts) are what the device layer
//     actually grants for them (the device is opened with the preferences and read back).
//   * `currentRoute` and `availableInputs` list the real devices (PulseAudio sinks and sources,
//     ALSA PCMs, or the null device) with stable uids (the device selector) and port types
//     from what each device reports — PulseAudio's device properties and active port, the
//     kernel's description of an ALSA card — names only when it reports nothing
//     (AVAudioSession+Devices.swift).
//   * While the session is active, a monitor thread watches the sound server: a route that
//     changes (default device switched, device added or removed) posts `routeChangeNotification`
//     with the reason and the previous route; a server that goes away deactivates the session and
//     posts `interruptionNotification` (began) and `didBecomeInactiveNotification` (a system
//     `DeactivationContext`), and its return posts `interruptionNotification` (ended,
//     `.shouldResume`) and `resumptionRecommendationNotification` (`.shouldResume`); the app
//     reactivates with `setActive(true)`, as after an interruption on Apple's systems.
//     On ALSA it watches /proc/asound/cards: a card arriving posts `newDeviceAvailable`, one
//     leaving `oldDeviceUnavailable`. Either posts `availableInputsChangeNotification` when the
//     capture devices change.
//   * What has no Linux meaning behaves as Apple documents for hardware without it: no data
//     sources, no AirPlay ports, input gain not settable, record permission granted (Linux
//     has no per-app microphone permission), no microphone injection, no other audio known to be
//     playing.
//
// Threading: every property and method may be called from any thread; a lock guards the state,
// and notifications are posted with no lock held, on the monitor's thread or the caller's.
import Foundation
import AudioDevices

open class AVAudioSession: NSObject, @unchecked Sendable {
    private static let shared = AVAudioSession()

    /// The app's audio session.
    open class func sharedInstance() -> AVAudioSession { shared }

    let lock = NSRecursiveLock()
    var _category = Category.soloAmbient
    var _mode = Mode.default
    var _options: CategoryOptions = []
    var _policy = RouteSharingPolicy.default
    var _active = false
    var _preferredSampleRate: Double = 0
    var _preferredIOBufferDuration: TimeInterval = 0
    var _preferredInputChannels = 0
    var _preferredOutputChannels = 0
    var _preferredInput: AVAudioSessionPortDescription?
    var _preferredInputOrientation = StereoOrientation.none
    var _allowHaptics = false
    var _prefersNoInterruptions = false
    var _supportsMultichannel = false
    var _prefersEchoCancelledInput = false
    var _prefersInterruptionOnRouteDisconnect = false
    var _aggregatedIO = IOType.notSpecified
    var _isNowPlayingCandidate = false
    /// visionOS's intended spatial experience (AVAudioSession+SpatialExperience.swift).
    var _intendedSpatialExperience: any AVAudioSessionSpatialExperience =
        HeadTrackedSpatialExperience(soundStageSize: .automatic, anchoringStrategy: .automatic)
    var _microphoneInjectionMode = MicrophoneInjectionMode.none
    var _outputOverride = PortOverride.none
    /// The device-layer selection the session describes (`_setDeviceSelector`; default `AVAUDIO_BACKEND`/automatic).
    var _selection: AudioDeviceSelection?
    var monitor: SessionDeviceMonitor?
    /// The last device snapshot (refreshed on activation, on preference changes and by the monitor).
    var snapshot: SessionDeviceSnapshot?

    private override init() { super.init() }

    // MARK: Category, mode, options

    /// The categories this platform offers.
    open var availableCategories: [Category] { [.ambient, .soloAmbient, .playback, .record, .playAndRecord, .multiRoute] }
    /// The modes this platform offers.
    open var availableModes: [Mode] {
        [.default, .voiceChat, .gameChat, .videoRecording, .measurement, .moviePlayback, .videoChat, .spokenAudio, .voicePrompt, .shortFormVideo, .dualRoute]
    }

    open var category: Category { lock.lock(); defer { lock.unlock() }; return _category }
    open var categoryOptions: CategoryOptions { lock.lock(); defer { lock.unlock() }; return _options }
    open var mode: Mode { lock.lock(); defer { lock.unlock() }; return _mode }
    open var routeSharingPolicy: RouteSharingPolicy { lock.lock(); defer { lock.unlock() }; return _policy }

    open func setCategory(_ category: Category) throws {
        try setCategory(category, mode: mode, policy: routeSharingPolicy, options: [])
    }
    open func setCategory(_ category: Category, options: CategoryOptions = []) throws {
        try setCategory(category, mode: mode, policy: routeSharingPolicy, options: options)
    }
    open func setCategory(_ category: Category, mode: Mode, options: CategoryOptions = []) throws {
        try setCategory(category, mode: mode, policy: .default, options: options)
    }

    /// Sets category, mode, route sharing policy and options together. Throws paramErr (−50) in
    /// NSOSStatusErrorDomain for an unknown category or mode, or an option the category does not
    /// allow (rules from the CategoryOptions reference: mixWithOthers, duckOthers and
    /// interruptSpokenAudioAndMixWithOthers need playAndRecord, playback or multiRoute;
    /// allowBluetooth needs record or playAndRecord (or multiRoute in the dualRoute mode); defaultToSpeaker, allowBluetoothA2DP and
    /// allowAirPlay need playAndRecord; from AVAudioSessionTypes.h: the dualRoute mode needs the
    /// multiRoute category and allowBluetoothHFP, farFieldInput needs allowBluetoothHFP and a
    /// category with input — playAndRecord, record, or multiRoute in the dualRoute mode. The header
    /// says these "will return an error" without naming it: paramErr, as for the other rules).
    open func setCategory(_ category: Category, mode: Mode, policy: RouteSharingPolicy, options: CategoryOptions = []) throws {
        guard availableCategories.contains(category) || category == .audioProcessing else {
            throw AVAudioSession.error(.badParam, "unknown audio session category \(category.rawValue)")
        }
        guard availableModes.contains(mode) else { throw AVAudioSession.error(.badParam, "unknown audio session mode \(mode.rawValue)") }
        let mixing: Set<Category> = [.playAndRecord, .playback, .multiRoute]
        let rules: [(CategoryOptions, Set<Category>, String)] = [
            (.mixWithOthers, mixing, "mixWithOthers"), (.duckOthers, mixing, "duckOthers"),
            (.interruptSpokenAudioAndMixWithOthers, mixing, "interruptSpokenAudioAndMixWithOthers"),
            (.allowBluetooth, [.record, .playAndRecord], "allowBluetooth"),
            (.defaultToSpeaker, [.playAndRecord], "defaultToSpeaker"),
            (.allowBluetoothA2DP, [.playAndRecord], "allowBluetoothA2DP"), (.allowAirPlay, [.playAndRecord], "allowAirPlay"),
        ]
        // (the dualRoute mode requires allowBluetoothHFP in multiRoute, so that category takes it there)
        let bluetoothInDualRoute = category == .multiRoute && mode == .dualRoute
        for (option, allowed, name) in rules where options.contains(option) && !allowed.contains(category)
            && !(option == .allowBluetooth && bluetoothInDualRoute) {
            throw AVAudioSession.error(.badParam, "the category option \(name) is not allowed with \(category.rawValue)")
        }
        if mode == .dualRoute && (category != .multiRoute || !options.contains(.allowBluetoothHFP)) {
            throw AVAudioSession.error(.badParam, "the dualRoute mode needs the multiRoute category and the allowBluetoothHFP option")
        }
        if options.contains(.farFieldInput) {
            let input = category == .playAndRecord || category == .record || (category == .multiRoute && mode == .dualRoute)
            guard input, options.contains(.allowBluetoothHFP) else {
                throw AVAudioSession.error(.badParam, "the category option farFieldInput needs allowBluetoothHFP and playAndRecord, record, or multiRoute with the dualRoute mode")
            }
        }
        lock.lock()
        let changed = _category != category
        let previous = changed ? currentRouteLocked() : nil
        _category = category
        _mode = mode
        _policy = policy
        _options = options
        lock.unlock()
        if let previous { postRouteChange(.categoryChange, previous: previous) }
        unmuteIfUnsupported(category: category, mode: mode)
    }

    open func setMode(_ mode: Mode) throws {
        try setCategory(category, mode: mode, policy: routeSharingPolicy, options: categoryOptions)
    }

    /// Routes output to the built-in speaker (`.speaker`, playAndRecord only, as Apple documents)
    /// or back (`.none`). Linux devices have no receiver/speaker pair: the route stays the default
    /// output, and the override is remembered.
    open func overrideOutputAudioPort(_ portOverride: PortOverride) throws {
        lock.lock(); defer { lock.unlock() }
        if portOverride == .speaker && _category != .playAndRecord {
            throw AVAudioSession.error(.badParam, "overrideOutputAudioPort(.speaker) needs the playAndRecord category (the category is \(_category.rawValue))")
        }
        _outputOverride = portOverride
    }

    open func setAllowHapticsAndSystemSoundsDuringRecording(_ inValue: Bool) throws { lock.lock(); _allowHaptics = inValue; lock.unlock() }
    open var allowHapticsAndSystemSoundsDuringRecording: Bool { lock.lock(); defer { lock.unlock() }; return _allowHaptics }
    open func setPrefersNoInterruptionsFromSystemAlerts(_ inValue: Bool) throws { lock.lock(); _prefersNoInterruptions = inValue; lock.unlock() }
    open var prefersNoInterruptionsFromSystemAlerts: Bool { lock.lock(); defer { lock.unlock() }; return _prefersNoInterruptions }
    open func setSupportsMultichannelContent(_ inValue: Bool) throws { lock.lock(); _supportsMultichannel = inValue; lock.unlock() }
    open var supportsMultichannelContent: Bool { lock.lock(); defer { lock.unlock() }; return _supportsMultichannel }
    open func setPrefersEchoCancelledInput(_ value: Bool) throws { lock.lock(); _prefersEchoCancelledInput = value; lock.unlock() }
    open var prefersEchoCancelledInput: Bool { lock.lock(); defer { lock.unlock() }; return _prefersEchoCancelledInput }
    /// No Linux device cancels echo in hardware for the session.
    open var isEchoCancelledInputEnabled: Bool { false }
    open var isEchoCancelledInputAvailable: Bool { false }
    open func setPrefersInterruptionOnRouteDisconnect(_ inValue: Bool) throws { lock.lock(); _prefersInterruptionOnRouteDisconnect = inValue; lock.unlock() }
    open var prefersInterruptionOnRouteDisconnect: Bool { lock.lock(); defer { lock.unlock() }; return _prefersInterruptionOnRouteDisconnect }
    open func setAggregatedIOPreference(_ inIOType: IOType) throws { lock.lock(); _aggregatedIO = inIOType; lock.unlock() }
    /// Spatial rendering does not exist here.
    open var renderingMode: RenderingMode { .notApplicable }
    /// The channel layouts the current route supports (iOS 17.2). Apple: "only supported when the
    /// output is routed to ports of type AVAudioSessionPortCarAudio or AVAudioSessionPortAirPlay.
    /// Otherwise, an empty array will be returned" — and no Linux route is either: empty.
    open var supportedOutputChannelLayouts: [AVAudioChannelLayout] { [] }

    /// Whether this session is a now-playing candidate (visionOS 1). Kept and read back: Linux has
    /// no system now-playing arbitration (MPRIS players announce themselves on D-Bus, outside this
    /// library), so the flag changes nothing else.
    open var isNowPlayingCandidate: Bool { lock.lock(); defer { lock.unlock() }; return _isNowPlayingCandidate }
    open func setIsNowPlayingCandidate(_ inValue: Bool) throws { lock.lock(); _isNowPlayingCandidate = inValue; lock.unlock() }

    /// Records the preferred way of injecting the app's audio into other apps' microphone input.
    /// Linux has no system service that mixes one app's audio into another's input, so the
    /// preference is kept and read back but injects nothing (`isMicrophoneInjectionAvailable` is
    /// false, as `AVAudioApplication.microphoneInjectionPermission` is `.serviceDisabled`).
    open func setPreferredMicrophoneInjectionMode(_ inValue: MicrophoneInjectionMode) throws {
        lock.lock(); _microphoneInjectionMode = inValue; lock.unlock()
    }
    open var preferredMicrophoneInjectionMode: MicrophoneInjectionMode { lock.lock(); defer { lock.unlock() }; return _microphoneInjectionMode }
    /// False: no microphone-injection service exists here (see `setPreferredMicrophoneInjectionMode`).
    open var isMicrophoneInjectionAvailable: Bool { false }

    // MARK: Activation

    /// Activates or deactivates the session. Activating reads the device layer (the route and
    /// what the device grants for the preferences) and starts watching it for route changes and
    /// interruptions; deactivating stops watching. Throws when no device can be found
    /// (`cannotStartPlaying`, with the device layer's sentence).
    ///
    /// A change of state posts `didBecomeActiveNotification` (no user info) or
    /// `didBecomeInactiveNotification` (a `DeactivationContext` with source `.app`), on the
    /// caller's thread; activating an active session or deactivating an inactive one posts nothing.
    /// A session the sound server's disappearance deactivated (see AVAudioSession+Devices.swift)
    /// is reactivated by `setActive(true)`, as on Apple's systems after an interruption.
    open func setActive(_ active: Bool, options: SetActiveOptions = []) throws {
        if active {
            let snapshot = try refreshSnapshot()
            lock.lock()
            let wasActive = _active
            _active = true
            if monitor == nil { monitor = SessionDeviceMonitor(session: self, initial: snapshot) }
            lock.unlock()
            if !wasActive {
                NotificationCenter.default.post(name: AVAudioSession.didBecomeActiveNotification, object: self)
                postMessage(DidBecomeActiveMessage())
            }
        } else {
            lock.lock()
            let wasActive = _active
            _active = false
            let monitor = self.monitor
            self.monitor = nil
            lock.unlock()
            monitor?.stop()
            if wasActive { postDidBecomeInactive(DeactivationContext(source: .app, interruptionContext: nil)) }
        }
    }

    /// Activates the session asynchronously (watchOS; iOS, tvOS and visionOS 27); calls `handler`
    /// on a global queue.
    open func activate(options: AVAudioSessionActivationOptions = [], completionHandler handler: @escaping @Sendable (Bool, Error?) -> Void) {
        DispatchQueue.global().async {
            do { try self.setActive(true); handler(true, nil) } catch { handler(false, error) }
        }
    }

    /// Deactivates the session without blocking the caller (iOS 27): `setActive(false)` on a global
    /// queue, then `handler(true, nil)`. Deactivating cannot fail here (it stops watching the
    /// devices), so the handler never receives an error.
    open func deactivate(options: AVAudioSessionDeactivationOptions = [], completionHandler handler: @escaping @Sendable (Bool, Error?) -> Void) {
        DispatchQueue.global().async {
            do { try self.setActive(false, options: SetActiveOptions(rawValue: options.rawValue)); handler(true, nil) } catch { handler(false, error) }
        }
    }

    /// Deactivates the session (iOS 27; the async form of `deactivate(options:completionHandler:)`).
    open func deactivate(options: AVAudioSessionDeactivationOptions = []) async throws -> Bool {
        try setActive(false, options: SetActiveOptions(rawValue: options.rawValue))
        return true
    }

    /// `didBecomeInactiveNotification` with `context` under `deactivationContextKey`.
    func postDidBecomeInactive(_ context: DeactivationContext) {
        NotificationCenter.default.post(name: AVAudioSession.didBecomeInactiveNotification, object: self,
                                        userInfo: [AVAudioSession.deactivationContextKey: context])
        postMessage(DidBecomeInactiveMessage(context))
    }

    // MARK: Permission and hints

    /// Linux has no per-app microphone permission: always granted.
    open var recordPermission: RecordPermission { .granted }
    /// Calls `response(true)` (on a global queue; Apple calls it on an arbitrary queue).
    open func requestRecordPermission(_ response: @escaping @Sendable (Bool) -> Void) {
        DispatchQueue.global().async { response(true) }
    }
    /// Whether another app is playing. Through PulseAudio (or pipewire-pulse): whether another
    /// process has a playback stream on the session's server that is not paused (corked). With
    /// ALSA, JACK or the null device there is no list of other players: false, as Apple reports
    /// when nothing else plays.
    open var isOtherAudioPlaying: Bool { otherAudioIsPlaying() }
    open var secondaryAudioShouldBeSilencedHint: Bool { false }
    /// The prompt style for a voice-prompting app: normal (nothing else is recording).
    open var promptStyle: PromptStyle { .normal }

    static func error(_ code: ErrorCode, _ sentence: String) -> NSError {
        NSError(domain: NSOSStatusErrorDomain, code: code.rawValue, userInfo: [NSLocalizedDescriptionKey: "AVAudioSession: \(sentence)"])
    }
}

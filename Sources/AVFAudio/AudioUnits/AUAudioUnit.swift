// AUAudioUnit: the v3 audio unit — the object that owns a unit's DSP, its busses, parameters,
// presets and render block — and the process-wide registry of subclasses.
//
// DESIGN NOTE — who owns what, and how a cycle reaches a unit's DSP
// -----------------------------------------------------------------
// * An `AUAudioUnit` owns its DSP. Clients subclass it as on Apple platforms: override
//   `inputBusses`/`outputBusses`, `parameterTree`, `allocateRenderResources()` and
//   `internalRenderBlock`, register the class with `registerSubclass(_:as:name:version:)`, and
//   instantiate it with `AUAudioUnit.instantiate(with:options:completionHandler:)` or
//   `AVAudioUnit.instantiate(...)`.
// * `AVAudioUnit` is a node wrapping any `AUAudioUnit`. For a client unit its render object is an
//   `AUAudioUnitNodeRenderer` (AUAudioUnit+Engine.swift): when the engine compiles a plan it sets
//   the unit's bus formats to the connections' and `maximumFramesToRender` to the engine's cycle
//   size and allocates render resources (control side); each cycle it calls the unit's
//   `renderBlock` with an AudioBufferList over the plan's output buffer, a pull-input block over
//   the node's input buffer, and a time stamp whose sample time is the node's.
// * `renderBlock` (what hosts call) wraps `internalRenderBlock` (what units implement): it takes
//   the events due in this cycle from the unit's `RenderEventScheduler` (RenderEventScheduler.swift)
//   and hands them to the internal block as Apple's `AURenderEvent` linked list, in time order.
//   `scheduleParameterBlock` and `scheduleMIDIEventBlock` push into that scheduler from any thread,
//   the render thread included. The built-in effects and time effects share the same scheduler
//   type: their render objects own one, and their `AUAudioUnit` schedules into it.
// * The render side allocates nothing, locks nothing, and calls no Objective-C-style dynamic
//   lookup: the internal render block is fetched once, when render resources are allocated.
import Synchronization

/// The audio unit behind an AVAudioUnit, and the class v3 audio units subclass.
open class AUAudioUnit: NSObject {
    private let storedDescription: AudioComponentDescription
    /// The scheduler every timed event of this unit goes through (shared with the render object
    /// of a built-in unit).
    private(set) var eventScheduler: RenderEventScheduler
    /// The node of a built-in unit (BuiltInAudioUnit.swift: its latency, tail, bypass and
    /// parameters live there).
    weak var owner: AVAudioUnit?
    /// What the render block needs, reachable without the unit (no retain cycle, no lookup).
    let renderContext: AURenderContext
    private var _parameterTree: AUParameterTree?
    // 1024: the default Apple documents for kAudioUnitProperty_MaximumFramesPerSlice, which this
    // property is bridged to (the v3 default itself is not documented).
    private var _maximumFramesToRender: AUAudioFrameCount = 1024
    /// (internal: the engine reads it while compiling a plan, without calling an override)
    private(set) var _renderResourcesAllocated = false
    private var _shouldBypassEffect = false
    var currentPresetStorage: AUAudioUnitPreset?
    /// Why the last `fullState` assignment was refused (for `AVAudioUnit.loadPreset(at:)`).
    var lastStateError: Error?
    private lazy var emptyInputBusses = AUAudioUnitBusArray(audioUnit: self, busType: .input)
    private lazy var emptyOutputBusses = AUAudioUnitBusArray(audioUnit: self, busType: .output)

    /// Creates the unit for a component description. Subclasses override this initializer (and
    /// call it) to build their busses and parameter tree.
    public init(componentDescription: AudioComponentDescription, options: AudioComponentInstantiationOptions = []) throws {
        storedDescription = componentDescription
        // Units that take MIDI get slots for system-exclusive messages and MIDI event lists.
        let takesMIDI = [kAudioUnitType_MusicDevice, kAudioUnitType_MusicEffect, kAudioUnitType_MIDIProcessor]
            .contains(componentDescription.componentType)
        eventScheduler = RenderEventScheduler(payloadSlots: takesMIDI ? 32 : 0)
        renderContext = AURenderContext(scheduler: eventScheduler)
        super.init()
    }

    /// Creates the unit with no options.
    public convenience init(componentDescription: AudioComponentDescription) throws {
        try self.init(componentDescription: componentDescription, options: [])
    }

    /// Instantiation through the registry: dispatches to the registered class's override of
    /// `init(componentDescription:options:)` (a convenience initializer is inherited by every
    /// subclass that overrides that designated initializer, or declares none).
    public required convenience init(__registeredComponentDescription componentDescription: AudioComponentDescription,
                                     options: AudioComponentInstantiationOptions) throws {
        try self.init(componentDescription: componentDescription, options: options)
    }

    /// Uses a render object's scheduler (built-in units) instead of the unit's own.
    func adopt(_ scheduler: RenderEventScheduler) {
        eventScheduler = scheduler
        renderContext.scheduler = scheduler
    }

    // MARK: Identity

    /// The component this unit was created for.
    open var componentDescription: AudioComponentDescription { storedDescription }

    /// "Manufacturer: Name", as registered (or Apple's name of a built-in unit).
    open var componentName: String? { AUAudioUnit.registration(for: storedDescription)?.name }

    /// The unit's name (the part of `componentName` after the colon).
    open var audioUnitName: String? {
        guard let name = componentName else { return nil }
        return name.split(separator: ":", maxSplits: 1).last.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The manufacturer's name (the part of `componentName` before the colon).
    open var manufacturerName: String? {
        guard let name = componentName, name.contains(":") else { return nil }
        return name.split(separator: ":", maxSplits: 1).first.map { String($0).trimmingCharacters(in: .whitespaces) }
    }

    /// A short name for display (nil: none).
    open var audioUnitShortName: String? { nil }

    /// The component's version, as registered.
    open var componentVersion: UInt32 { AUAudioUnit.registration(for: storedDescription)?.version ?? 0 }

    // MARK: Busses and render resources

    /// The input busses (none unless a subclass provides them).
    open var inputBusses: AUAudioUnitBusArray { emptyInputBusses }
    /// The output busses (none unless a subclass provides them).
    open var outputBusses: AUAudioUnitBusArray { emptyOutputBusses }

    /// The most frames one render call may ask for. Set it before allocating render resources;
    /// changing it while they are allocated is a programmer error.
    open var maximumFramesToRender: AUAudioFrameCount {
        get { _maximumFramesToRender }
        set {
            precondition(!_renderResourcesAllocated || newValue == _maximumFramesToRender,
                         "\(type(of: self)).maximumFramesToRender: cannot change while render resources are allocated")
            _maximumFramesToRender = newValue
        }
    }

    /// Prepares for rendering: subclasses allocate their DSP memory here (calling super first).
    /// Throws `kAudioUnitErr_FormatNotSupported` when a bus is disabled or an output's channel
    /// count is zero, and fetches the internal render block.
    open func allocateRenderResources() throws {
        for bus in outputBusses where bus.format.channelCount == 0 {
            throw AUAudioUnit.error(kAudioUnitErr_FormatNotSupported, "\(type(of: self)): output bus \(bus.index) has no channels")
        }
        renderContext.internalRenderBlock = internalRenderBlock
        renderContext.maximumFrames = Int(_maximumFramesToRender)
        renderContext.sampleRate = outputBusses.count > 0 ? outputBusses[0].format.sampleRate
            : (inputBusses.count > 0 ? inputBusses[0].format.sampleRate : 44_100)
        _renderResourcesAllocated = true
    }

    /// Releases what `allocateRenderResources()` allocated (subclasses call super).
    open func deallocateRenderResources() {
        _renderResourcesAllocated = false
    }

    /// Whether render resources are allocated.
    open var renderResourcesAllocated: Bool { _renderResourcesAllocated }

    /// For subclasses that manage render resources themselves.
    open func setRenderResourcesAllocated(_ flag: Bool) { _renderResourcesAllocated = flag }

    /// Clears DSP state (delay lines, filter memories) and drops scheduled events.
    open func reset() {}

    /// Whether the unit accepts `format` on a bus (`setFormat` asks before changing it).
    open func shouldChange(to format: AVAudioFormat, for bus: AUAudioUnitBus) -> Bool { true }

    /// Whether the unit can render into the buffer its input is in.
    open var canProcessInPlace: Bool { false }

    /// Whether the host renders faster or slower than real time.
    open var isRenderingOffline: Bool = false

    /// Channel-count pairs the unit supports (nil: any, output count = input count).
    open var channelCapabilities: [NSNumber]? { nil }

    /// Input-to-output channel map (nil: identity).
    open var channelMap: [NSNumber]?

    /// A name the host gives the unit's context (a track name).
    open var contextName: String?

    // MARK: Rendering

    /// The block that renders the unit, implemented by subclasses. Fetched once, when render
    /// resources are allocated; called on the render thread (no allocation, locks or I/O). The
    /// base class's block outputs nothing and returns `kAudioUnitErr_Uninitialized`.
    open var internalRenderBlock: AUInternalRenderBlock {
        return { _, _, _, _, _, _, _ in kAudioUnitErr_Uninitialized }
    }

    /// What hosts call to render: the events due in the cycle (scheduled with
    /// `scheduleParameterBlock`/`scheduleMIDIEventBlock`) are handed to `internalRenderBlock` as
    /// a time-ordered list. Returns `kAudioUnitErr_Uninitialized` before render resources are
    /// allocated and `kAudioUnitErr_TooManyFramesToProcess` beyond `maximumFramesToRender`.
    open var renderBlock: AURenderBlock {
        let context = renderContext
        return { flags, timestamp, frames, bus, output, pullInput in
            context.render(flags, timestamp, frames, bus, output, pullInput)
        }
    }

    /// Adds a block called before and after each render of the unit (with
    /// `.unitRenderAction_PreRender`, then `.unitRenderAction_PostRender`), on the render thread;
    /// returns a token for `removeRenderObserver(_:)`.
    open func token(byAddingRenderObserver observer: @escaping AURenderObserver) -> Int {
        renderContext.addObserver(observer)
    }

    /// Removes a render observer.
    open func removeRenderObserver(_ token: Int) {
        renderContext.removeObserver(token)
    }

    // MARK: Parameters and events

    /// The unit's parameters (nil: none).
    open var parameterTree: AUParameterTree? {
        get { _parameterTree }
        set { _parameterTree = newValue }
    }

    /// The parameters a host should show in a small view (the first `count` by default).
    open func parametersForOverview(withCount count: Int) -> [NSNumber] {
        (parameterTree?.allParameters.prefix(max(0, count)) ?? []).map { NSNumber(value: $0.address) }
    }

    /// Whether every parameter's value changes when a preset is loaded (notify all).
    open var allParameterValues: Bool { false }

    /// Schedules a parameter change at an exact sample of the unit's render timeline
    /// (`AUEventSampleTimeImmediate` + n: n frames into the next cycle), optionally ramping over
    /// `rampDurationSampleFrames` frames. Real-time safe: may be called from a render thread.
    open var scheduleParameterBlock: AUScheduleParameterBlock {
        let scheduler = eventScheduler
        guard let owner else {
            return { time, ramp, address, value in scheduler.schedule(address: address, value: value, at: time, ramp: ramp) }
        }
        // Built-in units: the parameter object takes the value too (their façades read it).
        return { [weak owner] time, ramp, address, value in
            scheduler.schedule(address: address, value: value, at: time, ramp: ramp)
            if let p = owner?.parameterByAddress[address] { p.setStoredValue(Swift.min(p.maxValue, Swift.max(p.minValue, value))) }
        }
    }

    /// Whether the unit takes MIDI (music devices, music effects, MIDI processors).
    open var isMusicDeviceOrEffect: Bool {
        [kAudioUnitType_MusicDevice, kAudioUnitType_MusicEffect, kAudioUnitType_MIDIProcessor].contains(storedDescription.componentType)
    }

    /// The number of virtual MIDI cables the unit takes (1 for MIDI-capable units).
    open var virtualMIDICableCount: Int { isMusicDeviceOrEffect ? 1 : 0 }

    /// Schedules MIDI 1.0 data at a sample time, from any thread (nil for units that take no MIDI):
    /// one or more complete messages (no running status), or one system-exclusive message
    /// (`F0 … F7`) alone, as Apple's `AUScheduleMIDIEventBlock` documents. Each message reaches
    /// the unit's render event list as `.MIDI` (system exclusive as `.midiSysEx`, its bytes
    /// continuing past `data` as in Apple's `AUMIDIEvent`). Data that is not that — a stray data
    /// byte, a truncated message, a system-exclusive message longer than about 1,000 bytes — is
    /// dropped and counted, never blocking.
    open var scheduleMIDIEventBlock: AUScheduleMIDIEventBlock? {
        guard isMusicDeviceOrEffect else { return nil }
        let scheduler = eventScheduler
        return { time, cable, length, bytes in
            guard length > 0 else { return }
            if bytes[0] == 0xF0 {
                scheduler.pushSysEx(at: time, cable: cable, bytes: bytes, length: length)
                return
            }
            var i = 0
            while i < length {
                let size = midiMessageLength(status: bytes[i])
                guard size > 0, i + size <= length else { scheduler.dropped.add(1, ordering: .relaxed); return }
                var r = RenderEventRequest(time: time, type: .MIDI)
                r.cable = cable
                r.length = UInt8(size)
                r.bytes = (bytes[i], size > 1 ? bytes[i + 1] : 0, size > 2 ? bytes[i + 2] : 0)
                scheduler.push(r)
                i += size
            }
        }
    }

    /// Schedules a MIDI event list (Universal MIDI Packets, MIDI 1.0 or 2.0 protocol) at a sample
    /// time, from any thread (nil for units that take no MIDI). The unit receives it in its render
    /// event list as `.midiEventList` (copied: the caller's list may go away at once). Returns
    /// `noErr`, or `kAudioUnitErr_CannotDoInCurrentContext` when it cannot be queued (a list larger
    /// than a payload slot — more than three full packets — or too many pending), counted as dropped.
    open var scheduleMIDIEventListBlock: AUMIDIEventListBlock? {
        guard isMusicDeviceOrEffect else { return nil }
        let scheduler = eventScheduler
        return { time, cable, list in
            scheduler.pushEventList(at: time, cable: cable, list: list) ? noErr : kAudioUnitErr_CannotDoInCurrentContext
        }
    }

    /// The MIDI protocol the unit prefers for `scheduleMIDIEventListBlock` (MIDI 1.0 unless a
    /// subclass says otherwise, as Apple's default).
    open var audioUnitMIDIProtocol: MIDIProtocolID { ._1_0 }

    /// The MIDI protocol the host sends with (set by the host before allocating render resources).
    open var hostMIDIProtocol: MIDIProtocolID = ._1_0

    /// Where the unit sends the MIDI event lists it produces (set by the host).
    open var midiOutputEventListBlock: AUMIDIEventListBlock?

    /// Names of the unit's MIDI outputs.
    open var midiOutputNames: [String] { [] }

    /// Where the unit sends the MIDI it produces (set by the host).
    open var midiOutputEventBlock: AUMIDIOutputEventBlock?

    /// The host's tempo and beat position (set by the host; the unit caches it before rendering).
    open var musicalContextBlock: AUHostMusicalContextBlock?

    /// The host's transport state (set by the host).
    open var transportStateBlock: AUHostTransportStateBlock?

    // MARK: Latency, tail, bypass

    /// Processing latency in seconds.
    open var latency: TimeInterval { 0 }

    /// How long the unit keeps producing output after its input falls silent, in seconds.
    open var tailTime: TimeInterval { 0 }

    /// Whether the effect is bypassed (units that implement bypass read it in their render block).
    open var shouldBypassEffect: Bool {
        get { _shouldBypassEffect }
        set { _shouldBypassEffect = newValue }
    }

    /// Whether the unit draws its own view.
    open var providesUserInterface: Bool { false }

    // MARK: Presets and state (AUAudioUnit+Presets.swift has the dictionary layout)

    /// The unit's factory presets (nil: none).
    open var factoryPresets: [AUAudioUnitPreset]? { nil }

    /// The preset last selected or loaded (nil: none). Subclasses override the setter to load a
    /// factory preset's values.
    open var currentPreset: AUAudioUnitPreset? {
        get { currentPresetStorage }
        set { currentPresetStorage = newValue }
    }

    /// The unit's state as an `.aupreset` dictionary: component codes, version, name and the
    /// parameter values ("data"). Setting it restores the values; a dictionary for another
    /// component, or malformed data, is ignored (as a property set that fails).
    open var fullState: [String: Any]? {
        get { makeFullState() }
        set {
            guard let newValue else { return }
            do { try applyFullState(newValue) } catch { lastStateError = error }
        }
    }

    /// The state a host saves in its document (the same as `fullState` unless a subclass differs).
    open var fullStateForDocument: [String: Any]? {
        get { fullState }
        set { fullState = newValue }
    }

    /// Whether the unit saves user presets (not here: presets are files the host keeps).
    open var supportsUserPresets: Bool { false }

    /// The user presets (none).
    open var userPresets: [AUAudioUnitPreset] { [] }

    /// Saves a user preset: not supported (throws `kAudioUnitErr_InvalidProperty`).
    open func saveUserPreset(_ userPreset: AUAudioUnitPreset) throws {
        throw AUAudioUnit.error(kAudioUnitErr_InvalidProperty, "\(type(of: self)) does not store user presets; save fullState instead")
    }

    /// Deletes a user preset: not supported (throws `kAudioUnitErr_InvalidProperty`).
    open func deleteUserPreset(_ userPreset: AUAudioUnitPreset) throws {
        throw AUAudioUnit.error(kAudioUnitErr_InvalidProperty, "\(type(of: self)) does not store user presets")
    }

    /// The state of a user preset: not supported (throws `kAudioUnitErr_InvalidProperty`).
    open func presetState(for userPreset: AUAudioUnitPreset) throws -> [String: Any] {
        throw AUAudioUnit.error(kAudioUnitErr_InvalidProperty, "\(type(of: self)) does not store user presets")
    }

    // MARK: Errors

    static func error(_ status: OSStatus, _ sentence: String) -> NSError {
        NSError(domain: NSOSStatusErrorDomain, code: Int(status), userInfo: [NSLocalizedDescriptionKey: sentence])
    }
}

/// What the render block of a unit works with, kept apart from the unit so the block holds no
/// reference to it. Written on the control side while render resources are (re)allocated.
final class AURenderContext {
    var scheduler: RenderEventScheduler
    var internalRenderBlock: AUInternalRenderBlock?
    var maximumFrames = 1024
    var sampleRate: Double = 44_100

    /// Render observers, as an immutable list the render thread reads through an atomic pointer.
    /// A replaced list is kept until the context goes (the render thread may still be reading
    /// it; lists are small and change rarely), so nothing is freed while rendering.
    final class Observers {
        let entries: [(token: Int, block: AURenderObserver)]
        init(_ entries: [(token: Int, block: AURenderObserver)]) { self.entries = entries }
    }
    private let observers = Atomic<UnsafeMutableRawPointer?>(nil)
    private var observerLists: [Observers] = []
    private var nextToken = 1
    private let observerLock = NSLock()

    init(scheduler: RenderEventScheduler) { self.scheduler = scheduler }

    func addObserver(_ block: @escaping AURenderObserver) -> Int {
        observerLock.lock(); defer { observerLock.unlock() }
        let token = nextToken
        nextToken += 1
        publish((observerLists.last?.entries ?? []) + [(token, block)])
        return token
    }

    func removeObserver(_ token: Int) {
        observerLock.lock(); defer { observerLock.unlock() }
        publish((observerLists.last?.entries ?? []).filter { $0.token != token })
    }

    private func publish(_ entries: [(token: Int, block: AURenderObserver)]) {
        let list = Observers(entries)
        observerLists.append(list)
        observers.store(entries.isEmpty ? nil : Unmanaged.passUnretained(list).toOpaque(), ordering: .releasing)
    }

    @inline(__always)
    private func notify(_ flags: AudioUnitRenderActionFlags, _ timestamp: UnsafePointer<AudioTimeStamp>, _ frames: AUAudioFrameCount, _ bus: Int) {
        guard let raw = observers.load(ordering: .acquiring) else { return }
        Unmanaged<Observers>.fromOpaque(raw)._withUnsafeGuaranteedRef { list in
            var i = 0
            while i < list.entries.count {
                list.entries[i].block(flags, timestamp, frames, bus)
                i += 1
            }
        }
    }

    /// Render thread: the cycle's events as a list, then the unit's internal render block
    /// (with the render observers around it).
    @inline(__always)
    func render(_ flags: UnsafeMutablePointer<AudioUnitRenderActionFlags>, _ timestamp: UnsafePointer<AudioTimeStamp>,
                _ frames: AUAudioFrameCount, _ bus: Int, _ output: UnsafeMutablePointer<AudioBufferList>,
                _ pullInput: AURenderPullInputBlock?) -> AUAudioUnitStatus {
        guard let block = internalRenderBlock else { return kAudioUnitErr_Uninitialized }
        guard Int(frames) <= maximumFrames else { return kAudioUnitErr_TooManyFramesToProcess }
        let start = Int64(timestamp.pointee.mSampleTime)
        scheduler.collect(cycleStart: start, hostTime: timestamp.pointee.mHostTime, sampleRate: sampleRate)
        let events = scheduler.eventList(before: start + Int64(frames), cycleStart: start)
        notify(AudioUnitRenderActionFlags(rawValue: flags.pointee.rawValue | AudioUnitRenderActionFlags.unitRenderAction_PreRender.rawValue),
               timestamp, frames, bus)
        let status = block(flags, timestamp, frames, bus, output, events, pullInput)
        var post = flags.pointee.rawValue | AudioUnitRenderActionFlags.unitRenderAction_PostRender.rawValue
        if status != noErr { post |= AudioUnitRenderActionFlags.unitRenderAction_PostRenderError.rawValue }
        notify(AudioUnitRenderActionFlags(rawValue: post), timestamp, frames, bus)
        return status
    }
}

/// Bytes in the MIDI 1.0 message that starts with `status` (0: not a status byte, or a
/// system-exclusive start, which travels on its own).
@inline(__always)
func midiMessageLength(status: UInt8) -> Int {
    switch status {
    case 0x80...0xBF, 0xE0...0xEF: return 3
    case 0xC0...0xDF: return 2
    case 0xF1, 0xF3: return 2
    case 0xF2: return 3
    case 0xF6, 0xF8...0xFF: return 1
    default: return 0   // data bytes, F0 (system exclusive), F4/F5 (undefined), F7 (end of exclusive)
    }
}

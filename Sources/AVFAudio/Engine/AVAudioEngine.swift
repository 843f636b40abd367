// AVAudioEngine: owns a graph of nodes, compiles it into render plans, and runs it — on an output
// device (`start()`), or on demand in manual rendering mode (`renderOffline`, `manualRenderingBlock`).
//
// See RenderCore/RenderPlan.swift for the threading design: every graph change (attach, connect,
// disconnect, detach, taps) recompiles a plan and publishes it atomically, so the graph can be
// edited while the engine runs; the render thread picks the new plan up at the next cycle.
//
//     let engine = AVAudioEngine()
//     let player = AVAudioPlayerNode()
//     engine.attach(player)
//     engine.connect(player, to: engine.mainMixerNode, format: buffer.format)
//     try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 4096)
//     try engine.start()
//     player.scheduleBuffer(buffer)
//     player.play()
//     while engine.manualRenderingSampleTime < total {
//         _ = try engine.renderOffline(4096, to: output)
//     }
import AudioDevices
import Synchronization

/// An object that manages a graph of audio nodes, controls playback, and configures real-time
/// rendering constraints.
open class AVAudioEngine: NSObject {
    /// Serialises control-side graph changes (clients may call from several threads).
    let lock = EngineLock()
    var nodes: [ObjectIdentifier: AVAudioNode] = [:]
    /// Connections keyed by their destination (node, input bus): each input has at most one source.
    var connections: [InputKey: Connection] = [:]
    let exchange = PlanExchange()
    let events = RenderEventQueue()
    /// Admits one render cycle at a time while running (see RenderCore/RenderGate.swift).
    let gate = RenderGate()

    struct InputKey: Hashable {
        let node: ObjectIdentifier
        let bus: AVAudioNodeBus
    }

    struct Connection {
        let source: AVAudioNode
        let sourceBus: AVAudioNodeBus
        let destination: AVAudioNode
        let destinationBus: AVAudioNodeBus
        let format: AVAudioFormat
        /// Made with format nil: the connection follows its source's format when that changes
        /// (the input node's, when manual rendering formats are set).
        var followsSource = false
    }

    // Running state.
    var prepared = false
    /// Whether the engine runs: written under the engine lock, read without it by the manual
    /// rendering block and the players (an atomic: Thread Sanitizer found the plain Bool racing).
    var running: Bool {
        get { runningFlag.load(ordering: .acquiring) }
        set { runningFlag.store(newValue, ordering: .releasing) }
    }
    private let runningFlag = Atomic<Bool>(false)
    /// Set while a thread runs `prepareAudioUnits()` (engine lock).
    var preparingAudioUnits = false
    var device: AudioDevice?
    /// The device selector given to `_setAudioDevice(_:periodFrames:)` (nil: `AVAUDIO_BACKEND`, else automatic).
    var deviceSelector: String?
    /// The period asked of the device, in frames.
    var devicePeriodFrames = 512
    /// The input node exists but the device was opened for output only (it cannot capture).
    var deviceLacksInput = false
    /// The device's captured frames for the cycle in flight (render thread), read by the input node.
    let deviceInput = DeviceInputSlot()
    var dispatcher: EventDispatcher?
    /// The engine's sample time at the output rate (render-thread owned while running).
    var renderSampleTime: Int64 = 0

    // Manual rendering state.
    var manualMode: AVAudioEngineManualRenderingMode?
    var _manualFormat: AVAudioFormat?
    var _manualMaximumFrames: AVAudioFrameCount = 0
    let manualSampleTime = Atomic<Int64>(0)
    var _manualChannelPointers = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: 1)
    let manualSilence: UnsafeMutablePointer<UnsafeMutablePointer<Float>> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 1)
        p.initialize(to: .allocate(capacity: 1))
        return p
    }()

    /// Creates an engine with its output node attached.
    public override init() {
        super.init()
        attachInternal(outputNode)
        // Client code the plan compiler needed (custom audio units' preparation) runs once the
        // editing thread lets go of the lock (AVAudioEngine+AudioUnits.swift).
        lock.afterOutermostUnlock = { [unowned self] in self.prepareAudioUnits() }
    }

    deinit {
        device?.stop()
        dispatcher?.stop()
        exchange.releaseAll()
        _manualChannelPointers.deallocate()
        manualSilence.pointee.deallocate()
        manualSilence.deallocate()
    }

    // MARK: Singleton nodes

    /// The engine's output node: its input is what the device (or manual rendering) receives.
    public private(set) lazy var outputNode: AVAudioOutputNode = AVAudioOutputNode()

    /// The engine's input node, created on first use.
    open var inputNode: AVAudioInputNode {
        lock.lock(); defer { lock.unlock() }
        if let node = _inputNode { return node }
        let node = AVAudioInputNode()
        _inputNode = node
        attachInternal(node)
        inputNodeFormatDidChange()   // created while in manual rendering mode: the manual format
        return node
    }
    var _inputNode: AVAudioInputNode?

    /// The engine's main mixer, created on first use and connected to the output node.
    open var mainMixerNode: AVAudioMixerNode {
        lock.lock(); defer { lock.unlock() }
        if let mixer = _mainMixer { return mixer }
        let mixer = AVAudioMixerNode()
        _mainMixer = mixer
        attachInternal(mixer)
        connect(mixer, to: outputNode, fromBus: 0, toBus: 0, format: outputNode.outputFormat(forBus: 0))
        return mixer
    }
    var _mainMixer: AVAudioMixerNode?

    /// Every attached node.
    open var attachedNodes: Set<AVAudioNode> {
        lock.lock(); defer { lock.unlock() }
        return Set(nodes.values)
    }

    /// Render events (completions, tap notifications) that found the event queue full and were
    /// deferred to a later cycle since the engine was created. None is ever lost; a growing count
    /// means the dispatcher is starved (handlers too slow, or the machine overloaded). Also
    /// reported once per occurrence on standard error. Not part of Apple's API.
    public var _renderEventOverflowCount: Int { events.overflows.load(ordering: .relaxed) }

    /// Whether the engine is running.
    open var isRunning: Bool {
        lock.lock(); defer { lock.unlock() }
        return running
    }

    /// Kept for API compatibility; the null device has no hardware to power down.
    open var isAutoShutdownEnabled = false

    /// The music sequence attached to the engine, if any (Apple: `open var musicSequence:
    /// MusicSequence?`). Stored and returned as given; nothing plays it yet — sequencing (a
    /// MusicSequence driving the engine's MIDI instruments) arrives with the MIDI issue.
    open var musicSequence: MusicSequence? {
        get { lock.lock(); defer { lock.unlock() }; return _musicSequence }
        set { lock.lock(); _musicSequence = newValue; lock.unlock() }
    }
    private var _musicSequence: MusicSequence?

    // MARK: Attaching

    /// Takes ownership of `node`. Attaching a node already attached to this engine does nothing;
    /// a node attached to another engine is a programmer error.
    open func attach(_ node: AVAudioNode) {
        lock.lock(); defer { lock.unlock() }
        attachInternal(node)
    }

    func attachInternal(_ node: AVAudioNode) {
        if node._engine === self { return }
        precondition(node._engine == nil, "AVAudioEngine.attach: \(node) is already attached to another engine")
        node._engine = self
        nodes[ObjectIdentifier(node)] = node
    }

    /// Detaches `node` (disconnecting it first). The engine's own I/O nodes cannot be detached.
    open func detach(_ node: AVAudioNode) {
        lock.lock(); defer { lock.unlock() }
        requireAttached(node, "detach")
        precondition(node !== outputNode && node !== _inputNode, "AVAudioEngine.detach: the engine's \(node.nodeName) cannot be detached")
        disconnectAll(of: node)
        nodes[ObjectIdentifier(node)] = nil
        node._engine = nil
        if node === _mainMixer { _mainMixer = nil }
        graphDidChange()
    }

    func requireAttached(_ node: AVAudioNode, _ operation: String) {
        precondition(node._engine === self, "AVAudioEngine.\(operation): \(node) is not attached to this engine; call attach(_:) first")
    }

    // MARK: Connecting

    /// Connects `node1`'s output bus `bus1` to `node2`'s input bus `bus2` with `format` (nil: the
    /// source bus's current format). Breaks any connection already on `node2`'s input bus.
    open func connect(_ node1: AVAudioNode, to node2: AVAudioNode, fromBus bus1: AVAudioNodeBus, toBus bus2: AVAudioNodeBus, format: AVAudioFormat?) {
        lock.lock(); defer { lock.unlock() }
        connectInternal(node1, fromBus: bus1, to: [(node2, bus2)], format: format, replacingOutputs: false)
        graphDidChange()
    }

    /// Connects bus 0 of `node1` to bus 0 of `node2` — or, when `node2` is a mixer, to its next
    /// available input bus.
    open func connect(_ node1: AVAudioNode, to node2: AVAudioNode, format: AVAudioFormat?) {
        lock.lock(); defer { lock.unlock() }
        let bus = (node2 as? AVAudioMixerNode)?.nextAvailableInputBus ?? 0
        connectInternal(node1, fromBus: 0, to: [(node2, bus)], format: format, replacingOutputs: false)
        graphDidChange()
    }

    /// Connects `sourceBus` of `sourceNode` to every destination in `destNodes` (splitting). Any
    /// existing connection of the source bus not in the list is broken.
    open func connect(_ sourceNode: AVAudioNode, to destNodes: [AVAudioConnectionPoint], fromBus sourceBus: AVAudioNodeBus, format: AVAudioFormat?) {
        lock.lock(); defer { lock.unlock() }
        let destinations: [(AVAudioNode, AVAudioNodeBus)] = destNodes.compactMap { point in
            guard let node = point.node else { return nil }
            return (node, point.bus)
        }
        connectInternal(sourceNode, fromBus: sourceBus, to: destinations, format: format, replacingOutputs: true)
        graphDidChange()
    }

    // MARK: Disconnecting

    /// Removes the connection feeding `node`'s input bus `bus`.
    open func disconnectNodeInput(_ node: AVAudioNode, bus: AVAudioNodeBus) {
        lock.lock(); defer { lock.unlock() }
        removeConnection(InputKey(node: ObjectIdentifier(node), bus: bus))
        graphDidChange()
    }

    /// Removes every connection feeding `node`.
    open func disconnectNodeInput(_ node: AVAudioNode) {
        lock.lock(); defer { lock.unlock() }
        for bus in 0..<node.numberOfInputs { removeConnection(InputKey(node: ObjectIdentifier(node), bus: bus)) }
        graphDidChange()
    }

    /// Removes every connection from `node`'s output bus `bus`.
    open func disconnectNodeOutput(_ node: AVAudioNode, bus: AVAudioNodeBus) {
        lock.lock(); defer { lock.unlock() }
        for (key, connection) in connections where connection.source === node && connection.sourceBus == bus { removeConnection(key) }
        graphDidChange()
    }

    /// Removes every connection from `node`'s outputs.
    open func disconnectNodeOutput(_ node: AVAudioNode) {
        lock.lock(); defer { lock.unlock() }
        for (key, connection) in connections where connection.source === node { removeConnection(key) }
        graphDidChange()
    }

    // MARK: Connection queries

    /// The connection feeding `node`'s input bus `bus`, or nil.
    open func inputConnectionPoint(for node: AVAudioNode, inputBus bus: AVAudioNodeBus) -> AVAudioConnectionPoint? {
        lock.lock(); defer { lock.unlock() }
        guard let c = connections[InputKey(node: ObjectIdentifier(node), bus: bus)] else { return nil }
        return AVAudioConnectionPoint(node: c.source, bus: c.sourceBus)
    }

    /// The connections from `node`'s output bus `bus`.
    open func outputConnectionPoints(for node: AVAudioNode, outputBus bus: AVAudioNodeBus) -> [AVAudioConnectionPoint] {
        lock.lock(); defer { lock.unlock() }
        return connections.values
            .filter { $0.source === node && $0.sourceBus == bus }
            .sorted { ($0.destinationBus, ObjectIdentifier($0.destination).hashValue) < ($1.destinationBus, ObjectIdentifier($1.destination).hashValue) }
            .map { AVAudioConnectionPoint(node: $0.destination, bus: $0.destinationBus) }
    }

    // MARK: MIDI wiring (kept for the MIDI issue)

    var midiConnections: [(source: ObjectIdentifier, destination: ObjectIdentifier)] = []

    /// Records a MIDI connection; MIDI-producing and -consuming nodes arrive with the MIDI issue.
    open func connectMIDI(_ sourceNode: AVAudioNode, to destinationNode: AVAudioNode, format: AVAudioFormat?, block tapBlock: AUMIDIOutputEventBlock? = nil) {
        connectMIDI(sourceNode, to: [destinationNode], format: format, block: tapBlock)
    }

    open func connectMIDI(_ sourceNode: AVAudioNode, to destinationNodes: [AVAudioNode], format: AVAudioFormat?, block tapBlock: AUMIDIOutputEventBlock? = nil) {
        lock.lock(); defer { lock.unlock() }
        requireAttached(sourceNode, "connectMIDI")
        midiConnections.removeAll { $0.source == ObjectIdentifier(sourceNode) }
        for d in destinationNodes {
            requireAttached(d, "connectMIDI")
            midiConnections.append((ObjectIdentifier(sourceNode), ObjectIdentifier(d)))
        }
    }

    open func disconnectMIDI(_ sourceNode: AVAudioNode, from destinationNode: AVAudioNode) {
        disconnectMIDI(sourceNode, from: [destinationNode])
    }

    open func disconnectMIDI(_ sourceNode: AVAudioNode, from destinationNodes: [AVAudioNode]) {
        lock.lock(); defer { lock.unlock() }
        let targets = Set(destinationNodes.map(ObjectIdentifier.init))
        midiConnections.removeAll { $0.source == ObjectIdentifier(sourceNode) && targets.contains($0.destination) }
    }

    open func disconnectMIDIInput(_ node: AVAudioNode) {
        lock.lock(); defer { lock.unlock() }
        midiConnections.removeAll { $0.destination == ObjectIdentifier(node) }
    }

    open func disconnectMIDIOutput(_ node: AVAudioNode) {
        lock.lock(); defer { lock.unlock() }
        midiConnections.removeAll { $0.source == ObjectIdentifier(node) }
    }


    // MARK: Running (implemented in AVAudioEngine+Runtime.swift)

    /// Compiles the graph and allocates what rendering needs, so `start()` is quick.
    open func prepare() { prepareEngine() }

    /// Starts rendering: on the output device, or — in manual rendering mode — enables the render
    /// calls. Throws an `NSError` when no device can be opened.
    open func start() throws { try startEngine() }

    /// Pauses rendering, keeping the graph and node state.
    open func pause() { pauseEngine() }

    /// Stops rendering and releases what `prepare()` allocated.
    open func stop() { stopEngine() }

    /// Resets every node's DSP state.
    open func reset() { resetEngine() }

    open override var description: String {
        lock.lock(); defer { lock.unlock() }
        var lines = ["<AVAudioEngine: \(nodes.count) nodes, \(running ? "running" : "stopped")\(manualMode.map { ", manual \($0)" } ?? "")>"]
        for c in connections.values.sorted(by: { $0.destination.nodeName < $1.destination.nodeName }) {
            lines.append("  \(c.source.nodeName)[\(c.sourceBus)] → \(c.destination.nodeName)[\(c.destinationBus)] \(c.format)")
        }
        return lines.joined(separator: "\n")
    }
}

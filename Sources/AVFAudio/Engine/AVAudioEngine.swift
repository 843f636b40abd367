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
import Synchronization

/// An object that manages a graph of audio nodes, controls playback, and configures real-time
/// rendering constraints.
open class AVAudioEngine: NSObject {
    /// Serialises control-side graph changes (clients may call from several threads).
    let lock = NSRecursiveLock()
    private var nodes: [ObjectIdentifier: AVAudioNode] = [:]
    /// Connections keyed by their destination (node, input bus): each input has at most one source.
    private var connections: [InputKey: Connection] = [:]
    private let exchange = PlanExchange()
    let events = RenderEventQueue()

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
    }

    // Running state.
    private var prepared = false
    private var running = false
    private var device: AudioOutputDevice?
    private var dispatcher: EventDispatcher?
    /// The engine's sample time at the output rate (render-thread owned while running).
    private var renderSampleTime: Int64 = 0

    // Manual rendering state.
    private var manualMode: AVAudioEngineManualRenderingMode?
    private var _manualFormat: AVAudioFormat?
    private var _manualMaximumFrames: AVAudioFrameCount = 0
    private let manualSampleTime = Atomic<Int64>(0)
    private var _manualChannelPointers = UnsafeMutablePointer<UnsafeMutableRawPointer>.allocate(capacity: 1)
    let manualSilence: UnsafeMutablePointer<UnsafeMutablePointer<Float>> = {
        let p = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 1)
        p.initialize(to: .allocate(capacity: 1))
        return p
    }()

    /// Creates an engine with its output node attached.
    public override init() {
        super.init()
        attachInternal(outputNode)
    }

    deinit {
        device?.stop()
        dispatcher?.stop()
        exchange.clear()
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
        return node
    }
    private var _inputNode: AVAudioInputNode?

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
    private var _mainMixer: AVAudioMixerNode?

    /// Every attached node.
    open var attachedNodes: Set<AVAudioNode> {
        lock.lock(); defer { lock.unlock() }
        return Set(nodes.values)
    }

    /// Whether the engine is running.
    open var isRunning: Bool {
        lock.lock(); defer { lock.unlock() }
        return running
    }

    /// Kept for API compatibility; the null device has no hardware to power down.
    open var isAutoShutdownEnabled = false

    /// Not supported yet: sequencing arrives with the MIDI issue. Always nil.
    open var musicSequence: OpaquePointer? { nil }

    // MARK: Attaching

    /// Takes ownership of `node`. Attaching a node already attached to this engine does nothing;
    /// a node attached to another engine is a programmer error.
    open func attach(_ node: AVAudioNode) {
        lock.lock(); defer { lock.unlock() }
        attachInternal(node)
    }

    private func attachInternal(_ node: AVAudioNode) {
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

    private func requireAttached(_ node: AVAudioNode, _ operation: String) {
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

    private func connectInternal(_ source: AVAudioNode, fromBus sourceBus: AVAudioNodeBus, to destinations: [(AVAudioNode, AVAudioNodeBus)],
                                 format: AVAudioFormat?, replacingOutputs: Bool) {
        requireAttached(source, "connect")
        precondition(sourceBus >= 0 && sourceBus < source.numberOfOutputs,
                     "AVAudioEngine.connect: \(source) has \(source.numberOfOutputs) output bus(es); bus \(sourceBus) does not exist")
        let connectionFormat = format ?? source.outputFormat(forBus: sourceBus)
        precondition(connectionFormat.isPCM && connectionFormat.processingSampleType != nil,
                     "AVAudioEngine.connect: \(source) bus \(sourceBus): connection format \(connectionFormat) is not a PCM common format")
        for (destination, bus) in destinations {
            requireAttached(destination, "connect")
            if let mixer = destination as? AVAudioMixerNode { mixer.ensureInputBus(bus) }
            precondition(bus >= 0 && bus < destination.numberOfInputs,
                         "AVAudioEngine.connect: \(destination) has \(destination.numberOfInputs) input bus(es); bus \(bus) does not exist (source \(source) bus \(sourceBus))")
            precondition(!reaches(from: destination, to: source) && destination !== source,
                         "AVAudioEngine.connect: connecting \(source) bus \(sourceBus) to \(destination) bus \(bus) would create a cycle")
            if let reason = destination.willSetInputFormat(connectionFormat, bus: bus) {
                preconditionFailure("AVAudioEngine.connect: \(destination) input bus \(bus) cannot take \(connectionFormat) from \(source) bus \(sourceBus): \(reason)")
            }
        }
        if let reason = source.willSetOutputFormat(connectionFormat, bus: sourceBus) {
            preconditionFailure("AVAudioEngine.connect: \(source) output bus \(sourceBus) cannot produce \(connectionFormat): \(reason)")
        }
        if replacingOutputs {
            for (key, connection) in connections where connection.source === source && connection.sourceBus == sourceBus {
                connections[key] = nil
                connection.destination.inputFormats[connection.destinationBus] = nil
                connection.destination.didSetInputFormat(nil, bus: connection.destinationBus)
            }
        }
        source.outputFormats[sourceBus] = connectionFormat
        // The source's other connections from this bus take the new format too.
        for (key, connection) in connections where connection.source === source && connection.sourceBus == sourceBus {
            connections[key] = Connection(source: source, sourceBus: sourceBus, destination: connection.destination,
                                          destinationBus: connection.destinationBus, format: connectionFormat)
            connection.destination.inputFormats[connection.destinationBus] = connectionFormat
            connection.destination.didSetInputFormat(connectionFormat, bus: connection.destinationBus)
        }
        for (destination, bus) in destinations {
            let key = InputKey(node: ObjectIdentifier(destination), bus: bus)
            connections[key] = Connection(source: source, sourceBus: sourceBus, destination: destination, destinationBus: bus, format: connectionFormat)
            destination.inputFormats[bus] = connectionFormat
            destination.didSetInputFormat(connectionFormat, bus: bus)
            propagateFormat(from: destination)
        }
    }

    /// After a node's input format changed, nodes that adopt their input format for their output
    /// (effects) pass the change downstream.
    private func propagateFormat(from node: AVAudioNode) {
        for bus in 0..<node.numberOfOutputs {
            let format = node.outputFormats[bus]
            for (key, connection) in connections where connection.source === node && connection.sourceBus == bus && connection.format != format {
                connections[key] = Connection(source: node, sourceBus: bus, destination: connection.destination,
                                              destinationBus: connection.destinationBus, format: format)
                connection.destination.inputFormats[connection.destinationBus] = format
                connection.destination.didSetInputFormat(format, bus: connection.destinationBus)
                propagateFormat(from: connection.destination)
            }
        }
    }

    /// The output node's format changed (device opened, manual rendering enabled or disabled):
    /// a mixer feeding it follows, as Apple's main mixer does.
    func outputNodeFormatDidChange() {
        guard let c = connection(into: outputNode, bus: 0), c.source is AVAudioMixerNode else { return }
        let format = outputNode.outputFormat(forBus: 0)
        guard !c.format.hasSameRateAndChannels(as: format) else { return }
        connectInternal(c.source, fromBus: c.sourceBus, to: [(outputNode, 0)], format: format, replacingOutputs: false)
    }

    /// Whether audio flows from `start` to `target` through existing connections.
    private func reaches(from start: AVAudioNode, to target: AVAudioNode) -> Bool {
        var stack = [start]
        var seen: Set<ObjectIdentifier> = []
        while let node = stack.popLast() {
            if node === target { return true }
            guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
            for connection in connections.values where connection.source === node { stack.append(connection.destination) }
        }
        return false
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

    private func disconnectAll(of node: AVAudioNode) {
        for (key, connection) in connections where connection.source === node || connection.destination === node { removeConnection(key) }
    }

    private func removeConnection(_ key: InputKey) {
        guard let connection = connections.removeValue(forKey: key) else { return }
        connection.destination.inputFormats[connection.destinationBus] = nil
        connection.destination.didSetInputFormat(nil, bus: connection.destinationBus)
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

    /// Internal: the connection into (node, bus).
    func connection(into node: AVAudioNode, bus: AVAudioNodeBus) -> Connection? {
        connections[InputKey(node: ObjectIdentifier(node), bus: bus)]
    }

    // MARK: MIDI wiring (kept for the MIDI issue)

    private var midiConnections: [(source: ObjectIdentifier, destination: ObjectIdentifier)] = []

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

    // MARK: Running

    /// Compiles the graph and allocates what rendering needs, so `start()` is quick.
    open func prepare() {
        lock.lock(); defer { lock.unlock() }
        prepared = true
        exchange.publish(compilePlan())
    }

    /// Starts rendering: on the output device, or — in manual rendering mode — enables the render
    /// calls. Throws an `NSError` when no device can be opened.
    open func start() throws {
        lock.lock(); defer { lock.unlock() }
        guard !running else { return }
        if let mode = manualMode {
            prepared = true
            exchange.publish(compilePlan())
            running = true
            if mode == .realtime { startDispatcher() }
            return
        }
        let device = try openDevice()
        outputNode.deviceFormat = AVAudioFormat(standardFormatWithSampleRate: device.sampleRate, channels: AVAudioChannelCount(device.channelCount))
        outputNodeFormatDidChange()
        prepared = true
        exchange.publish(compilePlan())
        startDispatcher()
        let channels = device.channelCount
        do {
            try device.start { [unowned self] output, frames, hostTime in
                self.renderDeviceCycle(into: output, channels: channels, frames: frames, hostTime: hostTime)
            }
        } catch {
            dispatcher?.stop()
            dispatcher = nil
            throw NSError(domain: NSOSStatusErrorDomain, code: -10851, userInfo: [
                NSLocalizedDescriptionKey: "AVAudioEngine could not start the output device \(device.name): \((error as NSError).localizedDescription)",
            ])
        }
        running = true
    }

    /// The output device, opened on first use; it reports configuration changes to the engine.
    private func openDevice() throws -> AudioOutputDevice {
        if let device { return device }
        let device = try AudioDeviceRegistry.defaultOutputDevice()
        device.configurationChangeHandler = { [weak self] in
            guard let self else { return }
            // Off the device's thread, and never under its lock: the engine takes its own lock.
            let engine = UncheckedSendable(self)
            DispatchQueue.global(qos: .userInitiated).async { engine.value.outputDeviceConfigurationDidChange() }
        }
        self.device = device
        return device
    }

    /// The device's format or route changed: as on Apple platforms the engine stops, the output
    /// node takes the device's new format (the main mixer follows), and
    /// `.AVAudioEngineConfigurationChange` is posted with the engine as its object; the client
    /// reconnects what it needs and calls `start()` again.
    private func outputDeviceConfigurationDidChange() {
        lock.lock()
        stopRendering()
        if manualMode == nil, let device {
            outputNode.deviceFormat = AVAudioFormat(standardFormatWithSampleRate: device.sampleRate,
                                                    channels: AVAudioChannelCount(device.channelCount))
            outputNodeFormatDidChange()
            if prepared { exchange.publish(compilePlan()) }
        }
        lock.unlock()
        NotificationCenter.default.post(name: .AVAudioEngineConfigurationChange, object: self)
    }

    /// Makes the null output device behave as if its hardware format changed (for testing how an
    /// app handles `.AVAudioEngineConfigurationChange` on a machine without a sound card; not part
    /// of Apple's API). The engine stops and posts the notification asynchronously.
    /// Throws when no device can be opened, or when the output is a real device.
    public func _simulateOutputDeviceConfigurationChange(sampleRate: Double, channelCount: AVAudioChannelCount) throws {
        lock.lock()
        let opened: AudioOutputDevice
        do { opened = try openDevice() } catch { lock.unlock(); throw error }
        lock.unlock()
        guard let null = opened as? NullAudioDevice else {
            throw NSError(domain: NSOSStatusErrorDomain, code: -50, userInfo: [
                NSLocalizedDescriptionKey: "only the null output device can simulate a configuration change (the output is \(opened.name))",
            ])
        }
        // (outside the engine's lock: the device joins its thread, then calls the handler)
        null.changeConfiguration(sampleRate: sampleRate, channelCount: Int(channelCount))
    }

    /// Pauses rendering, keeping the graph and node state.
    open func pause() {
        lock.lock(); defer { lock.unlock() }
        stopRendering()
    }

    /// Stops rendering and releases what `prepare()` allocated.
    open func stop() {
        lock.lock(); defer { lock.unlock() }
        stopRendering()
        prepared = false
        exchange.clear()
        for node in nodes.values { (node as? AVAudioPlayerNode)?.engineDidStop() }
    }

    /// Resets every node's DSP state.
    open func reset() {
        lock.lock(); defer { lock.unlock() }
        for node in nodes.values { node.reset() }
    }

    private func stopRendering() {
        guard running else { return }
        device?.stop()
        running = false
        dispatcher?.stop()
        dispatcher = nil
        events.drain()
        exchange.collectRetired()
    }

    private func startDispatcher() {
        let dispatcher = EventDispatcher(events: events)
        self.dispatcher = dispatcher
        dispatcher.start()
    }

    /// The latency from the output node to the listener, in seconds.
    var outputPresentationLatency: TimeInterval { device?.presentationLatency ?? 0 }

    // MARK: Rendering (render thread)

    private func renderDeviceCycle(into output: UnsafePointer<UnsafeMutablePointer<Float>>, channels: Int, frames: Int, hostTime: UInt64) {
        let plan = exchange.planForCycle()
        let sampleTime = renderSampleTime
        renderSampleTime += Int64(frames)
        guard let plan, let source = plan.outputSource, frames <= plan.maximumFrames else {
            for c in 0..<channels { output[c].update(repeating: 0, count: frames) }
            return
        }
        _ = plan.render(frames: frames, sampleTime: sampleTime, hostTime: hostTime, outputRate: outputNode.outputRate,
                        isOffline: false, events: events)
        let n = min(channels, source.channelCount)
        for c in 0..<n { output[c].update(from: source.channels[c], count: frames) }
        for c in n..<channels { output[c].update(repeating: 0, count: frames) }
    }

    /// Manual rendering: renders `frames` frames into a planar Float32 destination.
    /// Returns (status, the source buffer) for the caller to convert.
    func renderManualCycle(frames: Int) -> (AVAudioEngineManualRenderingStatus, RenderBuffer?) {
        let plan = exchange.planForCycle()
        let sampleTime = manualSampleTime.load(ordering: .relaxed)
        manualSampleTime.store(sampleTime + Int64(frames), ordering: .relaxed)
        guard let plan else { return (.success, nil) }
        let insufficient = plan.render(frames: frames, sampleTime: sampleTime, hostTime: HostClock.now(),
                                       outputRate: outputNode.outputRate, isOffline: manualMode == .offline, events: events)
        return (insufficient ? .insufficientDataFromInputNode : .success, plan.outputSource)
    }

    // MARK: Graph changes

    /// Recompiles and republishes the plan when the engine is prepared or running.
    func graphDidChange() {
        lock.lock(); defer { lock.unlock() }
        guard prepared || running else { return }
        exchange.publish(compilePlan())
    }

    /// The largest cycle the plan must render.
    var maximumCycleFrames: Int {
        if manualMode != nil { return Int(_manualMaximumFrames) }
        return device?.bufferFrames ?? 4096
    }

    // MARK: Manual rendering (state; the API is in AVAudioEngine+ManualRendering.swift)

    var manualRenderingState: (mode: AVAudioEngineManualRenderingMode?, format: AVAudioFormat?, maximumFrames: AVAudioFrameCount) {
        (manualMode, _manualFormat, _manualMaximumFrames)
    }

    func setManualRendering(_ mode: AVAudioEngineManualRenderingMode?, format: AVAudioFormat?, maximumFrames: AVAudioFrameCount) {
        manualMode = mode
        _manualFormat = format
        _manualMaximumFrames = maximumFrames
        manualSampleTime.store(0, ordering: .relaxed)
        // Scratch for converting the output: a pointer per channel, and a silent channel.
        manualChannelPointers.deallocate()
        manualChannelPointers = .allocate(capacity: max(1, Int(format?.channelCount ?? 1)))
        manualSilence.pointee.deallocate()
        manualSilence.pointee = .allocate(capacity: max(1, Int(maximumFrames)))
        manualSilence.pointee.initialize(repeating: 0, count: max(1, Int(maximumFrames)))
    }

    /// Output-conversion scratch for manual rendering (allocated when the mode is set).
    var manualChannelPointers: UnsafeMutablePointer<UnsafeMutableRawPointer> {
        get { _manualChannelPointers }
        set { _manualChannelPointers = newValue }
    }
    var createdInputNode: AVAudioInputNode? { _inputNode }

    var currentManualSampleTime: Int64 { manualSampleTime.load(ordering: .relaxed) }
    var isRunningUnlocked: Bool { running }
    var isPreparedOrRunning: Bool { prepared || running }

    func drainEventsAfterOfflineRender() {
        events.drain()
        exchange.collectRetired()
    }

    // MARK: Plan compilation (control side)

    /// Builds the render plan: nodes reachable upstream from the output node and from sinks, in
    /// topological order, with a buffer per output bus and a rate domain per rate-changing input.
    func compilePlan() -> RenderPlan {
        let maximumFrames = maximumCycleFrames
        var order: [AVAudioNode] = []
        var domainOf: [ObjectIdentifier: Int] = [:]
        var domains: [RenderPlan.Domain] = []
        var domainCapacity: [Int] = [maximumFrames]
        // Domain 0 is the output rate; its owner is unused.
        domains.append(RenderPlan.Domain(parent: 0, capacity: maximumFrames, owner: outputNode.renderer, bus: 0, state: nil))
        // Per-plan render state of each node, built once (the domains need it before the steps).
        var stepStates: [ObjectIdentifier: AnyObject?] = [:]
        func stepState(_ node: AVAudioNode, capacity: Int) -> AnyObject? {
            if let s = stepStates[ObjectIdentifier(node)] { return s }
            let formats: [AVAudioFormat?] = (0..<node.numberOfInputs).map { connection(into: node, bus: $0)?.format }
            let s = node.renderer.makeStepState(inputFormats: formats, outputFormats: node.outputFormats, maximumFrames: capacity)
            stepStates[ObjectIdentifier(node)] = .some(s)
            return s
        }

        func visit(_ node: AVAudioNode, domain: Int) {
            let id = ObjectIdentifier(node)
            if domainOf[id] != nil { return }   // already placed (fan-out); domains were checked by the caller
            domainOf[id] = domain
            for bus in 0..<node.numberOfInputs {
                guard let c = connection(into: node, bus: bus) else { continue }
                var sourceDomain = domain
                if node.changesRate(onInputBus: bus) {
                    let state = stepState(node, capacity: domainCapacity[domain])
                    let capacity = node.renderer.maximumInputFrames(forOutputFrames: domainCapacity[domain], bus: bus, state: state)
                    domains.append(RenderPlan.Domain(parent: domain, capacity: capacity, owner: node.renderer, bus: bus, state: state))
                    domainCapacity.append(capacity)
                    sourceDomain = domains.count - 1
                }
                if let existing = domainOf[ObjectIdentifier(c.source)], existing != sourceDomain {
                    preconditionFailure("AVAudioEngine: \(c.source) feeds paths that render at different sample rates (into \(node) bus \(bus)); split paths must stay at one rate until they meet at a mixer")
                }
                visit(c.source, domain: sourceDomain)
            }
            if node !== outputNode { order.append(node) }
        }
        visit(outputNode, domain: 0)
        for node in nodes.values where node.isSink && domainOf[ObjectIdentifier(node)] == nil {
            visit(node, domain: 0)
        }

        // One buffer per output bus of every rendered node.
        var outputBuffers: [ObjectIdentifier: [RenderBuffer]] = [:]
        var allBuffers: [RenderBuffer] = []
        for node in order {
            let capacity = domainCapacity[domainOf[ObjectIdentifier(node)]!]
            let buffers = (0..<node.numberOfOutputs).map { bus in
                RenderBuffer(channelCount: Int(node.outputFormats[bus].channelCount), capacity: max(1, capacity))
            }
            outputBuffers[ObjectIdentifier(node)] = buffers
            allBuffers += buffers
        }
        var steps: [RenderPlan.Step] = []
        for node in order {
            let id = ObjectIdentifier(node)
            let inputs = UnsafeMutableBufferPointer<RenderBuffer?>.allocate(capacity: node.numberOfInputs)
            inputs.initialize(repeating: nil)
            for bus in 0..<node.numberOfInputs {
                if let c = connection(into: node, bus: bus), let source = outputBuffers[ObjectIdentifier(c.source)] {
                    inputs[bus] = source[c.sourceBus]
                }
            }
            let own = outputBuffers[id]!
            let outputs = UnsafeMutableBufferPointer<RenderBuffer>.allocate(capacity: own.count)
            _ = outputs.initialize(from: own)
            let capacity = domainCapacity[domainOf[id]!]
            let state = stepState(node, capacity: capacity)
            let taps = node.taps.map { (bus: $0.key, tap: $0.value) }.filter { $0.bus < own.count }
            steps.append(RenderPlan.Step(renderer: node.renderer, node: node, inputs: inputs,
                                         outputs: outputs,
                                         taps: taps, domain: domainOf[id]!, state: state))
        }
        var outputSource: RenderBuffer?
        if let c = connection(into: outputNode, bus: 0) {
            outputSource = outputBuffers[ObjectIdentifier(c.source)]?[c.sourceBus]
        }
        return RenderPlan(steps: steps, domains: domains, outputSource: outputSource, maximumFrames: maximumFrames,
                          nodes: order, buffers: allBuffers)
    }

    open override var description: String {
        lock.lock(); defer { lock.unlock() }
        var lines = ["<AVAudioEngine: \(nodes.count) nodes, \(running ? "running" : "stopped")\(manualMode.map { ", manual \($0)" } ?? "")>"]
        for c in connections.values.sorted(by: { $0.destination.nodeName < $1.destination.nodeName }) {
            lines.append("  \(c.source.nodeName)[\(c.sourceBus)] → \(c.destination.nodeName)[\(c.destinationBus)] \(c.format)")
        }
        return lines.joined(separator: "\n")
    }
}

/// Runs render events (completions, taps) off the render thread while the engine runs in
/// real time. Polls every 2 ms: a tap buffer or completion is
/// delivered at most about 2 ms after the render thread produced it.
final class EventDispatcher {
    private let events: RenderEventQueue
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(events: RenderEventQueue) {
        self.events = events
    }

    func start() {
        running.store(true, ordering: .releasing)
        let thread = Thread { [self] in
            while running.load(ordering: .acquiring) {
                events.drain()
                usleep(2000)
            }
            events.drain()
            finished.signal()
        }
        thread.name = "OpenAVFAudio events"
        thread.start()
    }

    func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
    }
}

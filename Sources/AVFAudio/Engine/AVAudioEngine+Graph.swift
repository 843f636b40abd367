// AVAudioEngine graph model: connections, format propagation, cycle checks (control side).
//
// Every function here is called with the engine lock held.
import Synchronization

extension AVAudioEngine {
    /// Sample rates a connection may carry: 1 kHz … 768 kHz, which holds every rate audio devices
    /// use (768 kHz DACs exist); beyond it render buffers sized in seconds (delay lines, reverb
    /// tails) and a mixer input's rate converter would grow without bound.
    static let connectionRates: ClosedRange<Double> = 1_000...768_000
    /// Channels a connection may carry (AudioFileFormats' limit too).
    static let maximumConnectionChannels: AVAudioChannelCount = 1024

    func connectInternal(_ source: AVAudioNode, fromBus sourceBus: AVAudioNodeBus, to destinations: [(AVAudioNode, AVAudioNodeBus)],
                                 format: AVAudioFormat?, replacingOutputs: Bool) {
        requireAttached(source, "connect")
        precondition(sourceBus >= 0 && sourceBus < source.numberOfOutputs,
                     "AVAudioEngine.connect: \(source) has \(source.numberOfOutputs) output bus(es); bus \(sourceBus) does not exist")
        let connectionFormat = format ?? source.outputFormat(forBus: sourceBus)
        precondition(connectionFormat.isPCM && connectionFormat.processingSampleType != nil,
                     "AVAudioEngine.connect: \(source) bus \(sourceBus): connection format \(connectionFormat) is not a PCM common format")
        // Absurd but well-formed formats (1 GHz, 100,000 channels) would size every render buffer
        // and rate converter downstream beyond memory or design time: refused here, where the
        // message can name the connection.
        precondition(AVAudioEngine.connectionRates.contains(connectionFormat.sampleRate),
                     "AVAudioEngine.connect: \(source) bus \(sourceBus): connection format \(connectionFormat) has a sample rate outside \(Int(AVAudioEngine.connectionRates.lowerBound))–\(Int(AVAudioEngine.connectionRates.upperBound)) Hz")
        precondition(connectionFormat.channelCount <= AVAudioEngine.maximumConnectionChannels,
                     "AVAudioEngine.connect: \(source) bus \(sourceBus): connection format \(connectionFormat) has more than \(AVAudioEngine.maximumConnectionChannels) channels")
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
                                          destinationBus: connection.destinationBus, format: connectionFormat,
                                          followsSource: connection.followsSource)
            connection.destination.inputFormats[connection.destinationBus] = connectionFormat
            connection.destination.didSetInputFormat(connectionFormat, bus: connection.destinationBus)
        }
        for (destination, bus) in destinations {
            let key = InputKey(node: ObjectIdentifier(destination), bus: bus)
            connections[key] = Connection(source: source, sourceBus: sourceBus, destination: destination, destinationBus: bus,
                                          format: connectionFormat, followsSource: format == nil)
            destination.inputFormats[bus] = connectionFormat
            destination.didSetInputFormat(connectionFormat, bus: bus)
            propagateFormat(from: destination)
        }
        mixingPathsDidChange()
    }

    /// After a node's input format changed, nodes that adopt their input format for their output
    /// (effects) pass the change downstream.
    func propagateFormat(from node: AVAudioNode) {
        for bus in 0..<node.numberOfOutputs {
            let format = node.outputFormats[bus]
            for (key, connection) in connections where connection.source === node && connection.sourceBus == bus && connection.format != format {
                connections[key] = Connection(source: node, sourceBus: bus, destination: connection.destination,
                                              destinationBus: connection.destinationBus, format: format,
                                              followsSource: connection.followsSource)
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

    /// The input node's format changed (manual rendering enabled or disabled, a manual input
    /// format set): connections made with format nil follow it, and every node downstream of them
    /// follows, as on Apple platforms — whatever the order in which the client connected the input
    /// node, enabled manual rendering and set the manual input format.
    ///
    /// The node's own format is, in manual rendering, the manual input format (as a standard
    /// format); until one is set, the manual rendering format (our choice: Apple documents no
    /// format for an input node without a block; its output then is silence). Otherwise it is the
    /// device's input format (the null device's: 48 kHz stereo). Connections made with an explicit
    /// format keep it in manual rendering when only the rate differs: the node converts (Apple,
    /// AVAudioIONode.h: "you may set it to a different format, in which case the node will
    /// convert"); on a device it cannot, and they follow too.
    func inputNodeFormatDidChange() {
        guard let node = _inputNode else { return }
        let native = inputNodeNativeFormat
        let outgoing = connections.values.filter { $0.source === node }
        let keepExplicit = manualMode != nil && !outgoing.isEmpty && outgoing.allSatisfy { !$0.followsSource }
            && node.outputFormats[0].channelCount == native.channelCount
        guard !keepExplicit, !node.outputFormats[0].hasSameRateAndChannels(as: native) else { return }
        node.outputFormats[0] = native
        propagateFormat(from: node)
    }

    /// What the input node produces before any conversion of its own (see `inputNodeFormatDidChange`).
    var inputNodeNativeFormat: AVAudioFormat {
        if manualMode != nil, let manual = _inputNode?.manualInputFormat ?? _manualFormat {
            return AVAudioFormat(standardFormatWithSampleRate: manual.sampleRate, channelLayoutOrCount: manual)
        }
        if manualMode == nil, let device, device.inputChannelCount > 0,
           let format = AVAudioFormat(standardFormatWithSampleRate: device.sampleRate, channels: AVAudioChannelCount(device.inputChannelCount)) {
            return format
        }
        return AVAudioOutputNode.fallbackFormat
    }

    /// Whether audio flows from `start` to `target` through existing connections.
    func reaches(from start: AVAudioNode, to target: AVAudioNode) -> Bool {
        var stack = [start]
        var seen: Set<ObjectIdentifier> = []
        while let node = stack.popLast() {
            if node === target { return true }
            guard seen.insert(ObjectIdentifier(node)).inserted else { continue }
            for connection in connections.values where connection.source === node { stack.append(connection.destination) }
        }
        return false
    }

    func disconnectAll(of node: AVAudioNode) {
        for (key, connection) in connections where connection.source === node || connection.destination === node { removeConnection(key) }
    }

    func removeConnection(_ key: InputKey) {
        guard let connection = connections.removeValue(forKey: key) else { return }
        connection.destination.inputFormats[connection.destinationBus] = nil
        connection.destination.didSetInputFormat(nil, bus: connection.destinationBus)
        mixingPathsDidChange()
    }

    /// Internal: the connection into (node, bus).
    func connection(into node: AVAudioNode, bus: AVAudioNodeBus) -> Connection? {
        connections[InputKey(node: ObjectIdentifier(node), bus: bus)]
    }

}

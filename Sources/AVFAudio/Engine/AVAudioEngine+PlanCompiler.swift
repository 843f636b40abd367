// AVAudioEngine plan compiler: turns the graph into an immutable RenderPlan (control side).
//
// Called with the engine lock held; the plan is published with an atomic exchange. It calls no
// client code: a custom audio unit that must be prepared for the plan records the request and
// renders silence in it, and the engine prepares it once the lock is released
// (AVAudioEngine+AudioUnits.swift).
import Synchronization

extension AVAudioEngine {
    // MARK: Plan compilation (control side)

    /// Builds the render plan: nodes reachable upstream from the output node and from sinks, in
    /// topological order, with a buffer per output bus and a rate domain per rate-changing input.
    func compilePlan() -> RenderPlan {
        let maximumFrames = maximumCycleFrames
        // Client blocks (the input node's, source nodes') are never asked for more than one
        // cycle's maximum, even upstream of a rate conversion.
        for node in nodes.values {
            if let input = node.renderer as? InputRenderer { input.maximumRequestFrames = maximumFrames }
            if let source = node.renderer as? SourceRenderer { source.maximumRequestFrames = maximumFrames }
        }
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
        if order.contains(where: { ($0.renderer as? AUAudioUnitNodeRenderer)?.requested != nil }) {
            lock.setWorkPending()
        }
        return RenderPlan(steps: steps, domains: domains, outputSource: outputSource, maximumFrames: maximumFrames,
                          nodes: order, buffers: allBuffers)
    }
}

// An immutable, compiled render graph: what the render thread executes each cycle.
//
// DESIGN NOTE — threading and plan exchange
// -----------------------------------------
// The control side (any client thread, serialised by the engine's lock) owns the graph: nodes,
// connections, formats, taps. Every change compiles a new RenderPlan — nodes in topological order
// (sources first), one preallocated RenderBuffer per output bus (so fan-out renders once per
// cycle), taps, and rate domains — and publishes it through `PlanExchange`:
//
//   control:  pending.exchange(newPlan)  ──►  render thread, at the start of a cycle:
//                                               p = pending.exchange(nil)
//                                               if p: retired.push(current); current = p
//   control:  drains `retired`, releasing old plans (and, through them, detached renderers)
//
// The render thread never retains or releases a plan (it holds it `Unmanaged`), never frees
// memory, and never waits: a change takes effect at the next cycle boundary, glitch-free. At most
// one plan is retired per cycle and the control side drains the queue at every publish, so the
// bounded queue cannot fill.
//
// Rate domains: a mixer input whose sample rate differs from the mixer's output starts a new
// domain. At the start of each cycle the plan asks the mixer how many input frames it needs for
// the frames it must produce (`inputFrames(forOutputFrames:bus:)`), and every node upstream of
// that input renders that many frames. As on Apple platforms, split paths must stay in one rate
// domain until they meet at a mixer.
import Foundation
import Synchronization

final class RenderPlan {
    struct Step {
        unowned(unsafe) let renderer: NodeRenderer
        unowned(unsafe) let node: AVAudioNode
        let inputs: UnsafeMutableBufferPointer<RenderBuffer?>
        let outputs: UnsafeMutableBufferPointer<RenderBuffer>
        /// Taps on this node's outputs, with the output index they read.
        let taps: [(bus: Int, tap: TapRenderer)]
        let domain: Int
        let state: AnyObject?
    }

    struct Domain {
        let parent: Int
        /// Frames the domain's buffers hold: a cycle never asks for more.
        let capacity: Int
        unowned(unsafe) let owner: NodeRenderer
        let bus: Int
        let state: AnyObject?
    }

    let steps: [Step]
    /// The steps without reference-counted fields, for the render loop (the plan keeps `steps`,
    /// and so everything they reference, alive): no retain/release per step per cycle. The
    /// references are `Unmanaged` and used through `_withUnsafeGuaranteedRef`, which tells the
    /// compiler someone else keeps them alive (`unowned(unsafe)` alone still lets it retain an
    /// object for the duration of a call, an atomic increment and decrement per node per cycle).
    struct FastStep {
        let renderer: Unmanaged<NodeRenderer>
        let node: Unmanaged<AVAudioNode>
        let inputs: UnsafeBufferPointer<RenderBuffer?>
        let outputs: UnsafeBufferPointer<RenderBuffer>
        let hasTaps: Bool
        let domain: Int
        let state: Unmanaged<AnyObject>?
    }
    private let fastSteps: UnsafeMutableBufferPointer<FastStep>
    let domains: [Domain]
    /// The buffer feeding the output node (nil: the output node is not connected).
    let outputSource: RenderBuffer?
    let maximumFrames: Int
    /// Everything the plan points at unmanaged, kept alive for the plan's lifetime.
    private let retainedNodes: [AVAudioNode]
    private let retainedRenderers: [NodeRenderer]
    private let retainedBuffers: [RenderBuffer]
    private let domainFrames: UnsafeMutablePointer<Int>
    private let domainTimes: UnsafeMutablePointer<Int64>

    init(steps: [Step], domains: [Domain], outputSource: RenderBuffer?, maximumFrames: Int,
         nodes: [AVAudioNode], buffers: [RenderBuffer]) {
        self.steps = steps
        self.domains = domains
        self.outputSource = outputSource
        self.maximumFrames = maximumFrames
        retainedNodes = nodes
        retainedRenderers = nodes.map(\.renderer)
        retainedBuffers = buffers
        fastSteps = .allocate(capacity: steps.count)
        for (i, st) in steps.enumerated() {
            (fastSteps.baseAddress! + i).initialize(to: FastStep(renderer: .passUnretained(st.renderer), node: .passUnretained(st.node),
                                                                 inputs: UnsafeBufferPointer(st.inputs),
                                                                 outputs: UnsafeBufferPointer(st.outputs), hasTaps: !st.taps.isEmpty,
                                                                 domain: st.domain, state: st.state.map { .passUnretained($0) }))
        }
        domainFrames = .allocate(capacity: max(1, domains.count))
        domainFrames.initialize(repeating: 0, count: max(1, domains.count))
        domainTimes = .allocate(capacity: max(1, domains.count))
        domainTimes.initialize(repeating: 0, count: max(1, domains.count))
    }

    deinit {
        for step in steps {
            step.inputs.deinitialize()
            step.inputs.deallocate()
            step.outputs.deinitialize()
            step.outputs.deallocate()
        }
        domainFrames.deallocate()
        domainTimes.deallocate()
        fastSteps.deallocate()
    }

    /// Render thread: renders one cycle of `frames` frames (≤ maximumFrames) at the output rate.
    /// Returns whether some input node reported missing input.
    func render(frames: Int, sampleTime: Int64, hostTime: UInt64, outputRate: Double,
                isOffline: Bool, events: RenderEventQueue) -> Bool {
        domainFrames[0] = frames
        domainTimes[0] = sampleTime
        for d in 1..<max(1, domains.count) {
            let info = domains[d]
            info.owner.cycleWillStart(sampleTime: domainTimes[info.parent], hostTime: hostTime, bus: info.bus, state: info.state)
            domainFrames[d] = min(info.capacity, info.owner.inputFrames(forOutputFrames: domainFrames[info.parent], bus: info.bus, state: info.state))
            domainTimes[d] = info.owner.inputSampleTime(bus: info.bus, state: info.state)
        }
        var cycle = RenderCycle(sampleTime: sampleTime, hostTime: hostTime, frames: frames, sampleRate: outputRate,
                                isOffline: isOffline, events: events)
        // Index loops: iterating arrays with `for … in` allocates coroutine frames in debug builds.
        let fast = fastSteps
        var i = 0
        while i < fast.count {
            let step = fast.baseAddress! + i
            let domain = step.pointee.domain
            cycle.frames = domainFrames[domain]
            cycle.sampleTime = domainTimes[domain]
            let inputs = step.pointee.inputs, outputs = step.pointee.outputs
            step.pointee.renderer._withUnsafeGuaranteedRef { renderer in
                if let state = step.pointee.state {
                    state._withUnsafeGuaranteedRef { renderer.render(&cycle, inputs: inputs, outputs: outputs, state: $0) }
                } else {
                    renderer.render(&cycle, inputs: inputs, outputs: outputs, state: nil)
                }
            }
            let sampleTimeNow = cycle.sampleTime
            step.pointee.node._withUnsafeGuaranteedRef { node in
                node.lastSampleTime.store(sampleTimeNow, ordering: .relaxed)
                node.lastHostTime.store(hostTime, ordering: .relaxed)
            }
            if step.pointee.hasTaps {
                var t = 0
                while t < steps[i].taps.count {
                    let (bus, tap) = steps[i].taps[t]
                    t += 1
                    tap.capture(steps[i].outputs[bus], frames: cycle.frames, cycle: cycle, events: events)
                }
            }
            i += 1
        }
        return cycle.inputWasInsufficient
    }

    /// Control side, after the plan stopped rendering for good: reset renderer state if asked.
    var renderers: [NodeRenderer] { retainedRenderers }
}

/// Hands compiled plans to the render thread and takes retired ones back (see the design note).
///
/// Retired plans are not released at once: events the render thread queued while rendering a
/// plan (tap notifications) point into it unretained. A retired plan goes to a graveyard, and
/// the graveyard is emptied only by a thread that took it *before* draining the event queue to
/// the end (`takeGraveyard` → drain → `bury`): every event of those plans was queued before they
/// were retired, so the drain has run it.
final class PlanExchange {
    private let pending = Atomic<UnsafeMutableRawPointer?>(nil)
    /// Retired plans as opaque pointers (a queue of `Unmanaged<RenderPlan>` is not specialised
    /// where the `@_noLocks` check looks: a generic call).
    private let retired = MPSCQueue<UnsafeMutableRawPointer>(capacity: 64)
    /// The same queue for the render side, reached without a retain.
    private let retiredRef: Unmanaged<MPSCQueue<UnsafeMutableRawPointer>>
    init() { retiredRef = .passUnretained(retired) }
    /// Render-thread-owned (touched by the control side only while the render gate is idle).
    private var current: Unmanaged<RenderPlan>?
    private let graveyardLock = NSLock()
    private var graveyard: [RenderPlan] = []

    /// Control side (engine lock held): make `plan` the plan of the next cycle.
    func publish(_ plan: RenderPlan?) {
        collectRetired()
        let raw = plan.map { Unmanaged.passRetained($0).toOpaque() }
        if let stale = pending.exchange(raw, ordering: .acquiringAndReleasing) {
            // Never rendered: nothing refers to it.
            Unmanaged<RenderPlan>.fromOpaque(stale).release()
        }
    }

    /// Whether a published plan still waits for the render thread to take it at a cycle start.
    var hasPendingPlan: Bool { pending.load(ordering: .acquiring) != nil }

    /// Control side (engine lock held): move plans the render thread has let go of to the graveyard.
    func collectRetired() {
        var plans: [RenderPlan] = []
        while let plan = retired.pop() { plans.append(Unmanaged<RenderPlan>.fromOpaque(plan).takeRetainedValue()) }
        guard !plans.isEmpty else { return }
        graveyardLock.lock(); graveyard.append(contentsOf: plans); graveyardLock.unlock()
    }

    /// Control side, before draining the event queue: the retired plans whose events that drain
    /// will run.
    func takeGraveyard() -> [RenderPlan] {
        graveyardLock.lock(); defer { graveyardLock.unlock() }
        let plans = graveyard
        graveyard = []
        return plans
    }

    /// Control side: give back plans taken by `takeGraveyard` when the drain could not run.
    func returnToGraveyard(_ plans: [RenderPlan]) {
        guard !plans.isEmpty else { return }
        graveyardLock.lock(); graveyard.append(contentsOf: plans); graveyardLock.unlock()
    }

    /// Render thread: the plan for this cycle (switching to a pending one at the boundary).
    @inline(__always)
    func planForCycle() -> RenderPlan? {
        if let raw = pending.exchange(nil, ordering: .acquiringAndReleasing) {
            if let old = current {
                // The queue is drained at every publish and one plan retires per cycle, so it has
                // room; if a stalled control side ever let it fill, keep the old plan alive
                // (leaked, never freed under the render thread's feet).
                let opaque = old.toOpaque()
                let pushed = retiredRef._withUnsafeGuaranteedRef { (queue: MPSCQueue<UnsafeMutableRawPointer>) -> Bool in queue.push(opaque) }
                _ = pushed
            }
            current = Unmanaged<RenderPlan>.fromOpaque(raw)
        }
        return current?.takeUnretainedValue()
    }

    /// Control side, engine lock held, render gate closed and idle: retire every plan (to the
    /// graveyard: events may still point into the current one).
    func clear() {
        collectRetired()
        if let raw = pending.exchange(nil, ordering: .acquiringAndReleasing) {
            Unmanaged<RenderPlan>.fromOpaque(raw).release()
        }
        if let plan = current {
            current = nil
            graveyardLock.lock(); graveyard.append(plan.takeRetainedValue()); graveyardLock.unlock()
        }
    }

    /// Engine deinit: release everything.
    func releaseAll() {
        clear()
        _ = takeGraveyard()
    }

    /// Control side, render thread stopped: the plan in use (for reading its renderers).
    var currentPlan: RenderPlan? { current?.takeUnretainedValue() }
}

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
        /// The node's part of this plan (its renderer's typed state; see NodeRenderer.swift).
        let state: RenderStep
    }

    struct Domain {
        let parent: Int
        /// Frames the domain's buffers hold: a cycle never asks for more.
        let capacity: Int
        /// The step of the node whose input `bus` starts the domain (unused for domain 0).
        let owner: RenderStep?
        let bus: Int
    }

    let steps: [Step]
    /// The steps without reference-counted fields, for the render loop (the plan keeps `steps`,
    /// and so everything they reference, alive): no retain/release per step per cycle. The
    /// references are `Unmanaged` and used through `_withUnsafeGuaranteedRef`, which tells the
    /// compiler someone else keeps them alive (`unowned(unsafe)` alone still lets it retain an
    /// object for the duration of a call, an atomic increment and decrement per node per cycle).
    /// Swift arrays are not read on the render thread (reading one retains its buffer).
    struct FastStep {
        /// How to call the step (a closed switch, see StepKind.swift).
        let kind: StepKind
        let node: Unmanaged<AVAudioNode>
        let inputs: UnsafeBufferPointer<RenderBuffer?>
        let outputs: UnsafeBufferPointer<RenderBuffer>
        /// This step's taps: `tapCount` entries of `fastTaps` from `firstTap`.
        let firstTap: Int
        let tapCount: Int
        let domain: Int
    }
    struct FastTap {
        let tap: Unmanaged<TapRenderer>
        let buffer: Unmanaged<RenderBuffer>
    }
    struct FastDomain {
        let parent: Int
        let capacity: Int
        let owner: StepKind?
        let bus: Int
    }
    private let fastSteps: UnsafeMutableBufferPointer<FastStep>
    private let fastTaps: UnsafeMutableBufferPointer<FastTap>
    private let fastDomains: UnsafeMutableBufferPointer<FastDomain>
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
    /// The event schedulers of the audio units outside the output's rate domain, with their
    /// domain: each cycle they learn the frames their unit renders (for the sequencer).
    private let domainSchedulers: UnsafeMutableBufferPointer<(scheduler: Unmanaged<RenderEventScheduler>, domain: Int)>

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
        fastTaps = .allocate(capacity: steps.reduce(0) { $0 + $1.taps.count })
        var tapIndex = 0
        for (i, st) in steps.enumerated() {
            let firstTap = tapIndex
            for (bus, tap) in st.taps {
                (fastTaps.baseAddress! + tapIndex).initialize(to: FastTap(tap: .passUnretained(tap), buffer: .passUnretained(st.outputs[bus])))
                tapIndex += 1
            }
            (fastSteps.baseAddress! + i).initialize(to: FastStep(kind: st.state.kind, node: .passUnretained(st.node),
                                                                 inputs: UnsafeBufferPointer(st.inputs),
                                                                 outputs: UnsafeBufferPointer(st.outputs),
                                                                 firstTap: firstTap, tapCount: st.taps.count, domain: st.domain))
        }
        fastDomains = .allocate(capacity: domains.count)
        for (d, info) in domains.enumerated() {
            (fastDomains.baseAddress! + d).initialize(to: FastDomain(parent: info.parent, capacity: info.capacity,
                                                                     owner: info.owner.map { $0.kind }, bus: info.bus))
        }
        domainFrames = .allocate(capacity: max(1, domains.count))
        domainFrames.initialize(repeating: 0, count: max(1, domains.count))
        domainTimes = .allocate(capacity: max(1, domains.count))
        domainTimes.initialize(repeating: 0, count: max(1, domains.count))
        let outside = steps.filter { $0.domain > 0 }.compactMap { step in (step.node as? AVAudioUnit).map { ($0.auAudioUnit.eventScheduler, step.domain) } }
        let schedulers = UnsafeMutableBufferPointer<(scheduler: Unmanaged<RenderEventScheduler>, domain: Int)>.allocate(capacity: max(1, outside.count))
        for (i, entry) in outside.enumerated() { (schedulers.baseAddress! + i).initialize(to: (.passUnretained(entry.0), entry.1)) }
        domainSchedulers = UnsafeMutableBufferPointer(start: schedulers.baseAddress, count: outside.count)
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
        fastTaps.deallocate()
        fastDomains.deallocate()
        UnsafeMutableBufferPointer(start: domainSchedulers.baseAddress, count: max(1, domainSchedulers.count)).deallocate()
    }

    /// Render thread: renders one cycle of `frames` frames (≤ maximumFrames) at the output rate.
    /// Returns whether some input node reported missing input.
    /// Not proved by the compiler's check as a whole yet (see RenderPathProof.swift): the loop
    /// itself reads only raw buffers and `Unmanaged` references.
    func render(frames: Int, sampleTime: Int64, hostTime: UInt64, outputRate: Double,
                isOffline: Bool, events: RenderEventQueue, sequencers: Unmanaged<SequencerHooks>? = nil) -> Bool {
        domainFrames[0] = frames
        domainTimes[0] = sampleTime
        let domainList = fastDomains
        var d = 1
        while d < domainList.count {
            let info = domainList[d]
            if let owner = info.owner {
                let parentFrames = domainFrames[info.parent], parentTime = domainTimes[info.parent]
                owner.cycleWillStart(sampleTime: parentTime, hostTime: hostTime, bus: info.bus)
                let needed = owner.inputFrames(forOutputFrames: parentFrames, bus: info.bus)
                let time = owner.inputSampleTime(bus: info.bus)
                domainFrames[d] = min(info.capacity, needed)
                domainTimes[d] = time
            }
            d += 1
        }
        // The units in other rate domains learn this cycle's frames on their timelines, then the
        // sequencers send every unit the events of the frames it is about to render.
        let outside = domainSchedulers
        var k = 0
        while k < outside.count {
            let entry = outside[k]
            let (start, count) = (domainTimes[entry.domain], domainFrames[entry.domain])
            entry.scheduler._withUnsafeGuaranteedRef { $0.windowCycle = sampleTime; $0.windowStart = start; $0.windowFrames = count }
            k += 1
        }
        if let sequencers {
            sequencers._withUnsafeGuaranteedRef { $0.cycleWillRender(sampleTime: sampleTime, frames: frames, sampleRate: outputRate, hostTime: hostTime) }
        }
        var cycle = RenderCycle(sampleTime: sampleTime, hostTime: hostTime, frames: frames, sampleRate: outputRate,
                                isOffline: isOffline, events: .passUnretained(events))
        // Index loops: iterating arrays with `for … in` allocates coroutine frames in debug builds.
        let fast = fastSteps
        let taps = fastTaps
        var i = 0
        while i < fast.count {
            let step = fast.baseAddress.unsafelyUnwrapped + i
            let domain = step.pointee.domain
            cycle.frames = domainFrames[domain]
            cycle.sampleTime = domainTimes[domain]
            let inputs = step.pointee.inputs, outputs = step.pointee.outputs
            step.pointee.kind.render(&cycle, inputs: inputs, outputs: outputs)
            let sampleTimeNow = cycle.sampleTime
            step.pointee.node._withUnsafeGuaranteedRef { node in
                node.lastSampleTime.store(sampleTimeNow, ordering: .relaxed)
                node.lastHostTime.store(hostTime, ordering: .relaxed)
            }
            var t = step.pointee.firstTap
            let tapEnd = t + step.pointee.tapCount
            while t < tapEnd {
                let entry = taps[t]
                t += 1
                let (buffer, tapCycle) = (entry.buffer, cycle)
                entry.tap._withUnsafeGuaranteedRef { $0.capture(buffer, frames: tapCycle.frames, cycle: tapCycle) }
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
    /// Retired plans as opaque pointers: one producer (the render thread), one consumer (the
    /// control side, engine lock held). Not a generic queue: the `@_noLocks` check sees a call
    /// into a generic class reached from the render thread as unspecialised.
    private let retired = RetiredPlanRing()
    /// The same ring for the render side, reached without a retain.
    private let retiredRef: Unmanaged<RetiredPlanRing>
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

    /// Render thread: the plan for this cycle (switching to a pending one at the boundary),
    /// unretained: the exchange keeps it alive until a later cycle retires it. Proved free of
    /// locks, allocation and reference counting (`RenderPathProof.planForCycle`).
    @inline(__always)
    func planForCycle() -> Unmanaged<RenderPlan>? {
        if let raw = pending.exchange(nil, ordering: .acquiringAndReleasing) {
            if let old = current {
                // The ring is drained at every publish and one plan retires per cycle, so it has
                // room; if a stalled control side ever let it fill, the old plan stays alive
                // (leaked, never freed under the render thread's feet).
                let opaque = old.toOpaque()
                _ = retiredRef._withUnsafeGuaranteedRef { $0.push(opaque) }
            }
            current = Unmanaged<RenderPlan>.fromOpaque(raw)
        }
        return current
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

/// The retired-plan queue: a bounded single-producer single-consumer ring of opaque pointers
/// (wait-free: the producer writes the slot and publishes `tail` with release ordering; the
/// consumer reads `tail` with acquire ordering, reads the slot, then publishes `head`).
final class RetiredPlanRing {
    private let capacity = 64
    private let slots: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    private let head = Atomic<Int>(0)   // consumer-owned
    private let tail = Atomic<Int>(0)   // producer-owned

    init() {
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: nil, count: capacity)
    }
    deinit { slots.deallocate() }

    /// Render thread: false when full.
    @inline(__always)
    func push(_ plan: UnsafeMutableRawPointer) -> Bool {
        let t = tail.load(ordering: .relaxed)
        let next = t + 1 == capacity ? 0 : t + 1
        if next == head.load(ordering: .acquiring) { return false }
        slots[t] = plan
        tail.store(next, ordering: .releasing)
        return true
    }

    /// Control side: the oldest retired plan, or nil.
    func pop() -> UnsafeMutableRawPointer? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        let plan = slots[h]
        slots[h] = nil
        head.store(h + 1 == capacity ? 0 : h + 1, ordering: .releasing)
        return plan
    }
}

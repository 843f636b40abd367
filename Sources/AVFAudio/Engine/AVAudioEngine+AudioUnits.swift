// AVAudioEngine: preparing clients' audio units (their formats, `allocateRenderResources()`,
// render blocks) with no lock held.
//
// The plan compiler records what a custom unit needs and leaves it silent in the plan it
// compiles (AUAudioUnit+Engine.swift); this runs right after the thread that made the edit
// releases the engine's lock (EngineLock.afterOutermostUnlock), so the edit's public call returns
// with its units prepared. Threads: whichever thread edited the graph (never the render thread:
// a render block that edits the graph leaves the preparation to the next edit made elsewhere).
// One thread prepares at a time; one that finds another at work leaves the requests to it (its
// loop picks them up before it stops).
import Foundation

extension AVAudioEngine {
    func prepareAudioUnits() {
        lock.lock()
        if preparingAudioUnits || gate.isCurrentThreadRendering { lock.unlock(); return }
        preparingAudioUnits = true
        lock.unlock()
        while true {
            lock.lock()
            var work: [(renderer: AUAudioUnitNodeRenderer, configuration: AUAudioUnitNodeRenderer.Configuration)] = []
            var mustRetire = false
            for node in nodes.values {
                guard let renderer = node.renderer as? AUAudioUnitNodeRenderer, let request = renderer.beginPreparing() else { continue }
                work.append((renderer, request.configuration))
                mustRetire = mustRetire || request.wasRendering
            }
            if work.isEmpty {
                preparingAudioUnits = false
                lock.unlock()
                return
            }
            // A plan that no longer calls these units; then no cycle may still be inside an older
            // one that does before their resources are reallocated.
            if mustRetire && (prepared || running) { exchange.publish(compilePlan()) }
            lock.unlock()
            if mustRetire { waitForPublishedPlan() }

            for item in work { item.renderer.prepare(item.configuration) }

            lock.lock()
            for item in work { item.renderer.endPreparing(item.configuration) }
            if prepared || running { exchange.publish(compilePlan()) }
            lock.unlock()
        }
    }

    /// No lock held: returns once every render cycle that started before the last publish has
    /// ended. Cycles run one at a time and each starts by taking the published plan, so either
    /// the gate is idle (later cycles take the new plan) or a cycle took it (the earlier ones ended).
    private func waitForPublishedPlan() {
        while gate.isBusy && exchange.hasPendingPlan {
            if gate.isCurrentThreadRendering { return }
            usleep(50)
        }
    }
}

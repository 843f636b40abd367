// Compile-time proof (release builds) that the engine's own real-time plumbing takes no lock and
// allocates nothing: the render gate and the event queue's render-side operations. Same mechanism as AudioKernels/RealTimeSafety.swift: `@_noLocks`
// wrappers that exist only in optimised builds (the check also runs at -Onone, where nothing is
// specialised) and are never called; if a change makes one of these lock, allocate or retain,
// `swift build -c release --target AVFAudio` fails here.
//
// Not proved (yet): PlanExchange.planForCycle (the check reports MPSCQueue.push as an
// unspecialised generic call there), RenderPlan.render and the node renderers' render
// functions — see the threading section of ARCHITECTURE.md for what the check reports.
#if !DEBUG
enum RenderPathProof {
    @_noLocks
    static func gate(_ g: Unmanaged<RenderGate>) -> Bool {
        g._withUnsafeGuaranteedRef { gate in
            guard gate.enter() == .admitted else { return false }
            gate.leave()
            return true
        }
    }

    @_noLocks
    static func events(_ q: Unmanaged<RenderEventQueue>, _ c: Unmanaged<PendingCompletion>, _ t: Unmanaged<TapRenderer>) -> Bool {
        q._withUnsafeGuaranteedRef { events in
            events.retryUndelivered()
            events.postCompletion(c)
            return events.post(.tapDataAvailable(t))
        }
    }

}
#endif

// Compile-time proof (release builds) that the engine's render path takes no lock, allocates
// nothing and does no reference counting: the render gate, the plan exchange, the render loop
// (`RenderPlan.render`, through every node's render step and tap) and the event queue's
// render-side operations. Same mechanism as AudioKernels/RealTimeSafety.swift: `@_noLocks`
// wrappers that exist only in optimised builds (the check also runs at -Onone, where nothing is
// specialised) and are never called; if a change makes one of these lock, allocate or retain,
// `swift build -c release --target AVFAudio` fails here.
//
// `RenderStep.render` and the domain calls are virtual; the check follows every override of them
// in the module (the classes are internal, so the compiler sees them all). What it cannot see
// into is client code — source, sink and input blocks, a client AUAudioUnit's render block —
// each called through one function in `ClientCall.swift` that the check skips. See the threading
// section of ARCHITECTURE.md.
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

    @_noLocks
    static func planForCycle(_ exchange: PlanExchange) -> Unmanaged<RenderPlan>? {
        exchange.planForCycle()
    }

}
#endif

// Compile-time proof (release builds) that the engine's render path takes no lock, allocates
// nothing and does no reference counting. Same mechanism as AudioKernels/RealTimeSafety.swift:
// `@_noLocks` wrappers that exist only in optimised builds (the check also runs at -Onone, where
// nothing is specialised) and are never called; if a change makes one of these lock, allocate or
// retain, `swift build -c release --target AVFAudio` fails here.
//
// Proved: the render gate, the event queue's render side, the plan exchange, the player's and the
// mixer's render (the 64-player mix runs through nothing else), each with the calls it leaves out
// by name (`no_performance_analysis`, said where they are): client blocks (`ClientCall`), a
// player's converted or file items (`ScheduledItem.copyConverted`), a mixer's rate-converted and
// matrix inputs (`MixerRenderer.convertInput`, `mixThroughMatrix`).
// Not proved yet: `RenderPlan.render` as a whole — the check follows `RenderStep.render` into
// every node's step, and the source, input, effect, audio-unit, time-effect and tap paths still
// reach objects by strong reference (see the threading section of ARCHITECTURE.md).
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


    @_noLocks
    static func player(_ player: PlayerRenderer, _ cycle: inout RenderCycle, _ output: Unmanaged<RenderBuffer>) {
        player.render(&cycle, output: output, latencyFrames: 0)
    }

    @_noLocks
    static func mixer(_ mixer: MixerRenderer, _ cycle: inout RenderCycle, _ inputs: UnsafeBufferPointer<RenderBuffer?>,
                      _ output: Unmanaged<RenderBuffer>, _ state: Unmanaged<MixerRenderer.State>) {
        mixer.render(&cycle, inputs: inputs, output: output, state: state)
    }
}
#endif

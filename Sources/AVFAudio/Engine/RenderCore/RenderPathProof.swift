// Compile-time proof (release builds) that the engine's render path takes no lock, allocates
// nothing and does no reference counting. Same mechanism as AudioKernels/RealTimeSafety.swift:
// `@_noLocks` wrappers that exist only in optimised builds (the check also runs at -Onone, where
// nothing is specialised) and are never called; if a change makes one of these lock, allocate or
// retain, `swift build -c release --target AVFAudio` fails here.
//
// Proved: `RenderPlan.render` as a whole (`plan`: every node's step through `StepKind`, the rate
// domains, the taps), the render gate, the event queue's render side and the plan exchange; the
// per-renderer proofs below name each entry point again, so that a regression is reported where
// it is. The proof stops, by name (`no_performance_analysis`), at client code (`ClientCall`), at
// calls into AudioKernels proved there (`KernelCall`), at two hand-vouched numeric helpers
// (`KernelCall.power`, `widen`) and at a player's file segments (`ScheduledItem.copyConverted`:
// offline file reading may block by design); see the threading section of ARCHITECTURE.md.
#if !DEBUG && !AVAUDIO_TESTABLE_RELEASE
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

    @_noLocks
    static func effect(_ s: EffectRenderer.State, _ cycle: inout RenderCycle, _ i: UnsafeBufferPointer<RenderBuffer?>, _ o: UnsafeBufferPointer<RenderBuffer>) {
        s.render(&cycle, inputs: i, outputs: o)
    }

    @_noLocks
    static func timeEffect(_ s: TimeEffectRenderer.State, _ cycle: inout RenderCycle, _ i: UnsafeBufferPointer<RenderBuffer?>, _ o: UnsafeBufferPointer<RenderBuffer>) -> Int {
        s.cycleWillStart(sampleTime: 0, hostTime: 0, bus: 0)
        let n = s.inputFrames(forOutputFrames: 512, bus: 0) + Int(s.inputSampleTime(bus: 0))
        s.render(&cycle, inputs: i, outputs: o)
        return n
    }

    @_noLocks
    static func audioUnit(_ s: AUAudioUnitNodeRenderer.State, _ cycle: inout RenderCycle, _ i: UnsafeBufferPointer<RenderBuffer?>, _ o: UnsafeBufferPointer<RenderBuffer>) {
        s.render(&cycle, inputs: i, outputs: o)
    }

    @_noLocks
    static func source(_ s: SourceRenderer.State, _ r: SourceRenderer, _ cycle: inout RenderCycle, _ i: UnsafeBufferPointer<RenderBuffer?>, _ o: UnsafeBufferPointer<RenderBuffer>) {
        s.render(&cycle, inputs: i, outputs: o)
        r.render(&cycle, inputs: i, outputs: o)
    }

    @_noLocks
    static func input(_ s: InputRenderer.State, _ cycle: inout RenderCycle, _ i: UnsafeBufferPointer<RenderBuffer?>, _ o: UnsafeBufferPointer<RenderBuffer>) {
        s.render(&cycle, inputs: i, outputs: o)
    }

    @_noLocks
    static func tap(_ t: TapRenderer, _ b: Unmanaged<RenderBuffer>, _ cycle: RenderCycle) {
        t.capture(b, frames: 512, cycle: cycle)
    }

    @_noLocks
    static func converter(_ c: MixerRateConverter, _ b: Unmanaged<RenderBuffer>) -> UnsafeMutablePointer<UnsafeMutablePointer<Float>> {
        c.convert(b, producing: 512)
    }

    @_noLocks
    static func plan(_ plan: RenderPlan, _ events: RenderEventQueue) -> Bool {
        plan.render(frames: 512, sampleTime: 0, hostTime: 0, outputRate: 48000, isOffline: false, events: events)
    }
}
#endif

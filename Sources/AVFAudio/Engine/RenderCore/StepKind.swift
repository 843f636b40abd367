// How the render loop calls each node's step: a closed switch over the engine's renderers, not a
// virtual call.
//
// DESIGN NOTE — why not `step.render(...)` through the class's vtable
// -------------------------------------------------------------------
// The compiler proves the render loop free of locks, allocation and reference counting
// (`@_noLocks`, RenderPathProof.swift). That check runs in the mandatory pipeline, after a pass
// that specialises the generic calls of every function reachable from the proved root by direct
// calls; a function reached through a vtable is not specialised, so the check would reject the
// standard library's generic helpers in every renderer (and a new override would silently join
// the proof unspecialised). Calling each step through this enum keeps every call direct: one
// `switch`, then a call to a final class's method. It is also what a virtual call costs.
//
// Every renderer the engine has is a case. A renderer added later without a case renders through
// `.other`, a virtual call behind `UnprovedStep` — correct, but outside the proof, which then
// says so by name.

enum StepKind {
    /// Outputs silence (the base renderer; an audio unit not prepared yet; the output node).
    case silent
    case player(Unmanaged<PlayerRenderer.State>)
    case mixer(Unmanaged<MixerRenderer.State>)
    /// A source node whose block renders in another format than the output's.
    case source(Unmanaged<SourceRenderer.State>)
    /// A source node whose block writes the output buffer directly.
    case sourceInPlace(Unmanaged<SourceRenderer>)
    case sink(Unmanaged<SinkRenderer>)
    case input(Unmanaged<InputRenderer.State>)
    case effect(Unmanaged<EffectRenderer.State>)
    case timeEffect(Unmanaged<TimeEffectRenderer.State>)
    case audioUnit(Unmanaged<AUAudioUnitNodeRenderer.State>)
    /// A renderer without a case of its own (not proved: see the design note).
    case other(Unmanaged<RenderStep>)

    /// Render thread: one cycle of the node (see `NodeRenderer.render`).
    @inline(__always)
    func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>) {
        switch self {
        case .silent:
            var i = 0
            while i < outputs.count { outputs.unmanaged(i).clear(frames: cycle.frames); i += 1 }
        case .player(let s): s._withUnsafeGuaranteedRef { $0.render(&cycle, inputs: inputs, outputs: outputs) }
        case .mixer(let s): s._withUnsafeGuaranteedRef { $0.render(&cycle, inputs: inputs, outputs: outputs) }
        case .source(let s): s._withUnsafeGuaranteedRef { $0.render(&cycle, inputs: inputs, outputs: outputs) }
        case .sourceInPlace(let r): r._withUnsafeGuaranteedRef { $0.render(&cycle, inputs: inputs, outputs: outputs) }
        case .sink(let r): r._withUnsafeGuaranteedRef { $0.render(&cycle, inputs: inputs, outputs: outputs) }
        case .input(let s): s._withUnsafeGuaranteedRef { $0.render(&cycle, inputs: inputs, outputs: outputs) }
        case .effect(let s): s._withUnsafeGuaranteedRef { $0.render(&cycle, inputs: inputs, outputs: outputs) }
        case .timeEffect(let s): s._withUnsafeGuaranteedRef { $0.render(&cycle, inputs: inputs, outputs: outputs) }
        case .audioUnit(let s): s._withUnsafeGuaranteedRef { $0.render(&cycle, inputs: inputs, outputs: outputs) }
        case .other(let s): UnprovedStep.render(s, &cycle, inputs, outputs)
        }
    }

    /// Render thread, for a node whose input `bus` starts a rate domain (see `RenderStep`).
    @inline(__always)
    func cycleWillStart(sampleTime: Int64, hostTime: UInt64, bus: Int) {
        switch self {
        case .timeEffect(let s): s._withUnsafeGuaranteedRef { $0.cycleWillStart(sampleTime: sampleTime, hostTime: hostTime, bus: bus) }
        case .other(let s): UnprovedStep.cycleWillStart(s, sampleTime: sampleTime, hostTime: hostTime, bus: bus)
        default: break
        }
    }

    /// Render thread: input frames needed on `bus` for `outputFrames` output frames (see `RenderStep`).
    @inline(__always)
    func inputFrames(forOutputFrames outputFrames: Int, bus: Int) -> Int {
        switch self {
        case .mixer(let s): return s._withUnsafeGuaranteedRef { $0.inputFrames(forOutputFrames: outputFrames, bus: bus) }
        case .timeEffect(let s): return s._withUnsafeGuaranteedRef { $0.inputFrames(forOutputFrames: outputFrames, bus: bus) }
        case .other(let s): return UnprovedStep.inputFrames(s, forOutputFrames: outputFrames, bus: bus)
        default: return outputFrames
        }
    }

    /// Render thread: the sample time of the next input frame on a rate-changing `bus`.
    @inline(__always)
    func inputSampleTime(bus: Int) -> Int64 {
        switch self {
        case .mixer(let s): return s._withUnsafeGuaranteedRef { $0.inputSampleTime(bus: bus) }
        case .timeEffect(let s): return s._withUnsafeGuaranteedRef { $0.inputSampleTime(bus: bus) }
        case .other(let s): return UnprovedStep.inputSampleTime(s, bus: bus)
        default: return 0
        }
    }
}

/// The virtual calls of `StepKind.other`, outside the compiler's real-time check (each is the
/// call and only the call).
enum UnprovedStep {
    @_semantics("no_performance_analysis") @inline(never)
    static func render(_ s: Unmanaged<RenderStep>, _ cycle: inout RenderCycle, _ inputs: UnsafeBufferPointer<RenderBuffer?>,
                       _ outputs: UnsafeBufferPointer<RenderBuffer>) {
        s._withUnsafeGuaranteedRef { $0.render(&cycle, inputs: inputs, outputs: outputs) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func cycleWillStart(_ s: Unmanaged<RenderStep>, sampleTime: Int64, hostTime: UInt64, bus: Int) {
        s._withUnsafeGuaranteedRef { $0.cycleWillStart(sampleTime: sampleTime, hostTime: hostTime, bus: bus) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func inputFrames(_ s: Unmanaged<RenderStep>, forOutputFrames outputFrames: Int, bus: Int) -> Int {
        s._withUnsafeGuaranteedRef { $0.inputFrames(forOutputFrames: outputFrames, bus: bus) }
    }
    @_semantics("no_performance_analysis") @inline(never)
    static func inputSampleTime(_ s: Unmanaged<RenderStep>, bus: Int) -> Int64 {
        s._withUnsafeGuaranteedRef { $0.inputSampleTime(bus: bus) }
    }
}

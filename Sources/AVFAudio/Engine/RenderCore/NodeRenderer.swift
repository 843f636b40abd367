// The render-side half of every node.
//
// Each AVAudioNode (control object, used from any thread by the client) owns one NodeRenderer
// (render object, used by the render thread). They share nothing mutable except through
// explicit channels: atomics for continuous parameters (volume, pan), lock-free queues for commands
// (schedule a buffer, play, stop), and the engine's event queue for what flows back (completion
// handlers, tap audio). A renderer never allocates, locks or does I/O in `render` (offline-only
// nodes may do file I/O when `context.isOffline`).
//
// DESIGN NOTE — typed per-plan render state
// -----------------------------------------
// What a renderer needs for one plan (formats, scratch memory, a mixer's per-input routes, an
// effect's kernel) is built on the control side when the plan is compiled, as the renderer's own
// `RenderStep` subclass (`MixerRenderer.State`, `PlayerRenderer.State`, ...). The plan keeps the
// step and calls it: `step.render(...)` is one virtual call, and the step's override calls its
// renderer's typed `render(..., state: self)` — the renderer is held as `Unmanaged<ItsOwnType>`
// and the state is `self`, so there is no `AnyObject`, no downcast and no retain on the way.
// A renderer without per-plan state gets a plain `RenderStep`, which calls the renderer's
// stateless `render(_:inputs:outputs:)`.

/// What a renderer knows about the current cycle.
struct RenderCycle {
    /// Sample time, on the engine's timeline at the node's rate, of the cycle's first frame.
    var sampleTime: Int64
    /// Host time of the cycle's first frame.
    var hostTime: UInt64
    /// Frames to render in this cycle (at this node's rate).
    var frames: Int
    /// The sample rate of the node's output.
    var sampleRate: Double
    /// True in offline manual rendering (renderers may block, e.g. read files synchronously).
    var isOffline: Bool
    /// Where renderers post events for the control side (the engine keeps it alive; reached
    /// through `_withUnsafeGuaranteedRef`, without a retain).
    var events: Unmanaged<RenderEventQueue>
    /// Set by a renderer to report that manual-rendering input was missing.
    var inputWasInsufficient = false
}

class NodeRenderer {
    /// Called on the render thread, for renderers without per-plan state (those with state render
    /// through their `RenderStep` subclass): read `inputs` (one per input bus, nil when
    /// unconnected) and fill every buffer in `outputs` with `cycle.frames` frames.
    func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>) {
        var i = 0
        while i < outputs.count { outputs.unmanaged(i).clear(frames: cycle.frames); i += 1 }
    }

    /// Control side, while compiling a plan: build the immutable per-plan step `render` needs
    /// (objects it points at may persist across plans, e.g. a mixer's per-input resamplers).
    /// nil: the plan uses a plain `RenderStep`, which calls `render(_:inputs:outputs:)`.
    func makeStepState(inputFormats: [AVAudioFormat?], outputFormats: [AVAudioFormat], maximumFrames: Int) -> RenderStep? { nil }

    /// How the render loop calls this renderer's stateless `render` (see StepKind.swift): a
    /// renderer that overrides `render(_:inputs:outputs:)` must return its own case here (or
    /// `.other`), else the loop outputs silence for it. Control side, when a plan is compiled.
    func statelessKind(step: RenderStep) -> StepKind { .silent }

    /// Clears DSP state (delay lines, filter memories). Called from the render thread between cycles,
    /// or from the control side while the engine is stopped.
    func resetState() {}
}

/// One node's part of one plan (see the design note): built by the node's renderer when the plan
/// is compiled, kept alive by the plan, called by the render loop.
class RenderStep {
    /// The renderer (the plan keeps it alive; reached without a retain).
    private let renderer: Unmanaged<NodeRenderer>

    init(renderer: NodeRenderer) { self.renderer = .passUnretained(renderer) }

    /// How the render loop calls this step (StepKind.swift). Each per-plan state class returns
    /// its own case; a plain step is its renderer's stateless kind. Control side.
    var kind: StepKind { renderer._withUnsafeGuaranteedRef { $0.statelessKind(step: self) } }

    /// Render thread: one cycle of this node (see `NodeRenderer.render`).
    func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>) {
        renderer._withUnsafeGuaranteedRef { $0.render(&cycle, inputs: inputs, outputs: outputs) }
    }

    /// Render thread, for a node whose input `bus` starts a rate domain: the cycle about to be
    /// rendered begins at `sampleTime` on the node's (output) timeline. Called just before
    /// `inputFrames(forOutputFrames:bus:)`, so a node can resolve timed events against the
    /// right cycle even when the timeline jumped (manual rendering re-enabled, a device restart).
    func cycleWillStart(sampleTime: Int64, hostTime: UInt64, bus: Int) {}

    /// Input frames needed on `bus` to produce `outputFrames` output frames this cycle
    /// (different only for nodes that change the rate, such as a mixer converting an input).
    func inputFrames(forOutputFrames outputFrames: Int, bus: Int) -> Int { outputFrames }

    /// The most input frames `inputFrames(forOutputFrames:bus:)` can ask for (buffer sizing).
    func maximumInputFrames(forOutputFrames outputFrames: Int, bus: Int) -> Int { outputFrames }

    /// The sample time, at the input's rate, of the next input frame on a rate-changing `bus`.
    func inputSampleTime(bus: Int) -> Int64 { 0 }
}

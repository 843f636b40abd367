// Compile-time proof (release builds) that the sequencer's per-cycle step takes no lock,
// allocates nothing and does no reference counting — the same mechanism as
// Engine/RenderCore/RenderPathProof.swift: a `@_noLocks` wrapper that exists only in optimised
// builds and is never called; if a change makes the step lock, allocate or retain,
// `swift build -c release --target AVFAudio` fails here.
#if !DEBUG && !AVAUDIO_TESTABLE_RELEASE
enum SequencerRenderPathProof {
    @_noLocks
    static func hooks(_ hooks: SequencerHooks) {
        hooks.cycleWillRender(sampleTime: 0, frames: 512, sampleRate: 48_000, hostTime: 0)
    }

    @_noLocks
    static func renderer(_ renderer: SequencerRenderer) {
        renderer.renderCycle(sampleTime: 0, frames: 512, sampleRate: 48_000, hostTime: 0)
    }
}
#endif

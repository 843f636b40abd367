// Compile-time proof that the voice engine's render side is real-time safe: the compiler rejects
// a `@_noLocks` function if anything it runs might allocate, take a lock, retain/release through
// the runtime's locking paths or instantiate metadata. Only in optimised builds (see
// AudioKernels/RealTimeSafety.swift for why); never called. The libm calls (SynthMath.swift) and
// the C voice loops (CSamplerKernels) are vouched for by hand: they touch no heap and no lock.

#if !DEBUG && !AVAUDIO_TESTABLE_RELEASE
enum SamplerRealTimeSafety {
    @_noLocks
    static func cycle(_ synth: SamplerSynth, _ left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>, _ frames: Int) {
        synth.beginCycle()
        synth.handleMIDI(0x90, 60, 100)
        synth.render(left: left, right: right, offset: 0, frames: frames / 2)
        synth.handleMIDI(0xB0, 64, 0)
        synth.handleMIDI(0xE0, 0, 0x50)
        synth.handleMIDI(0xC0, 5, 0)
        synth.handleMIDI(0x80, 60, 0)
        synth.render(left: left, right: right, offset: frames / 2, frames: frames - frames / 2)
    }
}
#endif

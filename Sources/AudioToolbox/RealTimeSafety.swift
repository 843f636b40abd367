// Compile-time proof that what the render side may call on a parameter is real-time safe: the
// compiler rejects a `@_noLocks` function if anything it runs might allocate, take a lock or
// instantiate metadata. Only in optimised builds (see Sources/AudioKernels/RealTimeSafety.swift
// for why); never called.

#if !DEBUG && !AVAUDIO_TESTABLE_RELEASE
enum AudioToolboxRealTimeSafety {
    @_noLocks
    static func renderSide(_ parameter: AUParameter, _ value: AUValue) -> AUValue {
        parameter.noteRenderValue(value)
        parameter.setStoredValue(value)
        return parameter.storedValue
    }
}
#endif

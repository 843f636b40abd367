// Compile-time proof that the public kernels are real-time safe.
//
// `@_noLocks` makes the compiler reject a function if anything it runs – itself or, transitively,
// any function it calls – might allocate memory, take a lock, or instantiate type metadata (which
// locks); `@_noLocks` implies `@_noAllocation`. The check runs on optimised code, after the
// generic kernels have been specialised for concrete formats.
//
// Why the attribute is here and not on the public functions themselves: the check also runs in
// debug (-Onone) builds, where nothing is specialised, so every call to a generic kernel is
// reported as a possible metadata allocation and the debug build fails. Swift has no `#if` for a
// single attribute, so the annotated functions below wrap each entry point and exist only when
// the build is optimised (SwiftPM defines DEBUG in debug builds). They are never called; if a
// change ever makes a kernel allocate or lock, every release build of the package fails here.
// Every proof file also skips AVAUDIO_TESTABLE_RELEASE: an optimised build with -enable-testing
// (the release test build of Scripts/soak.sh) keeps internal methods overridable, so calls the
// proofs rely on being devirtualised are not; the plain release build (`.ci/run`) still checks.

#if !DEBUG && !AVAUDIO_TESTABLE_RELEASE
enum RealTimeSafety {
    @_noLocks
    static func decode(_ n: Int, _ source: UnsafeRawPointer, _ encoding: SampleEncoding, _ bigEndian: Bool,
                       _ destination: ProcessingBufferPointer, _ frame: Int, _ dither: inout TPDFDither) {
        SampleConversion.decode(frameCount: n, from: source, encoding: encoding, bigEndian: bigEndian,
                                to: destination, atFrame: frame)
        SampleConversion.decode(frameCount: n, from: source, encoding: encoding, bigEndian: bigEndian,
                                to: destination, atFrame: frame, dither: &dither)
    }

    @_noLocks
    static func encode(_ n: Int, _ source: ProcessingBufferPointer, _ frame: Int, _ destination: UnsafeMutableRawPointer,
                       _ encoding: SampleEncoding, _ bigEndian: Bool, _ dither: inout TPDFDither) {
        SampleConversion.encode(frameCount: n, from: source, atFrame: frame, to: destination,
                                encoding: encoding, bigEndian: bigEndian)
        SampleConversion.encode(frameCount: n, from: source, atFrame: frame, to: destination,
                                encoding: encoding, bigEndian: bigEndian, dither: &dither)
    }

    @_noLocks
    static func convert(_ n: Int, _ source: ProcessingBufferPointer, _ sourceFrame: Int,
                        _ destination: ProcessingBufferPointer, _ destinationFrame: Int, _ dither: inout TPDFDither) {
        SampleConversion.convert(frameCount: n, from: source, atFrame: sourceFrame,
                                 to: destination, atFrame: destinationFrame)
        SampleConversion.convert(frameCount: n, from: source, atFrame: sourceFrame,
                                 to: destination, atFrame: destinationFrame, dither: &dither)
    }

    @_noLocks
    static func perSample(_ byte: UInt8, _ sample: Int16, _ x: Float, _ dither: inout TPDFDither) -> Int32 {
        let noise = dither.next()
        return Int32(G711.linear(fromULaw: byte)) &+ Int32(G711.linear(fromALaw: byte))
            &+ Int32(G711.ulaw(fromLinear: sample)) &+ Int32(G711.alaw(fromLinear: sample))
            &+ SampleScaling.integer(fromFloat: x, bits: 16, dither: noise[0])
    }
}
#endif

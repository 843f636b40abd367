// Triangular-PDF dither for float → integer quantisation.
//
// Rounding a signal to integers adds an error that follows the signal: on quiet, smooth material
// it is heard as distortion. Adding a little random noise before rounding ("dither") makes the
// error independent of the signal – a constant, benign hiss instead. The standard choice is TPDF
// (triangular probability density) noise spanning ±1 LSB: the sum of two independent uniform
// values of ±½ LSB each. It is the smallest noise that makes both the mean and the variance of
// the error independent of the signal.

/// The state of a deterministic TPDF dither generator.
///
/// The caller owns it and passes it `inout` to the dithering conversions, so dithering allocates
/// nothing, takes no lock, and a given seed always produces the same output (tests can compare
/// files byte for byte). Keep one per stream and pass it to every call on that stream.
///
/// The generator runs eight xorshift32 generators side by side, one per lane of a `SIMD8`, so a
/// block of eight dither values costs a handful of vector instructions and does not serialise the
/// conversion loop on one generator's dependency chain.
@frozen
public struct TPDFDither: Sendable {
    /// Eight independent xorshift32 states; never zero (zero is xorshift's only fixed point).
    @usableFromInline
    var lanes: SIMD8<UInt32>

    /// A generator whose output is fixed by `seed`.
    @inlinable
    public init(seed: UInt64 = 0x9E37_79B9_7F4A_7C15) {
        // Seed each lane with a step of SplitMix64 (Steele, Lea & Flood 2014), a mixer whose
        // outputs differ in about half their bits for neighbouring inputs, so the lanes start
        // uncorrelated even for seeds 0, 1, 2…
        var state = seed
        var lanes = SIMD8<UInt32>()
        for lane in 0 ..< 8 {
            state &+= 0x9E37_79B9_7F4A_7C15          // 2^64 / golden ratio
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            z ^= z >> 31
            let word = UInt32(truncatingIfNeeded: z)
            lanes[lane] = word == 0 ? 0x6D2B_79F5 : word
        }
        self.lanes = lanes
    }

    /// A generator with the given lane states (internal: for paths that never draw from it).
    init(lanes: SIMD8<UInt32>) {
        self.lanes = lanes
    }

    /// Advances every lane and returns eight dither values in units of one LSB, each in (-1, 1)
    /// with a triangular distribution peaking at 0.
    @inlinable @inline(__always)
    public mutating func next() -> SIMD8<Float> {
        // xorshift32 (Marsaglia 2003) with the shift triple 13, 17, 5: period 2^32 - 1 per lane.
        var x = lanes
        x ^= x &<< 13
        x ^= x &>> 17
        x ^= x &<< 5
        lanes = x
        // The two 16-bit halves of the word are two independent uniform values in [0, 65535];
        // their difference is triangular on (-65536, 65536). 1/65536 scales it to ±1 LSB.
        let low = SIMD8<Int32>(truncatingIfNeeded: x & 0xFFFF)
        let high = SIMD8<Int32>(truncatingIfNeeded: x &>> 16)
        return SIMD8<Float>(low &- high) * (1.0 / 65536.0)
    }
}

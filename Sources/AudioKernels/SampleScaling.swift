// The numeric rules of sample conversion, one sample at a time. Every kernel in this module is
// built from these functions, so this file is the single place that defines what a conversion
// *means*; the other files only decide how fast it runs.
//
// The rules are Core Audio's (AudioConverter's) rules for linear PCM:
//
//  * An integer of `bits` bits maps to float by dividing by 2^(bits-1): int16 / 32768,
//    int24 / 8388608, int32 / 2147483648. So the most negative integer is exactly -1.0 and the
//    most positive is just below +1.0 (32767/32768 for int16).
//  * Float maps to an integer of `bits` bits by multiplying by 2^(bits-1), rounding to the nearest
//    integer (a value exactly halfway goes to the even neighbour – IEEE "ties to even", the
//    rounding of the FPU's default mode), and clipping to the integer's range. So +1.0 becomes
//    32767 (clipped), -1.0 becomes -32768, 1.5 becomes 32767, and NaN becomes 0.
//  * Integers of different widths convert by shifting: widening appends zero bits (16 → 32 is
//    `<< 16`, exact); narrowing rounds to nearest, ties to even, and clips (32 → 16 is
//    `x / 65536` rounded, so 0x7FFF_8000 and above become 32767). Narrowing therefore gives the
//    same answer as converting through float64 and back, which holds every int32 exactly.
//  * float32 ↔ float64 is the IEEE conversion (widening exact, narrowing rounds to nearest even).
//
// Powers of two are exact in binary floating point, so the scaling itself never rounds; the only
// rounding is int32 → float32 (24-bit significand) and the float → integer quantisation.

/// Per-sample conversions between integer and floating-point samples (Core Audio's rules).
///
/// The functions take the bit width as a parameter; in the kernels it is a constant, so the
/// optimiser folds the powers of two and picks one code path at compile time.
public enum SampleScaling {
    /// 2^(bits-1) as a Float: the value that maps to full scale (1.0) for a `bits`-bit integer.
    @inlinable @inline(__always)
    static func fullScale(bits: Int) -> Float { Float(1 << (bits &- 1)) }

    /// 2^(bits-1) as a Double.
    @inlinable @inline(__always)
    static func fullScaleDouble(bits: Int) -> Double { Double(1 << (bits &- 1)) }

    // MARK: integer → float

    /// `x / 2^(bits-1)`: an integer sample of `bits` bits (8…32) as a Float in [-1, 1).
    /// Exact for `bits <= 24`; for 32 bits the integer is first rounded to Float's 24-bit
    /// significand (nearest, ties to even), so the top 64 int32 values give exactly 1.0.
    @inlinable @inline(__always)
    public static func float(fromInteger x: Int32, bits: Int) -> Float {
        // Multiplying by the reciprocal power of two is exact and cheaper than dividing.
        Float(x) * (1 / fullScale(bits: bits))
    }

    /// `x / 2^(bits-1)` as a Double; always exact (a Double holds every 32-bit integer).
    @inlinable @inline(__always)
    public static func double(fromInteger x: Int32, bits: Int) -> Double {
        Double(x) * (1 / fullScaleDouble(bits: bits))
    }

    // MARK: float → integer

    /// Quantises a Float sample to a `bits`-bit integer (8…32): `x * 2^(bits-1)` rounded to
    /// nearest (ties to even), clipped to `-2^(bits-1) … 2^(bits-1) - 1`; NaN gives 0.
    @inlinable @inline(__always)
    public static func integer(fromFloat x: Float, bits: Int) -> Int32 {
        if bits > 24 {
            // Float cannot hold every 32-bit integer near full scale (its significand has 24 bits),
            // so clip and round in Double, which holds them all exactly.
            return integer(fromDouble: Double(x), bits: bits)
        }
        return quantize(x * fullScale(bits: bits), bits: bits)
    }

    /// `integer(fromFloat:bits:)` with `dither` added after scaling, in units of the target's
    /// least significant bit (TPDF dither passes values in (-1, 1)).
    @inlinable @inline(__always)
    public static func integer(fromFloat x: Float, bits: Int, dither: Float) -> Int32 {
        if bits > 16 {
            // Above 2^22 Floats are spaced ½ apart or more, so `x * 2^23 + dither` would round the
            // dither itself; for 24- and 32-bit targets add it in Double.
            return integer(fromDouble: Double(x), bits: bits, dither: Double(dither))
        }
        return quantize(x * fullScale(bits: bits) + dither, bits: bits)
    }

    /// Quantises a Double sample to a `bits`-bit integer (8…32); the same rule as
    /// `integer(fromFloat:bits:)`.
    @inlinable @inline(__always)
    public static func integer(fromDouble x: Double, bits: Int) -> Int32 {
        quantize(x * fullScaleDouble(bits: bits), bits: bits)
    }

    /// `integer(fromDouble:bits:)` with `dither` (in LSBs) added after scaling.
    @inlinable @inline(__always)
    public static func integer(fromDouble x: Double, bits: Int, dither: Double) -> Int32 {
        quantize(x * fullScaleDouble(bits: bits) + dither, bits: bits)
    }

    // How the rounding is done. `Int32(v.rounded())` would be the obvious spelling, but it traps
    // on out-of-range values and, without SSE4.1 (Swift targets baseline x86-64 here), rounding is
    // a libm call per sample – so the loop could not vectorise. Instead the FPU's own rounding is
    // used: adding a large power-of-two-sized constant C pushes v into a binade where floats are
    // exactly 1 apart, so the addition itself rounds v to an integer (nearest, ties to even – the
    // default IEEE mode), and the integer can be read straight out of the significand bits.
    //
    // NaN: the clip below lets NaN through (`max` and `min` keep their first operand when a
    // comparison is false), and the final select turns it into 0 – one compare and one mask per
    // vector. Clipping before rounding is safe because the limits are integers.

    /// Clips an already scaled `v` to `bits` bits, rounds it and returns it; NaN gives 0.
    @inlinable @inline(__always)
    static func quantize(_ v: Float, bits: Int) -> Int32 {
        let top = fullScale(bits: bits)
        let clipped = Swift.min(Swift.max(v, -top), top - 1)
        let rounded: Int32
        if bits <= 16 {
            // 12582912 = 1.5 * 2^23: for |v| <= 2^15 the sum is in [2^23, 2^24), spaced 1 apart,
            // and its significand is 2^22 + round(v). The bit pattern of the constant is
            // 0x4B40_0000, so subtracting it leaves round(v) in two's complement. (For 8- and
            // 16-bit targets the low bits alone are stored and the compiler drops the subtraction.)
            rounded = Int32(bitPattern: (clipped + 12582912.0).bitPattern) &- 0x4B40_0000
        } else {
            // 24 bits: |v| reaches 2^23, too far for the 1.5 * 2^23 constant. Round the magnitude
            // instead: |v| + 2^23 lies in [2^23, 2^24], where floats are spaced 1 apart (2^23 is
            // even, so ties still go to even), and subtracting the bit pattern of 2^23
            // (0x4B00_0000) leaves round(|v|), even for 2^23 itself (0x4B80_0000). Then restore
            // the sign.
            let magnitude = Int32(bitPattern: (clipped.magnitude + 8388608.0).bitPattern) &- 0x4B00_0000
            rounded = clipped < 0 ? 0 &- magnitude : magnitude
        }
        return v == v ? rounded : 0
    }

    /// Clips an already scaled `v` to `bits` bits, rounds it and returns it; NaN gives 0.
    @inlinable @inline(__always)
    static func quantize(_ v: Double, bits: Int) -> Int32 {
        let top = fullScaleDouble(bits: bits)
        let clipped = Swift.min(Swift.max(v, -top), top - 1)
        // 6755399441055744 = 1.5 * 2^52: for |v| <= 2^31 the sum is in [2^52, 2^53), spaced 1
        // apart, and its significand is 2^51 + round(v); as 2^51 is a multiple of 2^32, the low
        // 32 bits of the pattern are round(v) in two's complement.
        let rounded = Int32(truncatingIfNeeded: (clipped + 6755399441055744.0).bitPattern)
        return v == v ? rounded : 0
    }

    // MARK: integer → integer

    /// Converts an integer sample from `fromBits` to `toBits` bits (each 8…32): widening shifts
    /// left (exact); narrowing divides by 2^(fromBits - toBits) rounding to nearest, ties to
    /// even, and clips to the top of the range.
    @inlinable @inline(__always)
    public static func integer(_ x: Int32, fromBits: Int, toBits: Int) -> Int32 {
        if toBits >= fromBits { return x << (toBits &- fromBits) }
        return narrow(x, by: fromBits &- toBits, toBits: toBits)
    }

    /// `x / 2^shift` rounded to nearest (ties to even) and clipped to `toBits` bits.
    @inlinable @inline(__always)
    static func narrow(_ x: Int32, by shift: Int, toBits: Int) -> Int32 {
        // q is the floor of the quotient, r the remainder (0 ..< 2^shift). Adding
        // 2^(shift-1) - 1 + (q & 1) to r carries into bit `shift` exactly when r is above one
        // half, or equal to one half with q odd: that carry is the round-to-even increment.
        let q = x >> shift
        let r = x & ((1 << shift) &- 1)
        let increment = (r &+ (q & 1) &+ ((1 << (shift &- 1)) &- 1)) >> shift
        // Only the largest quotient can round past the top of the range (e.g. 0x7FFF_8000 → 32768).
        return Swift.min(q &+ increment, (1 << (toBits &- 1)) &- 1)
    }
}

// G.711 companding (ITU-T Recommendation G.711, 1972/1988): µ-law (North America, Japan; Sun .au,
// WAV format 7, CAF 'ulaw', AIFF-C 'ulaw') and A-law (Europe; WAV format 6, 'alaw').
//
// A G.711 byte is a tiny floating-point number: 1 sign bit, a 3-bit exponent ("segment") and a
// 4-bit mantissa ("quantisation step" within the segment). Each segment doubles the step size, so
// quiet signals get fine steps and loud ones coarse steps: 8 bits carry about 13 (A-law) or 14
// (µ-law) bits of dynamic range.
//
// The bit-exact reference is Sun Microsystems' public-domain g711.c (1991), which CPython's
// `audioop` (`ulaw2lin`, `lin2ulaw`, `alaw2lin`, `lin2alaw`), SoX and libsndfile all follow. Its
// conventions, reproduced here:
//
//  * Decoding yields 16-bit linear values: µ-law spans ±32124, A-law ±32256.
//  * Encoding takes 16-bit linear values and drops the bits G.711 cannot carry by an arithmetic
//    shift (flooring, not rounding): µ-law keeps 14 bits (`x >> 2`), A-law 13 bits (`x >> 3`).
//  * µ-law stores the complement of the code (so silence, +0, is 0xFF); A-law inverts the even
//    bits (XOR 0x55, so +0 is 0xD5), which keeps long runs of zero bits off old transmission lines.

/// G.711 µ-law and A-law conversion to and from 16-bit linear samples.
public enum G711 {
    // MARK: decoding
    //
    // Reference decoders usually read a 256-entry table. A Swift global array (or InlineArray) is
    // initialised lazily at run time behind a lock, which the real-time checks of this module
    // reject (see RealTimeSafety.swift), so these compute the table's entry instead. It costs a
    // handful of integer instructions, has no branch, and unlike a table lookup it vectorises.
    // The tests compare all 256 codes of both laws with the tables CPython's audioop uses.

    /// Decodes one µ-law byte to a 16-bit linear sample (-32124 … 32124).
    @inlinable @inline(__always)
    public static func linear(fromULaw byte: UInt8) -> Int16 {
        // Undo the complement, then split the code into sign, 3-bit segment and 4-bit mantissa.
        let code = Int32(~byte)
        let segment = (code >> 4) & 0x07
        let mantissa = code & 0x0F
        // G.711's reconstruction levels are ((2 * mantissa + 33) << segment) - 33 in 14-bit units;
        // times 4 for 16 bits that is ((mantissa * 8 + 132) << segment) - 132. 33 (132 = 0x84 in
        // 16-bit units) is the µ-law bias: offset by it, every segment starts at a power of two.
        let biased = ((mantissa << 3) &+ 0x84) << segment
        return Int16(truncatingIfNeeded: code & 0x80 != 0 ? 0x84 &- biased : biased &- 0x84)
    }

    /// Decodes one A-law byte to a 16-bit linear sample (-32256 … 32256).
    @inlinable @inline(__always)
    public static func linear(fromALaw byte: UInt8) -> Int16 {
        // Undo the even-bit inversion; the sign bit set means positive.
        let code = Int32(byte ^ 0x55)
        let segment = (code >> 4) & 0x07
        // Mantissa in 16-bit units (step 16) plus half a step (8): segment 0's level.
        let level = ((code & 0x0F) << 4) &+ 8
        // Segments 1…7 add the segment's start (0x100 = 256) and double per segment above 1;
        // segments 0 and 1 share the same step, which is why the shift is `segment - 1`.
        let magnitude = segment == 0 ? level : (level &+ 0x100) << (segment &- 1)
        return Int16(truncatingIfNeeded: code & 0x80 != 0 ? magnitude : 0 &- magnitude)
    }

    // MARK: encoding
    //
    // Encoding needs the segment – the position of the leading one of the magnitude – and the 4
    // bits after it. Sun's coder searches a table of segment ends; here the int → float
    // conversion does the search: a Float's exponent *is* the position of the leading one and the
    // top 4 bits of its significand are the 4 bits after it. So `bitPattern >> 19`, which is
    // exponent << 4 | those 4 bits, is already "segment << 4 | mantissa" plus a constant. The
    // magnitudes are below 2^13, so the conversion is exact. This is branch-free and, unlike a
    // count-leading-zeros loop, vectorises with baseline SSE2. The tests compare every one of the
    // 65536 inputs with a transcription of Sun's search-based coder.

    /// Encodes a 16-bit linear sample as µ-law, exactly as Sun's `linear2ulaw` / `audioop.lin2ulaw`.
    @inlinable @inline(__always)
    public static func ulaw(fromLinear sample: Int16) -> UInt8 {
        // 14-bit value; µ-law stores the complement of the code, so the final XOR mask is 0xFF
        // for positive values and 0x7F (complement, but sign bit clear) for negative ones.
        let x = Int32(sample) >> 2
        let mask: Int32 = x < 0 ? 0x7F : 0xFF
        // 8159 = 0x1FDF is where µ-law runs out: its largest level is 8031 (32124 / 4) and the top
        // segment's step is 256, so 8031 + 128 is the last value still nearest a code word.
        // Adding the bias 33 (0x21) then puts segment k at [2^(k+5), 2^(k+6)): 33 … 8192.
        let magnitude = Swift.min(x < 0 ? 0 &- x : x, 8159) &+ 33
        // Segment k means a leading one at bit k + 5, i.e. a float exponent of 127 + k + 5; so
        // `bits >> 19` = (132 + k) << 4 | mantissa, and subtracting 132 << 4 = 2112 leaves
        // k << 4 | mantissa. Only the clipped 8192 = 2^13 would give segment 8; Sun's coder
        // returns the largest code word 0x7F for it, hence the `min`.
        let bits = Int32(bitPattern: Float(magnitude).bitPattern)
        let code = Swift.min((bits >> 19) &- 2112, 0x7F)
        return UInt8(truncatingIfNeeded: code ^ mask)
    }

    /// Encodes a 16-bit linear sample as A-law, exactly as Sun's `linear2alaw` / `audioop.lin2alaw`.
    @inlinable @inline(__always)
    public static func alaw(fromLinear sample: Int16) -> UInt8 {
        // 13-bit value. Positive values (and 0) get the sign bit, which XOR 0xD5 sets along with
        // the even-bit inversion 0x55; negative values use the one's complement magnitude
        // (-x - 1 = ~x), so -1 … -4096 map onto 0 … 4095 like the positives: no clipping needed.
        let x = Int32(sample) >> 3
        let mask: Int32 = x >= 0 ? 0xD5 : 0x55
        let magnitude = x >= 0 ? x : ~x
        // Segment 0 is 0 … 31 with a step of 2 (mantissa = magnitude >> 1). Segment k >= 1 is
        // [2^(k+4), 2^(k+5)): a float exponent of 127 + k + 4, so `bits >> 19` - (131 << 4 = 2096)
        // is k << 4 | mantissa.
        let bits = Int32(bitPattern: Float(magnitude).bitPattern)
        let code = magnitude < 32 ? magnitude >> 1 : (bits >> 19) &- 2096
        return UInt8(truncatingIfNeeded: code ^ mask)
    }
}

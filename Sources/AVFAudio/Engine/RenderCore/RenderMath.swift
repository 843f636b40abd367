// Small numeric helpers for code the compiler's real-time check proves.

/// `Double(x)`: the standard library's conversion, one `fpext` instruction once optimised (as the
/// emitted SIL shows). Vouched for by hand: in this module the real-time check reports the
/// initialiser as "not available in this module" (it accepts the same call in AudioKernels), so
/// the proved render code converts through this one unanalysed function.
@_semantics("no_performance_analysis") @inline(never)
func widen(_ x: Float) -> Double { Double(x) }

/// The larger of two values (the generic `Swift.max` is not always specialised for `Double`
/// where the real-time check runs; NaN-free inputs).
@inline(__always)
func larger(_ a: Double, _ b: Double) -> Double { a > b ? a : b }

/// The smaller of two values (see `larger`).
@inline(__always)
func smaller(_ a: Double, _ b: Double) -> Double { a < b ? a : b }

/// The larger of two integers (see `larger(_:_:)` for `Double`).
@inline(__always)
func larger(_ a: Int, _ b: Int) -> Int { a > b ? a : b }

/// The smaller of two integers.
@inline(__always)
func smaller(_ a: Int, _ b: Int) -> Int { a < b ? a : b }

/// Writes `count` zeros (a plain loop: the standard library's generic `update(repeating:count:)`
/// is not specialised in methods the real-time check reaches through a class's vtable).
@inline(__always)
func zeroFloats(_ p: UnsafeMutablePointer<Float>, _ count: Int) {
    var i = 0
    while i < count { p[i] = 0; i += 1 }
}

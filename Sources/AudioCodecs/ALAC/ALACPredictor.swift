// ALAC's adaptive FIR predictor, both directions.
//
// A channel's samples are predicted from the `order` samples before them, relative to the sample
// just before those ("top"): prediction = top + (Σ c[i]·(x[j−1−i] − top) + 2^(shift−1)) >> shift,
// with `shift` the channel's denominator shift. After each sample the coefficients adapt, sign-LMS
// style: while the residual keeps its sign, walking from the oldest tap to the newest, each
// coefficient moves one step in the direction that would have shrunk the residual, and the
// residual is charged for the correction (tap i from the oldest costs (i+1)·(|top − x| >> shift)).
// The first `order` samples are plain first differences; order 0 copies the residuals; order 31
// is a plain first-order integrator (what mode ≠ 0 runs before the FIR). All sums wrap in 32 bits
// and every reconstructed sample is sign-extended from the channel's bit width, as the format's
// reference arithmetic does, so encoder and decoder agree on every bit.
//
// Written from the public description of the format (Apple's ALAC documentation and reference
// behaviour); the encoder's `residuals` is the exact inverse of `reconstruct`.

enum ALACPredictor {
    @inline(__always)
    static func signOf(_ x: Int32) -> Int32 { x > 0 ? 1 : (x < 0 ? -1 : 0) }

    @inline(__always)
    static func extend(_ x: Int32, _ shift: Int32) -> Int32 { (x << shift) >> shift }

    /// The coefficient adaptation both directions share, after each sample: with the sample's
    /// residual `error`, each coefficient from the oldest tap moves one step by the sign of its
    /// tap's difference from `top`, until the error's share is used up (sign-sign LMS).
    @inline(__always)
    static func adapt(_ coefs: UnsafeMutablePointer<Int16>, newest: UnsafePointer<Int32>, top: Int32, order: Int, ds: Int32, error: Int32) {
        var del0 = error
        if error > 0 {
            var k = order - 1
            while k >= 0 {
                let dd = top &- newest[-k]
                let sgn = signOf(dd)
                coefs[k] = coefs[k] &- Int16(truncatingIfNeeded: sgn)
                del0 = del0 &- Int32(order - k) &* ((sgn &* dd) >> ds)
                if del0 <= 0 { break }
                k -= 1
            }
        } else if error < 0 {
            var k = order - 1
            while k >= 0 {
                let dd = top &- newest[-k]
                let sgn = signOf(dd)
                coefs[k] = coefs[k] &+ Int16(truncatingIfNeeded: sgn)
                del0 = del0 &- Int32(order - k) &* ((0 &- sgn &* dd) >> ds)
                if del0 >= 0 { break }
                k -= 1
            }
        }
    }

    /// Rebuilds `count` samples into `out` from residuals `res` (which may be the same buffer
    /// only for order 0 or 31). `coefs` adapts in place.
    static func reconstruct(_ res: UnsafePointer<Int32>, into out: UnsafeMutablePointer<Int32>, count: Int,
                            coefs: UnsafeMutablePointer<Int16>, order: Int, bits: Int, shift denShift: Int) {
        guard count > 0 else { return }
        let chanShift = Int32(32 - min(bits, 32))
        out[0] = res[0]
        if order == 0 {
            if UnsafePointer(out) != res { for j in 1..<max(1, count) { out[j] = res[j] } }
            return
        }
        if order == 31 {
            var prev = out[0]
            for j in 1..<max(1, count) {
                prev = extend(res[j] &+ prev, chanShift)
                out[j] = prev
            }
            return
        }
        let warm = min(order, count - 1)
        if warm >= 1 { for j in 1...warm { out[j] = extend(res[j] &+ out[j - 1], chanShift) } }
        guard count > order + 1 else { return }
        let half: Int32 = denShift == 0 ? 0 : 1 << Int32(denShift - 1)
        let ds = Int32(denShift)
        for j in (order + 1)..<count {
            let top = out[j - order - 1]
            let newest = out + (j - 1)
            var sum: Int32 = 0
            for k in 0..<order { sum = sum &+ Int32(coefs[k]) &* (newest[-k] &- top) }
            let residual = res[j]
            out[j] = extend(residual &+ top &+ ((sum &+ half) >> ds), chanShift)
            adapt(coefs, newest: newest, top: top, order: order, ds: ds, error: residual)
        }
    }

    /// The encoder's direction: the residuals `res` that `reconstruct` turns back into `input`
    /// (`bits` wide). `coefs` adapts in place exactly as the decoder's will.
    static func residuals(_ input: UnsafePointer<Int32>, into res: UnsafeMutablePointer<Int32>, count: Int,
                          coefs: UnsafeMutablePointer<Int16>, order: Int, bits: Int, shift denShift: Int) {
        guard count > 0 else { return }
        let chanShift = Int32(32 - min(bits, 32))
        res[0] = input[0]
        if order == 0 {
            for j in 1..<max(1, count) { res[j] = input[j] }
            return
        }
        if order == 31 {
            for j in 1..<max(1, count) { res[j] = extend(input[j] &- input[j - 1], chanShift) }
            return
        }
        let warm = min(order, count - 1)
        if warm >= 1 { for j in 1...warm { res[j] = extend(input[j] &- input[j - 1], chanShift) } }
        guard count > order + 1 else { return }
        let half: Int32 = denShift == 0 ? 0 : 1 << Int32(denShift - 1)
        let ds = Int32(denShift)
        for j in (order + 1)..<count {
            let top = input[j - order - 1]
            let newest = input + (j - 1)
            var sum: Int32 = 0
            for k in 0..<order { sum = sum &+ Int32(coefs[k]) &* (newest[-k] &- top) }
            // The residual that, added to the prediction and sign-extended, gives input[j].
            let del = extend(input[j] &- top &- ((sum &+ half) >> ds), chanShift)
            res[j] = del
            adapt(coefs, newest: newest, top: top, order: order, ds: ds, error: del)
        }
    }
}

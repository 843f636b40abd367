import Foundation

/// Levels and frequencies of plain sample arrays.
public enum Levels {
    /// Root-mean-square of `x`.
    public static func rms<C: Collection>(_ x: C) -> Double where C.Element == Float {
        var e = 0.0
        for v in x { e += Double(v) * Double(v) }
        return (e / Double(max(1, x.count))).squareRoot()
    }

    /// Amplitude of the sinusoid at `frequency` in `x` (a single DFT bin, no window: give it
    /// whole cycles, or enough of them that leakage is negligible).
    public static func amplitude<C: Collection>(_ x: C, frequency: Double, sampleRate: Double) -> Double where C.Element == Float {
        let w = 2 * Double.pi * frequency / sampleRate
        var re = 0.0, im = 0.0, i = 0.0
        for v in x {
            re += Double(v) * cos(w * i)
            im -= Double(v) * sin(w * i)
            i += 1
        }
        return 2 * (re * re + im * im).squareRoot() / Double(max(1, x.count))
    }

    /// Frequency of a tone from its rising zero crossings (linearly interpolated); 0 when fewer
    /// than two crossings.
    public static func zeroCrossingFrequency<C: Collection>(_ x: C, sampleRate: Double) -> Double where C.Element == Float {
        var first = -1.0, last = -1.0, count = 0
        var previous: Float? = nil
        var i = 0
        for v in x {
            if let p = previous, p < 0 && v >= 0 {
                let t = Double(i - 1) + Double(-p / (v - p))
                if first < 0 { first = t }
                last = t
                count += 1
            }
            previous = v
            i += 1
        }
        return count > 1 ? Double(count - 1) * sampleRate / (last - first) : 0
    }

    /// Decibels of an amplitude ratio (floored at −240 dB).
    public static func dB(_ x: Double) -> Double { 20 * log10(max(x, 1e-12)) }
}

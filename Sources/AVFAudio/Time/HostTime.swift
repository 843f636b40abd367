// Host time: the engine's wall clock.
//
// On Linux host time is CLOCK_MONOTONIC in nanoseconds — one tick is one nanosecond — the
// clock `DispatchTime.now().uptimeNanoseconds` reads, so client code that compares host times
// with Dispatch times keeps working. (On Apple silicon a tick is 1/24 MHz; code that converts
// with `AVAudioTime.seconds(forHostTime:)` is portable either way.)
#if canImport(Glibc)
import Glibc
#endif

enum HostClock {
    /// Nanoseconds per host tick.
    static let nanosecondsPerTick: UInt64 = 1

    /// The current host time. Allocation- and lock-free: safe on the render thread.
    @inline(__always)
    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

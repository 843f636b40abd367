// The render gate: admits one render cycle at a time while the engine runs, and lets the control
// side shut rendering and know when no cycle is in flight — without a lock on the render side.
//
// State, one atomic word: bit 0 "open" (the engine runs), bit 1 "busy" (a cycle is in flight).
// A render entry point (the device callback, `renderOffline`, `manualRenderingBlock`) enters
// with one compare-and-exchange from open-and-idle to open-and-busy, and leaves by clearing busy
// (release ordering: everything the cycle wrote is visible to whoever sees it idle). The control
// side opens and closes the gate under the engine's lock; `close` never waits.
// `waitUntilIdle` spins (sleeping 50 µs at a time) until the cycle in flight ends — unless the
// caller *is* that cycle (`engine.stop()` called from a source node's render block): a thread
// never waits for itself.
//
// What it guarantees: the render plan, the manual-rendering scratch memory, the player's
// render-side state are touched by one thread at a time, and the control side frees or rewrites
// them only when the gate is closed and idle (checked under the engine's lock, which is the only
// place the gate is opened, so "closed and idle" stays true until the lock is released).
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

final class RenderGate {
    private static let open: Int = 1
    private static let busy: Int = 2
    private let state = Atomic<Int>(0)
    /// The thread of the cycle in flight (pthread_self), 0 when none.
    private let owner = Atomic<UInt>(0)

    enum Entry { case admitted, closed, busy }

    /// Render side: try to start a cycle.
    @inline(__always)
    func enter() -> Entry {
        var s = state.load(ordering: .relaxed)
        while true {
            if s & RenderGate.open == 0 { return .closed }
            if s & RenderGate.busy != 0 { return .busy }
            let (exchanged, original) = state.compareExchange(expected: s, desired: s | RenderGate.busy, ordering: .acquiring)
            if exchanged {
                owner.store(ThreadIdentity.current(), ordering: .relaxed)
                return .admitted
            }
            s = original
        }
    }

    /// Render side: end the cycle `enter()` admitted.
    @inline(__always)
    func leave() {
        owner.store(0, ordering: .relaxed)
        state.bitwiseAnd(~RenderGate.busy, ordering: .releasing)
    }

    /// Control side (engine lock held): admit cycles.
    func openGate() { state.bitwiseOr(RenderGate.open, ordering: .releasing) }

    /// Control side (engine lock held): admit no new cycle. Does not wait.
    func closeGate() { state.bitwiseAnd(~RenderGate.open, ordering: .releasing) }

    /// Whether a cycle is in flight.
    var isBusy: Bool { state.load(ordering: .acquiring) & RenderGate.busy != 0 }

    /// Whether the calling thread is the one rendering (a render block calling back into the engine).
    var isCurrentThreadRendering: Bool {
        isBusy && owner.load(ordering: .relaxed) == ThreadIdentity.current()
    }

    /// Control side, engine lock NOT held (the cycle in flight may run client code that takes it):
    /// waits until no cycle is in flight. Returns at once, false, when called from the cycle
    /// itself; true when the gate was idle on return.
    @discardableResult
    func waitUntilIdle() -> Bool {
        if isCurrentThreadRendering { return false }
        while isBusy { usleep(50) }
        return true
    }
}

/// The calling thread's identity (caseless enum: calling a static method of a class needs its
/// metadata, which the `@_noLocks` check rejects).
enum ThreadIdentity {
    /// The pthread id. Vouched for by hand (the compiler's `@_noLocks` check cannot see into C):
    /// glibc's pthread_self reads the thread pointer register, nothing more.
    @_semantics("no_performance_analysis") @inline(never)
    static func current() -> UInt { UInt(pthread_self()) }
}

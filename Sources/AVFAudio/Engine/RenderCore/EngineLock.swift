// The engine's control-side lock, and the work that must run after it is released.
//
// DESIGN NOTE — client code never runs under this lock
// ----------------------------------------------------
// Graph edits (connect, attach, prepare, start, format changes) are serialised by one recursive
// lock: they read and write the graph and compile render plans. Some of that work needs a client's
// code — a custom AUAudioUnit's `allocateRenderResources()`, its bus formats, its render block —
// and that code may call back into the engine, block on another thread that does, or take long.
// So the plan compiler never calls it: it records what it needs ("work pending") and the lock runs
// that work right after the calling thread releases its outermost hold, with no lock held
// (`afterOutermostUnlock`). Every public entry point thus finishes its own client work before it
// returns, whatever path led to the edit, without each one having to remember to.
import Foundation

final class EngineLock {
    private let base = NSRecursiveLock()
    /// How many times the owning thread holds the lock (read and written only under `base`).
    private var depth = 0
    /// Set under the lock: run `afterOutermostUnlock` when the holder lets go.
    private var workPending = false
    /// Runs on the thread that released its outermost hold, when work was pending; no lock held.
    var afterOutermostUnlock: (() -> Void)?

    func lock() {
        base.lock()
        depth += 1
    }

    func unlock() {
        depth -= 1
        let run = depth == 0 && workPending
        if run { workPending = false }
        base.unlock()
        if run { afterOutermostUnlock?() }
    }

    /// Call with the lock held: `afterOutermostUnlock` runs once the holder releases it.
    func setWorkPending() { workPending = true }
}

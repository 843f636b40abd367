// Swift front end of the AllocationCounter C target: count the heap allocations and frees a
// closure performs on the calling thread.
//
// Caveat – warm up first. Swift's runtime allocates lazily the first time something is used:
// generic type metadata and witness tables are instantiated and cached, protocol conformances
// are looked up and cached, and in debug builds unspecialised generic code triggers more of
// this than optimised code does. Those one-off allocations are not the code's steady state, so
// run the code once before counting (`allocations(afterWarmUp:)` does it for you) and count many
// iterations, so a per-call allocation stands out as ≥ iterations.
//
// Other caveats: only the calling thread is counted (use the all-threads C API for code that
// fans out); the closure must be synchronous (an `async` function may resume on another thread);
// and build whatever the closure works on – buffers, matrices, channel-pointer arrays – outside
// it, as the render side would receive them from the control side.

import AllocationCounter

/// What a counted region did.
struct AllocationCounts: Equatable, CustomStringConvertible {
    /// Calls that obtained heap memory (malloc, calloc, realloc, the aligned family).
    var allocations: Int
    /// Calls that gave heap memory back (free, realloc of an existing block).
    var frees: Int
    /// Bytes requested by those allocations.
    var bytes: Int

    static let none = AllocationCounts(allocations: 0, frees: 0, bytes: 0)

    var description: String { "\(allocations) allocations (\(bytes) bytes), \(frees) frees" }
}

/// Counts the heap allocations and frees `body` performs on the calling thread.
///
/// Nothing here allocates between the start and the end of the count: the closure is
/// non-escaping (its context is on the stack) and the result is a plain C struct.
@inline(never)
func countAllocations(_ body: () throws -> Void) rethrows -> AllocationCounts {
    var raw = oav_alloc_counts()
    oav_alloc_counting_begin()
    do {
        try body()
    } catch {
        oav_alloc_counting_end(&raw)
        throw error
    }
    oav_alloc_counting_end(&raw)
    return AllocationCounts(allocations: Int(raw.allocations), frees: Int(raw.frees), bytes: Int(raw.bytes))
}

/// Runs `body` `warmUp` times uncounted, then `iterations` times counted: the steady-state
/// allocations of code that is about to be called over and over (a render cycle).
func allocations(afterWarmUp warmUp: Int = 2, iterations: Int = 1000, _ body: () -> Void) -> AllocationCounts {
    for _ in 0 ..< warmUp { body() }
    return countAllocations {
        for _ in 0 ..< iterations { body() }
    }
}

/// Counts the allocations and frees of every thread of the process while `body` runs. Other
/// tests running in parallel are counted too, so only lower bounds are meaningful in a test.
@inline(never)
func countAllocationsOnAllThreads(_ body: () -> Void) -> AllocationCounts {
    var raw = oav_alloc_counts()
    oav_alloc_counting_begin_all_threads()
    body()
    oav_alloc_counting_end_all_threads(&raw)
    return AllocationCounts(allocations: Int(raw.allocations), frees: Int(raw.frees), bytes: Int(raw.bytes))
}

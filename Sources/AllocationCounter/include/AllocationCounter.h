// AllocationCounter: counts heap allocations and frees, so a test can prove that a piece of code
// (the render path) allocates nothing.
//
// How it works. glibc 2.34 removed `__malloc_hook`, so this target *defines* the allocator entry
// points itself (`malloc`, `free`, `calloc`, `realloc`, `reallocarray`, `posix_memalign`,
// `aligned_alloc`, `memalign`, `valloc`, `pvalloc`). A program that links this target (the test
// executable links the target's object file statically) therefore exports those symbols, and
// ELF symbol interposition makes every shared object in the process – libswiftCore, Foundation,
// libdispatch, libstdc++ (`operator new`) and glibc itself (`strdup`, `fopen`, ...) – call them
// instead of glibc's. Each definition forwards to glibc's real allocator under its exported
// internal name (`__libc_malloc`, `__libc_free`, ...), so behaviour is unchanged (no `dlsym`,
// which would itself allocate) and `malloc_usable_size` keeps working on every block.
//
// Cost when nobody counts: one thread-local load, one global load and one predictable branch per
// call, in front of glibc's own code.
//
// What is counted, for the calling thread between `oav_alloc_counting_begin` and
// `oav_alloc_counting_end`:
//   * allocations: every call that obtains memory – malloc, calloc, the aligned family, realloc
//     (with or without a previous block), reallocarray – whether or not it succeeded;
//   * frees: every call that gives memory back – free of a non-NULL pointer, realloc/reallocarray
//     of a non-NULL pointer (the old block is released or resized in place: either way the
//     allocator's lock-taking path ran);
//   * bytes: the bytes requested by the counted allocations.
// So a realloc of an existing block counts as one allocation and one free.
//
// Caveats.
//   * Only code that reaches these symbols is seen: memory obtained directly with mmap/brk/sbrk,
//     or by a statically linked private allocator, is not counted.
//   * Swift's runtime allocates lazily on first use (generic metadata and witness-table caches,
//     protocol-conformance lookups, the first `print`, ...). Run the code under test once (warm
//     up) before the counted region; see the Swift helper `countAllocations` in the tests.
//   * Counting is per thread: allocations made by other threads are not counted unless the
//     all-threads mode is used, and an `async` function that suspends may resume on another
//     thread, so count only synchronous code.
//   * Interposition needs this target to be linked into the *executable* (a test target, an
//     executable target). It must not be linked into a shared library other code depends on.
//     The linker exports a definition from the executable only if a library on the link line
//     uses it: in the test binary that is malloc, free, calloc, realloc, posix_memalign and
//     aligned_alloc (what libswiftCore, Foundation, libdispatch and libstdc++ import). A library
//     loaded later with dlopen that calls memalign/valloc/pvalloc/reallocarray reaches glibc's
//     versions directly – uncounted, but still the same heap, so nothing breaks.
//   * Every process that links the target pays the forwarding on every allocator call:
//     measured about +0.5 ns per malloc/free pair when the C target is optimised and about
//     +4.5 ns in a debug (-O0) build, against glibc's ~6-7 ns fast path.

#ifndef OAV_ALLOCATION_COUNTER_H
#define OAV_ALLOCATION_COUNTER_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// What one counting region saw.
typedef struct oav_alloc_counts {
    /// Calls that obtained memory (malloc, calloc, realloc, reallocarray, the aligned family).
    uint64_t allocations;
    /// Calls that released memory (free of non-NULL, realloc/reallocarray of non-NULL).
    uint64_t frees;
    /// Bytes requested by the counted allocations.
    uint64_t bytes;
} oav_alloc_counts;

/// Starts counting the calling thread's allocations and frees, from zero. Calling it again
/// before `oav_alloc_counting_end` restarts the count (regions do not nest).
void oav_alloc_counting_begin(void);

/// Stops counting on the calling thread and stores what was counted since
/// `oav_alloc_counting_begin` in `*out` (if `out` is not NULL). Allocates nothing.
void oav_alloc_counting_end(oav_alloc_counts *_Nullable out);

/// Starts counting the allocations and frees of *every* thread in the process, from zero
/// (atomic counters). Meant for code that fans out to worker threads. Beware that in a test
/// process other tests may be running in parallel and are counted too. Regions do not nest.
void oav_alloc_counting_begin_all_threads(void);

/// Stops the all-threads count and stores the totals in `*out` (if not NULL).
void oav_alloc_counting_end_all_threads(oav_alloc_counts *_Nullable out);

/// 1 when the allocator of this process is the counting one, as seen by shared libraries
/// (checked by counting an allocation made inside glibc's `strdup`); 0 when the interposition
/// did not take effect (the target was linked into a shared library, or not linked at all), in
/// which case every count would read zero. Tests should check it once. Call it outside a
/// counting region: it uses the calling thread's counters.
int oav_alloc_counter_is_interposed(void);

#ifdef __cplusplus
}
#endif

#endif

// The counting allocator: definitions of glibc's allocator entry points that forward to glibc's
// real implementation and count calls made while counting is enabled. See AllocationCounter.h.
//
// Design notes.
//   * Forwarding uses the `__libc_*` names glibc exports (GLIBC_2.2.5) rather than
//     `dlsym(RTLD_NEXT, "malloc")`: dlsym allocates, which would recurse into `malloc` before the
//     pointer is known. glibc's own `posix_memalign`, `aligned_alloc` and `reallocarray` call its
//     allocator internally (not through the PLT), so they are defined here too – otherwise Swift's
//     over-aligned allocations (`swift_slowAlloc` → `posix_memalign`) would go uncounted.
//   * The per-thread flag and counters live in `_Thread_local` storage with the initial-exec
//     model: an access is a `%fs`-relative load, never a call to `__tls_get_addr` (which may
//     itself call `malloc` to allocate a dynamic TLS block). The executable's static TLS block
//     exists before the dynamic loader switches from its bootstrap allocator to `malloc` (the
//     thread pointer is set up before relocation), and a new thread's block is set up by
//     `pthread_create` before the thread runs, so the first `malloc` call of any thread can
//     read the flag safely. No fallback flag is needed.
//   * Per-thread counters are written only by their own thread: plain increments. The
//     all-threads counters are atomic (relaxed; only the totals matter).
//   * The counting work is out of line (`cold`, `noinline`), so the forwarding functions stay a
//     load, a load, a branch and a tail call.

#define _GNU_SOURCE 1
#include "AllocationCounter.h"

#include <errno.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

// glibc's real allocator, exported under these names since GLIBC_2.2.5 (not declared in headers).
extern void *__libc_malloc(size_t size);
extern void __libc_free(void *ptr);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void *__libc_valloc(size_t size);
extern void *__libc_pvalloc(size_t size);

typedef struct thread_state {
    uint64_t allocations;
    uint64_t frees;
    uint64_t bytes;
    int enabled;
} thread_state;

static _Thread_local thread_state tls_state __attribute__((tls_model("initial-exec")));

// Read on every call by every thread: kept on its own cache line, away from the counters that
// the all-threads mode writes.
static _Alignas(64) atomic_int all_threads_enabled;
static _Alignas(64) atomic_uint_fast64_t all_allocations;
static atomic_uint_fast64_t all_frees;
static atomic_uint_fast64_t all_bytes;

#define OAV_LIKELY(x) __builtin_expect(!!(x), 1)
#define OAV_UNLIKELY(x) __builtin_expect(!!(x), 0)

static inline __attribute__((always_inline)) int counting(void) {
    return tls_state.enabled | atomic_load_explicit(&all_threads_enabled, memory_order_relaxed);
}

__attribute__((noinline, cold))
static void note(uint64_t allocations, uint64_t frees, uint64_t bytes) {
    if (tls_state.enabled) {
        tls_state.allocations += allocations;
        tls_state.frees += frees;
        tls_state.bytes += bytes;
    }
    if (atomic_load_explicit(&all_threads_enabled, memory_order_relaxed)) {
        if (allocations) atomic_fetch_add_explicit(&all_allocations, allocations, memory_order_relaxed);
        if (frees) atomic_fetch_add_explicit(&all_frees, frees, memory_order_relaxed);
        if (bytes) atomic_fetch_add_explicit(&all_bytes, bytes, memory_order_relaxed);
    }
}

static inline __attribute__((always_inline)) uint64_t product(size_t a, size_t b) {
    size_t bytes;
    return __builtin_mul_overflow(a, b, &bytes) ? UINT64_MAX : (uint64_t)bytes;
}

// MARK: the allocator
//
// Not in sanitizer builds (`swift build --sanitize=thread|address`): the sanitizers' runtimes
// interpose the allocator themselves, and a second interposer crashes the process at start-up.
// There the counter counts nothing and `oav_alloc_counter_is_interposed` says so (0); the
// allocation tests are for ordinary builds.
#if defined(__has_feature)
#  if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#    define OAV_SANITIZED 1
#  endif
#endif
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#  define OAV_SANITIZED 1
#endif

#ifndef OAV_SANITIZED
void *malloc(size_t size) {
    if (OAV_UNLIKELY(counting())) note(1, 0, size);
    return __libc_malloc(size);
}

void free(void *ptr) {
    if (OAV_UNLIKELY(counting()) && ptr != NULL) note(0, 1, 0);
    __libc_free(ptr);
}

void *calloc(size_t count, size_t size) {
    if (OAV_UNLIKELY(counting())) note(1, 0, product(count, size));
    return __libc_calloc(count, size);
}

void *realloc(void *ptr, size_t size) {
    // realloc(NULL, n) only allocates; realloc(p, 0) only frees (glibc returns NULL);
    // realloc(p, n) counts as both.
    if (OAV_UNLIKELY(counting())) {
        int allocates = ptr == NULL || size != 0;
        note(allocates ? 1 : 0, ptr != NULL ? 1 : 0, allocates ? size : 0);
    }
    return __libc_realloc(ptr, size);
}

void *reallocarray(void *ptr, size_t count, size_t size) {
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(ptr, bytes);
}

int posix_memalign(void **memptr, size_t alignment, size_t size) {
    if (alignment == 0 || alignment % sizeof(void *) != 0 || (alignment & (alignment - 1)) != 0)
        return EINVAL;
    if (OAV_UNLIKELY(counting())) note(1, 0, size);
    int saved = errno;  // POSIX: reports failure by the return value, leaves errno alone.
    void *block = __libc_memalign(alignment, size);
    if (block == NULL) {
        errno = saved;
        return ENOMEM;
    }
    *memptr = block;
    return 0;
}

void *aligned_alloc(size_t alignment, size_t size) {
    // glibc 2.36's aligned_alloc is an alias of memalign (no extra argument checks); keep that.
    if (OAV_UNLIKELY(counting())) note(1, 0, size);
    return __libc_memalign(alignment, size);
}

void *memalign(size_t alignment, size_t size) {
    if (OAV_UNLIKELY(counting())) note(1, 0, size);
    return __libc_memalign(alignment, size);
}

void *valloc(size_t size) {
    if (OAV_UNLIKELY(counting())) note(1, 0, size);
    return __libc_valloc(size);
}

void *pvalloc(size_t size) {
    if (OAV_UNLIKELY(counting())) note(1, 0, size);
    return __libc_pvalloc(size);
}

// MARK: the counting API

#endif  // OAV_SANITIZED

void oav_alloc_counting_begin(void) {
    tls_state.allocations = 0;
    tls_state.frees = 0;
    tls_state.bytes = 0;
    // Keep the compiler from sinking the resets below the enable (a signal handler on this
    // thread could otherwise see stale counts; cheap insurance).
    atomic_signal_fence(memory_order_seq_cst);
    tls_state.enabled = 1;
}

void oav_alloc_counting_end(oav_alloc_counts *out) {
    tls_state.enabled = 0;
    atomic_signal_fence(memory_order_seq_cst);
    if (out != NULL) {
        out->allocations = tls_state.allocations;
        out->frees = tls_state.frees;
        out->bytes = tls_state.bytes;
    }
}

void oav_alloc_counting_begin_all_threads(void) {
    atomic_store_explicit(&all_allocations, 0, memory_order_relaxed);
    atomic_store_explicit(&all_frees, 0, memory_order_relaxed);
    atomic_store_explicit(&all_bytes, 0, memory_order_relaxed);
    atomic_store_explicit(&all_threads_enabled, 1, memory_order_seq_cst);
}

void oav_alloc_counting_end_all_threads(oav_alloc_counts *out) {
    atomic_store_explicit(&all_threads_enabled, 0, memory_order_seq_cst);
    if (out != NULL) {
        out->allocations = atomic_load_explicit(&all_allocations, memory_order_relaxed);
        out->frees = atomic_load_explicit(&all_frees, memory_order_relaxed);
        out->bytes = atomic_load_explicit(&all_bytes, memory_order_relaxed);
    }
}

// Called through a volatile pointer so the compiler cannot expand or elide the call: the point
// is that glibc's own code, not this file, calls `malloc`.
static char *(*volatile libc_strdup)(const char *) = strdup;

int oav_alloc_counter_is_interposed(void) {
#ifdef OAV_SANITIZED
    return 0;
#endif
    thread_state saved = tls_state;
    oav_alloc_counting_begin();
    char *copy = libc_strdup("OpenAVFAudio");
    __libc_free(copy);
    uint64_t seen = tls_state.allocations;
    tls_state = saved;  // the caller's region, if any, is left as it was
    return seen >= 1 && copy != NULL;
}

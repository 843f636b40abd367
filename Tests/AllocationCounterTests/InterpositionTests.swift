// Proof that the counting allocator is really the process's allocator – for Swift's runtime,
// Foundation and glibc, not just for calls made from this module – that it counts each kind of
// allocation, that it sees nothing where nothing is allocated, and that the count is per thread.

import AllocationCounter
import Foundation
import Synchronization
import Testing

/// Somewhere to put memory so the optimiser cannot prove it dead and drop (or stack-promote) the
/// allocation under test.
final class Sink: @unchecked Sendable {
    var array: [Int] = []
    var floats: [Float] = []
    var arrays: [[Int]] = []
    var data = Data()
}

/// Hides a pointer from the optimiser, which otherwise deletes a malloc/free pair whose memory
/// is never used (LLVM knows the C allocator's semantics) and the test would count nothing.
@inline(never) @_optimize(none)
func opaque(_ pointer: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? { pointer }

@Suite struct InterpositionTests {
    @Test("glibc's own malloc calls reach the counting allocator")
    func interposed() {
        #expect(oav_alloc_counter_is_interposed() == 1,
                "the allocator is not interposed: link AllocationCounter into the executable")
    }

    @Test("a Swift array allocation is counted (libswiftCore → malloc)")
    func swiftArrayIsCounted() {
        let sink = Sink()
        let made = countAllocations { sink.array = [Int](repeating: 0, count: 1000) }
        #expect(made.allocations >= 1)
        #expect(made.bytes >= 1000 * MemoryLayout<Int>.stride)
        let released = countAllocations { sink.array = [] }
        #expect(released.frees >= 1)
        #expect(released.allocations == 0)
    }

    @Test("an array made and dropped inside the region counts an allocation and a free")
    func temporaryArrayIsCounted() {
        let sink = Sink()
        let counts = countAllocations {
            sink.array = [Int](repeating: 7, count: 1000)
            sink.array = []
        }
        #expect(counts.allocations >= 1)
        #expect(counts.frees >= 1)
    }

    @Test("arithmetic on preallocated memory counts nothing")
    func arithmeticCountsNothing() {
        let samples = UnsafeMutablePointer<Float>.allocate(capacity: 4096)
        defer { samples.deallocate() }
        samples.initialize(repeating: 0.25, count: 4096)
        let counts = allocations(iterations: 1000) {
            for i in 0 ..< 4096 { samples[i] = samples[i] * 0.5 + 0.125 }
        }
        #expect(counts == .none)
        #expect(samples[0] == 0.25)   // the fixed point of x/2 + 1/8: the loop really ran
    }

    @Test("an empty region counts nothing")
    func emptyRegionCountsNothing() {
        #expect(countAllocations {} == .none)
    }

    @Test("over-aligned allocations (posix_memalign / aligned_alloc / valloc) are counted")
    func alignedAllocationIsCounted() {
        var block: UnsafeMutableRawPointer?
        let made = countAllocations { block = UnsafeMutableRawPointer.allocate(byteCount: 256, alignment: 64) }
        #expect(made.allocations == 1)
        #expect(made.bytes >= 256)
        #expect(Int(bitPattern: block) % 64 == 0)
        let released = countAllocations { block?.deallocate() }
        #expect(released.frees == 1)

        var raw: UnsafeMutableRawPointer?
        var status: Int32 = -1
        let direct = countAllocations {
            status = posix_memalign(&raw, 128, 100)
            free(opaque(raw))
            free(opaque(aligned_alloc(4096, 4096)))
            free(opaque(valloc(10)))
        }
        #expect(status == 0)
        #expect(direct.allocations == 3)
        #expect(direct.frees == 3)
        #expect(direct.bytes == 100 + 4096 + 10)
        var bad: UnsafeMutableRawPointer?
        #expect(posix_memalign(&bad, 24, 8) == EINVAL)   // not a power of two
    }

    @Test("calloc and every realloc case are counted")
    func callocAndRealloc() {
        let counts = countAllocations {
            free(opaque(calloc(10, 8)))
            var block = opaque(realloc(nil, 16))        // allocates
            block = opaque(realloc(block, 4096))        // allocates and frees
            _ = opaque(realloc(block, 0))               // frees (glibc returns NULL)
            free(opaque(reallocarray(nil, 4, 8)))       // allocates, then frees
            free(opaque(nil))                           // not counted
        }
        #expect(counts == AllocationCounts(allocations: 4, frees: 4, bytes: 80 + 16 + 4096 + 32))
    }

    @Test("allocations inside Foundation are counted")
    func foundationIsCounted() {
        let sink = Sink()
        let counts = countAllocations { sink.data = Data(count: 100_000) }
        #expect(counts.allocations >= 1)
        #expect(counts.bytes >= 100_000)
    }

    @Test("counting is per thread; the all-threads mode sees other threads")
    func perThreadAndAllThreads() {
        final class Handshake: Sendable {
            let go = Atomic<Int>(0)
            let done = Atomic<Int>(0)
        }
        /// Starts a thread that makes 100 heap arrays once `go` is set, then sets `done`.
        func startWorker(_ handshake: Handshake) {
            let thread = Thread {
                while handshake.go.load(ordering: .acquiring) == 0 { sched_yield() }
                let sink = Sink()
                for i in 0 ..< 100 { sink.arrays.append([Int](repeating: i, count: 64)) }
                handshake.done.store(1, ordering: .releasing)
            }
            thread.start()
        }

        // Only this thread is counted: the worker's 100+ allocations are not.
        let first = Handshake()
        startWorker(first)
        let here = countAllocations {
            first.go.store(1, ordering: .releasing)
            while first.done.load(ordering: .acquiring) == 0 { sched_yield() }
        }
        #expect(here == .none)

        // The all-threads mode counts them.
        let second = Handshake()
        startWorker(second)
        let everywhere = countAllocationsOnAllThreads {
            second.go.store(1, ordering: .releasing)
            while second.done.load(ordering: .acquiring) == 0 { sched_yield() }
        }
        #expect(everywhere.allocations >= 100)
    }

    @Test("a deliberately allocating render-style closure is caught")
    func allocatingClosureIsCaught() {
        let input = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        let output = UnsafeMutablePointer<Float>.allocate(capacity: 512)
        defer { input.deallocate(); output.deallocate() }
        input.initialize(repeating: 1, count: 512)
        output.initialize(repeating: 0, count: 512)
        // A "kernel" that builds a scratch array on every call, the mistake the tests must catch.
        // (Kept in a sink so the optimiser cannot stack-promote it in a release build.)
        let sink = Sink()
        let counts = allocations(iterations: 1000) {
            sink.floats = Array(UnsafeBufferPointer(start: input, count: 512))
            for i in 0 ..< 512 { output[i] = sink.floats[i] * 0.5 }
        }
        #expect(counts.allocations >= 1000)
        #expect(counts.frees >= 1000)
        #expect(counts != .none)   // the assertion every kernel test makes would fail here
    }
}

// A read-only memory mapping of a file that survives the file being truncated under it.
//
// DESIGN NOTE — why map, and what happens when the file shrinks
// -------------------------------------------------------------
// Decoding straight from a mapping of the file skips the copy a `pread` makes into a staging
// buffer: for a float32 WAV decoded into deinterleaved channels that copy is half the work
// (libsndfile, returning interleaved samples, has no second pass to make at all). The FLAC reader
// decodes its frames in place from a mapping too.
//
// A mapping has one well-known hazard: when another process truncates the file, touching a page
// past the new end raises SIGBUS, which kills the process — an environment failure turned into a
// crash, which this project never allows. So every mapping registers its address range with a
// SIGBUS handler installed once per process. When a fault lands inside a registered range, the
// handler maps a page of zeros over the faulting page (`MAP_FIXED`, anonymous, read-only) and
// marks the mapping damaged; the faulting load then re-executes and reads zeros. The reader
// checks `isIntact` after every read and throws a clear error ("… was truncated while it was being
// read") instead of returning those zeros. A fault outside every registered range goes to the
// handler that was installed before ours (or to the default action: the process stops as it
// would have without us).
//
// The handler uses only atomics and `mmap`, which the Linux kernel implements as a plain system
// call (POSIX does not list it as async-signal-safe; glibc's wrapper takes no lock). The registry
// is a fixed table of 1,024 ranges; when it is full a reader falls back to positional reads.
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import Synchronization

public final class FileMapping {
    /// The mapped bytes (the whole file as it was when mapped).
    public let bytes: UnsafeRawBufferPointer
    private let slot: Int

    /// Maps `size` bytes of the open file `fd` read-only, or returns nil (no memory left for the
    /// mapping, a full registry, or a file system that cannot map): callers then read instead.
    public init?(fd: Int32, size: Int) {
        guard size > 0, let slot = FileMappingRegistry.reserve() else { return nil }
        guard let p = mmap(nil, size, PROT_READ, MAP_SHARED, fd, 0), p != MAP_FAILED else {
            FileMappingRegistry.release(slot)
            return nil
        }
        bytes = UnsafeRawBufferPointer(start: p, count: size)
        self.slot = slot
        FileMappingRegistry.publish(slot, start: UInt(bitPattern: p), end: UInt(bitPattern: p) + UInt(size))
    }

    deinit {
        FileMappingRegistry.release(slot)
        munmap(UnsafeMutableRawPointer(mutating: bytes.baseAddress!), bytes.count)
    }

    /// False once a read of the mapping touched a page the file no longer has (its contents then
    /// read as zeros): the file was truncated after it was mapped.
    public var isIntact: Bool { !FileMappingRegistry.damaged(slot) }

    /// Asks the kernel to map `count` bytes from `offset` before they are read (one call instead
    /// of a page fault per page; ignored where unsupported).
    public func prefault(offset: Int, count: Int) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let start = offset / page * page
        let end = min(bytes.count, offset + count)
        guard end > start else { return }
        _ = madvise(UnsafeMutableRawPointer(mutating: bytes.baseAddress! + start), end - start, 22)   // MADV_POPULATE_READ (Linux 5.14)
    }
}

/// The process-wide table of mapped ranges the SIGBUS handler consults (see the design note).
enum FileMappingRegistry {
    static let capacity = 1024
    /// Per slot: start and end addresses (0, 0: free or not yet published), in-use, damaged.
    nonisolated(unsafe) static let starts = makeAtomics(UInt.self)
    nonisolated(unsafe) static let ends = makeAtomics(UInt.self)
    nonisolated(unsafe) static let used = makeAtomics(Bool.self)
    nonisolated(unsafe) static let damage = makeAtomics(Bool.self)
    nonisolated(unsafe) static var previous = sigaction()

    static func makeAtomics<T: AtomicRepresentable>(_: T.Type) -> UnsafeMutablePointer<Atomic<T>> where T: ExpressibleByIntegerLiteral {
        let p = UnsafeMutablePointer<Atomic<T>>.allocate(capacity: capacity)
        for i in 0..<capacity { (p + i).initialize(to: Atomic(0)) }
        return p
    }

    static func makeAtomics(_: Bool.Type) -> UnsafeMutablePointer<Atomic<Bool>> {
        let p = UnsafeMutablePointer<Atomic<Bool>>.allocate(capacity: capacity)
        for i in 0..<capacity { (p + i).initialize(to: Atomic(false)) }
        return p
    }

    /// A free slot (installing the handler on first use), or nil when all are taken or the handler
    /// cannot be installed.
    static func reserve() -> Int? {
        guard handlerInstalled else { return nil }
        for i in 0..<capacity {
            if used[i].compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged {
                damage[i].store(false, ordering: .relaxed)
                return i
            }
        }
        return nil
    }

    static func publish(_ slot: Int, start: UInt, end: UInt) {
        ends[slot].store(end, ordering: .relaxed)
        starts[slot].store(start, ordering: .releasing)
    }

    static func release(_ slot: Int) {
        starts[slot].store(0, ordering: .relaxed)
        ends[slot].store(0, ordering: .releasing)
        used[slot].store(false, ordering: .releasing)
    }

    static func damaged(_ slot: Int) -> Bool { damage[slot].load(ordering: .acquiring) }

    /// The handler, installed once (a static initialiser runs exactly once, thread-safely).
    private static let handlerInstalled: Bool = {
        var action = sigaction()
        action.__sigaction_handler.sa_sigaction = fileMappingSIGBUSHandler
        action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER
        sigemptyset(&action.sa_mask)
        var old = sigaction()
        guard sigaction(SIGBUS, &action, &old) == 0 else { return false }
        previous = old
        return true
    }()

    /// The handler's work: whether `address` lies in a registered mapping, which then reads zeros
    /// at that page from now on and is marked damaged.
    static func absorb(_ address: UInt) -> Bool {
        for i in 0..<capacity {
            let start = starts[i].load(ordering: .acquiring)
            guard start != 0, address >= start, address < ends[i].load(ordering: .relaxed) else { continue }
            let page = UInt(sysconf(Int32(_SC_PAGESIZE)))
            let base = UnsafeMutableRawPointer(bitPattern: address & ~(page - 1))
            let zeros = mmap(base, Int(page), PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0)
            damage[i].store(true, ordering: .releasing)
            return zeros != MAP_FAILED
        }
        return false
    }
}

/// The SIGBUS handler (a C function pointer: no captures).
private let fileMappingSIGBUSHandler: @convention(c) (Int32, UnsafeMutablePointer<siginfo_t>?, UnsafeMutableRawPointer?) -> Void = { signal, info, context in
    if let info {
        let address = UInt(bitPattern: info.pointee._sifields._sigfault.si_addr)
        if FileMappingRegistry.absorb(address) { return }
    }
    // Not ours: what was there before.
    var previous = FileMappingRegistry.previous
    if previous.sa_flags & SA_SIGINFO != 0, let handler = previous.__sigaction_handler.sa_sigaction {
        handler(signal, info, context)
        return
    }
    let plain = previous.__sigaction_handler.sa_handler
    let raw = unsafeBitCast(plain, to: Int.self)   // SIG_DFL is 0, SIG_IGN is 1
    if raw == 1 { return }
    if raw == 0 {
        // Restore the default action; the faulting instruction runs again and the process stops
        // as it would have without this handler.
        sigaction(SIGBUS, &previous, nil)
        return
    }
    plain?(signal)
}

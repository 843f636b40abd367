// Large blocks of sample memory as anonymous mappings with transparent huge pages asked for.
//
// The first touch of fresh memory costs a page fault per page, each zeroing its page: for a
// whole-file AVAudioPCMBuffer or a SoundFont's sample pool (hundreds of megabytes) those faults,
// not the decoding or reading, dominate. With 4 KiB pages that is one fault per 4 KiB; with
// `madvise(MADV_HUGEPAGE)` one per 2 MiB. The kernel's default policy on the machines measured
// here is `madvise` (/sys/kernel/mm/transparent_hugepage/enabled), so memory from `malloc` gets
// 4 KiB pages unless asked. Measured on this project's 2-core VM: a 230 MB buffer faulted in
// with posix_memalign + memset ~220 ms, from such a mapping ~40 ms (AVAudioPCMBuffer.swift);
// FluidR3_GM's 148 MB read with pread into malloc'ed memory 280–510 ms, into such a mapping
// 80–105 ms (SamplePool.swift). When the advice is refused (huge pages off) the mapping keeps
// ordinary pages: the same zeroed memory, only slower to fault in.
#if canImport(Glibc)
internal import Glibc
#elseif canImport(Musl)
internal import Musl
#endif

public enum HugePageMemory {
    /// `madvise(MADV_HUGEPAGE)` on a mapping (the advice only; a refusal costs speed, not memory).
    public static func adviseHugePages(_ pointer: UnsafeMutableRawPointer, _ byteCount: Int) -> Int32 {
        madvise(pointer, byteCount, 14)   // MADV_HUGEPAGE
    }

    /// A zeroed, private, anonymous mapping of `byteCount` bytes with `advise` applied to it
    /// (huge pages by default); nil when the kernel refuses the mapping.
    public static func map(byteCount: Int,
                           advise: (UnsafeMutableRawPointer, Int) -> Int32 = adviseHugePages) -> UnsafeMutableRawPointer? {
        guard byteCount > 0 else { return nil }
        let p = mmap(nil, byteCount, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
        guard let p, p != MAP_FAILED else { return nil }
        _ = advise(p, byteCount)
        return p
    }

    /// Unmaps a block `map` returned (with the same byte count).
    public static func unmap(_ pointer: UnsafeMutableRawPointer, byteCount: Int) {
        munmap(pointer, byteCount)
    }
}

// The libFuzzer entry points, called by libFuzzer's driver (main.swift starts it). The exported
// C functions are the ones libFuzzer looks up:
//
// - `LLVMFuzzerInitialize`: picks the target named by the environment variable AVFUZZ_TARGET.
// - `LLVMFuzzerTestOneInput`: runs one input through that target. A target reports a finding by
//   trapping (`fuzzFailure`), which libFuzzer records as a crash with the input that caused it.
// - `LLVMFuzzerCustomMutator`: the target's structure-aware mutator when it has one (chunk trees:
//   ChunkMutator.swift), else libFuzzer's own byte mutations.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// libFuzzer's built-in mutator, callable from a custom mutator.
@_silgen_name("LLVMFuzzerMutate")
func LLVMFuzzerMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int) -> Int

enum Harness {
    /// The target this process fuzzes (set once, before the first input).
    nonisolated(unsafe) static var target: FuzzTarget?

    static func select() -> FuzzTarget {
        if let target { return target }
        let name = getenv("AVFUZZ_TARGET").map { String(cString: $0) } ?? ""
        guard let found = FuzzTarget.all.first(where: { $0.name == name }) else {
            let names = FuzzTarget.all.map(\.name).joined(separator: " ")
            fputs("avaudio-fuzz: set AVFUZZ_TARGET to one of: \(names)\n", stderr)
            exit(2)
        }
        target = found
        return found
    }
}

@_cdecl("LLVMFuzzerInitialize")
public func fuzzInitialize(_ argc: UnsafeMutablePointer<Int32>?,
                           _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?) -> Int32 {
    _ = Harness.select()
    return 0
}

/// The CPU time one input may take (AVFUZZ_CPU_LIMIT seconds, default 1). A hang is judged in CPU
/// time, not wall time: on a shared machine, a niced fuzzer waits for the CPU for longer than a
/// second, and libFuzzer's wall-clock -timeout would report those waits as hangs. Scripts/fuzz.sh
/// keeps a wall-clock -timeout of 10 s for inputs that never finish (an endless loop, a deadlock).
let cpuLimit: Double = getenv("AVFUZZ_CPU_LIMIT").flatMap { Double(String(cString: $0)) } ?? 1

func threadCPUSeconds() -> Double {
    var t = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t)
    return Double(t.tv_sec) + Double(t.tv_nsec) * 1e-9
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = size > 0 && data != nil ? Array(UnsafeBufferPointer(start: data, count: size)) : []
    let start = threadCPUSeconds()
    Harness.select().run(bytes)
    let used = threadCPUSeconds() - start
    if used > cpuLimit {
        fuzzFailure("one input took \(used) s of CPU time (limit \(cpuLimit) s): a hang")
    }
    return 0
}

@_cdecl("LLVMFuzzerCustomMutator")
public func fuzzCustomMutator(_ data: UnsafeMutablePointer<UInt8>?, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    guard let data else { return 0 }
    var rng = SplitMix(seed: UInt64(seed))
    // One mutation in four stays byte-level even for structured targets: header fields that sit
    // outside any chunk (the RIFF size, the form type) still need plain flips.
    guard let structure = Harness.select().structure, rng.next(4) != 0 else {
        return LLVMFuzzerMutate(data, size, maxSize)
    }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var output = ChunkMutator(structure: structure).mutate(input, maxSize: maxSize, rng: &rng)
    if output.count > maxSize { output.removeSubrange(maxSize...) }
    output.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: $0.count) }
    return output.count
}

/// Reports a broken invariant as a crash libFuzzer records (with the input).
func fuzzFailure(_ message: String) -> Never {
    fputs("avaudio-fuzz [\(Harness.target?.name ?? "?")]: \(message)\n", stderr)
    abort()
}

/// A small deterministic generator (SplitMix64) for the mutators.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed &* 0x9E37_79B9_7F4A_7C15 &+ 1 }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    /// A value in 0..<bound (bound > 0).
    mutating func next(_ bound: Int) -> Int { Int(next() % UInt64(max(1, bound))) }
}

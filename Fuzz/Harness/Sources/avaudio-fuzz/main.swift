// The process entry point: hands the command line to libFuzzer's driver (`LLVMFuzzerRunDriver`,
// exported by the libFuzzer runtime that `-sanitize=fuzzer` links). SwiftPM links executables
// with their own `main`, so the harness calls the driver rather than using libFuzzer's `main`;
// the flags are libFuzzer's (-max_total_time, -timeout, -rss_limit_mb, a corpus directory, or
// files to replay).
#if canImport(Glibc)
import Glibc
#endif

typealias FuzzCallback = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: FuzzCallback) -> Int32

var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, { data, size in fuzzTestOneInput(data, size) }))

// The inputs the fuzzing harness found, committed under Fuzz/findings (Scripts/fuzz.sh).
import Foundation

/// A saved finding, by its file name in `Fuzz/findings`.
func savedFuzzFinding(_ name: String) -> URL {
    URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fuzz/findings/\(name)")
}

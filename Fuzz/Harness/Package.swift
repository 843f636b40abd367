// swift-tools-version:6.1
//
// The fuzzing harness: a separate package, so the library's own `swift build` / `swift test` never
// compile it and stay toolchain-only. Build and run it with Scripts/fuzz.sh, which passes
// `-sanitize=fuzzer,address` (libFuzzer + AddressSanitizer + LeakSanitizer) to every module,
// the library's included, and uses its own scratch path (.build-fuzz).
import Foundation
import PackageDescription

// A path dependency's identity is its directory's name (the checkout's, e.g. "main" or "fuzz"),
// not its manifest's `name`; compute it so the harness builds in any checkout.
let libraryIdentity = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .lastPathComponent.lowercased()

let package = Package(
    name: "OpenAVFAudioFuzz",
    dependencies: [
        .package(path: "../.."),
    ],
    targets: [
        // One executable for every target (chosen with AVFUZZ_TARGET); each target is one file in
        // Sources/avaudio-fuzz/Targets plus a line in Registry.swift.
        .executableTarget(name: "avaudio-fuzz",
                          dependencies: [.product(name: "AVFoundation", package: libraryIdentity)],
                          swiftSettings: [.swiftLanguageMode(.v5)]),
    ]
)

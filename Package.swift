// swift-tools-version:6.1
//
// OpenAVFAudio: Apple's AVFAudio framework rebuilt in Swift for Linux.
// See ARCHITECTURE.md for the module plan and which module may import which.
import PackageDescription

// Library targets are compiled in the Swift 5 language mode: the public API mirrors Apple's
// Objective-C-era classes (mutable reference types, plain closure typealiases), which Swift 6's
// strict checking would force us to annotate differently from Apple's SDK. Client code may use
// either language mode.
let swift5: [SwiftSetting] = [.swiftLanguageMode(.v5)]
// No unsafeFlags anywhere: SwiftPM refuses them in packages used as dependencies.
let optimize: [SwiftSetting] = swift5

let package = Package(
    name: "OpenAVFAudio",
    products: [
        .library(name: "AVFAudio", targets: ["AVFAudio"]),
        .library(name: "AVFoundation", targets: ["AVFoundation"]),
        .library(name: "CoreAudioTypes", targets: ["CoreAudioTypes"]),
        .library(name: "AudioToolbox", targets: ["AudioToolbox"]),
        .executable(name: "avaudio", targets: ["avaudio"]),
        .executable(name: "avaudio-bench", targets: ["avaudio-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        // Core Audio structs in C, so their memory layout is Apple's by construction.
        .target(name: "CCoreAudioTypes"),
        // Swift overlay: constants, UnsafeMutableAudioBufferListPointer, helpers. Re-exports the C structs.
        .target(name: "CoreAudioTypes", dependencies: ["CCoreAudioTypes"], swiftSettings: swift5),
        // AudioToolbox's types that AVFAudio's API names: component descriptions, parameter units and
        // options, AUParameterTree. Re-exports CoreAudioTypes (and Foundation), as on Apple platforms.
        .target(name: "AudioToolbox", dependencies: ["CoreAudioTypes"], swiftSettings: swift5),
        // The resampler's hot Float64 loops in C: AVX2 + FMA variants (per-function target
        // attributes, chosen at runtime) and portable ones. No Apple names; no allocation.
        .target(name: "CResamplerKernels"),
        // The Float64 body of AudioKernels' permuted FFT (FFT/PermutedFFT.swift) in C, built the
        // same way (AVX2 + FMA variant chosen at runtime). No Apple names; no allocation.
        .target(name: "CFFTKernels"),
        // The mixer's summing loop in C: AVX2 + FMA variant chosen at runtime, software prefetch.
        .target(name: "CMixKernels"),
        // The distortion's oversampling FIRs and soft clip in C: AVX2 variant chosen at runtime,
        // bit-identical to the portable one (no contraction). No Apple names; no allocation.
        .target(name: "CEffectKernels"),
        // Sample-format kernels (conversion, interleaving). No Apple names; no allocation in kernels.
        .target(name: "AudioKernels", dependencies: ["CFFTKernels", "CResamplerKernels", "CMixKernels", "CEffectKernels"], swiftSettings: optimize),
        // Container parsers and writers (WAV/RF64, AIFF/AIFF-C, CAF, AU; native FLAC read). No Apple names.
        .target(name: "AudioFileFormats", dependencies: ["AudioKernels", "AudioCodecs"], swiftSettings: optimize),
        // The FLAC decoder's Rice-code loop in C: LZCNT + BMI2 variant chosen at runtime, and a
        // portable one; its CRC-16 by carry-less multiplication (PCLMULQDQ, chosen at runtime).
        // No Apple names; no allocation.
        .target(name: "CFLACKernels"),
        // The ALAC encoder's predictor and bit-count loops in C (portable, exact). No Apple names;
        // no allocation.
        .target(name: "CALACKernels"),
        // Codecs (Apple Lossless, FLAC, Vorbis), from their specifications. No Apple names. Vorbis uses
        // AudioKernels' MDCT.
        .target(name: "AudioCodecs", dependencies: ["CFLACKernels", "CALACKernels", "AudioKernels"], swiftSettings: optimize),
        // Standard MIDI Files read and written exactly, and tempo maps. No Apple names.
        .target(name: "MIDIFiles", swiftSettings: optimize),
        // Audio devices: the device protocol, the null device, and the ALSA and PulseAudio backends
        // (libasound/libpulse loaded at run time with dlopen; nothing linked). No Apple names.
        .target(name: "AudioDevices", dependencies: ["AudioKernels"], swiftSettings: swift5),
        // SoundFont 2 banks: the RIFF parser and zone resolution; SF3's Ogg Vorbis samples decoded by
        // AudioCodecs. No Apple names.
        .target(name: "SoundBanks", dependencies: ["AudioKernels", "AudioCodecs"], swiftSettings: optimize),
        // The sampler's voice engine (sample playback, envelopes, LFOs, filter, voice allocation).
        // No Apple names; nothing allocated or locked on the render side.
        .target(name: "SamplerSynth", dependencies: ["SoundBanks", "CSamplerKernels", "AudioKernels"], swiftSettings: optimize),
        // The sampler's per-voice loops (interpolation, low-pass, mix) in C: AVX2 + FMA variants
        // chosen at runtime, and portable ones. No Apple names; no allocation.
        .target(name: "CSamplerKernels"),
        // The public API façade: AVAudioFormat, AVAudioPCMBuffer, AVAudioFile, ...
        // "Lifetimes" (an experimental feature, not an unsafe flag: SwiftPM accepts it in
        // dependencies) lets AVReadOnlyAudioPCMBuffer.channelData(_:) return Spans tied to the
        // buffer, as Apple declares it; clients need no flag to call it.
        .target(name: "AVFAudio", dependencies: ["CoreAudioTypes", "AudioToolbox", "AudioKernels", "AudioCodecs", "AudioFileFormats", "AudioDevices", "MIDIFiles", "SoundBanks", "SamplerSynth"],
                swiftSettings: optimize + [.enableExperimentalFeature("Lifetimes")]),
        // `import AVFoundation` = AVFAudio + Foundation, as on Apple platforms.
        .target(name: "AVFoundation", dependencies: ["AVFAudio"], swiftSettings: swift5),
        .executableTarget(name: "avaudio", dependencies: [
            "AVFoundation", "AudioDevices", "MIDIFiles", "AudioCodecs", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], swiftSettings: swift5),
        // One runnable example per node and unit, written as client code (`import AVFoundation`).
        .executableTarget(name: "avaudio-examples", dependencies: ["AVFoundation", "AudioAnalysis"], path: "Examples", swiftSettings: swift5),
        .executableTarget(name: "avaudio-bench", dependencies: ["AVFAudio", "AudioKernels", "AudioFileFormats", "AudioAnalysis", "AudioDevices"],
                          path: "Benchmarks/avaudio-bench", swiftSettings: optimize),
        .testTarget(name: "CoreAudioTypesTests", dependencies: ["CoreAudioTypes"], swiftSettings: swift5),
        // Client code that imports AudioToolbox alone (as AudioKit's parameter code does).
        .testTarget(name: "AudioToolboxTests", dependencies: ["AudioToolbox"], swiftSettings: swift5),
        .testTarget(name: "AudioKernelsTests", dependencies: ["AudioKernels"], swiftSettings: swift5),
        .testTarget(name: "AudioFileFormatsTests", dependencies: ["AudioFileFormats", "AudioKernels", "AudioCodecs"], swiftSettings: swift5),
        .testTarget(name: "AVFAudioTests", dependencies: ["AVFoundation", "AudioKernels", "AudioAnalysis", "AudioDevices", "SoundBanks", "CSamplerKernels"],
                    exclude: ["Fuzz/Inputs"], swiftSettings: swift5),
        .testTarget(name: "MIDIFilesTests", dependencies: ["MIDIFiles"], exclude: ["mido_dump.py"], swiftSettings: swift5),
        .testTarget(name: "AudioCodecsTests", dependencies: ["AudioCodecs", "CFLACKernels", "CALACKernels"], swiftSettings: swift5),
        .testTarget(name: "ResamplerTests", dependencies: ["AudioKernels"], swiftSettings: swift5),
        .executableTarget(name: "resampler-bench", dependencies: ["AudioKernels"], path: "Benchmarks/resampler", exclude: ["compare_src.py"], swiftSettings: optimize),
        .target(name: "AllocationCounter"),
        // The measurements shared by the tests, the examples and the benchmarks (spectra, sine
        // fits, reverb decay, distortion). Not part of the product; no Apple names.
        .target(name: "AudioAnalysis", swiftSettings: swift5),
        .testTarget(name: "AllocationCounterTests", dependencies: ["AllocationCounter", "AudioKernels", "AVFAudio", "AudioDevices", "AudioAnalysis"], swiftSettings: swift5),
    ]
)

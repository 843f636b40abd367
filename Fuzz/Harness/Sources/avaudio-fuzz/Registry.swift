// Every fuzz target. A new parser joins the harness with one file in Targets/ that defines
// `extension FuzzTarget { static let name = FuzzTarget(...) }` and one line in `all` below;
// Scripts/fuzz.sh builds, seeds and runs every target listed here.

/// One entry point that takes outside bytes.
struct FuzzTarget {
    /// The name AVFUZZ_TARGET and Scripts/fuzz.sh use (also the seed corpus directory's name).
    let name: String
    /// The chunk structure its inputs have, for the structure-aware mutator (nil: bytes only).
    let structure: ChunkStructure?
    /// Runs one input. Returns normally when the library behaved; traps (`fuzzFailure`) otherwise.
    let run: ([UInt8]) -> Void

    static let all: [FuzzTarget] = [
        .wav, .aiff, .caf, .au, .flac, .alac,
        .settings,
        .converter,
        .codecconv,
        .smf,
        .sf2,
        .dls,
        .aupreset,
        .plist,
        .mp4,
        .ogg,
        .mpeg,
        .vorbis,
    ]
}

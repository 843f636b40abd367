// Public option types of the sample-rate converter.

/// How hard the converter works: attenuation of aliases and images, and how close to the lower
/// Nyquist frequency the pass band reaches.
///
/// | level     | design stop band | flat to (x lower Nyquist) | arithmetic | measured alias / THD+N (dB)* | speed* |
/// |-----------|------------------|---------------------------|------------|------------------------------|--------|
/// | `.min`    | 85 dB            | 0.80                      | Float32    | -92 / -96                    | 2500x  |
/// | `.low`    | 105 dB           | 0.87                      | Float32    | -113 / -117                  | 2400x  |
/// | `.medium` | 125 dB           | 0.90                      | Float32    | -133 / -134                  | 2400x  |
/// | `.high`   | 145 dB           | 0.913                     | Float32    | -141 / -136                  | 2300x  |
/// | `.max`    | 180 dB           | 0.913                     | Float64    | -163 / -151 (Float32 floor)  | 1300x  |
///
/// *44.1 -> 48 kHz, audiometrics.src_quality method and 60 s stereo, see
/// Benchmarks/resampler/compare_src.py. The transition band always ends at the lower Nyquist
/// frequency, so nothing aliases into the output band; at 44.1 kHz `.high` and `.max` are flat
/// to 20.1 kHz (within 1e-5 dB).
public enum ResamplerQuality: Int, Sendable, CaseIterable, Comparable {
    case min, low, medium, high, max

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
}

/// Phase response of the steep anti-alias / anti-image filter.
public enum ResamplerPhase: Sendable, Equatable {
    /// Linear phase (symmetric filter): no phase distortion, pre-ringing before transients.
    case linear
    /// Minimum phase: no pre-ringing and a small delay, but a frequency-dependent group delay
    /// near the band edge. The delay compensation uses the group delay at 0 Hz.
    case minimum
}

/// Where the output's time origin is, and what is assumed before and after the input.
/// (These are the three priming methods of a block-based converter.)
public enum ResamplerPriming: Sendable, Equatable {
    /// Zero latency (the default): output frame 0 is input time 0; the input is assumed to be
    /// preceded by silence, and `flush` supplies the trailing frames. A stream of N input frames
    /// gives `outputFrames(forInputFrames: N)` output frames.
    case aligned
    /// The caller supplies `leadingFrames` frames of real audio before the stream proper. They
    /// shape the first outputs but produce none: output frame 0 is input frame `leadingFrames`.
    case preroll
    /// No delay compensation: the output lags the input by `trailingFrames` input frames, as a
    /// causal filter would, and leading and trailing frames are assumed to be silence. The
    /// output includes the whole decay, `trailingFrames` input frames' worth more than `.aligned`.
    case delayed
}

// The loops. Everything here is generic over a source storage `S` and destination storage `D` and
// is only ever called with concrete types (see StorageDispatch.swift), so each (S, D) pair gets its
// own machine code in which the per-sample work is a few inlined instructions.
//
// How the loops are shaped for the vectoriser:
//
//  * Contiguous runs index from one base pointer with the storage's constant size
//    (`src + i * S.byteCount`): the loop vectoriser sees consecutive accesses and emits vector
//    loads, conversions and stores, with a scalar tail for the last `count % width` samples.
//  * Stereo splits and merges read or write both channels in the same iteration
//    (`src[2i]`, `src[2i+1]`): LLVM recognises the pair as an "interleave group" and deinterleaves
//    whole vectors with shuffles instead of touching every other sample.
//  * Other channel counts go channel by channel over blocks of frames, so the interleaved side of
//    a block stays in the L1 cache while each channel's pass picks its samples out of it.
//  * No loop body contains a call, a switch on a runtime value, a bounds check or an overflow
//    check (pointer arithmetic uses `&*`/`&+` where it is not already unchecked).

/// Frames per block in the channel-by-channel path. 512 frames of the widest interleaved side
/// (8 channels × 8 bytes) is 32 KiB, the size of a typical L1 data cache; common formats use far
/// less.
let blockFrames = 512

// MARK: one sample

/// Converts the sample at `s` (stored as `S`) to `D` at `d`.
@inline(__always)
func convertSample<S: SampleStorage, D: SampleStorage>(_: S.Type, _: D.Type,
                                                       _ s: UnsafeRawPointer, _ d: UnsafeMutableRawPointer) {
    switch Pipeline.between(S.self, D.self) {
    case .integer: D.store(aligned: S.loadAligned(s), to: d)
    case .float32: D.store(S.loadFloat(s), to: d)
    case .float64: D.store(S.loadDouble(s), to: d)
    }
}

/// Converts one sample adding `dither` (in LSBs of `D`) before quantising. Dither only applies
/// to float → integer conversions; integer sources and float destinations ignore it.
@inline(__always)
func convertSample<S: SampleStorage, D: SampleStorage>(_: S.Type, _: D.Type, _ s: UnsafeRawPointer,
                                                       _ d: UnsafeMutableRawPointer, dither: Float) {
    switch Pipeline.between(S.self, D.self) {
    case .integer: D.store(aligned: S.loadAligned(s), to: d)
    case .float32: D.store(S.loadFloat(s), dither: dither, to: d)
    case .float64: D.store(S.loadDouble(s), dither: Double(dither), to: d)
    }
}

// MARK: runs of one channel

/// Converts `count` samples read `srcStride` bytes apart into samples written `dstStride` bytes
/// apart.
func convertRun<S: SampleStorage, D: SampleStorage>(_: S.Type, _: D.Type, count: Int,
                                                    from src: UnsafeRawPointer, stride srcStride: Int,
                                                    to dst: UnsafeMutableRawPointer, stride dstStride: Int) {
    if srcStride == S.byteCount && dstStride == D.byteCount {
        // The same loop with constant strides: this is the one that vectorises.
        for i in 0 ..< count {
            convertSample(S.self, D.self, src + i &* S.byteCount, dst + i &* D.byteCount)
        }
    } else {
        for i in 0 ..< count {
            convertSample(S.self, D.self, src + i &* srcStride, dst + i &* dstStride)
        }
    }
}

/// `convertRun` with TPDF dither: eight fresh dither values per eight samples.
func convertRunDithered<S: SampleStorage, D: SampleStorage>(_: S.Type, _: D.Type, count: Int,
                                                            from src: UnsafeRawPointer, stride srcStride: Int,
                                                            to dst: UnsafeMutableRawPointer, stride dstStride: Int,
                                                            dither: inout TPDFDither) {
    var i = 0
    // Whole blocks of eight: the inner loop has a constant trip count, so it is unrolled and each
    // sample takes its lane of the SIMD8 directly.
    while i &+ 8 <= count {
        let noise = dither.next()
        for lane in 0 ..< 8 {
            let k = i &+ lane
            convertSample(S.self, D.self, src + k &* srcStride, dst + k &* dstStride, dither: noise[lane])
        }
        i &+= 8
    }
    // The last 1…7 samples use the first lanes of one more block.
    if i < count {
        let noise = dither.next()
        for lane in 0 ..< count &- i {
            let k = i &+ lane
            convertSample(S.self, D.self, src + k &* srcStride, dst + k &* dstStride, dither: noise[lane])
        }
    }
}

// MARK: stereo

/// Interleaved stereo `src` (L R L R …) into two channel runs.
func splitStereo<S: SampleStorage, D: SampleStorage>(_: S.Type, _: D.Type, count: Int, from src: UnsafeRawPointer,
                                                     left: UnsafeMutableRawPointer, right: UnsafeMutableRawPointer) {
    for i in 0 ..< count {
        convertSample(S.self, D.self, src + (2 &* i) &* S.byteCount, left + i &* D.byteCount)
        convertSample(S.self, D.self, src + (2 &* i &+ 1) &* S.byteCount, right + i &* D.byteCount)
    }
}

/// Two channel runs into interleaved stereo `dst`.
func mergeStereo<S: SampleStorage, D: SampleStorage>(_: S.Type, _: D.Type, count: Int, left: UnsafeRawPointer,
                                                     right: UnsafeRawPointer, to dst: UnsafeMutableRawPointer) {
    for i in 0 ..< count {
        convertSample(S.self, D.self, left + i &* S.byteCount, dst + (2 &* i) &* D.byteCount)
        convertSample(S.self, D.self, right + i &* S.byteCount, dst + (2 &* i &+ 1) &* D.byteCount)
    }
}

// MARK: whole buffers

/// Converts `frames` frames of every channel from `source` (stored as `S`) to `destination`
/// (stored as `D`), picking the loop shape from the two layouts.
func transfer<S: SampleStorage, D: SampleStorage>(_: S.Type, _: D.Type, from source: ChannelAddressing,
                                                  to destination: ChannelAddressing, frames: Int) {
    let channels = source.channelCount
    let src = source.address(channel: 0, frame: 0)
    let dst = destination.address(channel: 0, frame: 0)
    switch (source.isInterleaved, destination.isInterleaved) {
    case (true, true):
        // Same order on both sides (or one channel): a single run over every sample.
        convertRun(S.self, D.self, count: frames &* channels, from: src, stride: S.byteCount,
                   to: dst, stride: D.byteCount)
    case (false, false):
        // Both deinterleaved: each channel is its own contiguous run.
        for c in 0 ..< channels {
            convertRun(S.self, D.self, count: frames, from: source.address(channel: c, frame: 0), stride: S.byteCount,
                       to: destination.address(channel: c, frame: 0), stride: D.byteCount)
        }
    case (true, false) where channels == 2:
        splitStereo(S.self, D.self, count: frames, from: src,
                    left: dst, right: destination.address(channel: 1, frame: 0))
    case (false, true) where channels == 2:
        mergeStereo(S.self, D.self, count: frames, left: src, right: source.address(channel: 1, frame: 0), to: dst)
    default:
        // Interleaving or deinterleaving any other channel count: block by block, channel by channel.
        var frame = 0
        while frame < frames {
            let n = Swift.min(blockFrames, frames &- frame)
            for c in 0 ..< channels {
                convertRun(S.self, D.self, count: n,
                           from: source.address(channel: c, frame: frame), stride: source.frameStride,
                           to: destination.address(channel: c, frame: frame), stride: destination.frameStride)
            }
            frame &+= n
        }
    }
}

/// `transfer` with TPDF dither. Channels are dithered in turn from the one generator, so the
/// output depends only on the seed and the sequence of calls.
func transferDithered<S: SampleStorage, D: SampleStorage>(_: S.Type, _: D.Type, from source: ChannelAddressing,
                                                          to destination: ChannelAddressing, frames: Int,
                                                          dither: inout TPDFDither) {
    // Only float → integer quantises; every other pair takes the plain loops (a constant
    // condition, so the dithered code below is not even generated for those pairs).
    guard S.kind != .integer && D.kind == .integer else {
        transfer(S.self, D.self, from: source, to: destination, frames: frames)
        return
    }
    let channels = source.channelCount
    if source.isInterleaved && destination.isInterleaved {
        convertRunDithered(S.self, D.self, count: frames &* channels,
                           from: source.address(channel: 0, frame: 0), stride: S.byteCount,
                           to: destination.address(channel: 0, frame: 0), stride: D.byteCount, dither: &dither)
        return
    }
    var frame = 0
    while frame < frames {
        let n = Swift.min(blockFrames, frames &- frame)
        for c in 0 ..< channels {
            convertRunDithered(S.self, D.self, count: n,
                               from: source.address(channel: c, frame: frame), stride: source.frameStride,
                               to: destination.address(channel: c, frame: frame), stride: destination.frameStride,
                               dither: &dither)
        }
        frame &+= n
    }
}

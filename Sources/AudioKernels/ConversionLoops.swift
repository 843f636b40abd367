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
//  * Other channel counts convert a block of frames as one contiguous run through a small stack
//    buffer and move the samples between the layouts with plain word copies (see below).
//  * No loop body contains a call, a switch on a runtime value, a bounds check or an overflow
//    check (pointer arithmetic uses `&*`/`&+` where it is not already unchecked).

/// Frames per block in the channel-by-channel fallback. 512 frames of 8 channels × 8 bytes is
/// 32 KiB, the size of a typical L1 data cache, so the interleaved side of a block stays cached
/// while each channel's pass picks its samples out of it.
let blockFrames = 512

/// Samples of dither noise generated ahead of a loop (1 KiB on the stack).
let noiseBlock = 256

// MARK: compile-time switches

/// Whether a loop adds TPDF dither, as a type: the choice is made at compile time, and the
/// undithered loops contain no trace of it.
protocol DitherMode {
    static var isOn: Bool { get }
}

enum Undithered: DitherMode {
    static var isOn: Bool { false }
}

enum Dithered: DitherMode {
    static var isOn: Bool { true }
}

/// Which side of a transfer, if any, is known to be interleaved file data. Decoding always reads
/// interleaved samples and encoding always writes them, so the loop shapes that need the other
/// layout are never generated for those pairs (about a third less code).
protocol FileSide {
    static var isSource: Bool { get }
    static var isDestination: Bool { get }
}

/// Decoding: the source is the file.
enum FileIsSource: FileSide {
    static var isSource: Bool { true }
    static var isDestination: Bool { false }
}

/// Encoding: the destination is the file.
enum FileIsDestination: FileSide {
    static var isSource: Bool { false }
    static var isDestination: Bool { true }
}

/// Processing → processing: either side may have either layout.
enum NoFile: FileSide {
    static var isSource: Bool { false }
    static var isDestination: Bool { false }
}

// MARK: one sample

/// Converts the sample at `s` (stored as `S`) to `D` at `d`. With dither on, `noise[k]` (in LSBs
/// of `D`) is added before quantising; that only happens for float → integer pairs, because
/// integer sources take the integer pipeline and float destinations ignore dither.
@inline(__always)
func convertSample<S: SampleStorage, D: SampleStorage, M: DitherMode>(
    _: S.Type, _: D.Type, _: M.Type, _ s: UnsafeRawPointer, _ d: UnsafeMutableRawPointer,
    noise: UnsafePointer<Float>?, _ k: Int
) {
    switch Pipeline.between(S.self, D.self) {
    case .integer:
        D.store(aligned: S.loadAligned(s), to: d)
    case .float32:
        if M.isOn { D.store(S.loadFloat(s), dither: noise.unsafelyUnwrapped[k], to: d) }
        else { D.store(S.loadFloat(s), to: d) }
    case .float64:
        if M.isOn { D.store(S.loadDouble(s), dither: Double(noise.unsafelyUnwrapped[k]), to: d) }
        else { D.store(S.loadDouble(s), to: d) }
    }
}

// MARK: loops
//
// `@inline(never)`: each loop is emitted once per format pair and called per channel or per
// block, instead of being copied into every call site (the call costs nothing next to a loop of
// hundreds of samples, and the binary stays a fraction of the size).

/// Converts `count` samples read `srcStride` bytes apart into samples written `dstStride` bytes
/// apart. Sample `i` takes `noise[i]` when dithering.
@inline(never)
func convertRun<S: SampleStorage, D: SampleStorage, M: DitherMode>(
    _: S.Type, _: D.Type, _: M.Type, count: Int,
    from src: UnsafeRawPointer, stride srcStride: Int,
    to dst: UnsafeMutableRawPointer, stride dstStride: Int, noise: UnsafePointer<Float>?
) {
    if srcStride == S.byteCount && dstStride == D.byteCount {
        // The same loop with constant strides: this is the one that vectorises.
        for i in 0 ..< count {
            convertSample(S.self, D.self, M.self, src + i &* S.byteCount, dst + i &* D.byteCount, noise: noise, i)
        }
    } else {
        for i in 0 ..< count {
            convertSample(S.self, D.self, M.self, src + i &* srcStride, dst + i &* dstStride, noise: noise, i)
        }
    }
}

/// Interleaved stereo `src` (L R L R …) into two channel runs. Dithering uses `noise[i]` for the
/// left sample of frame `i` and `noise[count + i]` for the right one.
@inline(never)
func splitStereo<S: SampleStorage, D: SampleStorage, M: DitherMode>(
    _: S.Type, _: D.Type, _: M.Type, count: Int, from src: UnsafeRawPointer,
    left: UnsafeMutableRawPointer, right: UnsafeMutableRawPointer, noise: UnsafePointer<Float>?
) {
    for i in 0 ..< count {
        convertSample(S.self, D.self, M.self, src + (2 &* i) &* S.byteCount, left + i &* D.byteCount,
                      noise: noise, i)
        convertSample(S.self, D.self, M.self, src + (2 &* i &+ 1) &* S.byteCount, right + i &* D.byteCount,
                      noise: noise, count &+ i)
    }
}

/// Two channel runs into interleaved stereo `dst`; noise as for `splitStereo`.
@inline(never)
func mergeStereo<S: SampleStorage, D: SampleStorage, M: DitherMode>(
    _: S.Type, _: D.Type, _: M.Type, count: Int, left: UnsafeRawPointer, right: UnsafeRawPointer,
    to dst: UnsafeMutableRawPointer, noise: UnsafePointer<Float>?
) {
    for i in 0 ..< count {
        convertSample(S.self, D.self, M.self, left + i &* S.byteCount, dst + (2 &* i) &* D.byteCount,
                      noise: noise, i)
        convertSample(S.self, D.self, M.self, right + i &* S.byteCount, dst + (2 &* i &+ 1) &* D.byteCount,
                      noise: noise, count &+ i)
    }
}

// MARK: whole buffers

/// Converts `frames` frames of every channel from `source` (stored as `S`) to `destination`
/// (stored as `D`), picking the loop shape from the two layouts.
///
/// Without dither each shape is one pass (one loop call per channel at most). With dither the
/// work is cut into pieces of at most `noiseBlock` samples; before each piece the generator
/// fills a small stack buffer with that piece's noise, and the loop reads it like a third
/// operand – so the dithered loops vectorise like the plain ones. Channels and pieces draw from
/// the one generator in a fixed order, so the output depends only on the seed and the calls.
func transfer<S: SampleStorage, D: SampleStorage, M: DitherMode, F: FileSide>(
    _: S.Type, _: D.Type, _: M.Type, _: F.Type, from source: ChannelAddressing,
    to destination: ChannelAddressing, frames: Int, dither: inout TPDFDither
) {
    // Only float → integer pairs quantise; all others take the undithered loops (a constant
    // condition, so no dithered code is generated for them).
    if M.isOn && !(S.kind != .integer && D.kind == .integer) {
        transfer(S.self, D.self, Undithered.self, F.self, from: source, to: destination, frames: frames,
                 dither: &dither)
        return
    }
    if M.isOn {
        var buffer = NoiseBuffer()
        withUnsafeMutableBytes(of: &buffer) { raw in
            let noise = raw.baseAddress.unsafelyUnwrapped.bindMemory(to: Float.self, capacity: noiseBlock)
            transferShapes(S.self, D.self, M.self, F.self, from: source, to: destination, frames: frames,
                           noise: noise, dither: &dither)
        }
    } else {
        transferShapes(S.self, D.self, M.self, F.self, from: source, to: destination, frames: frames,
                       noise: nil, dither: &dither)
    }
}

/// 256 Floats of stack storage for dither noise (SIMD64 only for its size and alignment).
struct NoiseBuffer {
    var storage = (SIMD64<Float>(), SIMD64<Float>(), SIMD64<Float>(), SIMD64<Float>())
}

/// Fills `noise[0 ..< count]` (rounded up to a multiple of 8, at most `noiseBlock`) with dither.
@inline(__always)
func fillNoise(_ noise: UnsafeMutablePointer<Float>?, count: Int, from dither: inout TPDFDither) {
    guard let noise else { return }
    var i = 0
    while i < count {
        UnsafeMutableRawPointer(noise + i).storeBytes(of: dither.next(), as: SIMD8<Float>.self)
        i &+= 8
    }
}

/// The body of `transfer`: the layout decides the loop shape.
@inline(__always)
func transferShapes<S: SampleStorage, D: SampleStorage, M: DitherMode, F: FileSide>(
    _: S.Type, _: D.Type, _: M.Type, _: F.Type, from source: ChannelAddressing,
    to destination: ChannelAddressing, frames: Int, noise: UnsafeMutablePointer<Float>?,
    dither: inout TPDFDither
) {
    let channels = source.channelCount
    let sourceInterleaved = F.isSource || source.isInterleaved
    let destinationInterleaved = F.isDestination || destination.isInterleaved
    // Samples per loop call: everything at once, or one buffer of noise when dithering.
    let piece = M.isOn ? noiseBlock : Int.max

    switch (sourceInterleaved, destinationInterleaved) {
    case (true, true):
        // Same order on both sides (or one channel): a single run over every sample.
        let total = frames &* channels
        let src = source.address(channel: 0, frame: 0)
        let dst = destination.address(channel: 0, frame: 0)
        var done = 0
        while done < total {
            let n = Swift.min(piece, total &- done)
            fillNoise(noise, count: n, from: &dither)
            convertRun(S.self, D.self, M.self, count: n, from: src + done &* S.byteCount, stride: S.byteCount,
                       to: dst + done &* D.byteCount, stride: D.byteCount, noise: noise)
            done &+= n
        }
    case (false, false):
        // Both deinterleaved: each channel is its own contiguous run.
        for c in 0 ..< channels {
            var done = 0
            while done < frames {
                let n = Swift.min(piece, frames &- done)
                fillNoise(noise, count: n, from: &dither)
                convertRun(S.self, D.self, M.self, count: n,
                           from: source.address(channel: c, frame: done), stride: S.byteCount,
                           to: destination.address(channel: c, frame: done), stride: D.byteCount, noise: noise)
                done &+= n
            }
        }
    case (true, false) where channels == 2:
        var done = 0
        while done < frames {
            let n = Swift.min(piece / 2, frames &- done)
            fillNoise(noise, count: 2 &* n, from: &dither)
            splitStereo(S.self, D.self, M.self, count: n, from: source.address(channel: 0, frame: done),
                        left: destination.address(channel: 0, frame: done),
                        right: destination.address(channel: 1, frame: done), noise: noise)
            done &+= n
        }
    case (false, true) where channels == 2:
        var done = 0
        while done < frames {
            let n = Swift.min(piece / 2, frames &- done)
            fillNoise(noise, count: 2 &* n, from: &dither)
            mergeStereo(S.self, D.self, M.self, count: n, left: source.address(channel: 0, frame: done),
                        right: source.address(channel: 1, frame: done),
                        to: destination.address(channel: 0, frame: done), noise: noise)
            done &+= n
        }
    case (true, false):
        deinterleave(S.self, D.self, M.self, from: source, to: destination, frames: frames, noise: noise,
                     dither: &dither)
    case (false, true):
        interleave(S.self, D.self, M.self, from: source, to: destination, frames: frames, noise: noise,
                   dither: &dither)
    }
}

// MARK: three or more channels
//
// LLVM vectorises the stereo loops because it can deinterleave a pair of streams with shuffles,
// but for an arbitrary channel count the samples of one channel are a strided gather, which
// baseline SSE2 cannot do. So these paths take two steps per block of frames, using 4 KiB of
// stack scratch that stays in L1:
//
//   deinterleave: convert the block as one contiguous run (vectorised, like the interleaved
//                 case) into scratch, then copy each channel's samples out of the scratch with a
//                 strided copy that only moves 2-, 4- or 8-byte words;
//   interleave:   the mirror image – gather the channels into scratch, then convert one run.
//
// On 5.1 material this is about 25 % faster than converting channel by channel with strided
// loads, and the copies are three small non-generic functions rather than a loop per format pair.

/// Bytes of stack scratch for the many-channel paths (4 KiB: comfortably inside L1).
let scratchBytes = 4096

/// 4 KiB of stack storage (SIMD64 only for its size and alignment).
struct ScratchBuffer {
    var storage = (SIMD64<Float>(), SIMD64<Float>(), SIMD64<Float>(), SIMD64<Float>(),
                   SIMD64<Float>(), SIMD64<Float>(), SIMD64<Float>(), SIMD64<Float>(),
                   SIMD64<Float>(), SIMD64<Float>(), SIMD64<Float>(), SIMD64<Float>(),
                   SIMD64<Float>(), SIMD64<Float>(), SIMD64<Float>(), SIMD64<Float>())
}

/// Frames per block of the two-step paths, or 0 when one frame does not fit (hundreds of
/// channels), in which case the caller converts channel by channel with strided loops instead.
@inline(__always)
func twoStepBlock(channels: Int, sampleBytes: Int, dithered: Bool) -> Int {
    let frames = scratchBytes / (channels &* sampleBytes)
    return dithered ? Swift.min(frames, noiseBlock / channels) : frames
}

/// Interleaved `source` into deinterleaved `destination`, three or more channels.
@inline(__always)
func deinterleave<S: SampleStorage, D: SampleStorage, M: DitherMode>(
    _: S.Type, _: D.Type, _: M.Type, from source: ChannelAddressing, to destination: ChannelAddressing,
    frames: Int, noise: UnsafeMutablePointer<Float>?, dither: inout TPDFDither
) {
    let channels = source.channelCount
    let block = twoStepBlock(channels: channels, sampleBytes: D.byteCount, dithered: M.isOn)
    if block == 0 {
        convertChannelByChannel(S.self, D.self, M.self, from: source, to: destination, frames: frames, noise: noise,
                                dither: &dither)
        return
    }
    var buffer = ScratchBuffer()
    withUnsafeMutableBytes(of: &buffer) { raw in
        let scratch = raw.baseAddress.unsafelyUnwrapped
        var done = 0
        while done < frames {
            let n = Swift.min(block, frames &- done)
            fillNoise(noise, count: n &* channels, from: &dither)
            convertRun(S.self, D.self, M.self, count: n &* channels,
                       from: source.address(channel: 0, frame: done), stride: S.byteCount,
                       to: scratch, stride: D.byteCount, noise: UnsafePointer(noise))
            for c in 0 ..< channels {
                copyWords(D.byteCount, count: n, from: scratch + c &* D.byteCount, stride: channels &* D.byteCount,
                          to: destination.address(channel: c, frame: done), stride: D.byteCount)
            }
            done &+= n
        }
    }
}

/// Deinterleaved `source` into interleaved `destination`, three or more channels.
@inline(__always)
func interleave<S: SampleStorage, D: SampleStorage, M: DitherMode>(
    _: S.Type, _: D.Type, _: M.Type, from source: ChannelAddressing, to destination: ChannelAddressing,
    frames: Int, noise: UnsafeMutablePointer<Float>?, dither: inout TPDFDither
) {
    let channels = source.channelCount
    let block = twoStepBlock(channels: channels, sampleBytes: S.byteCount, dithered: M.isOn)
    if block == 0 {
        convertChannelByChannel(S.self, D.self, M.self, from: source, to: destination, frames: frames, noise: noise,
                                dither: &dither)
        return
    }
    var buffer = ScratchBuffer()
    withUnsafeMutableBytes(of: &buffer) { raw in
        let scratch = raw.baseAddress.unsafelyUnwrapped
        var done = 0
        while done < frames {
            let n = Swift.min(block, frames &- done)
            for c in 0 ..< channels {
                copyWords(S.byteCount, count: n, from: source.address(channel: c, frame: done), stride: S.byteCount,
                          to: scratch + c &* S.byteCount, stride: channels &* S.byteCount)
            }
            fillNoise(noise, count: n &* channels, from: &dither)
            convertRun(S.self, D.self, M.self, count: n &* channels, from: scratch, stride: S.byteCount,
                       to: destination.address(channel: 0, frame: done), stride: D.byteCount,
                       noise: UnsafePointer(noise))
            done &+= n
        }
    }
}

/// The fallback for any layout pair: block by block, channel by channel, with strided loops.
@inline(never)
func convertChannelByChannel<S: SampleStorage, D: SampleStorage, M: DitherMode>(
    _: S.Type, _: D.Type, _: M.Type, from source: ChannelAddressing, to destination: ChannelAddressing,
    frames: Int, noise: UnsafeMutablePointer<Float>?, dither: inout TPDFDither
) {
    let block = M.isOn ? noiseBlock : blockFrames
    var done = 0
    while done < frames {
        let n = Swift.min(block, frames &- done)
        for c in 0 ..< source.channelCount {
            fillNoise(noise, count: n, from: &dither)
            convertRun(S.self, D.self, M.self, count: n,
                       from: source.address(channel: c, frame: done), stride: source.frameStride,
                       to: destination.address(channel: c, frame: done), stride: destination.frameStride,
                       noise: UnsafePointer(noise))
        }
        done &+= n
    }
}

/// Copies `count` words of `size` bytes (2, 4 or 8) from `src` to `dst`, each side with its own
/// stride in bytes. One copy of the code serves every format pair.
@inline(never)
func copyWords(_ size: Int, count: Int, from src: UnsafeRawPointer, stride srcStride: Int,
               to dst: UnsafeMutableRawPointer, stride dstStride: Int) {
    switch size {
    case 2: copyWords(UInt16.self, count: count, from: src, stride: srcStride, to: dst, stride: dstStride)
    case 4: copyWords(UInt32.self, count: count, from: src, stride: srcStride, to: dst, stride: dstStride)
    default: copyWords(UInt64.self, count: count, from: src, stride: srcStride, to: dst, stride: dstStride)
    }
}

@inline(__always)
func copyWords<T: FixedWidthInteger>(_: T.Type, count: Int, from src: UnsafeRawPointer, stride srcStride: Int,
                                     to dst: UnsafeMutableRawPointer, stride dstStride: Int) {
    for i in 0 ..< count {
        (dst + i &* dstStride).storeBytes(of: (src + i &* srcStride).loadUnaligned(as: T.self), as: T.self)
    }
}

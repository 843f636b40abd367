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
    default:
        // Interleaving or deinterleaving any other channel count: block by block, channel by
        // channel, so the interleaved side of a block stays in L1 for all of its channels.
        let block = Swift.min(blockFrames, piece)
        var done = 0
        while done < frames {
            let n = Swift.min(block, frames &- done)
            for c in 0 ..< channels {
                fillNoise(noise, count: n, from: &dither)
                convertRun(S.self, D.self, M.self, count: n,
                           from: source.address(channel: c, frame: done), stride: source.frameStride,
                           to: destination.address(channel: c, frame: done), stride: destination.frameStride,
                           noise: noise)
            }
            done &+= n
        }
    }
}

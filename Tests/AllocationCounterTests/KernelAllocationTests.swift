// The real-time kernels of AudioKernels allocate nothing in their steady state: after two warm-up
// calls, 1000 further calls of each conversion and channel-matrix case make no heap allocation
// and free nothing. The buffers, channel-pointer arrays and matrices are built beforehand (the
// control side's job); each counted call builds its `ProcessingBufferPointer`s afresh, as the
// render side does for every cycle.

import AudioKernels
import Testing

/// The three ways a processing buffer can be addressed.
enum KernelLayout: String, Sendable, CustomStringConvertible {
    case interleaved, channelPointers, planar
    var description: String { rawValue }
}

/// A processing buffer owned by a test, with its channel-pointer array made up front.
final class KernelBuffer {
    let type: ProcessingSampleType
    let channels: Int
    let frames: Int
    let layout: KernelLayout
    let channelStride: Int
    let memory: UnsafeMutableRawPointer
    let channelPointers: UnsafeMutableBufferPointer<UnsafeMutableRawPointer>

    init(_ type: ProcessingSampleType, channels: Int, frames: Int, layout: KernelLayout, seed: UInt64) {
        self.type = type
        self.channels = channels
        self.frames = frames
        self.layout = layout
        channelStride = frames + 5
        let size = type.bytesPerSample
        let samples = layout == .interleaved ? frames * channels : channelStride * channels
        memory = .allocate(byteCount: samples * size, alignment: 16)
        channelPointers = .allocate(capacity: channels)
        for c in 0 ..< channels {
            channelPointers[c] = layout == .interleaved ? memory + c * size : memory + c * channelStride * size
        }
        // A deterministic signal in range for the type.
        var state = seed | 1
        for i in 0 ..< samples {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            let unit = Double(Int64(bitPattern: state) >> 11) / Double(1 << 52)   // [-1, 1)
            switch type {
            case .float32: memory.storeBytes(of: Float(unit * 0.9), toByteOffset: i * 4, as: Float.self)
            case .float64: memory.storeBytes(of: unit * 0.9, toByteOffset: i * 8, as: Double.self)
            case .int16: memory.storeBytes(of: Int16(truncatingIfNeeded: state), toByteOffset: i * 2, as: Int16.self)
            case .int32: memory.storeBytes(of: Int32(truncatingIfNeeded: state), toByteOffset: i * 4, as: Int32.self)
            }
        }
    }

    deinit {
        memory.deallocate()
        channelPointers.deallocate()
    }

    /// The kernels' view of the buffer. Building it is a few stores – no allocation.
    var pointer: ProcessingBufferPointer {
        switch layout {
        case .interleaved:
            return .interleaved(memory, channelCount: channels, sampleType: type)
        case .channelPointers:
            return .deinterleaved(UnsafeBufferPointer(channelPointers), sampleType: type)
        case .planar:
            return .deinterleaved(base: memory, channelCount: channels, channelStride: channelStride, sampleType: type)
        }
    }
}

/// Interleaved file bytes (random: every bit pattern, NaNs included, is a valid input).
final class FileBytes {
    let bytes: UnsafeMutableRawBufferPointer
    init(encoding: SampleEncoding, channels: Int, frames: Int, seed: UInt64) {
        bytes = .allocate(byteCount: frames * channels * encoding.bytesPerSample, alignment: 16)
        var state = seed | 1
        for i in 0 ..< bytes.count {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            bytes[i] = UInt8(truncatingIfNeeded: state >> 24)
        }
    }
    deinit { bytes.deallocate() }
}

/// Frames a buffer holds: a typical render quantum.
let renderFrames = 512

/// Frames per conversion call, in rotation: the full quantum, and the short and odd counts of a
/// cycle split at an event, which take the kernels' remainder paths. (An allocation per sample
/// or per block would show as thousands; the mix keeps the debug-build test fast.)
let frameCycle = [512, 1, 37, 128, 8, 255]

struct FileCase: Sendable, CustomStringConvertible {
    let encoding: SampleEncoding
    let bigEndian: Bool
    let type: ProcessingSampleType
    let layout: KernelLayout
    let channels: Int
    let dither: Bool
    var description: String {
        "\(encoding)\(bigEndian ? " BE" : "") ↔ \(type) \(layout), \(channels) ch\(dither ? ", dithered" : "")"
    }

    static let all: [FileCase] = [
        FileCase(encoding: .signed16, bigEndian: false, type: .float32, layout: .channelPointers, channels: 2, dither: false),
        FileCase(encoding: .signed24, bigEndian: true, type: .float32, layout: .planar, channels: 6, dither: false),
        FileCase(encoding: .signed32, bigEndian: false, type: .int32, layout: .interleaved, channels: 2, dither: false),
        FileCase(encoding: .unsigned8, bigEndian: false, type: .float64, layout: .interleaved, channels: 1, dither: false),
        FileCase(encoding: .float32, bigEndian: false, type: .int16, layout: .planar, channels: 2, dither: true),
        FileCase(encoding: .float64, bigEndian: true, type: .int32, layout: .interleaved, channels: 2, dither: true),
        FileCase(encoding: .float32, bigEndian: true, type: .float32, layout: .channelPointers, channels: 6, dither: false),
        FileCase(encoding: .ulaw, bigEndian: false, type: .int16, layout: .channelPointers, channels: 2, dither: false),
        FileCase(encoding: .alaw, bigEndian: false, type: .float32, layout: .interleaved, channels: 2, dither: true),
        FileCase(encoding: .signed16, bigEndian: false, type: .float32, layout: .planar, channels: 2, dither: true),
    ]
}

struct ConvertCase: Sendable, CustomStringConvertible {
    let from: ProcessingSampleType, fromLayout: KernelLayout
    let to: ProcessingSampleType, toLayout: KernelLayout
    let channels: Int
    let dither: Bool
    var description: String {
        "\(from) \(fromLayout) → \(to) \(toLayout), \(channels) ch\(dither ? ", dithered" : "")"
    }

    static let all: [ConvertCase] = [
        ConvertCase(from: .float32, fromLayout: .channelPointers, to: .int16, toLayout: .interleaved, channels: 2, dither: false),
        ConvertCase(from: .int16, fromLayout: .interleaved, to: .float32, toLayout: .planar, channels: 2, dither: false),
        ConvertCase(from: .float32, fromLayout: .planar, to: .int32, toLayout: .channelPointers, channels: 6, dither: true),
        ConvertCase(from: .float64, fromLayout: .interleaved, to: .float32, toLayout: .channelPointers, channels: 2, dither: false),
        ConvertCase(from: .int32, fromLayout: .channelPointers, to: .float64, toLayout: .planar, channels: 2, dither: false),
        ConvertCase(from: .float32, fromLayout: .interleaved, to: .float32, toLayout: .channelPointers, channels: 6, dither: false),
        ConvertCase(from: .float32, fromLayout: .channelPointers, to: .int16, toLayout: .planar, channels: 2, dither: true),
    ]
}

struct MatrixCase: Sendable, CustomStringConvertible {
    let name: String
    let matrix: ChannelMatrix
    var description: String { name }

    static let all: [MatrixCase] = [
        MatrixCase(name: "5.1 → stereo downmix",
                   matrix: ChannelMatrix(gains: [[1, 0, 0.7071, 0, 0.7071, 0],
                                                 [0, 1, 0.7071, 0, 0, 0.7071]], inputChannels: 6)),
        MatrixCase(name: "6-channel remap with a silent output",
                   matrix: ChannelMatrix(map: [1, 0, 2, -1, 5, 4], inputChannels: 6)),
        MatrixCase(name: "stereo identity", matrix: ChannelMatrix(map: [0, 1], inputChannels: 2)),
        MatrixCase(name: "mono → stereo at -6 dB", matrix: ChannelMatrix(gains: [[0.5], [0.5]], inputChannels: 1)),
        MatrixCase(name: "stereo → mono sum", matrix: ChannelMatrix(gains: [[0.5, 0.5]], inputChannels: 2)),
    ]
}

@Suite struct KernelAllocationTests {
    @Test("SampleConversion.decode allocates nothing after warm-up", arguments: FileCase.all)
    func decode(_ c: FileCase) {
        let file = FileBytes(encoding: c.encoding, channels: c.channels, frames: renderFrames, seed: 1)
        let buffer = KernelBuffer(c.type, channels: c.channels, frames: renderFrames, layout: c.layout, seed: 2)
        var dither = TPDFDither(seed: 3)
        let source = UnsafeRawPointer(file.bytes.baseAddress!)
        var call = 0
        let counts = allocations(iterations: 1000) {
            let frames = frameCycle[call % frameCycle.count]
            call += 1
            if c.dither {
                SampleConversion.decode(frameCount: frames, from: source, encoding: c.encoding,
                                        bigEndian: c.bigEndian, to: buffer.pointer, dither: &dither)
            } else {
                SampleConversion.decode(frameCount: frames, from: source, encoding: c.encoding,
                                        bigEndian: c.bigEndian, to: buffer.pointer)
            }
        }
        #expect(counts == .none, "decode \(c)")
    }

    @Test("SampleConversion.encode allocates nothing after warm-up", arguments: FileCase.all)
    func encode(_ c: FileCase) {
        let file = FileBytes(encoding: c.encoding, channels: c.channels, frames: renderFrames, seed: 1)
        let buffer = KernelBuffer(c.type, channels: c.channels, frames: renderFrames, layout: c.layout, seed: 2)
        var dither = TPDFDither(seed: 3)
        let destination = file.bytes.baseAddress!
        var call = 0
        let counts = allocations(iterations: 1000) {
            let frames = frameCycle[call % frameCycle.count]
            call += 1
            if c.dither {
                SampleConversion.encode(frameCount: frames, from: buffer.pointer, to: destination,
                                        encoding: c.encoding, bigEndian: c.bigEndian, dither: &dither)
            } else {
                SampleConversion.encode(frameCount: frames, from: buffer.pointer, to: destination,
                                        encoding: c.encoding, bigEndian: c.bigEndian)
            }
        }
        #expect(counts == .none, "encode \(c)")
    }

    @Test("SampleConversion.convert allocates nothing after warm-up", arguments: ConvertCase.all)
    func convert(_ c: ConvertCase) {
        let source = KernelBuffer(c.from, channels: c.channels, frames: renderFrames, layout: c.fromLayout, seed: 4)
        let destination = KernelBuffer(c.to, channels: c.channels, frames: renderFrames, layout: c.toLayout, seed: 5)
        var dither = TPDFDither(seed: 6)
        var call = 0
        let counts = allocations(iterations: 1000) {
            let frames = frameCycle[call % frameCycle.count]
            call += 1
            if c.dither {
                SampleConversion.convert(frameCount: frames, from: source.pointer, to: destination.pointer,
                                         dither: &dither)
            } else {
                SampleConversion.convert(frameCount: frames, from: source.pointer, to: destination.pointer)
            }
        }
        #expect(counts == .none, "convert \(c)")
    }

    @Test("ChannelMatrix.apply allocates nothing after warm-up", arguments: MatrixCase.all)
    func channelMatrix(_ c: MatrixCase) {
        let matrix = c.matrix
        let input = KernelBuffer(.float32, channels: matrix.inputChannels, frames: renderFrames + 16,
                                 layout: .planar, seed: 7)
        let output = KernelBuffer(.float32, channels: matrix.outputChannels, frames: renderFrames + 16,
                                  layout: .channelPointers, seed: 8)
        // `apply` takes typed channel pointers: the arrays of them are made once, here.
        let inputs = UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>.allocate(capacity: matrix.inputChannels)
        let outputs = UnsafeMutableBufferPointer<UnsafeMutablePointer<Float>>.allocate(capacity: matrix.outputChannels)
        defer { inputs.deallocate(); outputs.deallocate() }
        for i in 0 ..< matrix.inputChannels { inputs[i] = input.channelPointers[i].assumingMemoryBound(to: Float.self) }
        for o in 0 ..< matrix.outputChannels { outputs[o] = output.channelPointers[o].assumingMemoryBound(to: Float.self) }
        let inputBase = UnsafePointer(inputs.baseAddress!)
        let outputBase = UnsafePointer(outputs.baseAddress!)
        var cycle = 0
        let counts = allocations(iterations: 1000) {
            // Alternate the offsets, as a render cycle that splits a buffer at an event would.
            let offset = cycle & 1 == 0 ? 0 : 16
            cycle += 1
            matrix.apply(frames: renderFrames, input: inputBase, inputOffset: offset,
                         output: outputBase, outputOffset: 16 - offset)
        }
        // `apply` loops over indices of its concrete arrays (generic iteration would allocate a
        // coroutine frame per element in -Onone builds), so this holds in debug and release.
        #expect(counts == .none, "\(c)")
    }
}

/// The sample-rate converter's process/flush allocate nothing once built, at every quality level
/// (counted at run time; `ResamplerRealTimeSafety.swift` also has the compiler check it in release).
@Suite struct ResamplerAllocationTests {
    @Test(arguments: [ResamplerQuality.min, .high, .max])
    func processAndFlushAllocateNothing(quality: ResamplerQuality) {
        let src = SampleRateConverter(inputRate: 44_100, outputRate: 48_000, channels: 2, quality: quality)
        let input = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 1024)
        input.initialize(repeating: 0.25, count: 2 * 1024)
        let output = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 2048)
        defer { input.deallocate(); output.deallocate() }
        let ins = UnsafeMutablePointer<UnsafePointer<Float>>.allocate(capacity: 2)
        let outs = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: 2)
        defer { ins.deallocate(); outs.deallocate() }
        ins[0] = UnsafePointer(input); ins[1] = UnsafePointer(input + 1024)
        outs[0] = output; outs[1] = output + 2048
        let counts = allocations(afterWarmUp: 4, iterations: 300) {
            _ = src.process(input: UnsafeBufferPointer(start: ins, count: 2), inputFrames: 1024,
                            output: UnsafeBufferPointer(start: outs, count: 2), outputCapacity: 2048)
        }
        #expect(counts == .none, "\(quality): \(counts)")
        let flushCounts = countAllocations {
            while src.flush(output: UnsafeBufferPointer(start: outs, count: 2), outputCapacity: 2048) > 0 {}
        }
        #expect(flushCounts == .none, "\(quality) flush: \(flushCounts)")
    }
}

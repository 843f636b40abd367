// Test fixtures: processing buffers in every layout with guard bytes around them, file byte
// buffers, and deterministic test signals that include the values where conversions go wrong.

import AudioKernels

/// The three ways a processing buffer can be described.
enum Layout: CaseIterable, CustomStringConvertible, Sendable {
    case interleaved, channelPointers, planar

    var description: String {
        switch self {
        case .interleaved: return "interleaved"
        case .channelPointers: return "channel pointers"
        case .planar: return "planar"
        }
    }
}

/// Byte every untouched location must still hold after a conversion.
let guardByte: UInt8 = 0xA5
/// Guard bytes before and after every block of memory.
let guardBytes = 32

/// A processing buffer owned by a test: `capacity` frames of `channels` channels of `type`,
/// laid out as `layout`, every byte (samples, gaps between planar channels, guards) initially
/// `guardByte`.
final class TestBuffer {
    let type: ProcessingSampleType
    let channels: Int
    let capacity: Int
    let layout: Layout
    /// Samples between planar channels: more than `capacity`, so there is a gap to check.
    let channelStride: Int
    private let memory: UnsafeMutableRawBufferPointer
    private let channelBase: UnsafeMutableBufferPointer<UnsafeMutableRawPointer>
    private let channelBlocks: [UnsafeMutableRawBufferPointer]

    init(_ type: ProcessingSampleType, channels: Int, capacity: Int, layout: Layout) {
        self.type = type
        self.channels = channels
        self.capacity = capacity
        self.layout = layout
        channelStride = capacity + 3
        let size = type.bytesPerSample
        let bodyBytes: Int
        switch layout {
        case .interleaved: bodyBytes = capacity * channels * size
        case .planar: bodyBytes = channelStride * channels * size
        case .channelPointers: bodyBytes = 0
        }
        memory = .allocate(byteCount: bodyBytes + 2 * guardBytes, alignment: 16)
        memory.initializeMemory(as: UInt8.self, repeating: guardByte)
        channelBase = .allocate(capacity: channels)
        var blocks: [UnsafeMutableRawBufferPointer] = []
        for c in 0 ..< channels {
            if layout == .channelPointers {
                // Separate allocations, each with its own guards; odd offsets so nothing is aligned.
                let block = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity * size + 2 * guardBytes + 1,
                                                                   alignment: 16)
                block.initializeMemory(as: UInt8.self, repeating: guardByte)
                blocks.append(block)
                channelBase[c] = block.baseAddress! + guardBytes + 1
            } else {
                channelBase[c] = memory.baseAddress! + guardBytes
            }
        }
        channelBlocks = blocks
    }

    deinit {
        memory.deallocate()
        channelBlocks.forEach { $0.deallocate() }
        channelBase.deallocate()
    }

    var pointer: ProcessingBufferPointer {
        let base = memory.baseAddress! + guardBytes
        switch layout {
        case .interleaved: return .interleaved(base, channelCount: channels, sampleType: type)
        case .planar: return .deinterleaved(base: base, channelCount: channels, channelStride: channelStride,
                                            sampleType: type)
        case .channelPointers: return .deinterleaved(UnsafeBufferPointer(channelBase), sampleType: type)
        }
    }

    func address(frame: Int, channel: Int) -> UnsafeMutableRawPointer {
        let size = type.bytesPerSample
        let base = memory.baseAddress! + guardBytes
        switch layout {
        case .interleaved: return base + (frame * channels + channel) * size
        case .planar: return base + (channel * channelStride + frame) * size
        case .channelPointers: return channelBase[channel] + frame * size
        }
    }

    subscript(frame: Int, channel: Int) -> Processed {
        get {
            let p = address(frame: frame, channel: channel)
            switch type {
            case .float32: return .f32(p.loadUnaligned(as: Float.self))
            case .float64: return .f64(p.loadUnaligned(as: Double.self))
            case .int16: return .i16(p.loadUnaligned(as: Int16.self))
            case .int32: return .i32(p.loadUnaligned(as: Int32.self))
            }
        }
        set {
            let p = address(frame: frame, channel: channel)
            switch newValue {
            case .f32(let x): p.storeBytes(of: x, as: Float.self)
            case .f64(let x): p.storeBytes(of: x, as: Double.self)
            case .i16(let x): p.storeBytes(of: x, as: Int16.self)
            case .i32(let x): p.storeBytes(of: x, as: Int32.self)
            }
        }
    }

    /// Whether every byte outside frames `written` still holds `guardByte`. Destructive: it
    /// first overwrites the written samples with the guard byte, then checks that all the memory
    /// (samples, planar gaps and guards) is guard bytes again, so read the samples first.
    func untouched(outside written: Range<Int>) -> Bool {
        for f in written {
            for c in 0 ..< channels {
                address(frame: f, channel: c).initializeMemory(as: UInt8.self, repeating: guardByte,
                                                               count: type.bytesPerSample)
            }
        }
        let regions = layout == .channelPointers ? channelBlocks : [memory]
        return regions.allSatisfy { region in region.allSatisfy { $0 == guardByte } }
    }
}

/// File bytes with guard bytes on both sides. The first byte sits at an odd address, so every
/// multi-byte sample is unaligned, as it may be in a file read into memory.
final class TestBytes {
    let count: Int
    private let memory: UnsafeMutableRawBufferPointer
    private let start = guardBytes + 1

    init(count: Int) {
        self.count = count
        memory = .allocate(byteCount: count + 2 * guardBytes + 1, alignment: 16)
        memory.initializeMemory(as: UInt8.self, repeating: guardByte)
    }

    convenience init(_ bytes: [UInt8]) {
        self.init(count: bytes.count)
        for (i, b) in bytes.enumerated() { memory[start + i] = b }
    }

    deinit { memory.deallocate() }

    var pointer: UnsafeMutableRawPointer { memory.baseAddress! + start }
    var bytes: [UInt8] { Array(memory[start ..< start + count]) }
    var guardsIntact: Bool {
        memory[..<start].allSatisfy { $0 == guardByte } && memory[(start + count)...].allSatisfy { $0 == guardByte }
    }
}

/// A small deterministic generator (SplitMix64) for test signals.
struct TestRandom {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }   // [0, 1)
}

enum Signals {
    /// Float values that stress the rules: full scale, beyond it, NaN, infinities, signed zeros,
    /// subnormals, ties halfway between int16 and int24 steps, and the largest values below
    /// full scale. They appear first in every float signal, so even short signals include most.
    static let specialFloats: [Double] = [
        1.0, -1.0, 1.5, -1.5, .nan, 0, -0.0, .infinity, -.infinity,
        0.5 / 32768, 1.5 / 32768, 2.5 / 32768, -0.5 / 32768, -1.5 / 32768, -2.5 / 32768,
        32767.5 / 32768, -32768.5 / 32768, 32766.5 / 32768, 0.5 / 8388608, 1.5 / 8388608, 8388606.5 / 8388608,
        0.5 / 128, 1.5 / 128, 127.5 / 128, 0.5 / 2147483648, 1.5 / 2147483648,
        Double(Float.leastNonzeroMagnitude), -Double(Float.leastNormalMagnitude), Double(Float.greatestFiniteMagnitude),
        1e300, -1e-300, 0.999999, -0.999999, 0.25, -0.75,
    ]

    /// `count` samples of `format`, as bytes: special values first, then noise (random bytes for
    /// integers and G.711 – every pattern is a valid sample – and mostly in-range values for
    /// floats, with a few random bit patterns).
    static func bytes(for format: FileFormat, count: Int, seed: UInt64) -> [UInt8] {
        var random = TestRandom(seed: seed)
        var out: [UInt8] = []
        out.reserveCapacity(count * format.bytes)
        for i in 0 ..< count {
            switch format.encoding {
            case .float32, .float64:
                let value: Double
                if i < specialFloats.count { value = specialFloats[i] }
                else if i % 11 == 0 { value = format.encoding == .float32
                    ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: random.next())))
                    : Double(bitPattern: random.next()) }
                else { value = random.unit() * 3 - 1.5 }
                out += Reference.stored(.float(value), as: format)
            default:
                let extremes: [UInt64] = [0, ~0, 1 << (UInt64(format.bytes) * 8 - 1), (1 << (UInt64(format.bytes) * 8 - 1)) - 1, 1]
                let raw = i < extremes.count ? extremes[i] : random.next()
                out += Reference.bytes(of: raw, count: format.bytes, bigEndian: false)
            }
        }
        return out
    }

    /// `count` processing samples of type `t`: special values first, then noise.
    static func processed(_ t: ProcessingSampleType, count: Int, seed: UInt64) -> [Processed] {
        var random = TestRandom(seed: seed)
        return (0 ..< count).map { i in
            switch t {
            case .float32:
                if i < specialFloats.count { return .f32(Float(specialFloats[i])) }
                return .f32(Float(random.unit() * 2.2 - 1.1))
            case .float64:
                if i < specialFloats.count { return .f64(specialFloats[i]) }
                return .f64(random.unit() * 2.2 - 1.1)
            case .int16:
                let extremes: [Int16] = [.min, .max, 0, -1, 1, 0x7F80, -0x7F80, 0x0080, 0x0180, -0x0080]
                return .i16(i < extremes.count ? extremes[i] : Int16(truncatingIfNeeded: random.next()))
            case .int32:
                let extremes: [Int32] = [.min, .max, 0, -1, 1, 0x7FFF_8000, 0x0000_8000, 0x0001_8000, -0x8000,
                                         0x7FFF_FF80, 0x0000_0080, 0x0000_0180, 0x0080_0000, -0x0080_0000]
                return .i32(i < extremes.count ? extremes[i] : Int32(truncatingIfNeeded: random.next()))
            }
        }
    }
}

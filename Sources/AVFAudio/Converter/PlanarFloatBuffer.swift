// A deinterleaved Float32 scratch buffer with a stable array of channel pointers: the converter's
// intermediate format between its input conversion, channel mixing, rate conversion and output
// conversion stages. Allocated once (control side); never reallocated while converting.

final class PlanarFloatBuffer {
    let channels: Int
    let capacity: Int
    private let memory: UnsafeMutablePointer<Float>
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    init(channels: Int, capacity: Int) {
        self.channels = channels
        self.capacity = capacity
        memory = .allocate(capacity: max(1, channels * capacity))
        memory.initialize(repeating: 0, count: max(1, channels * capacity))
        pointers = .allocate(capacity: max(1, channels))
        for c in 0..<channels { pointers[c] = memory + c * capacity }
    }

    deinit {
        memory.deallocate()
        pointers.deallocate()
    }

    /// The kernels' view, as raw channel pointers.
    var processing: ProcessingBufferPointer {
        let raw = UnsafeMutableRawPointer(pointers).assumingMemoryBound(to: UnsafeMutableRawPointer.self)
        return .deinterleaved(UnsafeBufferPointer(start: raw, count: channels), sampleType: .float32)
    }

    var readPointers: UnsafePointer<UnsafeMutablePointer<Float>> { UnsafePointer(pointers) }

    /// Moves `count` frames starting at `start` to the front of every channel.
    func compact(start: Int, count: Int) {
        guard start > 0, count > 0 else { return }
        for c in 0..<channels { (pointers[c]).update(from: pointers[c] + start, count: count) }
    }
}

import AudioKernels

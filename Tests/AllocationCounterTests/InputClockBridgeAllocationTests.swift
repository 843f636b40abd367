// The input clock bridge runs on the device thread (PulseAudio's mainloop thread, in duplex):
// writing captured frames and reading them, copying and resampling, and an overrun (the ring
// overflowing while the reader stalls, then priming again) allocate nothing.
import Testing
import AudioDevices

@Suite struct InputClockBridgeAllocationTests {
    @Test func copyingAndResamplingAllocateNothing() {
        let channels = 2, period = 256
        let bridge = InputClockBridge(channels: channels, sampleRate: 8_000, capacity: 4_096, primingFrames: 3 * period,
                                      maximumReadFrames: period)
        let captured = [Float](repeating: 0.1, count: channels * 1_000)
        let outputs = (0..<channels).map { _ in UnsafeMutablePointer<Float>.allocate(capacity: period) }
        defer { outputs.forEach { $0.deallocate() } }
        // Capture runs 2 % fast in chunks of 261 frames against reads of 256: the bridge soon
        // leaves its dead band and resamples.
        func cycle() {
            captured.withUnsafeBufferPointer { bridge.write(interleaved: $0.baseAddress!, frames: 261) }
            outputs.withUnsafeBufferPointer { _ = bridge.read(into: $0.baseAddress!, frames: period) }
        }
        let copying = allocations(afterWarmUp: 8, iterations: 20) { cycle() }
        #expect(!bridge.isCompensating)
        var guardCycles = 0
        while !bridge.isCompensating && guardCycles < 10_000 { cycle(); guardCycles += 1 }
        #expect(bridge.isCompensating)
        let resampling = allocations(afterWarmUp: 4, iterations: 200) { cycle() }
        #expect(copying == .none, "copying: \(copying)")
        #expect(resampling == .none, "resampling: \(resampling)")
        // A stalled reader: four writes of 1,000 frames overflow the ring; the next read primes
        // again (trimmed) and resamples on.
        let overrunning = allocations(afterWarmUp: 2, iterations: 20) {
            for _ in 0..<4 { captured.withUnsafeBufferPointer { bridge.write(interleaved: $0.baseAddress!, frames: 1_000) } }
            for _ in 0..<3 { outputs.withUnsafeBufferPointer { _ = bridge.read(into: $0.baseAddress!, frames: period) } }
        }
        #expect(bridge.overruns >= 20)
        #expect(overrunning == .none, "overrunning: \(overrunning)")
    }
}

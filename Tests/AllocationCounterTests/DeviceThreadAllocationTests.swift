// The ALSA device thread renders allocation-free: heap calls counted on the device thread itself
// over 200 periods — the engine's render cycle (a source node into the output node), the
// backend's interleaving, and alsa-lib's snd_pcm_writei/snd_pcm_delay into a `file` PCM over the
// `null` PCM (a private ALSA configuration; no sound card). Counting starts inside one callback
// of the source node's block and ends inside a later one, on the same thread. The same for a
// two-PCM duplex: the capture PCM read without blocking into the InputClockBridge.
import Testing
import Foundation
import AVFAudio
import AllocationCounter
import AudioAnalysis
#if canImport(Glibc)
import Glibc
#endif

@Suite struct DeviceThreadAllocationTests {
    static var alsaInstalled: Bool {
        guard let handle = dlopen("libasound.so.2", RTLD_NOW | RTLD_LOCAL) else { return false }
        dlclose(handle)
        return true
    }

    /// The configuration every suite of the test process installs (alsa-lib has one global tree).
    static func installConfiguration() {
        _ = ALSATestConfiguration.install()
    }

    /// Runs `selector` at 256-frame periods with a silent source node (and the input node, when
    /// `withInput`) into the output, and counts the device thread's heap calls over periods
    /// 100…300 (the source node's render block runs on that thread). Returns the counts and the
    /// device's name.
    static func countDeviceThreadAllocations(_ selector: String, withInput: Bool) throws -> (oav_alloc_counts, String) {
        final class Probe: @unchecked Sendable {
            var calls = 0
            var counts = oav_alloc_counts()
            let done = DispatchSemaphore(value: 0)
        }
        let probe = Probe()
        let engine = AVAudioEngine()
        try engine._setAudioDevice(selector, periodFrames: 256)
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let source = AVAudioSourceNode(format: format) { _, _, frameCount, list in
            let buffers = UnsafeMutableAudioBufferListPointer(list)
            for b in 0..<buffers.count { memset(buffers[b].mData!, 0, Int(frameCount) * 4) }
            probe.calls += 1
            if probe.calls == 100 { oav_alloc_counting_begin() }
            if probe.calls == 300 {
                oav_alloc_counting_end(&probe.counts)
                probe.done.signal()
            }
            return noErr
        }
        engine.attach(source)
        if withInput {
            engine.connect(engine.inputNode, to: engine.mainMixerNode, format: nil)
            engine.connect(source, to: engine.mainMixerNode, format: format)
        } else {
            engine.connect(source, to: engine.outputNode, format: format)
        }
        try engine.start()
        let finished = probe.done.wait(timeout: .now() + 20) == .success
        let name = engine._audioDeviceName ?? ""
        engine.stop()
        try #require(finished, "the device thread did not run 300 periods")
        try #require(oav_alloc_counter_is_interposed() == 1, "the allocation counter is not interposed in this binary")
        return (probe.counts, name)
    }

    @Test(.enabled(if: alsaInstalled, "libasound.so.2 (Debian libasound2) is not installed"))
    func alsaDeviceThreadAllocatesNothing() throws {
        Self.installConfiguration()
        let (counts, _) = try Self.countDeviceThreadAllocations("alsa:avaudio_file_alloc", withInput: false)
        #expect(counts.allocations == 0, "the device thread allocated \(counts.allocations) times (\(counts.bytes) bytes) in 200 periods")
        #expect(counts.frees == 0, "the device thread freed \(counts.frees) times")
    }

    /// Two PCMs (`alsa:PLAYBACK|CAPTURE`): the non-blocking capture reads, the InputClockBridge
    /// (copying or resampling) and the input node's render on the device thread allocate nothing.
    /// A source node mixed with the input counts the cycles, on the same thread.
    @Test(.enabled(if: alsaInstalled, "libasound.so.2 (Debian libasound2) is not installed"))
    func alsaBridgedDuplexAllocatesNothing() throws {
        Self.installConfiguration()
        let (counts, name) = try Self.countDeviceThreadAllocations("alsa:avaudio_file_duplexalloc|avaudio_sine_in_48000", withInput: true)
        #expect(name.contains("| avaudio_sine_in_48000"), "not the two-PCM device: \(name)")
        #expect(counts.allocations == 0, "the device thread allocated \(counts.allocations) times (\(counts.bytes) bytes) in 200 periods")
        #expect(counts.frees == 0, "the device thread freed \(counts.frees) times")
    }
}

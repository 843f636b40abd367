// Recording from a second ALSA PCM, on its own clock, into a playback-paced device thread.
//
// Why. `alsa:PLAYBACK|CAPTURE` names two PCMs that are, in general, two pieces of hardware (the
// built-in card out, a USB microphone in): two crystals, possibly two nominal rates. They cannot
// be linked with snd_pcm_link (that needs one clock), and a thread that blocked on both would be
// paced by whichever is slower and overrun the other. So the playback PCM alone paces the device
// thread (its blocking snd_pcm_writei), and this capture side never blocks: the capture PCM is
// opened with SND_PCM_NONBLOCK, and each cycle, before the engine renders, `pull()` takes every
// frame it has waiting into an InputClockBridge, from which `read(into:frames:)` hands the
// render exactly one playback period. The bridge resamples from the capture rate to the playback
// rate and steers its ratio on its own fill, so that the input neither grows nor starves over
// hours (InputClockBridge.swift; the same bridge PulseAudio's duplex uses; its controller is
// simulated on two nominal rates as on one: see its header).
//
// How much to take. Everything available, but never more than the bridge has room for: a real
// capture PCM has only what its clock produced since the last cycle (about one playback
// period's worth), so the limit never binds; alsa-lib's `null` PCM (the tests' stand-in for
// hardware) has a full buffer at every call, and the limit then keeps the bridge at a constant,
// full level, which the controller reads as two clocks in step.
//
// Xruns. An overrun (-EPIPE: the device thread did not come back before the capture buffer
// filled) or a suspend (-ESTRPIPE) is recovered with snd_pcm_recover, the capture restarted, and
// counted in the device's `xrunCount`; so is a read that finds the bridge short (the rest of
// that period's input is silence). Anything else (-ENODEV: unplugged) ends the device thread.
//
// Arrival times. Each write into the bridge is stamped with the time its snd_pcm_readi returned,
// each read with the time it happens, so that the bridge measures its fill between writes as a
// continuous quantity (InputClockBridge.swift, "Arrival times"). Here that is coarse: `pull` runs
// just before each read, once a playback period, so a capture period that the hardware finished
// at any moment of the previous playback period is stamped at the pull, up to a period late (in
// effect the fill is sampled as before). snd_pcm_htimestamp (the time of the hardware pointer's
// last update, on CLOCK_MONOTONIC once the software parameters ask for that) would give the
// true arrival; it is not bound yet.
//
// Real time: the byte and sample buffers are allocated here, before the thread starts; `pull`
// and `read` call only snd_pcm_readi/snd_pcm_recover/snd_pcm_start and the bridge.
#if canImport(Glibc)
import Glibc
#endif

final class ALSABridgedCapture: @unchecked Sendable {
    let bridge: InputClockBridge
    private let alsa: ALSA.Library
    private let pcm: OpaquePointer
    private let format: DeviceSampleFormat
    private let channels: Int
    private let status: DeviceStatus
    /// Frames one snd_pcm_readi takes at most (the capture buffer's size).
    private let chunkFrames: Int
    private let bytes: UnsafeMutableRawPointer
    /// The same frames as Float32, still interleaved, for `InputClockBridge.write`.
    private let samples: UnsafeMutablePointer<Float>
    /// One pointer to `samples`: the interleaved frames converted as one long channel.
    private let samplesPointer: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    /// - Parameters:
    ///   - captureRate, capturePeriod, captureBuffer: what the capture PCM was configured with.
    ///   - playbackRate, playbackPeriod: the rate and frames of each read (the render cycle).
    init(alsa: ALSA.Library, pcm: OpaquePointer, format: DeviceSampleFormat, channels: Int, captureRate: Double,
         capturePeriod: Int, captureBuffer: Int, playbackRate: Double, playbackPeriod: Int, status: DeviceStatus) {
        self.alsa = alsa
        self.pcm = pcm
        self.format = format
        self.channels = channels
        self.status = status
        chunkFrames = max(1, captureBuffer)
        // One playback period in capture frames; capture arrives a capture period at a time, so
        // reads start once two of those and one playback period are in (the bridge then never
        // waits on a capture period that is still being recorded).
        let periodInCapture = Int((Double(playbackPeriod) * captureRate / playbackRate).rounded(.up))
        let priming = 2 * capturePeriod + periodInCapture
        bridge = InputClockBridge(channels: channels, sampleRate: playbackRate,
                                  capacity: priming + captureBuffer + 4 * periodInCapture,
                                  primingFrames: priming, maximumReadFrames: playbackPeriod, compensates: true,
                                  inputSampleRate: captureRate)
        bytes = .allocate(byteCount: chunkFrames * channels * format.bytesPerSample, alignment: 16)
        samples = .allocate(capacity: chunkFrames * channels)
        samples.initialize(repeating: 0, count: chunkFrames * channels)
        samplesPointer = .allocate(capacity: 1)
        samplesPointer.initialize(to: samples)
    }

    deinit {
        bytes.deallocate()
        samples.deallocate()
        samplesPointer.deallocate()
    }

    /// Seconds of input latency the bridge holds once primed.
    var latency: Double { Double(bridge.primingFrames) / bridge.inputSampleRate }

    /// Starts capturing (the PCM is prepared).
    func begin() {
        _ = alsa.start(pcm)
    }

    /// Moves every frame the capture PCM has waiting (up to the bridge's room) into the bridge.
    /// Never blocks. False when the capture PCM failed beyond recovery.
    func pull() -> Bool {
        var room = bridge.writableFrames
        while room > 0 {
            let got = alsa.readi(pcm, bytes, UInt(min(room, chunkFrames)))
            if got > 0 {
                // (stamped when the read returned: see "Arrival times" above)
                let arrival = monotonicNanoseconds()
                format.deinterleave(bytes, channels: 1, frames: got * channels, into: samplesPointer)
                bridge.write(interleaved: samples, frames: got, hostTime: arrival)
                room -= got
                continue
            }
            if got == 0 || got == -Int(EAGAIN) { return true }
            if got == -Int(EINTR) { continue }
            guard got == -Int(EPIPE) || got == -Int(ESTRPIPE) else { return false }
            status.xruns.add(1, ordering: .relaxed)
            guard alsa.recover(pcm, Int32(got), 1) >= 0 else { return false }
            _ = alsa.start(pcm)
            return true
        }
        return true
    }

    /// One period of input, on the playback clock, into planar `output`. A short bridge (the
    /// capture fell behind) is silence for the rest and counts as an xrun.
    func read(into output: UnsafePointer<UnsafeMutablePointer<Float>>, frames: Int) {
        if !bridge.read(into: output, frames: frames, hostTime: monotonicNanoseconds()) { status.xruns.add(1, ordering: .relaxed) }
    }

    func end() {
        _ = alsa.drop(pcm)
    }
}

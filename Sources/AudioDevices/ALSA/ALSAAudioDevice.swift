// The ALSA backend: any ALSA PCM by name (`default`, `hw:0`, `plughw:1,0`, a plugin defined in
// asound.conf such as `file` or `null`), opened with blocking read/write access, interleaved.
//
// Threading. One device thread per running device drives everything: it blocks in
// snd_pcm_readi (capture) and snd_pcm_writei (playback), so the device's clock paces it; there is
// no sleeping. Playback only: the thread renders a period, writes it (the first writes fill the
// buffer; playback starts when it is full: start threshold = buffer size), and blocks when the
// buffer is full. Duplex (one PCM name, capture and playback linked with snd_pcm_link so they
// start together on one clock): the playback buffer is primed with silence, then each period is
// read, rendered with that input, and written. Capture only: read, render (output discarded).
// Duplex on two PCMs (`alsa:PLAYBACK|CAPTURE`, two clocks, perhaps two rates): the playback PCM
// alone paces the thread; the capture PCM is opened non-blocking and drained each cycle into a
// drift-compensating InputClockBridge that hands the render one playback period of input,
// resampled to the playback clock (ALSABridgedCapture.swift).
//
// Xruns (an underrun on playback, an overrun on capture: -EPIPE; a suspend: -ESTRPIPE) are
// recovered with snd_pcm_recover and counted in `xrunCount`. A failure that cannot be recovered
// (the device unplugged: -ENODEV) ends the thread and calls `configurationChangeHandler`.
//
// Real time: the interleaved and planar buffers are allocated when the device starts; the loop
// calls only alsa-lib's read/write/delay/recover and the render callback.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

public final class ALSAAudioDevice: AudioDevice {
    public let pcmName: String
    /// The PCM input comes from: `pcmName`, or another one (`alsa:PLAYBACK|CAPTURE`).
    public let capturePCMName: String
    /// The capture PCM's own rate when it is a separate PCM (`sampleRate` otherwise): its input
    /// reaches the render resampled to `sampleRate`.
    public private(set) var captureSampleRate: Double = 0
    public let request: AudioDeviceRequest
    public private(set) var sampleRate: Double = 0
    public private(set) var outputChannelCount = 0
    public private(set) var inputChannelCount = 0
    public private(set) var periodFrames = 0
    /// Frames in the playback (or capture) ring buffer.
    public private(set) var bufferFrames = 0
    public var maximumFramesPerCallback: Int { periodFrames }
    public var configurationChangeHandler: (() -> Void)?
    public var outputLatency: Double {
        let measured = status.delayFrames.load(ordering: .relaxed)
        return Double(measured > 0 ? measured : bufferFrames) / sampleRate
    }
    public var inputLatency: Double {
        guard inputChannelCount > 0 else { return 0 }
        return separateCapture ? Double(capturePeriodFrames) / captureSampleRate + bridgeLatency : Double(periodFrames) / sampleRate
    }
    public var xrunCount: Int { status.xruns.load(ordering: .relaxed) }
    public var isRealTime: Bool { status.realTime.load(ordering: .relaxed) }
    public var hasFailed: Bool { status.failed.load(ordering: .relaxed) }
    public var name: String { "ALSA \(pcmName)\(separateCapture ? " | \(capturePCMName) (capture \(Int(captureSampleRate)) Hz)" : "") (\(Int(sampleRate)) Hz, out \(outputChannelCount) ch, in \(inputChannelCount) ch, \(periodFrames)-frame periods × \(bufferFrames / max(1, periodFrames)))" }
    public var info: AudioDeviceInfo {
        AudioDeviceInfo(backend: "alsa", id: pcmName, name: pcmName, outputChannels: outputChannelCount, inputChannels: inputChannelCount,
                        sampleRates: [sampleRate], nominalSampleRate: sampleRate, isDefaultOutput: pcmName == "default",
                        isDefaultInput: pcmName == "default")
    }
    /// The sample format negotiated with the PCM (Float32 when it takes it, else S32, else S16).
    var playbackFormat: DeviceSampleFormat = .float32
    var captureFormat: DeviceSampleFormat = .float32

    private let alsa: ALSA.Library
    private var playback: OpaquePointer?
    private var capture: OpaquePointer?
    private var linked = false
    /// Input from a PCM other than the playback one, bridged across clocks.
    private let separateCapture: Bool
    private var capturePeriodFrames = 0
    private var captureBufferFrames = 0
    /// The bridge's priming level in seconds (set when the device starts).
    private var bridgeLatency = 0.0
    private let status = DeviceStatus()

    private final class Session: @unchecked Sendable {
        let running = Atomic<Bool>(true)
        var thread: DeviceThread?
        /// Asks RealtimeKit for the thread when its own SCHED_FIFO request is refused.
        var realTimeRequester: RealtimeKitRequester?
    }
    private var session: Session?

    /// Opens and configures the PCM `pcmName` for `request.direction`; input from
    /// `capturePCMName` when given and different (duplex: a second clock, bridged; input only:
    /// simply that PCM). Throws when alsa-lib is missing, a PCM does not exist, or it refuses
    /// every sample format the backend speaks.
    public init(pcmName: String, capturePCMName: String? = nil, request: AudioDeviceRequest) throws {
        alsa = try ALSA.library()
        self.pcmName = pcmName
        self.capturePCMName = capturePCMName ?? pcmName
        self.request = request
        separateCapture = request.direction.hasOutput && request.direction.hasInput && self.capturePCMName != pcmName
        do {
            if request.direction.hasOutput {
                let (pcm, format) = try open(pcmName, stream: ALSA.streamPlayback, channels: request.outputChannels)
                playback = pcm
                playbackFormat = format
                outputChannelCount = request.outputChannels
            }
            if request.direction.hasInput {
                let (pcm, format) = try open(self.capturePCMName, stream: ALSA.streamCapture, channels: request.inputChannels,
                                             separate: separateCapture)
                capture = pcm
                captureFormat = format
                inputChannelCount = request.inputChannels
            }
            if let playback, let capture, !separateCapture { linked = alsa.link(capture, playback) == 0 }
            if !separateCapture { captureSampleRate = sampleRate }
        } catch {
            closePCMs()
            throw error
        }
    }

    deinit {
        stop()
        closePCMs()
    }

    private func closePCMs() {
        if linked, let capture { _ = alsa.unlink(capture) }
        if let playback { _ = alsa.close(playback) }
        if let capture { _ = alsa.close(capture) }
        playback = nil
        capture = nil
    }

    private func check(_ status: Int32, _ what: String, pcm name: String? = nil) throws {
        guard status >= 0 else {
            throw AudioDeviceError(.failed, "ALSA \(name ?? pcmName): \(what) failed: \(alsa.message(status))", code: status)
        }
    }

    /// Opens one direction of the PCM `name` and installs hardware and software parameters.
    /// `separate`: the capture PCM of a two-PCM duplex, opened non-blocking, at its own rate,
    /// period and buffer (see the note at the top).
    private func open(_ name: String, stream: Int32, channels: Int, separate: Bool = false) throws -> (OpaquePointer, DeviceSampleFormat) {
        let direction = stream == ALSA.streamPlayback ? "playback" : "capture"
        var handle: OpaquePointer?
        let nonBlocking: Int32 = 1   // SND_PCM_NONBLOCK
        let status = name.withCString { alsa.open(&handle, $0, stream, separate ? nonBlocking : 0) }
        guard status >= 0, let pcm = handle else {
            throw AudioDeviceError(status == -ENOENT || status == -ENODEV ? .notFound : .failed,
                                   "ALSA PCM “\(name)” could not be opened for \(direction): \(alsa.message(status))", code: status)
        }
        do {
            let format = try configure(pcm, name: name, channels: channels, direction: direction,
                                       isPlayback: stream == ALSA.streamPlayback, separate: separate)
            return (pcm, format)
        } catch {
            _ = alsa.close(pcm)
            throw error
        }
    }

    private func configure(_ pcm: OpaquePointer, name: String, channels: Int, direction: String, isPlayback: Bool,
                           separate: Bool) throws -> DeviceSampleFormat {
        var hwOptional: OpaquePointer?
        try check(alsa.hwParamsMalloc(&hwOptional), "snd_pcm_hw_params_malloc", pcm: name)
        guard let hw = hwOptional else { throw AudioDeviceError(.failed, "ALSA: out of memory") }
        defer { alsa.hwParamsFree(hw) }
        try check(alsa.hwParamsAny(pcm, hw), "reading the \(direction) configuration space", pcm: name)
        try check(alsa.hwParamsSetAccess(pcm, hw, ALSA.accessRWInterleaved), "setting interleaved read/write access for \(direction)", pcm: name)
        let candidates: [(Int32, DeviceSampleFormat)] = [(ALSA.formatFloatLE, .float32), (ALSA.formatS32LE, .int32), (ALSA.formatS16LE, .int16)]
        guard let chosen = candidates.first(where: { alsa.hwParamsTestFormat(pcm, hw, $0.0) == 0 }) else {
            throw AudioDeviceError(.failed, "ALSA \(name): \(direction) takes none of FLOAT_LE, S32_LE, S16_LE (try plughw: or default)")
        }
        try check(alsa.hwParamsSetFormat(pcm, hw, chosen.0), "setting the \(direction) sample format", pcm: name)
        try check(alsa.hwParamsSetChannels(pcm, hw, UInt32(channels)), "setting \(channels) \(direction) channels", pcm: name)
        _ = alsa.hwParamsSetRateResample(pcm, hw, 1)
        // A separate capture PCM asks for the request's input rate, else the playback rate, and
        // takes the nearest it offers (a USB microphone may only do 44.1 kHz): the bridge converts.
        let wantedRate = separate ? (request.inputSampleRate ?? sampleRate) : (sampleRate > 0 ? sampleRate : (request.sampleRate ?? 48_000))
        var rate = UInt32(wantedRate)
        try check(alsa.hwParamsSetRateNear(pcm, hw, &rate, nil), "setting the \(direction) sample rate", pcm: name)
        if !separate, sampleRate > 0, Double(rate) != sampleRate {
            throw AudioDeviceError(.failed, "ALSA \(pcmName): capture runs at \(rate) Hz, playback at \(Int(sampleRate)) Hz; duplex needs one rate")
        }
        var period = UInt(periodFrames > 0 && !separate ? periodFrames : request.periodFrames)
        try check(alsa.hwParamsSetPeriodSizeNear(pcm, hw, &period, nil), "setting the \(direction) period size", pcm: name)
        // (a separate capture keeps at least 4 periods: it is drained once per playback period,
        // which need not line up with its own)
        var buffer = period * UInt(max(separate ? 4 : 2, request.periods))
        try check(alsa.hwParamsSetBufferSizeNear(pcm, hw, &buffer), "setting the \(direction) buffer size", pcm: name)
        try check(alsa.hwParams(pcm, hw), "installing the \(direction) hardware parameters", pcm: name)
        try check(alsa.hwParamsGetPeriodSize(hw, &period, nil), "reading the \(direction) period size", pcm: name)
        try check(alsa.hwParamsGetBufferSize(hw, &buffer), "reading the \(direction) buffer size", pcm: name)
        if separate {
            captureSampleRate = Double(rate)
            capturePeriodFrames = Int(period)
            captureBufferFrames = Int(buffer)
        } else if periodFrames > 0, Int(period) != periodFrames {
            throw AudioDeviceError(.failed, "ALSA \(pcmName): capture period \(period) ≠ playback period \(periodFrames); duplex needs one period")
        }
        if !separate {
            sampleRate = Double(rate)
            periodFrames = Int(period)
            bufferFrames = max(bufferFrames, Int(buffer))
        }

        var swOptional: OpaquePointer?
        try check(alsa.swParamsMalloc(&swOptional), "snd_pcm_sw_params_malloc", pcm: name)
        guard let sw = swOptional else { throw AudioDeviceError(.failed, "ALSA: out of memory") }
        defer { alsa.swParamsFree(sw) }
        try check(alsa.swParamsCurrent(pcm, sw), "reading the \(direction) software parameters", pcm: name)
        // Playback starts when the buffer is full; capture at the first read. A separate capture
        // is read non-blocking whatever it holds: avail_min 1, so a read returns any frame waiting.
        try check(alsa.swParamsSetStartThreshold(pcm, sw, isPlayback ? buffer : 1), "setting the \(direction) start threshold", pcm: name)
        try check(alsa.swParamsSetAvailMin(pcm, sw, separate ? 1 : period), "setting the \(direction) wake-up size", pcm: name)
        try check(alsa.swParams(pcm, sw), "installing the \(direction) software parameters", pcm: name)
        return chosen.1
    }

    // MARK: Running

    public func start(render: @escaping AudioDeviceRenderCallback) throws {
        guard session == nil else { return }
        let frames = periodFrames
        let io = ThreadBuffers(outputChannels: outputChannelCount, inputChannels: inputChannelCount, frames: frames,
                               outputBytes: frames * max(1, outputChannelCount) * playbackFormat.bytesPerSample,
                               inputBytes: frames * max(1, inputChannelCount) * captureFormat.bytesPerSample)
        if let playback { try check(alsa.prepare(playback), "preparing playback") }
        if let capture, !linked { try check(alsa.prepare(capture), "preparing capture", pcm: capturePCMName) }
        var bridged: ALSABridgedCapture?
        if separateCapture, let capture {
            bridged = ALSABridgedCapture(alsa: alsa, pcm: capture, format: captureFormat, channels: inputChannelCount,
                                         captureRate: captureSampleRate, capturePeriod: capturePeriodFrames,
                                         captureBuffer: captureBufferFrames, playbackRate: sampleRate, playbackPeriod: frames,
                                         status: status)
            bridgeLatency = bridged?.latency ?? 0
        }
        let session = Session()
        let loop = Loop(alsa: alsa, playback: playback.map(UncheckedPCM.init),
                        capture: separateCapture ? nil : capture.map(UncheckedPCM.init), bridged: bridged,
                        playbackFormat: playbackFormat, captureFormat: captureFormat,
                        outputChannels: outputChannelCount, inputChannels: inputChannelCount, frames: frames,
                        bufferFrames: bufferFrames, sampleRate: sampleRate, io: io, status: status)
        let status = self.status
        let deviceFailed: () -> Void = { [weak self] in self?.deviceDidFail() }
        status.resetRealTime()
        session.realTimeRequester = RealtimeKitRequester.startIfUseful(status: status)
        session.thread = try DeviceThread(name: "avaudio alsa") { [session] in
            RealTimeScheduling.promoteCurrentThread(status)
            let failed = loop.run(session.running, render: render)
            if failed {
                status.failed.store(true, ordering: .relaxed)
                deviceFailed()
            }
        }
        self.session = session
    }

    public func stop() {
        guard let session else { return }
        self.session = nil
        session.running.store(false, ordering: .releasing)
        session.realTimeRequester?.cancel()
        session.thread?.join()
    }

    /// The device went away mid-stream: the thread has ended; tell the engine (off this thread).
    private func deviceDidFail() {
        guard let handler = configurationChangeHandler else { return }
        _ = try? DeviceThread(name: "avaudio alsa chg") { handler() }
    }
}

/// A PCM handle handed to the device thread.
struct UncheckedPCM: @unchecked Sendable {
    let pcm: OpaquePointer
    init(_ pcm: OpaquePointer) { self.pcm = pcm }
}

/// Memory the device thread works in, allocated before it starts.
final class ThreadBuffers: @unchecked Sendable {
    let output: PlanarBuffers
    let input: PlanarBuffers
    let outputBytes: UnsafeMutableRawPointer
    let inputBytes: UnsafeMutableRawPointer
    init(outputChannels: Int, inputChannels: Int, frames: Int, outputBytes: Int, inputBytes: Int) {
        output = PlanarBuffers(channels: max(1, outputChannels), frames: frames)
        input = PlanarBuffers(channels: inputChannels, frames: frames)
        self.outputBytes = .allocate(byteCount: max(16, outputBytes), alignment: 16)
        self.outputBytes.initializeMemory(as: UInt8.self, repeating: 0, count: max(16, outputBytes))
        self.inputBytes = .allocate(byteCount: max(16, inputBytes), alignment: 16)
        self.inputBytes.initializeMemory(as: UInt8.self, repeating: 0, count: max(16, inputBytes))
    }
    deinit {
        outputBytes.deallocate()
        inputBytes.deallocate()
    }
}

/// The device thread's loop (see the design note at the top of the file).
private final class Loop: @unchecked Sendable {
    let alsa: ALSA.Library
    let playback: OpaquePointer?
    let capture: OpaquePointer?
    /// A separate capture PCM on its own clock (then `capture` is nil).
    let bridged: ALSABridgedCapture?
    let playbackFormat: DeviceSampleFormat
    let captureFormat: DeviceSampleFormat
    let outputChannels: Int
    let inputChannels: Int
    let frames: Int
    let bufferFrames: Int
    let sampleRate: Double
    let io: ThreadBuffers
    let status: DeviceStatus

    init(alsa: ALSA.Library, playback: UncheckedPCM?, capture: UncheckedPCM?, bridged: ALSABridgedCapture?, playbackFormat: DeviceSampleFormat,
         captureFormat: DeviceSampleFormat, outputChannels: Int, inputChannels: Int, frames: Int, bufferFrames: Int,
         sampleRate: Double, io: ThreadBuffers, status: DeviceStatus) {
        self.alsa = alsa
        self.playback = playback?.pcm
        self.capture = capture?.pcm
        self.bridged = bridged
        self.playbackFormat = playbackFormat
        self.captureFormat = captureFormat
        self.outputChannels = outputChannels
        self.inputChannels = inputChannels
        self.frames = frames
        self.bufferFrames = bufferFrames
        self.sampleRate = sampleRate
        self.io = io
        self.status = status
    }

    /// Runs until `running` turns false; returns true when the device failed beyond recovery.
    func run(_ running: borrowing Atomic<Bool>, render: AudioDeviceRenderCallback) -> Bool {
        let output = UnsafePointer(io.output.pointers)
        let input: UnsafePointer<UnsafeMutablePointer<Float>>? = capture != nil || bridged != nil ? UnsafePointer(io.input.pointers) : nil
        if let playback, capture != nil {
            // Duplex: prime the playback buffer with silence; when it is full playback starts, and
            // the linked capture with it.
            guard primeWithSilence(playback) else { return true }
        }
        bridged?.begin()
        var failed = false
        while running.load(ordering: .acquiring) {
            if let capture {
                guard read(capture) else { failed = true; break }
                captureFormat.deinterleave(io.inputBytes, channels: inputChannels, frames: frames, into: io.input.pointers)
            }
            if let bridged {
                guard bridged.pull() else { failed = true; break }
                bridged.read(into: io.input.pointers, frames: frames)
            }
            var hostTime = monotonicNanoseconds()
            if let playback {
                var queued = 0
                if alsa.delay(playback, &queued) == 0, queued > 0 {
                    status.delayFrames.store(queued, ordering: .relaxed)
                    hostTime += UInt64(Double(queued) / sampleRate * 1e9)
                }
            }
            render(AudioDeviceCycle(output: output, input: input, frames: frames, hostTime: hostTime))
            if let playback {
                playbackFormat.interleave(output, channels: outputChannels, frames: frames, into: io.outputBytes)
                guard write(playback, io.outputBytes, frames: frames) else { failed = true; break }
            }
        }
        if let playback { _ = alsa.drop(playback) }
        if let capture { _ = alsa.drop(capture) }
        bridged?.end()
        return failed
    }

    /// Writes all of `frames`, recovering from underruns. False when the device is gone.
    @inline(__always)
    private func write(_ pcm: OpaquePointer, _ bytes: UnsafeMutableRawPointer, frames: Int) -> Bool {
        let bytesPerFrame = outputChannels * playbackFormat.bytesPerSample
        var offset = 0
        while offset < frames {
            let written = alsa.writei(pcm, bytes + offset * bytesPerFrame, UInt(frames - offset))
            if written >= 0 {
                offset += written
                continue
            }
            if written == -Int(EAGAIN) || written == -Int(EINTR) { continue }
            guard recover(pcm, Int32(written)) else { return false }
        }
        return true
    }

    /// Reads one period, recovering from overruns. False when the device is gone.
    @inline(__always)
    private func read(_ pcm: OpaquePointer) -> Bool {
        let bytesPerFrame = inputChannels * captureFormat.bytesPerSample
        var offset = 0
        while offset < frames {
            let got = alsa.readi(pcm, io.inputBytes + offset * bytesPerFrame, UInt(frames - offset))
            if got >= 0 {
                offset += got
                continue
            }
            if got == -Int(EAGAIN) || got == -Int(EINTR) { continue }
            guard recover(pcm, Int32(got)) else { return false }
            if let playback, pcm == capture {
                // (linked: the playback side restarted too; prime it again)
                guard primeWithSilence(playback) else { return false }
            }
        }
        return true
    }

    /// snd_pcm_recover for an xrun or a suspend; counts it. False for anything else.
    private func recover(_ pcm: OpaquePointer, _ error: Int32) -> Bool {
        guard error == -EPIPE || error == -ESTRPIPE else { return false }
        status.xruns.add(1, ordering: .relaxed)
        return alsa.recover(pcm, error, 1) >= 0
    }

    private func primeWithSilence(_ pcm: OpaquePointer) -> Bool {
        let bytesPerFrame = outputChannels * playbackFormat.bytesPerSample
        io.outputBytes.initializeMemory(as: UInt8.self, repeating: 0, count: frames * bytesPerFrame)
        var primed = 0
        while primed + frames <= bufferFrames {
            guard write(pcm, io.outputBytes, frames: frames) else { return false }
            primed += frames
        }
        return true
    }
}

extension ALSAAudioDevice {
    /// ALSA's PCM names from the device name hints; the card's own PCMs are probed (non-blocking
    /// open) for their channel counts and rates, plugins are listed with 0 channels (unknown).
    static func enumerate() -> [AudioDeviceInfo] {
        guard let alsa = try? ALSA.library() else { return [] }
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        guard alsa.nameHint(-1, "pcm", &hints) == 0, let hints else { return [] }
        defer { _ = alsa.nameFreeHint(hints) }
        func hint(_ entry: UnsafeMutableRawPointer, _ key: String) -> String? {
            guard let value = alsa.nameGetHint(entry, key) else { return nil }
            defer { free(value) }
            return String(cString: value)
        }
        var devices: [AudioDeviceInfo] = []
        // What the kernel says about each PCM's card: its bus, its PCM device's name (ALSACards.swift).
        let tree = ALSACardTree.current.withLock { $0 }
        let cards = tree.cards()
        var controls: [String: ALSAControlState] = [:]   // per control device (ALSAJacks.swift)
        var i = 0
        while let entry = hints[i] {
            i += 1
            guard let name = hint(entry, "NAME") else { continue }
            let description = (hint(entry, "DESC") ?? name).split(separator: "\n").joined(separator: " — ")
            let ioid = hint(entry, "IOID")   // nil: both directions
            // Probed: the card's own PCMs (hw, plughw, sysdefault, front…) — not plugins that
            // reach for a server (pulse, jack, oss), which would connect, time out, and log.
            let probed = !["pulse", "jack", "oss", "null", "default", "pipewire", "lavrate", "samplerate", "speexrate", "upmix", "vdownmix", "a52", "usbstream"]
                .contains(where: { name == $0 || name.hasPrefix($0 + ":") })
            let output = probed && (ioid == nil || ioid == "Output") ? probe(alsa, name, stream: ALSA.streamPlayback) : nil
            let input = probed && (ioid == nil || ioid == "Input") ? probe(alsa, name, stream: ALSA.streamCapture) : nil
            let rates = output?.rates ?? input?.rates ?? []
            devices.append(AudioDeviceInfo(backend: "alsa", id: name, name: description, outputChannels: output?.channels ?? 0,
                                           inputChannels: input?.channels ?? 0, sampleRates: rates,
                                           nominalSampleRate: rates.contains(48_000) ? 48_000 : (rates.first ?? 0),
                                           isDefaultOutput: name == "default", isDefaultInput: name == "default"))
            tree.describe(&devices[devices.count - 1], cards: cards)
            ALSAJack.apply(to: &devices[devices.count - 1], cache: &controls)
        }
        return devices
    }

    /// Opens `name` without blocking and reads its maximum channel count and the common rates it accepts.
    private static func probe(_ alsa: ALSA.Library, _ name: String, stream: Int32) -> (channels: Int, rates: [Double])? {
        var handle: OpaquePointer?
        let nonBlocking: Int32 = 1   // SND_PCM_NONBLOCK
        guard name.withCString({ alsa.open(&handle, $0, stream, nonBlocking) }) >= 0, let pcm = handle else { return nil }
        defer { _ = alsa.close(pcm) }
        var hwOptional: OpaquePointer?
        guard alsa.hwParamsMalloc(&hwOptional) == 0, let hw = hwOptional else { return nil }
        defer { alsa.hwParamsFree(hw) }
        guard alsa.hwParamsAny(pcm, hw) >= 0 else { return nil }
        var channels: UInt32 = 0
        _ = alsa.hwParamsGetChannelsMax(hw, &channels)
        let common: [UInt32] = [8_000, 11_025, 16_000, 22_050, 32_000, 44_100, 48_000, 88_200, 96_000, 176_400, 192_000]
        let rates = common.filter { alsa.hwParamsTestRate(pcm, hw, $0, 0) == 0 }.map(Double.init)
        return (Int(min(channels, 64)), rates)
    }
}

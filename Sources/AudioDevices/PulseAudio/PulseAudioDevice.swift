// The PulseAudio backend (also PipeWire through pipewire-pulse), with the asynchronous API:
// a pa_threaded_mainloop, a pa_context, and one pa_stream per direction.
//
// Threading. libpulse's mainloop thread is the device thread: the server asks for data (the
// write callback, with the mainloop's lock held) and the engine renders right there, in chunks
// of at most `periodFrames`, written with pa_stream_write; captured data arrives in the read
// callback on the same thread. That thread asks for SCHED_FIFO on its first callback. Control
// calls (start, stop, enumeration) take the mainloop lock, never from the mainloop thread.
//
// Buffering. The stream's buffer attributes come from the request: playback target length
// `periodFrames × periods` frames, minimum request one period, with PA_STREAM_ADJUST_LATENCY so
// the server sizes the sink latency to match; record fragment size one period.
// `outputLatency` is what pa_stream_get_latency measures (stream buffer + sink), updated every
// callback (PA_STREAM_INTERPOLATE_TIMING | PA_STREAM_AUTO_TIMING_UPDATE).
//
// Duplex. Record and playback are two streams of one server, not one buffer, and not always
// one clock: the source and the sink can be different hardware (a USB microphone, the built-in
// speakers), each stream paced by its own device. Captured frames wait in an InputClockBridge
// (only the mainloop thread touches it, so no lock) until the next write callback takes them:
// it copies them exactly while the two clocks agree and switches to the varispeed resampler when
// its fill drifts; when it holds too few, the rest of that input is silence and counted as an
// xrun, and the bridge primes again with a larger margin (a jitter buffer that settles on the
// smallest margin this server's timing allows). When the render stalls longer than the bridge
// holds, the captured audio the server kept meanwhile arrives in one burst and overflows it: the
// oldest frames are dropped, counted as one xrun, and the bridge primes again at its usual level
// (PulseAudioInputOverrunTests). Input-only: each captured period is handed to the render callback as it arrives (its
// output is discarded).
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

public final class PulseAudioDevice: AudioDevice {
    /// The server (nil: libpulse's default lookup: $PULSE_SERVER, then the user's runtime socket).
    public let server: String?
    /// The sink and source names (nil: the server's defaults).
    public let sinkName: String?
    public let sourceName: String?
    public let request: AudioDeviceRequest
    public let sampleRate: Double
    public var outputChannelCount: Int { request.direction.hasOutput ? request.outputChannels : 0 }
    public var inputChannelCount: Int { request.direction.hasInput ? request.inputChannels : 0 }
    public let periodFrames: Int
    public var maximumFramesPerCallback: Int { periodFrames }
    public var configurationChangeHandler: (() -> Void)?
    public var outputLatency: Double {
        let frames = status.delayFrames.load(ordering: .relaxed)
        return Double(frames > 0 ? frames : periodFrames * max(2, request.periods)) / sampleRate
    }
    public var inputLatency: Double {
        guard inputChannelCount > 0 else { return 0 }
        let frames = status.inputDelayFrames.load(ordering: .relaxed)
        return Double(frames > 0 ? frames : periodFrames) / sampleRate
    }
    public var xrunCount: Int { status.xruns.load(ordering: .relaxed) }
    public var isRealTime: Bool { status.realTime.load(ordering: .relaxed) }
    public var hasFailed: Bool { status.failed.load(ordering: .relaxed) }
    public var name: String {
        "PulseAudio \(sinkName ?? sourceName ?? "default") on \(server ?? "the default server") (\(Int(sampleRate)) Hz, \(periodFrames)-frame periods)"
    }
    public var info: AudioDeviceInfo {
        AudioDeviceInfo(backend: "pulse", id: sinkName ?? sourceName ?? "default", name: name, outputChannels: outputChannelCount,
                        inputChannels: inputChannelCount, sampleRates: [sampleRate], nominalSampleRate: sampleRate,
                        isDefaultOutput: sinkName == nil, isDefaultInput: sourceName == nil)
    }

    let pulse: Pulse.Library
    let connection: PulseConnection
    private let status = DeviceStatus()
    private var session: PulseSession?

    /// Connects to the server (throws `.notFound` when none answers) and fixes the format: the
    /// requested rate, else the server's default rate.
    public init(server: String? = nil, sinkName: String? = nil, sourceName: String? = nil, request: AudioDeviceRequest) throws {
        pulse = try Pulse.library()
        connection = try PulseConnection(server: server, pulse: pulse)
        self.server = server
        self.sinkName = sinkName
        self.sourceName = sourceName
        self.request = request
        sampleRate = request.sampleRate ?? connection.serverSampleRate ?? 48_000
        periodFrames = max(16, request.periodFrames)
    }

    deinit { stop() }

    public func start(render: @escaping AudioDeviceRenderCallback) throws {
        guard session == nil else { return }
        let session = PulseSession(device: self, render: render, status: status)
        status.resetRealTime()
        try session.open()
        session.realTimeRequester = RealtimeKitRequester.startIfUseful(status: status)
        self.session = session
    }

    public func stop() {
        guard let session else { return }
        self.session = nil
        session.realTimeRequester?.cancel()
        session.close()
    }

    /// A stream failed, was killed (server gone, sink unloaded) or was moved to another device
    /// (the default switched): tell the engine, off the mainloop thread.
    fileprivate func streamDidFail() {
        guard let handler = configurationChangeHandler else { return }
        _ = try? DeviceThread(name: "avaudio pulse chg") { handler() }
    }
}

/// One connection to a server: threaded mainloop + context, READY or thrown away.
final class PulseConnection: @unchecked Sendable {
    let pulse: Pulse.Library
    let mainloop: OpaquePointer
    let context: OpaquePointer
    private(set) var serverSampleRate: Double?
    private(set) var defaultSink: String?
    private(set) var defaultSource: String?

    init(server: String?, pulse: Pulse.Library, clientName: String = "OpenAVFAudio") throws {
        self.pulse = pulse
        guard let mainloop = pulse.mainloopNew() else { throw AudioDeviceError(.failed, "PulseAudio: pa_threaded_mainloop_new failed") }
        guard let api = pulse.mainloopGetAPI(mainloop), let context = clientName.withCString({ pulse.contextNew(api, $0) }) else {
            pulse.mainloopFree(mainloop)
            throw AudioDeviceError(.failed, "PulseAudio: pa_context_new failed")
        }
        self.mainloop = mainloop
        self.context = context
        let me = Unmanaged.passUnretained(self).toOpaque()
        pulse.contextSetStateCallback(context, { _, userdata in
            let connection = Unmanaged<PulseConnection>.fromOpaque(userdata!).takeUnretainedValue()
            connection.pulse.mainloopSignal(connection.mainloop, 0)
        }, me)
        let status = withOptionalCString(server) { pulse.contextConnect(context, $0, Pulse.contextNoAutospawn, nil) }
        guard status >= 0, pulse.mainloopStart(mainloop) >= 0 else {
            let message = pulse.message(pulse.contextErrno(context))
            pulse.contextUnref(context)
            pulse.mainloopFree(mainloop)
            closed = true   // (a throwing init still runs deinit: do not free twice)
            throw AudioDeviceError(.notFound, "no PulseAudio server answers at \(server ?? "the default address"): \(message)")
        }
        pulse.mainloopLock(mainloop)
        var state = pulse.contextGetState(context)
        while state != Pulse.contextReady && state != Pulse.contextFailed && state != Pulse.contextTerminated {
            pulse.mainloopWait(mainloop)
            state = pulse.contextGetState(context)
        }
        if state != Pulse.contextReady {
            let message = pulse.message(pulse.contextErrno(context))
            pulse.mainloopUnlock(mainloop)
            close()
            throw AudioDeviceError(.notFound, "no PulseAudio server answers at \(server ?? "the default address"): \(message)")
        }
        // Server defaults (rate, default sink and source).
        let op = pulse.contextGetServerInfo(context, { _, info, userdata in
            let connection = Unmanaged<PulseConnection>.fromOpaque(userdata!).takeUnretainedValue()
            if let info {
                let rate = info.load(fromByteOffset: 36, as: UInt32.self)
                if rate > 0 { connection.serverSampleRate = Double(rate) }
                connection.defaultSink = Pulse.string(info, at: 48)
                connection.defaultSource = Pulse.string(info, at: 56)
            }
            connection.pulse.mainloopSignal(connection.mainloop, 0)
        }, me)
        waitLocked(op)
        pulse.mainloopUnlock(mainloop)
    }

    deinit { close() }

    private var closed = false
    /// Disconnects and frees (never from the mainloop thread).
    func close() {
        guard !closed else { return }
        closed = true
        pulse.mainloopLock(mainloop)
        pulse.contextSetStateCallback(context, nil, nil)
        pulse.contextDisconnect(context)
        pulse.contextUnref(context)
        pulse.mainloopUnlock(mainloop)
        pulse.mainloopStop(mainloop)
        pulse.mainloopFree(mainloop)
    }

    /// With the mainloop lock held: waits until `operation` is done (its callback signals).
    func waitLocked(_ operation: OpaquePointer?) {
        guard let operation else { return }
        while pulse.operationGetState(operation) == Pulse.operationRunning { pulse.mainloopWait(mainloop) }
        pulse.operationUnref(operation)
    }

    /// The server's playback streams (sink inputs): the process that owns each (its
    /// `application.process.id` property, which libpulse sets for every client) and whether it is
    /// corked (paused).
    func playbackStreams() -> [(processID: Int32?, corked: Bool)] {
        final class Collector {
            var streams: [(processID: Int32?, corked: Bool)] = []
            let connection: PulseConnection
            init(_ connection: PulseConnection) { self.connection = connection }
        }
        let collector = Collector(self)
        let pointer = Unmanaged.passUnretained(collector).toOpaque()
        let callback: Pulse.InfoCallback = { _, info, eol, userdata in
            let collector = Unmanaged<Collector>.fromOpaque(userdata!).takeUnretainedValue()
            if eol == 0, let info {
                let proplist = info.load(fromByteOffset: Pulse.sinkInputProplistOffset, as: OpaquePointer?.self)
                let pid = proplist.flatMap { collector.connection.pulse.proplistGets($0, "application.process.id") }
                    .flatMap { Int32(String(cString: $0)) }
                let corked = info.load(fromByteOffset: Pulse.sinkInputCorkedOffset, as: Int32.self) != 0
                collector.streams.append((pid, corked))
            }
            collector.connection.pulse.mainloopSignal(collector.connection.mainloop, 0)
        }
        pulse.mainloopLock(mainloop)
        waitLocked(pulse.contextGetSinkInputInfoList(context, callback, pointer))
        pulse.mainloopUnlock(mainloop)
        return collector.streams
    }

    /// Sinks and sources, as device descriptions.
    func enumerate() -> [AudioDeviceInfo] {
        final class Collector {
            var devices: [AudioDeviceInfo] = []
            var isSource = false
            let connection: PulseConnection
            init(_ connection: PulseConnection) { self.connection = connection }
        }
        let collector = Collector(self)
        let pointer = Unmanaged.passUnretained(collector).toOpaque()
        let callback: Pulse.InfoCallback = { _, info, eol, userdata in
            let collector = Unmanaged<Collector>.fromOpaque(userdata!).takeUnretainedValue()
            if eol == 0, let info {
                let name = Pulse.string(info, at: 0) ?? "?"
                let description = Pulse.string(info, at: 16) ?? name
                let rate = Double(info.load(fromByteOffset: 28, as: UInt32.self))
                let channels = Int(info.load(fromByteOffset: 32, as: UInt8.self))
                let source = collector.isSource
                // pa_cvolume volume @172 (after channel_map @36, 132 bytes, and owner_module @168):
                // uint8 channels, then uint32 values from @176; PA_VOLUME_NORM = 0x10000.
                let volumeChannels = min(32, Int(info.load(fromByteOffset: 172, as: UInt8.self)))
                var volume: Double?
                if volumeChannels > 0 {
                    var sum = 0.0
                    for c in 0..<volumeChannels { sum += Double(info.load(fromByteOffset: 176 + 4 * c, as: UInt32.self)) }
                    volume = sum / Double(volumeChannels) / 65_536
                }
                collector.devices.append(AudioDeviceInfo(
                    backend: "pulse", id: name, name: description,
                    outputChannels: source ? 0 : channels, inputChannels: source ? channels : 0,
                    sampleRates: [rate], nominalSampleRate: rate,
                    isDefaultOutput: !source && name == collector.connection.defaultSink,
                    isDefaultInput: source && name == collector.connection.defaultSource))
                collector.devices[collector.devices.count - 1].volume = volume
                collector.devices[collector.devices.count - 1].isMuted = info.load(fromByteOffset: Pulse.deviceMuteOffset, as: Int32.self) != 0
                Pulse.readProperties(info, pulse: collector.connection.pulse, into: &collector.devices[collector.devices.count - 1])
            }
            collector.connection.pulse.mainloopSignal(collector.connection.mainloop, 0)
        }
        pulse.mainloopLock(mainloop)
        waitLocked(pulse.contextGetSinkInfoList(context, callback, pointer))
        collector.isSource = true
        waitLocked(pulse.contextGetSourceInfoList(context, callback, pointer))
        pulse.mainloopUnlock(mainloop)
        return collector.devices
    }
}

/// One start()…stop(): the streams and the buffers the mainloop thread works in.
private final class PulseSession: @unchecked Sendable {
    unowned let device: PulseAudioDevice
    let pulse: Pulse.Library
    let connection: PulseConnection
    let render: AudioDeviceRenderCallback
    let status: DeviceStatus
    let frames: Int
    let outputChannels: Int
    let inputChannels: Int
    let rate: Double
    var playback: OpaquePointer?
    var record: OpaquePointer?
    let output: PlanarBuffers
    let input: PlanarBuffers
    let bytes: UnsafeMutableRawPointer
    /// Captured frames waiting for a write callback (duplex) or a full period (input only). In
    /// duplex the sink and the source may be different hardware on different clocks: the bridge
    /// copies while their clocks agree and resamples when they drift (InputClockBridge.swift).
    let bridge: InputClockBridge?
    /// Set false by stop(): callbacks after it write silence and call nothing.
    let running = Atomic<Bool>(true)
    var askedForRealTime = false
    /// Asks RealtimeKit for the mainloop thread when its own SCHED_FIFO request is refused.
    var realTimeRequester: RealtimeKitRequester?

    init(device: PulseAudioDevice, render: @escaping AudioDeviceRenderCallback, status: DeviceStatus) {
        self.device = device
        pulse = device.pulse
        connection = device.connection
        self.render = render
        self.status = status
        frames = device.periodFrames
        outputChannels = device.outputChannelCount
        inputChannels = device.inputChannelCount
        rate = device.sampleRate
        output = PlanarBuffers(channels: max(1, outputChannels), frames: frames)
        input = PlanarBuffers(channels: inputChannels, frames: frames)
        bytes = .allocate(byteCount: frames * max(1, max(outputChannels, inputChannels)) * 4, alignment: 16)
        // Duplex: reads start once two periods have arrived (capture arrives a fragment, one
        // period, at a time and the server asks for playback a period at a time once running, so
        // the fill moves by a period each way between them), trimmed to exactly that at priming so
        // the latency does not depend on where the last capture burst left the fill. When the
        // server's bursts are bigger (a loaded machine, a first request for the whole target
        // length after an underrun), the bridge runs dry, counts an xrun and primes again half a
        // period higher, up to the target length plus two periods (the fixed margin used before,
        // 2026-11-28, which measured 1.5 periods more round trip: Benchmarks/results/devices-pulse-*).
        bridge = inputChannels == 0 ? nil
            : InputClockBridge(channels: inputChannels, sampleRate: rate, capacity: frames * (4 * max(2, device.request.periods) + 16),
                               primingFrames: outputChannels == 0 ? frames : frames * 2,
                               maximumPrimingFrames: outputChannels == 0 ? nil : frames * (max(2, device.request.periods) + 2),
                               maximumReadFrames: frames, compensates: outputChannels > 0, trimsAtPriming: outputChannels > 0)
    }

    deinit {
        bytes.deallocate()
    }

    /// Creates and connects the streams; waits until they are READY.
    func open() throws {
        let mainloop = connection.mainloop
        pulse.mainloopLock(mainloop)
        defer { pulse.mainloopUnlock(mainloop) }
        let me = Unmanaged.passUnretained(self).toOpaque()
        let flags = Pulse.streamAdjustLatency | Pulse.streamInterpolateTiming | Pulse.streamAutoTimingUpdate
        let periods = max(2, device.request.periods)
        if inputChannels > 0 {
            var spec = Pulse.SampleSpec(format: Pulse.sampleFloat32LE, rate: UInt32(rate), channels: UInt8(inputChannels))
            let created = withUnsafePointer(to: &spec) { pulse.streamNew(connection.context, "OpenAVFAudio input", UnsafeRawPointer($0), nil) }
            guard let stream = created else {
                throw AudioDeviceError(.failed, "PulseAudio: could not create a record stream: \(pulse.message(pulse.contextErrno(connection.context)))")
            }
            record = stream
            installCallbacks(stream, me)
            pulse.streamSetReadCallback(stream, { _, _, userdata in
                Unmanaged<PulseSession>.fromOpaque(userdata!).takeUnretainedValue().readAvailable()
            }, me)
            var attr = Pulse.BufferAttributes(maxlength: UInt32.max, tlength: UInt32.max, prebuf: UInt32.max, minreq: UInt32.max,
                                              fragsize: UInt32(frames * inputChannels * 4))
            let status = withUnsafePointer(to: &attr) { a in withOptionalCString(device.sourceName) { pulse.streamConnectRecord(stream, $0, UnsafeRawPointer(a), flags) } }
            guard status >= 0 else {
                throw AudioDeviceError(.failed, "PulseAudio: could not record from \(device.sourceName ?? "the default source"): \(pulse.message(pulse.contextErrno(connection.context)))")
            }
            try waitReady(stream, what: "record stream")
        }
        if outputChannels > 0 {
            var spec = Pulse.SampleSpec(format: Pulse.sampleFloat32LE, rate: UInt32(rate), channels: UInt8(outputChannels))
            let created = withUnsafePointer(to: &spec) { pulse.streamNew(connection.context, "OpenAVFAudio output", UnsafeRawPointer($0), nil) }
            guard let stream = created else {
                throw AudioDeviceError(.failed, "PulseAudio: could not create a playback stream: \(pulse.message(pulse.contextErrno(connection.context)))")
            }
            playback = stream
            installCallbacks(stream, me)
            pulse.streamSetWriteCallback(stream, { _, bytes, userdata in
                Unmanaged<PulseSession>.fromOpaque(userdata!).takeUnretainedValue().write(bytes: bytes)
            }, me)
            pulse.streamSetUnderflowCallback(stream, { _, userdata in
                Unmanaged<PulseSession>.fromOpaque(userdata!).takeUnretainedValue().status.xruns.add(1, ordering: .relaxed)
            }, me)
            let frameBytes = outputChannels * 4
            var attr = Pulse.BufferAttributes(maxlength: UInt32.max, tlength: UInt32(frames * periods * frameBytes), prebuf: UInt32.max,
                                              minreq: UInt32(frames * frameBytes), fragsize: UInt32.max)
            let status = withUnsafePointer(to: &attr) { a in withOptionalCString(device.sinkName) { pulse.streamConnectPlayback(stream, $0, UnsafeRawPointer(a), flags, nil, nil) } }
            guard status >= 0 else {
                throw AudioDeviceError(.failed, "PulseAudio: could not play to \(device.sinkName ?? "the default sink"): \(pulse.message(pulse.contextErrno(connection.context)))")
            }
            try waitReady(stream, what: "playback stream")
        }
    }

    private func installCallbacks(_ stream: OpaquePointer, _ me: UnsafeMutableRawPointer) {
        pulse.streamSetStateCallback(stream, { stream, userdata in
            let session = Unmanaged<PulseSession>.fromOpaque(userdata!).takeUnretainedValue()
            session.pulse.mainloopSignal(session.connection.mainloop, 0)
            guard let stream else { return }
            let state = session.pulse.streamGetState(stream)
            if (state == Pulse.streamFailed || state == Pulse.streamTerminated) && session.running.load(ordering: .relaxed) {
                session.running.store(false, ordering: .relaxed)
                session.status.failed.store(true, ordering: .relaxed)
                session.device.streamDidFail()
            }
        }, me)
        pulse.streamSetOverflowCallback(stream, { _, userdata in
            Unmanaged<PulseSession>.fromOpaque(userdata!).takeUnretainedValue().status.xruns.add(1, ordering: .relaxed)
        }, me)
        // The server moved the stream to another sink or source: the default device was switched
        // (a stream opened on the default follows it), the user moved it (pavucontrol), or its
        // device went away and module-rescue-streams saved it. The device the engine opened is
        // no longer where its audio goes, so, as Core Audio does when the default output device
        // changes under an AVAudioEngine, the engine stops and posts a configuration change;
        // `start()` then reopens on what is now the device (the stream is marked failed so that
        // it is not reused). The render callbacks write silence meanwhile.
        pulse.streamSetMovedCallback(stream, { _, userdata in
            let session = Unmanaged<PulseSession>.fromOpaque(userdata!).takeUnretainedValue()
            guard session.running.load(ordering: .relaxed) else { return }
            session.running.store(false, ordering: .relaxed)
            session.status.failed.store(true, ordering: .relaxed)
            session.device.streamDidFail()
        }, me)
    }

    private func waitReady(_ stream: OpaquePointer, what: String) throws {
        var state = pulse.streamGetState(stream)
        while state != Pulse.streamReady && state != Pulse.streamFailed && state != Pulse.streamTerminated {
            pulse.mainloopWait(connection.mainloop)
            state = pulse.streamGetState(stream)
        }
        guard state == Pulse.streamReady else {
            throw AudioDeviceError(.failed, "PulseAudio: the \(what) failed: \(pulse.message(pulse.contextErrno(connection.context)))")
        }
    }

    /// Disconnects the streams. From the mainloop thread (a render block stopping the engine)
    /// the disconnect happens on a helper thread; the callbacks meanwhile write silence.
    func close() {
        running.store(false, ordering: .releasing)
        if pulse.mainloopInThread(connection.mainloop) != 0 {
            _ = try? DeviceThread(name: "avaudio pulse stop") { [self] in disconnect() }
        } else {
            disconnect()
        }
    }

    private func disconnect() {
        pulse.mainloopLock(connection.mainloop)
        for stream in [playback, record].compactMap({ $0 }) {
            pulse.streamSetStateCallback(stream, nil, nil)
            pulse.streamSetWriteCallback(stream, nil, nil)
            pulse.streamSetReadCallback(stream, nil, nil)
            pulse.streamSetUnderflowCallback(stream, nil, nil)
            pulse.streamSetOverflowCallback(stream, nil, nil)
            pulse.streamSetMovedCallback(stream, nil, nil)
            _ = pulse.streamDisconnect(stream)
            pulse.streamUnref(stream)
        }
        playback = nil
        record = nil
        pulse.mainloopUnlock(connection.mainloop)
    }

    // MARK: Mainloop thread

    @inline(__always)
    private func enterRealTime() {
        guard !askedForRealTime else { return }
        askedForRealTime = true
        RealTimeScheduling.promoteCurrentThread(status)
    }

    /// The server wants `bytes` bytes: render them in chunks of at most one period.
    func write(bytes requested: Int) {
        guard let playback else { return }
        enterRealTime()
        let frameBytes = outputChannels * 4
        var remaining = requested / frameBytes
        let live = running.load(ordering: .acquiring)
        let outputPointers = UnsafePointer(output.pointers)
        while remaining > 0 {
            let n = min(remaining, frames)
            if live {
                var hasInput = false
                if inputChannels > 0 { hasInput = takeInput(frames: n) }
                // (the previous callback's measured latency: where these frames will be heard)
                let queued = Double(status.delayFrames.load(ordering: .relaxed)) / rate
                render(AudioDeviceCycle(output: outputPointers, input: hasInput ? UnsafePointer(input.pointers) : nil, frames: n,
                                        hostTime: monotonicNanoseconds() + UInt64(queued * 1e9)))
                DeviceSampleFormat.float32.interleave(outputPointers, channels: outputChannels, frames: n, into: bytes)
            } else {
                bytes.initializeMemory(as: UInt8.self, repeating: 0, count: n * frameBytes)
            }
            _ = pulse.streamWrite(playback, bytes, n * frameBytes, nil, 0, Pulse.seekRelative)
            remaining -= n
        }
        // The latency once the buffer holds what was just written: stream buffer + sink.
        var latency: UInt64 = 0
        var negative: Int32 = 0
        if pulse.streamGetLatency(playback, &latency, &negative) == 0, negative == 0 {
            status.delayFrames.store(Int(Double(latency) * rate / 1e6), ordering: .relaxed)
        }
    }

    /// Moves `n` frames from the bridge to the planar input. Before the bridge is primed (and
    /// again after it ran dry) the input is silence; running dry is counted as an xrun.
    private func takeInput(frames n: Int) -> Bool {
        guard let bridge else { return false }
        // (stamped on the clock the captured data's arrival is: the bridge measures its fill
        // between the two, see `readAvailable`)
        if !bridge.read(into: UnsafePointer(input.pointers), frames: n, hostTime: monotonicNanoseconds()) {
            status.xruns.add(1, ordering: .relaxed)
        }
        return true
    }

    /// Captured data arrived: append it to the bridge; input-only devices render each full period.
    func readAvailable() {
        guard let record else { return }
        enterRealTime()
        var latency: UInt64 = 0
        var negative: Int32 = 0
        if pulse.streamGetLatency(record, &latency, &negative) == 0, negative == 0 {
            status.inputDelayFrames.store(Int(Double(latency) * rate / 1e6), ordering: .relaxed)
        }
        // When the data arrived: this callback runs as the server's packet comes in, so the time
        // now trails the capture of its last frame by the transport's latency, a constant plus
        // scheduling jitter, which is what the bridge's drift estimate needs (it fits a slope;
        // a constant offset drops out). pa_stream_get_timing_info would say more, but is not bound.
        let arrival = monotonicNanoseconds()
        var data: UnsafeRawPointer?
        var length = 0
        while pulse.streamPeek(record, &data, &length) == 0, length > 0 {
            let count = length / (inputChannels * 4)
            if let bridge {
                let overruns = bridge.overruns
                // nil data: a hole in the record stream, written as silence.
                bridge.write(interleaved: data?.assumingMemoryBound(to: Float.self), frames: count, hostTime: arrival)
                if bridge.overruns != overruns { status.xruns.add(1, ordering: .relaxed) }
            }
            _ = pulse.streamDrop(record)
        }
        // Input only: hand each complete period to the render callback now.
        guard outputChannels == 0, running.load(ordering: .acquiring) else { return }
        while let bridge, bridge.count >= frames {
            _ = takeInput(frames: frames)
            let delay = Double(status.inputDelayFrames.load(ordering: .relaxed)) / rate
            render(AudioDeviceCycle(output: UnsafePointer(output.pointers), input: UnsafePointer(input.pointers), frames: frames,
                                    hostTime: monotonicNanoseconds() &- UInt64(delay * 1e9)))
        }
    }
}

/// Calls `body` with a C string for `string`, or NULL.
func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}

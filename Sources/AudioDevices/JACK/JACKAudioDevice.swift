// The JACK backend: the engine runs as one JACK client (jackd2, or PipeWire's pipewire-jack) with
// audio output ports `out_1…` and input ports `in_1…` (duplex on one client, one clock).
//
// Threading. JACK's process thread is the device thread: the server wakes it once per period
// and the process callback hands the engine JACK's own port buffers (planar Float32, exactly the
// engine's format: no copy, no interleaving). The callback allocates nothing and locks nothing:
// the pointer arrays are allocated when the client opens, the render closure is installed while
// the client is inactive (jack_activate orders it before the first callback). A period larger
// than the engine's maximum cycle is served in several engine cycles by the engine itself.
// libjack runs the thread SCHED_FIFO when the server runs real-time (`jackd -R`, the default);
// `isRealTime` reports jack_is_realtime.
//
// Other callbacks run on libjack's notification thread, never the process thread: xruns are
// counted (JACK reports every xrun of the server's graph, not only ours: the count is the
// server's since the client opened); a new buffer size is only recorded (the engine renders whatever `frames` a callback
// brings, chunked to its maximum); latency changes are re-read; a sample-rate change, or the
// server going away (jack_on_info_shutdown), marks the device failed and calls the engine's
// configuration-change handler from a thread of ours (the engine then stops the device and
// reopens one at the next start()).
//
// Connections. After activation the output ports are connected to the physical playback ports
// (system:playback_1, …) and the physical capture ports to the input ports, in order, as far as
// both exist (jack_get_ports with JackPortIsPhysical), as JACK clients customarily do. Other
// clients may connect anything else to the ports while they run.
//
// One server per process: jackd2's libjack keeps one server connection's shared state per
// process, so every JACK device a process opens should name the same server (the tests, which
// start private servers, serialise themselves for this reason; enumeration and probes skip
// other servers while clients are open, `JACK.openClients`).
//
// Latency. `outputLatency` is the playback latency JACK computes for our output ports (the
// downstream ports' latency, e.g. the driver's 2 periods for system:playback) plus the period we
// render ahead of; `inputLatency` the capture latency of our input ports. Both are re-read in
// JACK's latency callback.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

public final class JACKAudioDevice: AudioDevice {
    /// The server's name (nil: libjack's default, `$JACK_DEFAULT_SERVER` or "default").
    public let server: String?
    /// The client name JACK gave (the one asked for, or it with "-01"… when taken).
    public let clientName: String
    public let request: AudioDeviceRequest
    /// The server's rate (JACK clients take the server's rate; a request for another is ignored
    /// and the engine converts).
    public let sampleRate: Double
    public let outputChannelCount: Int
    public let inputChannelCount: Int
    /// The server's current period (JACK's buffer size), which another client may change.
    public var periodFrames: Int { state.bufferSize.load(ordering: .relaxed) }
    public var maximumFramesPerCallback: Int { periodFrames }
    public var configurationChangeHandler: (() -> Void)? {
        get { state.handler.withLock { $0 } }
        set { state.handler.withLock { $0 = newValue } }
    }
    public var outputLatency: Double {
        guard outputChannelCount > 0 else { return 0 }
        return Double(state.status.delayFrames.load(ordering: .relaxed) + periodFrames) / sampleRate
    }
    public var inputLatency: Double {
        guard inputChannelCount > 0 else { return 0 }
        return Double(state.status.inputDelayFrames.load(ordering: .relaxed)) / sampleRate
    }
    public var xrunCount: Int { state.status.xruns.load(ordering: .relaxed) }
    public var isRealTime: Bool { state.status.realTime.load(ordering: .relaxed) }
    public var hasFailed: Bool { state.status.failed.load(ordering: .relaxed) }
    public var name: String {
        "JACK client \(clientName) on \(server.map { "server “\($0)”" } ?? JACK.defaultServerDescription) (\(Int(sampleRate)) Hz, \(periodFrames)-frame periods)"
    }
    public var info: AudioDeviceInfo {
        AudioDeviceInfo(backend: "jack", id: clientName + (server.map { "@\($0)" } ?? ""), name: name,
                        outputChannels: outputChannelCount, inputChannels: inputChannelCount,
                        sampleRates: [sampleRate], nominalSampleRate: sampleRate, isDefaultOutput: false, isDefaultInput: false)
    }
    /// The full names of the client's output and input ports ("CLIENT:out_1", …).
    public var outputPortNames: [String] { state.outputPorts.map { jack.portName($0).map { String(cString: $0) } ?? "" } }
    public var inputPortNames: [String] { state.inputPorts.map { jack.portName($0).map { String(cString: $0) } ?? "" } }

    /// The client name used when none is given.
    public static let defaultClientName = "OpenAVFAudio"

    let jack: JACK.Library
    let client: OpaquePointer
    private let state: JACKClientState
    private var active = false
    /// A deactivation handed to another thread (stop() called on the process thread).
    private var pendingDeactivation: DeviceThread?

    /// Opens a client on a running server (never starts one: throws `.notFound` saying how) and
    /// registers its ports; the client becomes active at start().
    public init(clientName: String? = nil, server: String? = nil, request: AudioDeviceRequest) throws {
        let jack = try JACK.library()
        let client = try jack.open(clientName: clientName ?? Self.defaultClientName, server: server)
        let actualName = jack.clientName(client).map { String(cString: $0) } ?? (clientName ?? Self.defaultClientName)
        self.jack = jack
        self.client = client
        self.server = server
        self.clientName = actualName
        self.request = request
        sampleRate = Double(jack.sampleRate(client))
        outputChannelCount = request.direction.hasOutput ? request.outputChannels : 0
        inputChannelCount = request.direction.hasInput ? request.inputChannels : 0
        var outputs: [OpaquePointer] = []
        var inputs: [OpaquePointer] = []
        for (count, prefix, flags) in [(outputChannelCount, "out", JACK.portIsOutput), (inputChannelCount, "in", JACK.portIsInput)] {
            for k in 0..<count {
                let port = "\(prefix)_\(k + 1)".withCString { name in JACK.audioType.withCString { jack.portRegister(client, name, $0, flags, 0) } }
                guard let port else {
                    jack.close(client, server: server)
                    throw AudioDeviceError(.failed, "JACK: could not register the port \(prefix)_\(k + 1) of client \(actualName)")
                }
                if flags == JACK.portIsOutput { outputs.append(port) } else { inputs.append(port) }
            }
        }
        state = JACKClientState(jack: jack, client: client, outputs: outputs, inputs: inputs,
                                bufferSize: Int(jack.bufferSize(client)), sampleRate: jack.sampleRate(client))
        state.installCallbacks()
    }

    deinit {
        stop()
        pendingDeactivation?.join()
        jack.close(client, server: server)
    }

    public func start(render: @escaping AudioDeviceRenderCallback) throws {
        guard !active else { return }
        if let pending = pendingDeactivation { pending.join(); pendingDeactivation = nil }
        guard !hasFailed else {
            throw AudioDeviceError(.failed, "JACK: the server \(server ?? "default") has shut down; open the device again once it runs")
        }
        state.render = render
        state.running.store(true, ordering: .releasing)
        guard jack.activate(client) == 0 else {
            state.running.store(false, ordering: .releasing)
            throw AudioDeviceError(.failed, "JACK: could not activate client \(clientName)")
        }
        active = true
        state.status.realTime.store(jack.isRealtime(client) != 0, ordering: .relaxed)
        connectPhysicalPorts()
        state.updateLatencies()
    }

    /// Output k → the k-th physical playback port, the k-th physical capture port → input k.
    private func connectPhysicalPorts() {
        let playback = jack.ports(client, flags: JACK.portIsPhysical | JACK.portIsInput)
        let capture = jack.ports(client, flags: JACK.portIsPhysical | JACK.portIsOutput)
        for (ours, theirs) in zip(outputPortNames, playback) { _ = jack.connect(client, ours, theirs) }
        for (theirs, ours) in zip(capture, inputPortNames) { _ = jack.connect(client, theirs, ours) }
    }

    public func stop() {
        guard active else { return }
        active = false
        state.running.store(false, ordering: .releasing)
        if state.isProcessThread {
            // (a render block stopping the engine: jack_deactivate waits for the process cycle,
            // which is this one; the callbacks meanwhile write silence)
            let jack = self.jack, client = self.client
            pendingDeactivation = try? DeviceThread(name: "avaudio jack stop") { _ = jack.deactivate(client) }
        } else {
            _ = jack.deactivate(client)
        }
    }

    /// The JACK server that answers (the default one, or `server`): one entry describing it,
    /// with its physical ports (empty when none runs, or when this process has clients on
    /// another server: see `JACK.openClients`).
    static func enumerate(server: String? = nil) -> [AudioDeviceInfo] {
        guard JACK.mayProbe(server: server), let jack = try? JACK.library(),
              let client = try? jack.open(clientName: "OpenAVFAudio-list", server: server) else { return [] }
        defer { jack.close(client, server: server) }
        let playback = jack.ports(client, flags: JACK.portIsPhysical | JACK.portIsInput)
        let capture = jack.ports(client, flags: JACK.portIsPhysical | JACK.portIsOutput)
        let rate = Double(jack.sampleRate(client))
        let ports = (playback + capture).joined(separator: ", ")
        return [AudioDeviceInfo(backend: "jack", id: Self.defaultClientName + (server.map { "@\($0)" } ?? ""),
                                name: "JACK server \(server ?? JACK.defaultServerName), \(jack.bufferSize(client))-frame periods; physical ports: \(ports.isEmpty ? "none" : ports)",
                                outputChannels: playback.count, inputChannels: capture.count, sampleRates: [rate], nominalSampleRate: rate,
                                isDefaultOutput: false, isDefaultInput: false)]
    }
}

extension JACK {
    /// The server libjack reaches when none is named: `$JACK_DEFAULT_SERVER`, else "default".
    static var defaultServerName: String { getenv("JACK_DEFAULT_SERVER").map { String(cString: $0) } ?? "default" }
    static var defaultServerDescription: String {
        getenv("JACK_DEFAULT_SERVER").map { "server “\(String(cString: $0))” ($JACK_DEFAULT_SERVER)" } ?? "the default server"
    }
}

/// What JACK's callbacks reach (allocated with the client, alive until it is closed).
private final class JACKClientState: @unchecked Sendable {
    let jack: JACK.Library
    let client: OpaquePointer
    let outputPorts: [OpaquePointer]
    let inputPorts: [OpaquePointer]
    /// The ports as raw arrays, for the process thread (Swift arrays are not read there).
    let outputPortList: UnsafeMutablePointer<OpaquePointer>
    let inputPortList: UnsafeMutablePointer<OpaquePointer>
    let outputCount: Int
    let inputCount: Int
    /// The current period's buffers, filled in by the process callback.
    let outputBuffers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let inputBuffers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    let status = DeviceStatus()
    let bufferSize: Atomic<Int>
    let openedSampleRate: UInt32
    /// Set while the client is inactive; read by the process thread while it is active.
    var render: AudioDeviceRenderCallback = { _ in }
    let running = Atomic<Bool>(false)
    let processThread = Atomic<UInt>(0)
    let handler = Mutex<(() -> Void)?>(nil)
    private let reported = Atomic<Bool>(false)

    init(jack: JACK.Library, client: OpaquePointer, outputs: [OpaquePointer], inputs: [OpaquePointer], bufferSize: Int, sampleRate: UInt32) {
        self.jack = jack
        self.client = client
        outputPorts = outputs
        inputPorts = inputs
        outputCount = outputs.count
        inputCount = inputs.count
        outputPortList = .allocate(capacity: max(1, outputs.count))
        inputPortList = .allocate(capacity: max(1, inputs.count))
        for (k, port) in outputs.enumerated() { outputPortList[k] = port }
        for (k, port) in inputs.enumerated() { inputPortList[k] = port }
        outputBuffers = .allocate(capacity: max(1, outputs.count))
        inputBuffers = .allocate(capacity: max(1, inputs.count))
        self.bufferSize = Atomic(bufferSize)
        openedSampleRate = sampleRate
    }

    deinit {
        outputPortList.deallocate()
        inputPortList.deallocate()
        outputBuffers.deallocate()
        inputBuffers.deallocate()
    }

    var isProcessThread: Bool { processThread.load(ordering: .relaxed) == UInt(pthread_self()) }

    /// Installs the callbacks (client inactive). The state lives as long as the client: the
    /// device closes the client before releasing it.
    func installCallbacks() {
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = jack.setProcessCallback(client, { frames, userdata in
            Unmanaged<JACKClientState>.fromOpaque(userdata!)._withUnsafeGuaranteedRef { $0.process(frames: frames) }
            return 0
        }, me)
        _ = jack.setBufferSizeCallback(client, { frames, userdata in
            let state = Unmanaged<JACKClientState>.fromOpaque(userdata!).takeUnretainedValue()
            state.bufferSize.store(Int(frames), ordering: .relaxed)
            return 0
        }, me)
        _ = jack.setSampleRateCallback(client, { rate, userdata in
            // (jackd2 calls this once when it is set, with the current rate: not a change)
            let state = Unmanaged<JACKClientState>.fromOpaque(userdata!).takeUnretainedValue()
            if rate != state.openedSampleRate { state.deviceWentAway() }
            return 0
        }, me)
        _ = jack.setXrunCallback(client, { userdata in
            Unmanaged<JACKClientState>.fromOpaque(userdata!).takeUnretainedValue().status.xruns.add(1, ordering: .relaxed)
            return 0
        }, me)
        _ = jack.setLatencyCallback(client, { _, userdata in
            Unmanaged<JACKClientState>.fromOpaque(userdata!).takeUnretainedValue().updateLatencies()
        }, me)
        jack.onInfoShutdown(client, { _, _, userdata in
            // (libjack's thread; no JACK call may be made here)
            Unmanaged<JACKClientState>.fromOpaque(userdata!).takeUnretainedValue().deviceWentAway()
        }, me)
    }

    /// Re-reads the ports' latency ranges (the most frames any path takes).
    func updateLatencies() {
        var range: (UInt32, UInt32) = (0, 0)
        var playback = 0
        for k in 0..<outputCount {
            withUnsafeMutableBytes(of: &range) { jack.portGetLatencyRange(outputPortList[k], JACK.playbackLatency, $0.baseAddress!.assumingMemoryBound(to: UInt32.self)) }
            playback = max(playback, Int(range.1))
        }
        var capture = 0
        for k in 0..<inputCount {
            withUnsafeMutableBytes(of: &range) { jack.portGetLatencyRange(inputPortList[k], JACK.captureLatency, $0.baseAddress!.assumingMemoryBound(to: UInt32.self)) }
            capture = max(capture, Int(range.1))
        }
        status.delayFrames.store(playback, ordering: .relaxed)
        status.inputDelayFrames.store(capture, ordering: .relaxed)
    }

    /// The server shut down or changed its rate: the device cannot go on; tell the engine once,
    /// from a thread of ours.
    func deviceWentAway() {
        running.store(false, ordering: .releasing)
        status.failed.store(true, ordering: .relaxed)
        guard !reported.exchange(true, ordering: .relaxed), let handler = handler.withLock({ $0 }) else { return }
        _ = try? DeviceThread(name: "avaudio jack chg") { handler() }
    }

    /// JACK's process thread: one period. No allocation, no lock.
    @inline(__always)
    func process(frames: UInt32) {
        let n = Int(frames)
        for k in 0..<outputCount {
            outputBuffers[k] = jack.portGetBuffer(outputPortList[k], frames)!.assumingMemoryBound(to: Float.self)
        }
        for k in 0..<inputCount {
            inputBuffers[k] = jack.portGetBuffer(inputPortList[k], frames)!.assumingMemoryBound(to: Float.self)
        }
        guard running.load(ordering: .acquiring) else {
            for k in 0..<outputCount { outputBuffers[k].update(repeating: 0, count: n) }
            return
        }
        processThread.store(UInt(pthread_self()), ordering: .relaxed)
        // The first frame is heard after the downstream latency plus this period.
        let ahead = status.delayFrames.load(ordering: .relaxed) + n
        let hostTime = monotonicNanoseconds() &+ UInt64(Double(ahead) / Double(openedSampleRate) * 1e9)
        render(AudioDeviceCycle(output: UnsafePointer(outputBuffers), input: inputCount > 0 ? UnsafePointer(inputBuffers) : nil,
                                frames: n, hostTime: hostTime))
    }
}

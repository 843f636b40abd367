// The JACK device tests' helpers: a private `jackd -d dummy` server (its own server name, so it
// never meets a user's server; only the process started here is stopped), and a small JACK
// client of our own that captures what arrives at its input ports and plays the counter signal
// from its output ports.
import Foundation
import AudioDevices
#if canImport(Glibc)
import Glibc
#endif

extension DeviceComponents {
    static let jack = library("libjack.so.0") && (executable("jackd") != nil || PrivateJACKServer.usesPipeWire)
    /// PipeWire's JACK library (Debian pipewire-jack: a libjack.so.0 of its own, outside the default
    /// library path, which `pw-jack` puts first) and the PipeWire daemon.
    static let pipeWireJACKDirectory = ["/usr/lib/x86_64-linux-gnu/pipewire-0.3/jack", "/usr/lib/aarch64-linux-gnu/pipewire-0.3/jack"]
        .first { FileManager.default.fileExists(atPath: $0 + "/libjack.so.0") }
    static let pipeWireJACK = pipeWireJACKDirectory != nil && executable("pipewire") != nil && executable("pw-metadata") != nil
}

/// Serialises the JACK tests of every suite and test target in this process (and across
/// processes): jackd2's libjack keeps one server connection's shared state per process, so a
/// process with clients on two servers at once (two suites running in parallel, each with its own
/// private server) sees one of them fail. An flock on a file in /tmp; the JACK allocation test
/// takes the same one.
final class JACKTestLock {
    private let fd: Int32
    init() {
        fd = open("/tmp/avaudio-jack-tests.lock", O_CREAT | O_RDWR, 0o666)
        if fd >= 0 { while flock(fd, LOCK_EX) != 0 && errno == EINTR {} }
    }
    func release() {
        guard fd >= 0 else { return }
        flock(fd, LOCK_UN)
        close(fd)
    }
}

/// `jackd -n NAME -r -d dummy -r RATE -p PERIOD`: a non-real-time server on the dummy driver
/// (clocked by a timer, no sound card), with physical ports system:playback_1/2, system:capture_1/2.
final class PrivateJACKServer {
    let name: String
    let rate: Int
    let period: Int
    private var process: ChildProcess?

    /// True in the child process PipeWireJACKTests starts: the JACK tests' server is then a
    /// private PipeWire daemon, reached through PipeWire's libjack (the child's library path).
    static let usesPipeWire = ProcessInfo.processInfo.environment["AVAUDIO_TEST_JACK"] == "pipewire"

    init(name: String? = nil, rate: Int = 48_000, period: Int = 256) throws {
        self.rate = rate
        self.period = period
        if Self.usesPipeWire {
            // PipeWire's libjack names its server by the PipeWire remote: "pipewire-0" in the
            // private runtime directory the parent gave this process (XDG_RUNTIME_DIR).
            self.name = "pipewire-0"
            try startPipeWire()
            return
        }
        self.name = name ?? "avaudio-\(getpid())-\(UUID().uuidString.prefix(6))"
        var environment = ProcessInfo.processInfo.environment
        environment["JACK_NO_AUDIO_RESERVATION"] = "1"   // (no D-Bus device reservation)
        let log = NSTemporaryDirectory() + "jackd-\(self.name).log"
        // (libjack reaches one server per process: wait for the previous test's clients — an
        // engine being released — to close)
        for _ in 0..<100 where !JACK.mayProbe(server: self.name) { usleep(100_000) }
        process = try ChildProcess(DeviceComponents.executable("jackd")!, [
            "-n", self.name, "-r", "-d", "dummy", "-r", "\(rate)", "-p", "\(period)",
        ], environment: environment, stdout: log)
        for _ in 0..<100 {
            if AudioDevices.jackServerRuns(server: self.name) { return }
            guard process?.isRunning == true else { break }
            usleep(100_000)
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        stop()
        throw NSError(domain: "PrivateJACKServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "the private JACK server did not start: \(text.suffix(600))"])
    }

    func stop() {
        process?.stop()
        process = nil
        if !Self.usesPipeWire { removeLeftovers() }
    }

    /// `pipewire` on its own (no session manager: the tests connect ports themselves), its clock
    /// forced to `rate` and `period` frames through the settings metadata, as `pw-metadata -n
    /// settings 0 clock.force-rate` does on a desktop; its Dummy-Driver node clocks the graph.
    private func startPipeWire() throws {
        let environment = ProcessInfo.processInfo.environment
        let log = NSTemporaryDirectory() + "pipewire-\(getpid()).log"
        process = try ChildProcess(DeviceComponents.executable("pipewire")!, [], environment: environment, stdout: log)
        let runtime = environment["XDG_RUNTIME_DIR"] ?? ""
        for _ in 0..<100 where !FileManager.default.fileExists(atPath: runtime + "/pipewire-0") { usleep(50_000) }
        for (key, value) in [("clock.force-rate", rate), ("clock.force-quantum", period)] {
            let setting = try ChildProcess(DeviceComponents.executable("pw-metadata")!, ["-n", "settings", "0", key, "\(value)"],
                                           environment: environment)
            setting.wait()
        }
        for _ in 0..<100 {
            if AudioDevices.jackServerRuns(server: name) { return }
            guard process?.isRunning == true else { break }
            usleep(100_000)
        }
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        stop()
        throw NSError(domain: "PrivateJACKServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "the private PipeWire server did not start: \(text.suffix(600))"])
    }

    /// Kills the server abruptly (SIGKILL), as a crash would.
    func crash() {
        guard let process else { return }
        kill(process.pid, SIGKILL)
        process.stop()
        self.process = nil
    }

    /// A server that was killed (or did not exit within 5 s of SIGTERM) leaves its socket and
    /// semaphores in /dev/shm, named after the server: remove those of this server only.
    private func removeLeftovers() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/dev/shm") else { return }
        for file in names where file.hasPrefix("jack_\(name)_") || file.hasPrefix("jack_sem.0_\(name)_") || file.hasPrefix("jack_sem.\(getuid())_\(name)_") {
            unlink("/dev/shm/\(file)")
        }
    }
}

/// A JACK client of the test's own: two input ports recording into preallocated memory, and two
/// output ports playing the counter signal (left `CounterSignal.left(i)`, right its negation).
final class JACKTestClient: @unchecked Sendable {
    let jack: JACK.Library
    let client: OpaquePointer
    let name: String
    let inputs: [OpaquePointer]
    let outputs: [OpaquePointer]
    let capacity: Int
    let left: UnsafeMutablePointer<Float>
    let right: UnsafeMutablePointer<Float>
    /// Frames recorded (written only by the process thread).
    var count = 0
    /// Frames of counter played.
    var played = 0
    let recording = Atomic<Bool>(false)
    let playing = Atomic<Bool>(false)
    let portList: UnsafeMutablePointer<OpaquePointer>

    let server: String

    init(server: String, name: String = "avaudio-test-peer", seconds: Double) throws {
        self.server = server
        let jack = try JACK.library()
        let client = try jack.open(clientName: name, server: server)
        self.jack = jack
        self.client = client
        self.name = String(cString: jack.clientName(client)!)
        func register(_ port: String, _ flags: UInt) -> OpaquePointer {
            port.withCString { p in JACK.audioType.withCString { jack.portRegister(client, p, $0, flags, 0)! } }
        }
        inputs = [register("in_1", JACK.portIsInput), register("in_2", JACK.portIsInput)]
        outputs = [register("out_1", JACK.portIsOutput), register("out_2", JACK.portIsOutput)]
        portList = .allocate(capacity: 4)
        portList[0] = inputs[0]; portList[1] = inputs[1]; portList[2] = outputs[0]; portList[3] = outputs[1]
        capacity = Int(seconds * 48_000)
        left = .allocate(capacity: capacity); left.initialize(repeating: 0, count: capacity)
        right = .allocate(capacity: capacity); right.initialize(repeating: 0, count: capacity)
        _ = jack.setProcessCallback(client, { frames, userdata in
            Unmanaged<JACKTestClient>.fromOpaque(userdata!).takeUnretainedValue().process(Int(frames))
            return 0
        }, Unmanaged.passUnretained(self).toOpaque())
        guard jack.activate(client) == 0 else { throw NSError(domain: "JACKTestClient", code: 1) }
    }

    private func process(_ frames: Int) {
        let l = jack.portGetBuffer(portList[0], UInt32(frames))!.assumingMemoryBound(to: Float.self)
        let r = jack.portGetBuffer(portList[1], UInt32(frames))!.assumingMemoryBound(to: Float.self)
        let ol = jack.portGetBuffer(portList[2], UInt32(frames))!.assumingMemoryBound(to: Float.self)
        let or = jack.portGetBuffer(portList[3], UInt32(frames))!.assumingMemoryBound(to: Float.self)
        if recording.load(ordering: .acquiring) {
            let n = min(frames, capacity - count)
            if n > 0 {
                (left + count).update(from: l, count: n)
                (right + count).update(from: r, count: n)
                count += n
            }
        }
        if playing.load(ordering: .acquiring) {
            for k in 0..<frames {
                ol[k] = CounterSignal.left(played + k)
                or[k] = -ol[k]
            }
            played += frames
        } else {
            ol.update(repeating: 0, count: frames)
            or.update(repeating: 0, count: frames)
        }
    }

    /// Connects `source` (a full port name) to `destination`.
    @discardableResult
    func connect(_ source: String, _ destination: String) -> Bool {
        jack.connect(client, source, destination) == 0
    }

    /// Stops the client (deactivated and closed); the recording stays readable.
    func close() {
        guard !closed else { return }
        closed = true
        _ = jack.deactivate(client)
        jack.close(client, server: server)
    }
    private var closed = false

    deinit {
        close()
        left.deallocate()
        right.deallocate()
        portList.deallocate()
    }

    func run() -> CounterRun {
        counterRun(UnsafeBufferPointer(start: left, count: count), right: UnsafeBufferPointer(start: right, count: count))
    }
}

import Synchronization

// Shared by the device tests: what is installed, a counter signal whose every frame names its
// own index (so a dropped or repeated frame shows), and a private PulseAudio server.
import Foundation
import AVFoundation
import AudioDevices
#if canImport(Glibc)
import Glibc
#endif

enum DeviceComponents {
    static func library(_ soname: String) -> Bool {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else { return false }
        dlclose(handle)
        return true
    }
    static func executable(_ name: String) -> String? {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let path = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: path) { return path }
        }
        return nil
    }
    static let alsa = library("libasound.so.2")
    static let pulse = library("libpulse.so.0") && executable("pulseaudio") != nil && executable("parec") != nil
}

/// Frame i of the counter: left (i mod 2^22)/2^22 − ½, right its negation. Every value is exact in
/// Float32, and consecutive frames differ by 2^−22, so the frame index can be read back.
enum CounterSignal {
    static let period = 1 << 22
    @inline(__always) static func left(_ i: Int) -> Float { Float(i % period) / Float(period) - 0.5 }
    /// The index (mod 2^22) a left-channel value stands for.
    static func index(of value: Float) -> Int { Int(((Double(value) + 0.5) * Double(period)).rounded()) }

    /// A stereo 48 kHz source node emitting the counter from frame 0.
    static func sourceNode(format: AVAudioFormat) -> AVAudioSourceNode {
        final class Position: @unchecked Sendable { var next = 0 }
        let position = Position()
        return AVAudioSourceNode(format: format) { _, _, frameCount, list in
            let buffers = UnsafeMutableAudioBufferListPointer(list)
            let l = buffers[0].mData!.assumingMemoryBound(to: Float.self)
            let r = buffers[1].mData!.assumingMemoryBound(to: Float.self)
            for k in 0..<Int(frameCount) {
                l[k] = left(position.next + k)
                r[k] = -l[k]
            }
            position.next += Int(frameCount)
            return noErr
        }
    }
}

/// A child process started with posix_spawn and reaped with waitpid (Foundation's Process can
/// hang in waitUntilExit on Linux when several run at once). `stop()` signals only this process.
final class ChildProcess {
    let pid: pid_t

    init(_ executable: String, _ arguments: [String], environment: [String: String], stdout: String? = nil, stderrToo: Bool = false) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, stdout ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if stderrToo { posix_spawn_file_actions_adddup2(&actions, 1, 2) } else { posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0) }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { argv.forEach { free($0) }; envp.forEach { free($0) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        guard status == 0 else {
            throw NSError(domain: NSPOSIXErrorDomain, code: Int(status), userInfo: [NSLocalizedDescriptionKey: "could not start \(executable)"])
        }
        self.pid = pid
    }

    private var reaped = false
    var isRunning: Bool {
        guard !reaped else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { reaped = true }
        return !reaped
    }

    /// Waits for it to exit (at most `seconds`, then stops it); its exit status, nil when it was
    /// stopped or killed by a signal.
    @discardableResult
    func wait(seconds: Double = 10) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        var status: Int32 = 0
        while !reaped && Date() < deadline {
            if waitpid(pid, &status, WNOHANG) == pid { reaped = true; break }
            usleep(10_000)
        }
        guard reaped else { stop(); return nil }
        return (status & 0x7F) == 0 ? (status >> 8) & 0xFF : nil
    }

    /// SIGTERM, then SIGKILL after 5 s; reaps it.
    func stop() {
        guard isRunning else { return }
        kill(pid, SIGTERM)
        for _ in 0..<50 where isRunning { usleep(100_000) }
        if isRunning { kill(pid, SIGKILL) }
        var status: Int32 = 0
        if !reaped { waitpid(pid, &status, 0); reaped = true }
    }
}

/// A user-mode PulseAudio server with a null sink, in its own temporary directory with its own
/// socket (recipe: shared/peers/start-null-audio.sh). `stop()` stops only the process it started.
final class PrivatePulseServer {
    let directory: URL
    let socket: String
    private var process: ChildProcess?
    var server: String { "unix:\(socket)" }

    /// Starts a server in a new temporary directory, or in `directory` (a server restarted at
    /// the same socket after `crash()`).
    init(directory existing: URL? = nil) throws {
        directory = existing ?? URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("avaudio-pulse-\(getpid())-\(UUID().uuidString.prefix(8))")
        for sub in ["config/pulse", "runtime", "state"] {
            try FileManager.default.createDirectory(at: directory.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        chmod(directory.path, 0o700)
        chmod(directory.appendingPathComponent("runtime").path, 0o700)
        socket = directory.appendingPathComponent("native").path
        let conf = directory.appendingPathComponent("config/pulse/daemon.conf")
        try """
        default-sample-rate = 48000
        alternate-sample-rate = 48000
        default-sample-format = float32le
        default-sample-channels = 2
        default-fragments = 2
        default-fragment-size-msec = 5
        realtime-scheduling = no
        exit-idle-time = -1
        flat-volumes = no
        """.write(to: conf, atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_CONFIG"] = conf.path
        environment["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        environment["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("runtime").path
        environment["PULSE_RUNTIME_PATH"] = directory.appendingPathComponent("runtime").path
        environment["PULSE_STATE_PATH"] = directory.appendingPathComponent("state").path
        environment["HOME"] = directory.path
        process = try ChildProcess(DeviceComponents.executable("pulseaudio")!, [
            "-n", "--daemonize=no", "--use-pid-file=no", "--exit-idle-time=-1", "--realtime=no", "--high-priority=no",
            "--disallow-exit=no", "--log-target=file:\(directory.appendingPathComponent("server.log").path)",
            "-L", "module-native-protocol-unix socket=\(socket) auth-anonymous=1",
            "-L", "module-null-sink sink_name=nullsink rate=48000 channels=2 format=float32le sink_properties=device.description=NullSink",
        ], environment: environment)
        for _ in 0..<100 {
            if FileManager.default.fileExists(atPath: socket), AudioDevices.pulseServerAnswers(server: server) { return }
            guard process?.isRunning == true else { break }
            usleep(100_000)
        }
        let log = (try? String(contentsOf: directory.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
        stop()
        throw NSError(domain: "PrivatePulseServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "the private PulseAudio server did not start: \(log.suffix(600))"])
    }

    /// The environment a client (parec) needs to reach this server and no other.
    var clientEnvironment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = server
        environment["HOME"] = directory.path
        environment["XDG_RUNTIME_DIR"] = directory.appendingPathComponent("runtime").path
        return environment
    }

    func stop() {
        process?.stop()
        process = nil
        try? FileManager.default.removeItem(at: directory)
    }

    /// Kills the server abruptly (SIGKILL), as a crash would; the directory stays.
    func crash() {
        guard let process else { return }
        kill(process.pid, SIGKILL)
        process.stop()
        self.process = nil
    }
}

/// What a recording of the counter holds.
struct CounterRun {
    /// Counter frames found (nonzero frames).
    var frames = 0
    /// Where the first nonzero frame is.
    var start = 0
    /// The first frame that does not continue the counter (a dropped or repeated frame, or a
    /// wrong value), nil when none.
    var firstBreak: Int?
    var breakDetail = ""
    /// Runs of silence inside the signal (an underrun: the device played silence, then the
    /// stream went on where it stopped), and their total length.
    var gaps = 0
    var gapFrames = 0
    /// Frames the stream skipped when it resumed after a gap (PulseAudio drops what was due
    /// while it played silence), and how many resumptions skipped.
    var skipsAfterGaps = 0
    var skippedFrames = 0
    /// Every break (not after a gap): how far the counter jumped, in frames (positive: frames
    /// skipped; negative: frames repeated); a value that is not a counter frame counts as a jump
    /// of `Int.min`.
    var jumps: [Int] = []
    /// Where each of `jumps` happened (frame index in the recording).
    var jumpFrames: [Int] = []
}

/// Checks that `left` (a recording of the counter's left channel, delayed, with silence before
/// and after) continues the counter frame after frame: every nonzero frame must be the frame
/// after the previous nonzero one — no frame dropped, none repeated, values bit-exact. Silence
/// inside the signal is reported as gaps (an underrun delays the stream without losing data).
func counterRun(_ left: UnsafeBufferPointer<Float>, right: UnsafeBufferPointer<Float>? = nil) -> CounterRun {
    var run = CounterRun()
    guard let start = left.firstIndex(where: { $0 != 0 }) else { return run }
    var end = left.count
    while end > start, left[end - 1] == 0 { end -= 1 }
    run.start = start
    var expected = CounterSignal.index(of: left[start])
    var inGap = false
    for k in start..<end {
        if left[k] == 0 && (right?[k] ?? 0) == 0 {
            if !inGap { run.gaps += 1; inGap = true }
            run.gapFrames += 1
            continue
        }
        let resumed = inGap
        inGap = false
        let ok = left[k] == CounterSignal.left(expected) && (right.map { $0[k] == -left[k] } ?? true)
        let found = CounterSignal.index(of: left[k])
        if !ok && resumed && left[k] == CounterSignal.left(found) && (right.map { $0[k] == -left[k] } ?? true)
            && (found - expected + CounterSignal.period) % CounterSignal.period < 48_000 {
            run.skipsAfterGaps += 1
            run.skippedFrames += (found - expected + CounterSignal.period) % CounterSignal.period
        } else if !ok {
            if run.firstBreak == nil {
                run.firstBreak = k
                run.breakDetail = "expected counter frame \(expected), found \(CounterSignal.index(of: left[k])) (L \(left[k]), R \(right?[k] ?? .nan))"
            }
            let valid = left[k] == CounterSignal.left(found) && (right.map { $0[k] == -left[k] } ?? true)
            var jump = (found - expected + CounterSignal.period) % CounterSignal.period
            if jump > CounterSignal.period / 2 { jump -= CounterSignal.period }
            run.jumps.append(valid ? jump : Int.min)
            run.jumpFrames.append(k)
        }
        if !ok { expected = found }
        expected = (expected + 1) % CounterSignal.period
        run.frames += 1
    }
    return run
}

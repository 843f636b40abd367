// RealtimeKit, against a RealtimeKit service of the test's own on a private bus: each test starts
// `dbus-daemon --session` (its own socket in /tmp; never the system bus, never a user's session
// bus) and stops only that process. The service (`MockRealtimeKit`, below) owns the name
// org.freedesktop.RealtimeKit1 there and answers as rtkit-daemon's interface describes:
// Properties.Get of MaxRealtimePriority (i) and RTTimeUSecMax (x), and
// MakeThreadRealtimeWithPID(t, t, u), which it records and — when the test runs as root, as
// rtkit-daemon does with its privileges — carries out with sched_setscheduler on that thread.
import Testing
import Foundation
import Synchronization
import AudioDevices
#if canImport(Glibc)
import Glibc
#endif

extension DeviceComponents {
    static let dbus = library("libdbus-1.so.3") && executable("dbus-daemon") != nil
}

/// `dbus-daemon --session` on a socket of its own; `address` is what clients connect to.
final class PrivateDBusDaemon {
    let address: String
    private var process: ChildProcess?

    init() throws {
        let out = NSTemporaryDirectory() + "avaudio-dbus-\(getpid())-\(UUID().uuidString.prefix(6)).address"
        process = try ChildProcess(DeviceComponents.executable("dbus-daemon")!,
                                   ["--session", "--nofork", "--nopidfile", "--print-address=1"],
                                   environment: ["PATH": "/usr/bin:/bin"], stdout: out)
        var address = ""
        for _ in 0..<100 {
            if let text = try? String(contentsOfFile: out, encoding: .utf8), let line = text.split(separator: "\n").first, line.contains(":") {
                address = String(line)
                break
            }
            usleep(50_000)
        }
        try? FileManager.default.removeItem(atPath: out)
        guard !address.isEmpty else {
            process?.stop()
            throw NSError(domain: "PrivateDBusDaemon", code: 1, userInfo: [NSLocalizedDescriptionKey: "dbus-daemon printed no address"])
        }
        self.address = address
    }

    /// SIGKILL: the daemon holds no state worth a clean exit (its session configuration listens
    /// on an abstract socket, which leaves no file), and a test process may block SIGTERM in the
    /// threads that spawn it.
    func stop() {
        if let process { kill(process.pid, SIGKILL); process.stop() }
        process = nil
    }
    deinit { stop() }
}

/// A RealtimeKit service of the test's own (see the top of this file).
final class MockRealtimeKit: @unchecked Sendable {
    struct Call: Equatable { let process: UInt64; let thread: UInt64; let priority: UInt32 }
    let maxPriority: Int32
    let rttimeMax: Int64
    /// The RTTimeUSecMax the mock announces: one hour, not rtkit's 200 ms. RLIMIT_RTTIME is
    /// process-wide, and while these tests run, other suites' device threads run with SCHED_FIFO
    /// in the same process; an ALSA thread on alsa-lib's unpaced `null` PCM never blocks, and with
    /// a 2 s limit the kernel killed the whole test process (SIGKILL) mid-suite. The tests check
    /// that the limit is lowered to the announced value, which any value shows.
    static let rttimeMax: Int64 = 3_600_000_000
    let calls = Mutex<[Call]>([])
    /// What sched_setscheduler returned for each call (0: done; an errno otherwise).
    let applied = Mutex<[Int32]>([])
    private let running = Atomic<Bool>(true)
    private let ready = Atomic<Int>(0)   // 1: owns the name; -1: failed
    private var thread: Thread?

    init(address: String, maxPriority: Int32 = 20, rttimeMax: Int64 = MockRealtimeKit.rttimeMax) throws {
        self.maxPriority = maxPriority
        self.rttimeMax = rttimeMax
        let thread = Thread { [self] in serve(address) }
        self.thread = thread
        thread.start()
        for _ in 0..<200 where ready.load(ordering: .acquiring) == 0 { usleep(10_000) }
        guard ready.load(ordering: .acquiring) == 1 else {
            throw NSError(domain: "MockRealtimeKit", code: 1, userInfo: [NSLocalizedDescriptionKey: "the mock service could not own \(RealtimeKit.name)"])
        }
    }

    func stop() {
        running.store(false, ordering: .releasing)
        for _ in 0..<100 where ready.load(ordering: .acquiring) != 2 { usleep(10_000) }
    }

    private func serve(_ address: String) {
        guard let dbus = try? DBus.library(), let connection = try? dbus.connect(address: address) else {
            ready.store(-1, ordering: .releasing); return
        }
        let error = DBus.ErrorBox(dbus)
        let owned = RealtimeKit.name.withCString { dbus.requestName(connection, $0, DBus.nameFlagDoNotQueue, error.raw) }
        error.free()
        guard owned == DBus.requestNamePrimaryOwner else {
            dbus.disconnect(connection); ready.store(-1, ordering: .releasing); return
        }
        ready.store(1, ordering: .releasing)
        while running.load(ordering: .acquiring) {
            _ = dbus.readWrite(connection, 20)
            while let message = dbus.popMessage(connection) {
                handle(dbus, connection, message)
                dbus.messageUnref(message)
            }
        }
        dbus.disconnect(connection)
        ready.store(2, ordering: .releasing)
    }

    private func handle(_ dbus: DBus.Library, _ connection: OpaquePointer, _ message: OpaquePointer) {
        func isCall(_ interface: String, _ method: String) -> Bool {
            interface.withCString { i in method.withCString { dbus.isMethodCall(message, i, $0) != 0 } }
        }
        let args = DBus.Iterator()
        var values: [UInt64] = []
        var strings: [String] = []
        if dbus.iterInit(message, args.raw) != 0 {
            repeat {
                let type = dbus.iterArgType(args.raw)
                var value: UInt64 = 0
                if type == DBus.typeUInt64 || type == DBus.typeUInt32 {
                    dbus.iterGetBasic(args.raw, &value)
                    values.append(type == DBus.typeUInt32 ? value & 0xFFFF_FFFF : value)
                } else if type == DBus.typeString {
                    var pointer: UnsafePointer<CChar>? = nil
                    dbus.iterGetBasic(args.raw, &pointer)
                    strings.append(pointer.map { String(cString: $0) } ?? "")
                }
            } while dbus.iterNext(args.raw) != 0
        }
        var reply: OpaquePointer?
        if isCall("org.freedesktop.DBus.Properties", "Get"), strings.count == 2, strings[0] == RealtimeKit.name,
           strings[1] == "MaxRealtimePriority" || strings[1] == "RTTimeUSecMax" {
            reply = dbus.newMethodReturn(message)
            if let reply {
                let out = DBus.Iterator(), variant = DBus.Iterator()
                dbus.iterInitAppend(reply, out.raw)
                if strings[1] == "MaxRealtimePriority" {
                    var v = maxPriority
                    _ = "i".withCString { dbus.iterOpenContainer(out.raw, DBus.typeVariant, $0, variant.raw) }
                    _ = dbus.iterAppendBasic(variant.raw, DBus.typeInt32, &v)
                } else {
                    var v = rttimeMax
                    _ = "x".withCString { dbus.iterOpenContainer(out.raw, DBus.typeVariant, $0, variant.raw) }
                    _ = dbus.iterAppendBasic(variant.raw, DBus.typeInt64, &v)
                }
                _ = dbus.iterCloseContainer(out.raw, variant.raw)
            }
        } else if isCall(RealtimeKit.name, "MakeThreadRealtimeWithPID"), values.count == 3 {
            calls.withLock { $0.append(Call(process: values[0], thread: values[1], priority: UInt32(values[2]))) }
            var status: Int32 = EPERM
            if geteuid() == 0 {
                var parameter = sched_param()
                parameter.sched_priority = Int32(values[2])
                // (glibc's sched_setscheduler takes a kernel thread id as its pid)
                status = sched_setscheduler(pid_t(values[1]), SCHED_FIFO, &parameter) == 0 ? 0 : errno
            }
            applied.withLock { $0.append(status) }
            reply = dbus.newMethodReturn(message)
        } else {
            reply = "org.freedesktop.DBus.Error.UnknownMethod".withCString { dbus.newError(message, $0, "not served by the test's service") }
        }
        if let reply {
            _ = dbus.send(connection, reply, nil)
            dbus.connectionFlush(connection)
            dbus.messageUnref(reply)
        }
    }
}

/// Restores RLIMIT_RTTIME after a test lowered it (root may raise it back).
private func withRTTimeRestored<T>(_ body: () throws -> T) rethrows -> T {
    var saved = rlimit()
    getrlimit(rlimitRTTIME, &saved)
    defer { _ = setrlimit(rlimitRTTIME, &saved) }
    return try body()
}

/// A value handed between threads.
private final class Slot<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T?
    var value: T? {
        get { lock.lock(); defer { lock.unlock() }; return stored }
        set { lock.lock(); stored = newValue; lock.unlock() }
    }
}

/// A thread of the test's own that runs `body` with its kernel thread id, and waits for it.
private func onNewThread(_ body: @escaping @Sendable (pid_t) -> Void) {
    let done = Slot<Bool>()
    let thread = Thread {
        body(currentKernelThreadID())
        done.value = true
    }
    thread.start()
    while done.value == nil { usleep(2_000) }
}

extension RealtimeKitRequester {
    var isPending: Bool { outcome.withLock { if case .none = $0 { return true } else { return false } } }
    var failure: AudioDeviceError? { outcome.withLock { if case .failure(let e)? = $0 { return e } else { return nil } } }
}

@Suite("RealtimeKit: real-time scheduling granted over D-Bus", .serialized)
struct RealtimeKitTests {
    @Test("MakeThreadRealtimeWithPID reaches the service with this process, the thread and the priority clamped to MaxRealtimePriority; RLIMIT_RTTIME is lowered to RTTimeUSecMax first",
          .enabled(if: DeviceComponents.dbus, "needs dbus-daemon and libdbus-1.so.3 (Debian: dbus-daemon, libdbus-1-3)"))
    func callReachesTheService() throws {
        let daemon = try PrivateDBusDaemon()
        defer { daemon.stop() }
        let service = try MockRealtimeKit(address: daemon.address, maxPriority: 20)
        defer { service.stop() }
        try withRTTimeRestored {
            let outcome = Slot<(pid_t, Result<Int32, Error>, Int32)>()
            let address = daemon.address
            onNewThread { tid in
                let result = Result<Int32, Error> { try RealtimeKit.makeThreadRealtime(thread: tid, priority: 70, busAddress: address) }
                outcome.value = (tid, result, sched_getscheduler(0))
            }
            let (tid, result, policy) = try #require(outcome.value)
            #expect(try result.get() == 20)
            #expect(service.calls.withLock { $0 } == [MockRealtimeKit.Call(process: UInt64(getpid()), thread: UInt64(tid), priority: 20)])
            var limit = rlimit()
            getrlimit(rlimitRTTIME, &limit)
            #expect(limit.rlim_cur <= rlim_t(MockRealtimeKit.rttimeMax) && limit.rlim_max <= rlim_t(MockRealtimeKit.rttimeMax),
                    "RLIMIT_RTTIME \(limit.rlim_cur)/\(limit.rlim_max)")
            if geteuid() == 0 {
                #expect(service.applied.withLock { $0 } == [0])
                #expect(policy == SCHED_FIFO, "the thread's policy after the call: \(policy)")
            }
        }
    }

    @Test("A device thread whose own SCHED_FIFO request is refused is promoted by the requester, off the device thread; the status then reports real time",
          .enabled(if: DeviceComponents.dbus, "needs dbus-daemon and libdbus-1.so.3 (Debian: dbus-daemon, libdbus-1-3)"))
    func requesterPromotesARefusedThread() throws {
        let daemon = try PrivateDBusDaemon()
        defer { daemon.stop() }
        let service = try MockRealtimeKit(address: daemon.address)
        defer { service.stop() }
        try withRTTimeRestored {
            let status = DeviceStatus()
            status.resetRealTime()
            let requester = try #require(RealtimeKitRequester.startIfUseful(status: status, busAddress: daemon.address))
            let seen = Slot<(pid_t, Bool, Int32)>()
            onNewThread { tid in
                // (as a device thread does on its first cycle; direct: false stands for a refusal)
                RealTimeScheduling.promoteCurrentThread(status, direct: false)
                var waited = 0
                while !status.realTime.load(ordering: .relaxed), waited < 500 { usleep(10_000); waited += 1 }
                seen.value = (tid, status.realTime.load(ordering: .relaxed), sched_getscheduler(0))
            }
            let (tid, promoted, policy) = try #require(seen.value)
            #expect(promoted)
            let published = status.threadID.load(ordering: .relaxed)
            #expect(published == tid)
            #expect(service.calls.withLock { $0 }.map(\.thread) == [UInt64(tid)])
            if let error = requester.failure { Issue.record("the requester failed: \(error)") }
            if geteuid() == 0 { #expect(policy == SCHED_FIFO) }
        }
    }

    @Test("No RealtimeKit on the bus: the requester gives up with a readable error, the thread keeps its priority, nothing hangs",
          .enabled(if: DeviceComponents.dbus, "needs dbus-daemon and libdbus-1.so.3 (Debian: dbus-daemon, libdbus-1-3)"))
    func noServiceLeavesNormalPriority() throws {
        let daemon = try PrivateDBusDaemon()
        defer { daemon.stop() }
        let status = DeviceStatus()
        status.resetRealTime()
        let requester = try #require(RealtimeKitRequester.startIfUseful(status: status, busAddress: daemon.address))
        let started = Date()
        onNewThread { _ in RealTimeScheduling.promoteCurrentThread(status, direct: false) }
        while requester.isPending, Date().timeIntervalSince(started) < 10 { usleep(20_000) }
        guard let error = requester.failure else { Issue.record("expected a failure (pending: \(requester.isPending))"); return }
        #expect("\(error)".contains("RealtimeKit"), "\(error)")
        let realTime = status.realTime.load(ordering: .relaxed)
        #expect(!realTime)
        #expect(Date().timeIntervalSince(started) < 8)
    }

    @Test("A device thread granted SCHED_FIFO directly makes no D-Bus call",
          .enabled(if: DeviceComponents.dbus && geteuid() == 0, "needs root (a direct SCHED_FIFO grant), dbus-daemon and libdbus-1.so.3"))
    func directGrantMakesNoCall() throws {
        let daemon = try PrivateDBusDaemon()
        defer { daemon.stop() }
        let service = try MockRealtimeKit(address: daemon.address)
        defer { service.stop() }
        let status = DeviceStatus()
        status.resetRealTime()
        let requester = try #require(RealtimeKitRequester.startIfUseful(status: status, busAddress: daemon.address))
        onNewThread { _ in RealTimeScheduling.promoteCurrentThread(status, priority: 10) }
        for _ in 0..<300 where requester.isPending { usleep(10_000) }
        let realTime = status.realTime.load(ordering: .relaxed)
        #expect(realTime)
        #expect(service.calls.withLock { $0 }.isEmpty)
    }
}

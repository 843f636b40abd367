// Real-time scheduling through RealtimeKit, how desktops grant it to unprivileged processes.
//
// A device thread first asks for SCHED_FIFO itself (`RealTimeScheduling.promoteCurrentThread`):
// root, CAP_SYS_NICE or an RLIMIT_RTPRIO from /etc/security/limits.d (the `audio` group on
// Debian with jackd2's limits file) grant it. On a desktop without those, the system bus's
// RealtimeKit daemon (rtkit-daemon, Debian package `rtkit`, D-Bus name
// org.freedesktop.RealtimeKit1) grants SCHED_RR… in practice SCHED_FIFO|SCHED_RESET_ON_FORK
// to a thread of a process of the calling user, as PulseAudio, PipeWire and JACK clients ask it.
//
// Interface (rtkit's org.freedesktop.RealtimeKit1.xml; the same as xdg-desktop-portal's
// Realtime portal): MakeThreadRealtimeWithPID(t process, t thread, u priority); properties
// MaxRealtimePriority (i) and RTTimeUSecMax (x), read with org.freedesktop.DBus.Properties.Get.
// rtkit refuses a process whose RLIMIT_RTTIME is unlimited or above RTTimeUSecMax (a runaway
// real-time thread must be killable by the kernel), so the limit is lowered to that value first
// — what PipeWire and WebKit do before calling it.
//
// Threading: the D-Bus call blocks (a round trip to the daemon, up to the timeout), so it never
// runs on the device thread. The device thread publishes its kernel thread id and whether its own
// request was refused (two atomics in `DeviceStatus`, no allocation, no lock); a requester
// thread, started by the control side in `start()` only when RealtimeKit can matter (not root,
// RLIMIT_RTPRIO below the priority asked, libdbus present), waits for that, makes the call, and
// sets `DeviceStatus.realTime` when it succeeds. Failure of any kind (no bus, no daemon, refused)
// leaves the thread at normal priority silently, as a refused direct request does.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// RLIMIT_RTPRIO and RLIMIT_RTTIME (glibc defines them as macros over `enum __rlimit_resource`,
/// which Swift imports only as the enum's cases).
package let rlimitRTPRIO = __rlimit_resource_t(__RLIMIT_RTPRIO.rawValue)
package let rlimitRTTIME = __rlimit_resource_t(__RLIMIT_RTTIME.rawValue)
/// RLIM_INFINITY (all ones; Swift imports the macro as a negative literal it cannot store).
let rlimInfinity = rlim_t.max

/// The calling thread's kernel id: gettid(2), resolved with dlsym (glibc ≥ 2.30 exports it, but
/// its header declaration is not visible to Swift, nor is the variadic syscall(2) it wraps).
/// 0 when unavailable. Resolved on first use: `DeviceStatus.resetRealTime()` touches it on the
/// control thread, so a device thread never pays the dlsym.
package func currentKernelThreadID() -> pid_t {
    KernelThreadID.gettid.map { $0() } ?? 0
}

enum KernelThreadID {
    typealias GetTID = @convention(c) () -> pid_t
    static let gettid: GetTID? = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "gettid").map { unsafeBitCast($0, to: GetTID.self) }
}

package enum RealtimeKit {
    package static let name = "org.freedesktop.RealtimeKit1"
    package static let path = "/org/freedesktop/RealtimeKit1"
    static let timeoutMilliseconds: Int32 = 2_000

    /// Whether asking RealtimeKit may help this process: the direct request would be refused
    /// (not root, RLIMIT_RTPRIO below `priority`) and libdbus loads.
    static func mayHelp(priority: Int32) -> Bool {
        if geteuid() == 0 { return false }
        var limit = rlimit()
        if getrlimit(rlimitRTPRIO, &limit) == 0, limit.rlim_cur == rlimInfinity || limit.rlim_cur >= rlim_t(priority) {
            return false
        }
        return (try? DBus.library()) != nil
    }

    /// Asks the RealtimeKit service on the bus at `busAddress` (nil: the system bus) to run
    /// kernel thread `thread` of this process with SCHED_FIFO at `priority` (clamped to the
    /// service's MaxRealtimePriority). Lowers RLIMIT_RTTIME to the service's RTTimeUSecMax first.
    /// Returns the priority granted; throws an `AudioDeviceError` saying what failed.
    @discardableResult
    package static func makeThreadRealtime(thread: pid_t, priority: Int32, busAddress: String? = nil) throws -> Int32 {
        let dbus = try DBus.library()
        let connection = try dbus.connect(address: busAddress)
        defer { dbus.disconnect(connection) }
        let maximum = Int32(truncatingIfNeeded: try property(dbus, connection, "MaxRealtimePriority"))
        let rttime = try property(dbus, connection, "RTTimeUSecMax")
        guard maximum > 0 else { throw AudioDeviceError(.failed, "RealtimeKit grants no real-time priority (MaxRealtimePriority \(maximum))") }
        if rttime > 0 {
            var limit = rlimit()
            if getrlimit(rlimitRTTIME, &limit) == 0 {
                let wanted = rlim_t(rttime)
                if limit.rlim_max == rlimInfinity || limit.rlim_max > wanted {
                    limit.rlim_cur = wanted
                    limit.rlim_max = wanted
                    _ = setrlimit(rlimitRTTIME, &limit)
                } else if limit.rlim_cur == rlimInfinity || limit.rlim_cur > limit.rlim_max {
                    limit.rlim_cur = limit.rlim_max
                    _ = setrlimit(rlimitRTTIME, &limit)
                }
            }
        }
        let granted = min(priority, maximum)
        guard let call = newCall(dbus, interface: name, method: "MakeThreadRealtimeWithPID") else {
            throw AudioDeviceError(.failed, "D-Bus: could not build the RealtimeKit call")
        }
        defer { dbus.messageUnref(call) }
        let arguments = DBus.Iterator()
        dbus.iterInitAppend(call, arguments.raw)
        var process = UInt64(getpid())
        var tid = UInt64(thread)
        var level = UInt32(granted)
        _ = dbus.iterAppendBasic(arguments.raw, DBus.typeUInt64, &process)
        _ = dbus.iterAppendBasic(arguments.raw, DBus.typeUInt64, &tid)
        _ = dbus.iterAppendBasic(arguments.raw, DBus.typeUInt32, &level)
        _ = try send(dbus, connection, call, what: "MakeThreadRealtimeWithPID(\(process), \(tid), \(level))")
        return granted
    }

    private static func newCall(_ dbus: DBus.Library, interface: String, method: String) -> OpaquePointer? {
        name.withCString { n in path.withCString { p in interface.withCString { i in method.withCString { dbus.newMethodCall(n, p, i, $0) } } } }
    }

    /// Sends `call` and returns the reply (to be unreffed by the caller unless discarded: the
    /// reply of a void method is unreffed here when `keep` is false).
    private static func send(_ dbus: DBus.Library, _ connection: OpaquePointer, _ call: OpaquePointer, what: String, keep: Bool = false) throws -> OpaquePointer? {
        let error = DBus.ErrorBox(dbus)
        defer { error.free() }
        guard let reply = dbus.sendWithReplyAndBlock(connection, call, timeoutMilliseconds, error.raw) else {
            throw AudioDeviceError(.failed, "RealtimeKit: \(what) failed: \(error.message)")
        }
        if keep { return reply }
        dbus.messageUnref(reply)
        return nil
    }

    /// A RealtimeKit property of integer type (i or x), read with org.freedesktop.DBus.Properties.Get.
    private static func property(_ dbus: DBus.Library, _ connection: OpaquePointer, _ property: String) throws -> Int64 {
        guard let call = newCall(dbus, interface: "org.freedesktop.DBus.Properties", method: "Get") else {
            throw AudioDeviceError(.failed, "D-Bus: could not build the Properties.Get call")
        }
        defer { dbus.messageUnref(call) }
        let arguments = DBus.Iterator()
        dbus.iterInitAppend(call, arguments.raw)
        try name.withCString { n in
            try property.withCString { p in
                var a: UnsafePointer<CChar>? = n
                var b: UnsafePointer<CChar>? = p
                guard dbus.iterAppendBasic(arguments.raw, DBus.typeString, &a) != 0,
                      dbus.iterAppendBasic(arguments.raw, DBus.typeString, &b) != 0
                else { throw AudioDeviceError(.failed, "D-Bus: out of memory building a call") }
            }
        }
        guard let reply = try send(dbus, connection, call, what: "reading \(property)", keep: true) else {
            throw AudioDeviceError(.failed, "RealtimeKit: no reply reading \(property)")
        }
        defer { dbus.messageUnref(reply) }
        let top = DBus.Iterator(), inner = DBus.Iterator()
        guard dbus.iterInit(reply, top.raw) != 0, dbus.iterArgType(top.raw) == DBus.typeVariant else {
            throw AudioDeviceError(.failed, "RealtimeKit: \(property) is not a variant")
        }
        dbus.iterRecurse(top.raw, inner.raw)
        let value = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        defer { value.deallocate() }
        value.initializeMemory(as: UInt8.self, repeating: 0, count: 16)
        switch dbus.iterArgType(inner.raw) {
        case DBus.typeInt32:
            dbus.iterGetBasic(inner.raw, value)
            return Int64(value.load(as: Int32.self))
        case DBus.typeInt64:
            dbus.iterGetBasic(inner.raw, value)
            return value.load(as: Int64.self)
        case let other:
            throw AudioDeviceError(.failed, "RealtimeKit: \(property) has D-Bus type \(UnicodeScalar(UInt8(truncatingIfNeeded: other))), not an integer")
        }
    }
}

extension RealTimeScheduling {
    /// On the device thread, before its first cycle: publishes the kernel thread id, asks for
    /// SCHED_FIFO directly (unless `direct` is false: tests reaching the RealtimeKit path as
    /// root), and records the outcome in `status` for a `RealtimeKitRequester`.
    /// Allocation- and lock-free (two syscalls and atomic stores).
    package static func promoteCurrentThread(_ status: DeviceStatus, priority: Int32 = 70, direct: Bool = true) {
        status.threadID.store(Int32(truncatingIfNeeded: currentKernelThreadID()), ordering: .relaxed)
        let granted = direct && requestForCurrentThread(priority: priority)
        status.realTime.store(granted, ordering: .relaxed)
        status.directRealTime.store(granted ? DeviceStatus.directGranted : DeviceStatus.directRefused, ordering: .releasing)
    }
}

/// Asks RealtimeKit for a device thread whose own request was refused (see the top of this file).
/// One short-lived thread per device start; ends after one call, on timeout, or when `cancel()`ed.
package final class RealtimeKitRequester: @unchecked Sendable {
    private let status: DeviceStatus
    private let priority: Int32
    private let busAddress: String?
    private let cancelled = Atomic<Bool>(false)
    /// The outcome, once known (for tests): nil while pending.
    package let outcome = Mutex<Result<Int32, AudioDeviceError>?>(nil)

    /// Starts a requester for `status`'s device thread when RealtimeKit may help (or always when
    /// `busAddress` is given: tests). Returns nil when it cannot help.
    package static func startIfUseful(status: DeviceStatus, priority: Int32 = 70, busAddress: String? = nil) -> RealtimeKitRequester? {
        guard busAddress != nil || RealtimeKit.mayHelp(priority: priority) else { return nil }
        let requester = RealtimeKitRequester(status: status, priority: priority, busAddress: busAddress)
        let box = Unmanaged.passRetained(requester).toOpaque()
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { context in
            let requester = Unmanaged<RealtimeKitRequester>.fromOpaque(context!).takeRetainedValue()
            requester.run()
            return nil
        }, box) == 0 else {
            Unmanaged<RealtimeKitRequester>.fromOpaque(box).release()
            return nil
        }
        pthread_detach(thread)
        return requester
    }

    private init(status: DeviceStatus, priority: Int32, busAddress: String?) {
        self.status = status
        self.priority = priority
        self.busAddress = busAddress
    }

    /// The device stopped: a pending request is dropped.
    package func cancel() { cancelled.store(true, ordering: .relaxed) }

    private func run() {
        // Wait (up to 5 s) for the device thread's first cycle to say how its own request went.
        var waited = 0
        while status.directRealTime.load(ordering: .acquiring) == DeviceStatus.directPending {
            if cancelled.load(ordering: .relaxed) || waited >= 5_000 { finish(.failure(AudioDeviceError(.failed, "the device thread did not start"))); return }
            usleep(5_000)
            waited += 5
        }
        guard status.directRealTime.load(ordering: .acquiring) == DeviceStatus.directRefused, !cancelled.load(ordering: .relaxed) else {
            finish(.success(priority))
            return
        }
        do {
            let granted = try RealtimeKit.makeThreadRealtime(thread: status.threadID.load(ordering: .relaxed), priority: priority, busAddress: busAddress)
            if !cancelled.load(ordering: .relaxed) { status.realTime.store(true, ordering: .relaxed) }
            finish(.success(granted))
        } catch let error as AudioDeviceError {
            finish(.failure(error))
        } catch {
            finish(.failure(AudioDeviceError(.failed, "\(error)")))
        }
    }

    private func finish(_ result: Result<Int32, AudioDeviceError>) {
        outcome.withLock { $0 = result }
    }
}

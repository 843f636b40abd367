// The device thread: one per running device, created with pthreads so that it can ask for
// real-time scheduling. It asks for SCHED_FIFO (priority 70 of 1…99, clamped to what the system
// allows, as JACK and PipeWire clients commonly run); when the process may not (no
// CAP_SYS_NICE, no RLIMIT_RTPRIO), it keeps its normal priority silently and the device reports
// `isRealTime == false` — unless RealtimeKit grants it (RealtimeKit/RealtimeKit.swift).
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

package enum RealTimeScheduling {
    /// Asks for SCHED_FIFO on the calling thread; returns whether it was granted.
    package static func requestForCurrentThread(priority: Int32 = 70) -> Bool {
        let maximum = sched_get_priority_max(SCHED_FIFO)
        let minimum = sched_get_priority_min(SCHED_FIFO)
        guard maximum >= minimum, maximum > 0 else { return false }
        var parameter = sched_param()
        parameter.sched_priority = min(max(priority, minimum), maximum)
        return pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameter) == 0
    }
}

/// A joinable pthread running one closure.
final class DeviceThread {
    private var thread: pthread_t?
    private let threadID = Atomic<UInt>(0)

    private final class Box {
        let body: () -> Void
        init(_ body: @escaping () -> Void) { self.body = body }
    }

    /// Starts `body` on a new thread (`name` is for debugging; Glibc's pthread_setname_np is not
    /// visible to Swift, so it is not applied yet).
    init(name: String, body: @escaping () -> Void) throws {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(&thread, nil, { context in
            let box = Unmanaged<Box>.fromOpaque(context!).takeRetainedValue()
            box.body()
            return nil
        }, box)
        guard status == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw AudioDeviceError(.failed, "could not create the device thread: \(String(cString: strerror(status)))", code: status)
        }
        self.thread = thread
        threadID.store(UInt(thread), ordering: .releasing)
    }

    /// Whether the caller is this thread.
    var isCurrent: Bool { threadID.load(ordering: .acquiring) == UInt(pthread_self()) }

    /// Waits for the thread to end (never from the thread itself: detaches it instead).
    func join() {
        guard let thread else { return }
        self.thread = nil
        if pthread_equal(thread, pthread_self()) != 0 {
            pthread_detach(thread)
        } else {
            pthread_join(thread, nil)
        }
    }
}

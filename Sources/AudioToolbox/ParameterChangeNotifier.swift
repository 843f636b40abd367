// Delivers parameter changes made on the render side to observers, asynchronously, on a control
// thread of its own; also hands out observer tokens.
//
// Design: the render thread must not allocate, lock or call client code, so when an audio unit's
// DSP changes a parameter (`AUParameter.noteRenderValue`) it only stores the value and raises the
// parameter's `renderChanged` flag and the global `pending` flag (atomics). A notifier thread
// wakes every 10 ms — Apple's parameter observers are throttled too — and, when `pending` was
// raised, walks the registered parameters (weak references), clears each raised flag and tells
// the parameter's observers, and its groups', with no lock held. While nothing changes it backs
// off to one look every 80 ms (a change after a quiet spell reaches observers within 80 ms; the
// next ones within 10 ms again). The thread runs only while some node has observers: it starts
// with the first observer added and ends when none is left; it makes a first pass on starting,
// so a flag raised while it was not running is not lost.
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

package final class ParameterChangeNotifier: @unchecked Sendable {
    package static let shared = ParameterChangeNotifier()

    /// Raised (render side) when some parameter's `renderChanged` flag was raised. An instance
    /// property, reached through each parameter's unowned reference to the notifier: a global
    /// would be initialised lazily, which may lock.
    let pending = Atomic<Bool>(false)

    private struct WeakParameter {
        weak var parameter: AUParameter?
    }

    private struct Registry {
        var parameters: [WeakParameter] = []
        var liveAfterLastPrune = 0
        var observerCount = 0
        var threadRunning = false
    }

    private let registry = Mutex(Registry())
    private let nextToken = Atomic<Int>(0)
    /// How often the thread looks for render-side changes while they keep coming, and at most
    /// how long it sleeps when they do not.
    static let interval: useconds_t = 10_000
    static let idleInterval: useconds_t = 80_000

    private init() {}

    /// The current host time: CLOCK_MONOTONIC nanoseconds, the clock of AVFAudio's host times.
    package static func hostTime() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }

    /// A token no other observer has (tokens are compared across a whole tree).
    func makeToken() -> AUParameterObserverToken {
        let n = nextToken.wrappingAdd(1, ordering: .relaxed).newValue
        return UnsafeMutableRawPointer(bitPattern: n)!
    }

    /// Control side, when a parameter is made: registers it for render-side notifications.
    func register(_ parameter: AUParameter) {
        registry.withLock { r in
            r.parameters.append(WeakParameter(parameter: parameter))
            if r.parameters.count > 2 * r.liveAfterLastPrune + 256 {
                r.parameters.removeAll { $0.parameter == nil }
                r.liveAfterLastPrune = r.parameters.count
            }
        }
    }

    func observerAdded() {
        let start = registry.withLock { r -> Bool in
            r.observerCount += 1
            guard !r.threadRunning else { return false }
            r.threadRunning = true
            return true
        }
        if start { startThread() }
    }

    func observersRemoved(_ count: Int) {
        registry.withLock { $0.observerCount -= count }
    }

    private func startThread() {
        let thread = Thread { [self] in
            var first = true
            var sleep = Self.interval
            while true {
                if !first { usleep(sleep) }
                let keepRunning = registry.withLock { r -> Bool in
                    if r.observerCount > 0 { return true }
                    r.threadRunning = false
                    return false
                }
                if first || pending.exchange(false, ordering: .acquiringAndReleasing) {
                    deliver()
                    sleep = Self.interval
                } else {
                    sleep = Swift.min(Self.idleInterval, sleep * 2)
                }
                first = false
                if !keepRunning { return }
            }
        }
        thread.name = "OpenAVFAudio parameter observers"
        thread.start()
    }

    /// Tells observers of every parameter whose value the render side changed.
    private func deliver() {
        let parameters = registry.withLock { r in r.parameters.compactMap { $0.parameter } }
        for p in parameters where p.renderChanged.load(ordering: .relaxed) {
            guard p.renderChanged.exchange(false, ordering: .acquiringAndReleasing) else { continue }
            p.notifyObservers(of: p, value: p.storedValue, originator: nil, hostTime: Self.hostTime(), eventType: .value)
        }
    }
}

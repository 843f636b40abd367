// Events flowing from the render thread back to the control side: completion handlers to call
// and tap audio to deliver. The render thread only pushes plain values into a bounded queue;
// a dispatcher (a thread in real-time mode, the caller of `renderOffline` in offline mode)
// pops them and runs client code, so client blocks never run on the render thread.
//
// Nothing is lost when the queue is full:
// * A completion that does not fit waits in an intrusive list (linked through the completion
//   object itself, so keeping it allocates nothing) and is pushed again, in order, at the start
//   of the next cycle. When rendering stops for good the control side runs what is left.
// * A tap whose notification does not fit keeps its audio in its ring and is notified again at
//   the next cycle (it is never marked "signalled" until the notification is queued).
// Both are counted in `overflows` (`AVAudioEngine.renderEventOverflowCount`), and the control
// side logs a line the first time the count grows after a drain.
import Foundation
import Synchronization

/// Something the control side must do on behalf of the render thread.
enum RenderEvent {
    /// Run a completion (and release the object that carries it).
    case completion(Unmanaged<PendingCompletion>)
    /// Tap audio is waiting in the tap's ring buffer.
    case tapDataAvailable(Unmanaged<TapRenderer>)
    /// A player's control-side command overflow can move into its (now drained) command queue.
    case refillCommands(Unmanaged<PlayerRenderer>)
}

/// A completion handler travelling to the render thread and back: created (and retained) on the
/// control side, referenced unmanaged by the renderer, released on the control side after it ran.
class PendingCompletion {
    let handler: () -> Void
    /// Render-thread link: the next completion waiting for room in the event queue.
    var nextUndelivered: Unmanaged<PendingCompletion>?
    init(_ handler: @escaping () -> Void) { self.handler = handler }
}

final class RenderEventQueue {
    let queue = MPSCQueue<RenderEvent>(capacity: 4096)
    /// The same queue for the render side, reached without a retain.
    private let queueRef: Unmanaged<MPSCQueue<RenderEvent>>
    /// Events that did not fit at once (completions deferred to a later cycle, tap notifications
    /// retried): counted, never blocking.
    let overflows = Atomic<Int>(0)
    /// The overflow count last reported in the log (control side).
    private let reportedOverflows = Atomic<Int>(0)
    /// Held (true) by the one thread draining: the queue has one consumer at a time.
    private let draining = Atomic<Bool>(false)
    // Completions waiting for room (render-thread owned; the control side touches them only
    // while no render is in flight).
    private var undeliveredHead: Unmanaged<PendingCompletion>?
    private var undeliveredTail: Unmanaged<PendingCompletion>?

    init() { queueRef = .passUnretained(queue) }

    /// Render thread: queue a completion; when the queue is full it waits (in order) for the next
    /// `retryUndelivered()`.
    @inline(__always)
    func postCompletion(_ completion: Unmanaged<PendingCompletion>) {
        // (nested ifs, not `&&`: its autoclosure would retain self)
        if undeliveredHead == nil {
            if queueRef._withUnsafeGuaranteedRef({ $0.push(.completion(completion)) }) { return }
        }
        overflows.add(1, ordering: .relaxed)
        completion._withUnsafeGuaranteedRef { $0.nextUndelivered = nil }
        if let tail = undeliveredTail {
            tail._withUnsafeGuaranteedRef { $0.nextUndelivered = completion }
        } else {
            undeliveredHead = completion
        }
        undeliveredTail = completion
    }

    /// Render thread: queue a notification; returns false (counted) when the queue is full.
    @inline(__always)
    func post(_ event: RenderEvent) -> Bool {
        if queueRef._withUnsafeGuaranteedRef({ $0.push(event) }) { return true }
        overflows.add(1, ordering: .relaxed)
        return false
    }

    /// Render thread, at the start of a cycle: push the completions that did not fit before.
    @inline(__always)
    func retryUndelivered() {
        while let head = undeliveredHead {
            guard queueRef._withUnsafeGuaranteedRef({ $0.push(.completion(head)) }) else { return }
            let next = head._withUnsafeGuaranteedRef { $0.nextUndelivered }
            undeliveredHead = next
            if next == nil { undeliveredTail = nil }
        }
    }

    /// Control side: run every queued event. Returns false, doing nothing, when another thread
    /// is draining (or this one, from inside a handler): events are never run twice or nested.
    @discardableResult
    func drain() -> Bool {
        guard !draining.exchange(true, ordering: .acquiring) else { return false }
        defer { draining.store(false, ordering: .releasing) }
        while let event = queue.pop() { run(event) }
        reportOverflows()
        return true
    }

    /// Control side, engine lock held, render gate closed and idle: the completions still waiting
    /// for room in the queue (the caller runs them with `run(_:)` once the lock is released).
    func takeUndelivered() -> [Unmanaged<PendingCompletion>] {
        var list: [Unmanaged<PendingCompletion>] = []
        while let head = undeliveredHead {
            undeliveredHead = head.takeUnretainedValue().nextUndelivered
            list.append(head)
        }
        undeliveredTail = nil
        return list
    }

    /// Control side: run completions taken by `takeUndelivered()`.
    func run(_ completions: [Unmanaged<PendingCompletion>]) {
        for c in completions { run(.completion(c)) }
    }

    private func run(_ event: RenderEvent) {
        switch event {
        case .completion(let completion):
            let object = completion.takeRetainedValue()
            object.handler()
        case .tapDataAvailable(let tap):
            tap.takeUnretainedValue().deliver()
        case .refillCommands(let player):
            player.takeUnretainedValue().refillCommands()
        }
    }

    private func reportOverflows() {
        let count = overflows.load(ordering: .relaxed)
        let reported = reportedOverflows.load(ordering: .relaxed)
        guard count > reported else { return }
        reportedOverflows.store(count, ordering: .relaxed)
        FileHandle.standardError.write(Data("AVAudioEngine: the render event queue was full; \(count - reported) event(s) were deferred to a later cycle (none lost; \(count) in all)\n".utf8))
    }
}

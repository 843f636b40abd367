// The event dispatcher: runs completions and tap deliveries off the render thread.
//
// DESIGN NOTE — who waits for whom, and why nothing deadlocks
// -----------------------------------------------------------
// Threads: client threads (any number), the render thread (the device's, or the caller of
// `renderOffline`/`manualRenderingBlock`), and one dispatcher thread per `start()` in real time.
// Client code runs on all three: public API calls on client threads, completion handlers and
// tap blocks on the dispatcher, source-node and AU render blocks on the render thread.
//
// Locks and waits:
// * The engine's lock (recursive) guards the graph and the running state. It is held only for
//   bookkeeping: never while client code runs, never while waiting for another thread.
// * `RenderGate` (RenderGate.swift) admits one render cycle at a time; `stop()`/`pause()` close
//   it under the lock, release the lock, then wait for the cycle in flight to end — unless they
//   are called from that cycle (a render block), which never waits for itself.
// * The dispatcher is joined by `stop()`/`pause()` outside the lock, so a handler it is running
//   may call anything on the engine (schedule the next buffer, edit the graph, start again).
//   Called *from* a handler (on the dispatcher thread), they mark the dispatcher to stop and
//   return: it finishes the handler, runs what is still queued, and exits.
// * The device thread is stopped (joined) under the lock only once the gate is closed and idle:
//   it can then run no client code and waits on nothing but the clock. A stop called from the
//   device thread itself just tells it to exit after the current callback.
// * The event queue has one consumer at a time (`RenderEventQueue.drain` is a try-acquire): a
//   dispatcher, `stop()` draining what is left, `renderOffline` after its cycle. A drain attempted
//   while another runs (or from inside a handler) returns at once and leaves the events to it.
//
// So every wait is for a thread that cannot be waiting for the waiter: the render cycle waits
// for nothing; the dispatcher's handlers find no lock held by a thread that waits for them; a
// thread never joins itself.
//
// Observable behaviour (as on Apple platforms): after `stop()` or `pause()` returns to a client
// thread, no render callback runs and no tap block or completion handler of that engine runs
// (the dispatcher has been joined and the remaining events have run on the caller's thread).
// Exceptions, called from inside a callback: from a completion handler or tap block, the
// dispatcher finishes the events already queued after the handler returns; from a render block,
// the current cycle finishes.
import Foundation
import Synchronization

/// Runs render events (completions, taps) off the render thread while the engine runs in
/// real time. Polls every 2 ms: a tap buffer or completion is delivered at most about 2 ms after
/// the render thread produced it.
final class EventDispatcher: @unchecked Sendable {
    private let drain: () -> Void
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    // (weak: the thread keeps itself alive while it runs, and its closure holds the dispatcher)
    private weak var thread: Thread?

    /// `drain` runs the engine's queued events (it must not keep the engine alive).
    init(drain: @escaping () -> Void) {
        self.drain = drain
    }

    func start() {
        running.store(true, ordering: .releasing)
        let thread = Thread { [self] in
            while running.load(ordering: .acquiring) {
                drain()
                usleep(2000)
            }
            drain()
            finished.signal()
        }
        thread.name = "OpenAVFAudio events"
        self.thread = thread
        thread.start()
    }

    /// Whether the calling thread is this dispatcher's.
    var isCurrentThread: Bool { Thread.current === thread }

    /// Asks the dispatcher to exit after its current drain, without waiting.
    func requestStop() { running.store(false, ordering: .releasing) }

    /// Stops the dispatcher. From another thread: returns after it ran its last events and exited.
    /// From the dispatcher itself (a handler): returns at once; it exits after the handler.
    func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        if isCurrentThread { return }
        finished.wait()
    }
}

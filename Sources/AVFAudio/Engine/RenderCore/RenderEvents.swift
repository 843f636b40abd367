// Events flowing from the render thread back to the control side: completion handlers to call
// and tap audio to deliver. The render thread only pushes plain values into a bounded queue;
// a dispatcher (a thread in real-time mode, the caller of `renderOffline` in offline mode)
// pops them and runs client code, so client blocks never run on the render thread.
import Synchronization

/// Something the control side must do on behalf of the render thread.
enum RenderEvent {
    /// Run a completion (and release the object that carries it).
    case completion(Unmanaged<PendingCompletion>)
    /// Tap audio is waiting in the tap's ring buffer.
    case tapDataAvailable(Unmanaged<TapRenderer>)
}

/// A completion handler travelling to the render thread and back: created (and retained) on the
/// control side, referenced unmanaged by the renderer, released on the control side after it ran.
class PendingCompletion {
    let handler: () -> Void
    init(_ handler: @escaping () -> Void) { self.handler = handler }
}

final class RenderEventQueue {
    let queue = SPSCQueue<RenderEvent>(capacity: 4096)
    /// Events the render thread could not queue (queue full): counted, never blocking.
    let dropped = Atomic<Int>(0)

    /// Render thread: queue an event.
    @inline(__always)
    func post(_ event: RenderEvent) {
        if !queue.push(event) { dropped.add(1, ordering: .relaxed) }
    }

    /// Control side: run every queued event.
    func drain() {
        while let event = queue.pop() {
            switch event {
            case .completion(let completion):
                let object = completion.takeRetainedValue()
                object.handler()
            case .tapDataAvailable(let tap):
                tap.takeUnretainedValue().deliver()
            }
        }
    }
}

// The event dispatcher: runs completions and tap deliveries off the render thread.
import Foundation
import Synchronization


/// Runs render events (completions, taps) off the render thread while the engine runs in
/// real time. Polls every 2 ms: a tap buffer or completion is
/// delivered at most about 2 ms after the render thread produced it.
final class EventDispatcher {
    private let events: RenderEventQueue
    private let running = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)

    init(events: RenderEventQueue) {
        self.events = events
    }

    func start() {
        running.store(true, ordering: .releasing)
        let thread = Thread { [self] in
            while running.load(ordering: .acquiring) {
                events.drain()
                usleep(2000)
            }
            events.drain()
            finished.signal()
        }
        thread.name = "OpenAVFAudio events"
        thread.start()
    }

    func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        finished.wait()
    }
}

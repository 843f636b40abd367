// A bounded, lock-free, single-producer single-consumer queue of plain values: how the control
// side hands commands to the render thread, and how the render thread hands events back.
//
// Wait-free on both ends: the producer writes the slot then publishes `tail` with release
// ordering; the consumer reads `tail` with acquire ordering, reads the slot, then publishes
// `head`. One slot stays empty to tell full from empty. Elements must be trivial (no reference
// counting on the render thread): pass objects as `Unmanaged`.
import Synchronization

final class SPSCQueue<Element> {
    private let storage: UnsafeMutablePointer<Element?>
    private let capacity: Int
    private let head = Atomic<Int>(0)   // next slot to read (consumer-owned)
    private let tail = Atomic<Int>(0)   // next slot to write (producer-owned)

    /// A queue holding up to `capacity` elements.
    init(capacity: Int) {
        self.capacity = capacity + 1
        storage = .allocate(capacity: capacity + 1)
        storage.initialize(repeating: nil, count: capacity + 1)
    }

    deinit {
        storage.deinitialize(count: capacity)
        storage.deallocate()
    }

    /// Appends `value`; returns false (dropping nothing already queued) when the queue is full.
    @discardableResult
    func push(_ value: Element) -> Bool {
        let t = tail.load(ordering: .relaxed)
        let next = t + 1 == capacity ? 0 : t + 1
        if next == head.load(ordering: .acquiring) { return false }
        storage[t] = value
        tail.store(next, ordering: .releasing)
        return true
    }

    /// Removes and returns the oldest value, or nil when empty.
    func pop() -> Element? {
        let h = head.load(ordering: .relaxed)
        if h == tail.load(ordering: .acquiring) { return nil }
        let value = storage[h]
        storage[h] = nil
        head.store(h + 1 == capacity ? 0 : h + 1, ordering: .releasing)
        return value
    }

    /// True when nothing is queued (a cheap check before `pop`).
    @inline(__always)
    var isEmpty: Bool { head.load(ordering: .acquiring) == tail.load(ordering: .acquiring) }
}

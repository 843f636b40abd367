// The render-event scheduler's queue: the bounded lock-free many-producer queue of
// `MPSCQueue.swift` (same algorithm, see its design note), written out for `RenderEventRequest`
// for the same reason as PlayerCommandQueue.swift: the compiler's real-time check (`@_noLocks`,
// RenderPathProof.swift) reports the generic class's methods, called from an effect's render, as
// unspecialised generic calls; a non-generic queue is proved.
import Synchronization

final class RenderEventRequestQueue {
    typealias Element = RenderEventRequest
    private let slots: UnsafeMutablePointer<Element?>
    private let sequences: UnsafeMutablePointer<Atomic<Int>>
    private let capacity: Int
    private let tail = Atomic<Int>(0)   // next position a producer claims
    private let head = Atomic<Int>(0)   // next position the consumer reads (consumer-owned)

    /// A queue holding up to `capacity` events (rounded up to at least 2).
    init(capacity: Int) {
        self.capacity = max(2, capacity)
        slots = .allocate(capacity: self.capacity)
        slots.initialize(repeating: nil, count: self.capacity)
        sequences = .allocate(capacity: self.capacity)
        for i in 0..<self.capacity { (sequences + i).initialize(to: Atomic(i)) }
    }

    deinit {
        slots.deinitialize(count: capacity)
        slots.deallocate()
        sequences.deinitialize(count: capacity)
        sequences.deallocate()
    }

    /// Appends `value` from any thread; false when full.
    @discardableResult
    func push(_ value: Element) -> Bool {
        var position = tail.load(ordering: .relaxed)
        while true {
            let slot = position % capacity
            let sequence = sequences[slot].load(ordering: .acquiring)
            if sequence == position {
                let (exchanged, original) = tail.compareExchange(expected: position, desired: position + 1, ordering: .relaxed)
                if exchanged {
                    slots[slot] = value
                    sequences[slot].store(position + 1, ordering: .releasing)
                    return true
                }
                position = original
            } else if sequence < position {
                return false
            } else {
                position = tail.load(ordering: .relaxed)
            }
        }
    }

    /// The oldest published event, or nil. One consumer only.
    @inline(__always)
    func pop() -> Element? {
        let position = head.load(ordering: .relaxed)
        let slot = position % capacity
        guard sequences[slot].load(ordering: .acquiring) == position + 1 else { return nil }
        let value = slots[slot]
        slots[slot] = nil
        sequences[slot].store(position + capacity, ordering: .releasing)
        head.store(position + 1, ordering: .relaxed)
        return value
    }

    /// True when nothing is ready to pop.
    @inline(__always)
    var isEmpty: Bool {
        let position = head.load(ordering: .relaxed)
        return sequences[position % capacity].load(ordering: .acquiring) != position + 1
    }
}

// A bounded, lock-free queue of plain values with any number of producers and one consumer:
// how several control threads (a UI thread, a completion handler, a preset load) and the render
// thread itself (`scheduleParameterBlock` called from inside a render block) hand events to the
// one thread that consumes them.
//
// Design (Dmitry Vyukov's bounded MPMC queue, used here with a single consumer): every slot carries
// a sequence number. A producer claims position `p` by a compare-and-exchange on `tail` when slot
// `p % capacity` has sequence `p` (free for this lap), writes the value, then publishes it by
// storing sequence `p + 1` with release ordering. The consumer at position `c` reads the slot when
// its sequence is `c + 1` (acquire), then frees it for the next lap by storing `c + capacity`.
// No locks, no allocation after init; a push fails (returns false) only when the queue is full, and
// the caller decides what "full" means (count it, keep it in an overflow list on the control side).
// A producer that is preempted between claiming and publishing delays the consumer only at that
// slot: `pop` returns nil until it is published, never a torn value.
// Elements must be trivial (no reference counting on the render thread): pass objects as `Unmanaged`.
import Synchronization

final class MPSCQueue<Element> {
    private let slots: UnsafeMutablePointer<Element?>
    private let sequences: UnsafeMutablePointer<Atomic<Int>>
    private let capacity: Int
    private let tail = Atomic<Int>(0)   // next position a producer claims
    private let head = Atomic<Int>(0)   // next position the consumer reads (consumer-owned)

    /// A queue holding up to `capacity` elements (rounded up to at least 2).
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

    /// Appends `value` from any thread; returns false (dropping nothing already queued) when full.
    @discardableResult @inline(__always)
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
                return false   // the slot still holds last lap's value: full
            } else {
                position = tail.load(ordering: .relaxed)
            }
        }
    }

    /// Removes and returns the oldest published value, or nil when none is ready. One consumer only.
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

    /// True when nothing is ready to pop (a cheap check before `pop`).
    @inline(__always)
    var isEmpty: Bool {
        let position = head.load(ordering: .relaxed)
        return sequences[position % capacity].load(ordering: .acquiring) != position + 1
    }
}

// Variable-size render events — MIDI system exclusive (`.midiSysEx`) and MIDI 2.0 event lists
// (`.midiEventList`) — carried from any thread to the render thread without allocating.
//
// DESIGN NOTE — a pool of fixed-size slots, each one a render event
// ----------------------------------------------------------------
// Apple's render-event structs end in their data: an `AUMIDIEvent`'s `data[3]` continues past
// the struct for a system-exclusive message ("length … can be longer for system-exclusive
// events", AUMIDIEvent.length), and an `AUMIDIEventList` ends in a `MIDIEventList` whose packets
// follow one another. Such an event cannot live in the scheduler's fixed array of
// `AURenderEvent`s, so each one gets a slot of `slotBytes` bytes from a pool allocated when the
// scheduler is made (only for units that take MIDI): the producer takes a free slot (a lock-free
// stack: a compare-and-exchange on a head tagged against ABA), copies the bytes to where the
// event's data lives, and queues a normal request naming the slot. On the render thread the slot
// *is* the event: the scheduler fills in its header and links it into the cycle's list. The list
// stays valid until the next one is built; the slots of the previous list go back to the pool
// then (the render thread pushes them: also lock-free). A message longer than a slot, or a push
// that finds the pool empty, is dropped and counted in the scheduler's `dropped`, never blocking.
import Synchronization

final class RenderEventPayloads {
    /// Bytes per slot: an `AUMIDIEventList` header with room for three full packets, or a
    /// system-exclusive message of about 1,000 bytes.
    static let slotBytes = 1024
    let slotCount: Int
    private let memory: UnsafeMutableRawPointer
    /// Free-stack links (slot index + 1; 0 ends the stack), read and written atomically.
    private let links: UnsafeMutablePointer<Atomic<Int32>>
    /// The free stack's head: (tag << 32) | (slot index + 1).
    private let head = Atomic<UInt64>(0)

    init(slotCount: Int) {
        self.slotCount = max(1, slotCount)
        memory = .allocate(byteCount: self.slotCount * RenderEventPayloads.slotBytes, alignment: 16)
        memory.initializeMemory(as: UInt8.self, repeating: 0, count: self.slotCount * RenderEventPayloads.slotBytes)
        links = .allocate(capacity: self.slotCount)
        for i in 0..<self.slotCount { (links + i).initialize(to: Atomic(Int32(i + 1 < self.slotCount ? i + 2 : 0))) }
        head.store(1, ordering: .relaxed)   // slot 0, tag 0
    }

    deinit {
        links.deinitialize(count: slotCount)
        links.deallocate()
        memory.deallocate()
    }

    /// The slot's memory (an `AURenderEvent` followed by its data).
    @inline(__always)
    func slot(_ index: Int32) -> UnsafeMutableRawPointer { memory + Int(index) * RenderEventPayloads.slotBytes }

    /// Any thread: a free slot, or nil when every slot is in use.
    func take() -> Int32? {
        var current = head.load(ordering: .acquiring)
        while true {
            let index = Int32(truncatingIfNeeded: current & 0xFFFF_FFFF) - 1
            if index < 0 { return nil }
            let next = UInt64(UInt32(bitPattern: links[Int(index)].load(ordering: .relaxed)))
            let desired = ((current >> 32) &+ 1) << 32 | next
            let (exchanged, original) = head.compareExchange(expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged { return index }
            current = original
        }
    }

    /// Any thread (the render thread, once the event was delivered): gives a slot back.
    func give(_ index: Int32) {
        var current = head.load(ordering: .relaxed)
        while true {
            links[Int(index)].store(Int32(truncatingIfNeeded: current & 0xFFFF_FFFF), ordering: .relaxed)
            let desired = ((current >> 32) &+ 1) << 32 | UInt64(index + 1)
            let (exchanged, original) = head.compareExchange(expected: current, desired: desired, ordering: .acquiringAndReleasing)
            if exchanged { return }
            current = original
        }
    }

    // MARK: the two kinds of payload

    /// Where a system-exclusive message's bytes start in a slot (the `data` field of `AUMIDIEvent`).
    static let sysExDataOffset = MemoryLayout<AUMIDIEvent>.offset(of: \AUMIDIEvent.data)!
    /// The longest system-exclusive message a slot holds.
    static let maximumSysExBytes = slotBytes - sysExDataOffset
    /// Where the `MIDIEventList` starts in a slot.
    static let eventListOffset = MemoryLayout<AUMIDIEventList>.offset(of: \AUMIDIEventList.eventList)!

    /// The bytes a `MIDIEventList` occupies (its packets follow one another, 4-byte packed), or nil
    /// when it would not fit in `limit` bytes.
    static func byteCount(of list: UnsafePointer<MIDIEventList>, limit: Int) -> Int? {
        let headerBytes = 8                            // protocol, numPackets
        let packetHeaderBytes = 12                     // timeStamp, wordCount
        var bytes = headerBytes
        let packets = Int(list.pointee.numPackets)
        var packet = UnsafeRawPointer(list) + headerBytes
        var p = 0
        while p < packets {
            let words = Int(packet.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
            guard words <= 64 else { return nil }
            let size = packetHeaderBytes + 4 * words
            bytes += size
            if bytes > limit { return nil }
            packet += size
            p += 1
        }
        // (an empty list still occupies its declared first packet's header)
        return max(bytes, headerBytes + packetHeaderBytes)
    }
}

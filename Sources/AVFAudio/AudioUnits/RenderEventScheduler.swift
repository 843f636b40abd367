// The one render-event scheduler of every audio unit: parameter changes, MIDI messages and
// schedule commands travelling from any thread to the render thread, applied in time order.
//
// DESIGN NOTE — many producers, one consumer, time order, no allocation
// ---------------------------------------------------------------------
// Producers are any threads: a UI thread setting `AUParameter.value`, `scheduleParameterBlock`
// or `scheduleMIDIEventBlock` called from inside another unit's render block, a preset load.
// Each pushes a plain `RenderEventRequest` into a bounded lock-free `MPSCQueue`; nothing blocks
// and nothing allocates. A push that finds the queue full is counted in `dropped`.
//
// The render thread, at the start of each cycle (`collect`), pops everything that arrived and
// resolves its time against this cycle — an immediate event (`AUEventSampleTimeImmediate` + n)
// becomes the cycle's start + n, a host time becomes the sample it corresponds to, a sample time
// stays — then inserts it into a preallocated, time-ordered pending list (insertion sort in a
// fixed-capacity array; events of equal time keep their arrival order). Events that do not fit
// are counted in `dropped`. Because the list is sorted by resolved time, the order in which
// events arrive does not matter, and an immediate event is never held up behind one scheduled
// for later (the failure of a plain FIFO whose head is a future event).
//
// Consumers then take the events due in the cycle as Apple's `AURenderEvent` linked list
// (`eventList`, built in preallocated nodes): client units' internal render blocks, the built-in
// effects (EffectKernel.render splits the cycle at each event) and the time effects all read the
// same list. An event whose time
// is already past (scheduled for a sample the unit has rendered) is due at the cycle's first frame.
//
// Storage: the pending list is sorted with the earliest event last, so taking the next event is a
// decrement; inserting shifts the later part (bounded by `capacity`, a few hundred events at most
// in practice).
import Synchronization

/// An event on its way to the render thread: a parameter change or a MIDI message, with the time
/// as the producer gave it.
struct RenderEventRequest {
    /// Absolute sample time on the unit's timeline, or `AUEventSampleTimeImmediate` + offset, or
    /// a host time marked with `hostTimeFlag`.
    var time: AUEventSampleTime
    var type: AURenderEventType
    var address: AUParameterAddress = 0
    var value: AUValue = 0
    var ramp: AUAudioFrameCount = 0
    /// MIDI: cable, length (≤ 3 bytes here) and bytes.
    var cable: UInt8 = 0
    var length: UInt8 = 0
    var bytes: (UInt8, UInt8, UInt8) = (0, 0, 0)
    /// `.midiSysEx` and `.midiEventList`: the payload slot holding the event (RenderEventPayloads.swift)
    /// and, for system exclusive, the message's length.
    var slot: Int32 = -1
    var payloadLength: UInt16 = 0

    static func parameter(_ address: AUParameterAddress, _ value: AUValue, at time: AUEventSampleTime, ramp: AUAudioFrameCount) -> RenderEventRequest {
        RenderEventRequest(time: time, type: ramp > 0 ? .parameterRamp : .parameter, address: address, value: value, ramp: ramp)
    }

    /// The event's absolute sample time, for a cycle starting at `cycleStart` (sample time) and
    /// `hostTime`, at the unit's `sampleRate`.
    @inline(__always)
    func sampleTime(cycleStart: Int64, hostTime: UInt64, sampleRate: Double) -> Int64 {
        if time >= AUEventSampleTimeImmediate && time < AUEventSampleTimeImmediate &+ (1 << 31) {
            return cycleStart + (time &- AUEventSampleTimeImmediate)
        }
        // (AudioToolbox's `hostTimeFlag` as a literal: reading another module's global goes
        // through its lazy initialiser, which the real-time check cannot see into)
        let flag = AUEventSampleTime(0x4000_0000_0000_0000)
        if time & flag != 0 && time > 0 {
            let host = UInt64(time & ~flag)
            let seconds = (Double(host) - Double(hostTime)) * 1e-9
            // (rounded half away from zero, as `rounded()`, written out: the rounding-rule enum
            // is metadata the real-time check rejects)
            let frames = seconds * sampleRate
            return cycleStart + Int64(frames + (frames >= 0 ? 0.5 : -0.5))
        }
        return time
    }
}

/// An event in the pending list: its resolved sample time and the request.
struct ScheduledRenderEvent {
    var sampleTime: Int64
    var request: RenderEventRequest
}

final class RenderEventScheduler {
    private let queue: RenderEventRequestQueue
    /// The queue, for the render thread (`queue` keeps it alive; calling through the stored
    /// reference would retain it).
    private let queueRef: Unmanaged<RenderEventRequestQueue>
    /// Pending events, latest first (the next due is at `count - 1`). Render thread only.
    private let pending: UnsafeMutablePointer<ScheduledRenderEvent>
    private var count = 0
    /// How many events the pending list holds.
    let capacity: Int
    /// Nodes of the `AURenderEvent` list handed to internal render blocks (one cycle's worth).
    private let nodes: UnsafeMutablePointer<AURenderEvent>
    /// Events lost because the queue or the pending list was full (never blocking).
    let dropped = Atomic<Int>(0)
    /// Slots for system-exclusive messages and MIDI event lists (nil: the unit takes no MIDI).
    let payloads: RenderEventPayloads?
    private let payloadsRef: Unmanaged<RenderEventPayloads>?
    /// The slots linked into the last event list (returned to the pool when the next is built).
    private let deliveredSlots: UnsafeMutablePointer<Int32>
    private var deliveredCount = 0
    /// Render thread: the frames the unit renders in the current engine cycle on its own
    /// timeline, when it sits in another rate domain than the engine's output (behind a mixer
    /// input's rate converter), set by the render plan before the cycle's steps run; `windowCycle`
    /// is the output sample time of the cycle it was set for. The sequencer reads it to send the
    /// unit exactly the events of the frames it is about to render (SequencerRenderer.swift, "Rates").
    var windowCycle: Int64 = .min
    var windowStart: Int64 = 0
    var windowFrames = 0

    /// - Parameter payloadSlots: slots for variable-size MIDI events (0 for units without MIDI).
    init(capacity: Int = 4096, payloadSlots: Int = 0) {
        let payloads = payloadSlots > 0 ? RenderEventPayloads(slotCount: payloadSlots) : nil
        self.payloads = payloads
        payloadsRef = payloads.map { .passUnretained($0) }
        deliveredSlots = .allocate(capacity: max(1, payloadSlots))
        self.capacity = max(2, capacity)
        queue = RenderEventRequestQueue(capacity: self.capacity)
        queueRef = .passUnretained(queue)
        pending = .allocate(capacity: self.capacity)
        nodes = .allocate(capacity: self.capacity)
        nodes.initialize(repeating: AURenderEvent(), count: self.capacity)
    }

    deinit {
        pending.deallocate()
        nodes.deallocate()
        deliveredSlots.deallocate()
    }

    // MARK: producers (any thread)

    /// Queues an event; false (and counted in `dropped`) when the queue is full. Real-time safe
    /// (the sequencer pushes from the render thread): the queue is reached unretained.
    @discardableResult
    func push(_ request: RenderEventRequest) -> Bool {
        if queueRef._withUnsafeGuaranteedRef({ $0.push(request) }) { return true }
        dropped.add(1, ordering: .relaxed)
        release(request)
        return false
    }

    /// Queues a system-exclusive message (`F0 … F7`, copied); false (counted) when it does not fit
    /// a payload slot, no slot is free, or the unit takes no MIDI.
    @discardableResult
    func pushSysEx(at time: AUEventSampleTime, cable: UInt8, bytes: UnsafePointer<UInt8>, length: Int) -> Bool {
        guard let payloads, length > 0, length <= RenderEventPayloads.maximumSysExBytes, let slot = payloads.take() else {
            dropped.add(1, ordering: .relaxed)
            return false
        }
        (payloads.slot(slot) + RenderEventPayloads.sysExDataOffset).copyMemory(from: bytes, byteCount: length)
        var r = RenderEventRequest(time: time, type: .midiSysEx)
        r.cable = cable
        r.slot = slot
        r.payloadLength = UInt16(length)
        return push(r)
    }

    /// `pushSysEx` for the render thread (the sequencer delivers a track's sysex events from
    /// there): the payload pool is reached unretained, and the layout constants come from the
    /// caller (`RenderEventPayloads.sysExDataOffset` and `.maximumSysExBytes`, read on the control
    /// side: a static's lazy initialisation may lock).
    @discardableResult
    func pushSysExFromRenderThread(at time: AUEventSampleTime, bytes: UnsafePointer<UInt8>, length: Int,
                                   dataOffset: Int, maximumLength: Int) -> Bool {
        guard let ref = payloadsRef, length > 0, length <= maximumLength else {
            dropped.add(1, ordering: .relaxed)
            return false
        }
        guard let slot = ref._withUnsafeGuaranteedRef({ $0.take() }) else {
            dropped.add(1, ordering: .relaxed)
            return false
        }
        ref._withUnsafeGuaranteedRef { ($0.slot(slot) + dataOffset).copyMemory(from: bytes, byteCount: length) }
        var r = RenderEventRequest(time: time, type: .midiSysEx)
        r.slot = slot
        r.payloadLength = UInt16(length)
        return push(r)
    }

    /// Queues a MIDI event list (copied); false (counted) when it does not fit a payload slot, no
    /// slot is free, or the unit takes no MIDI.
    @discardableResult
    func pushEventList(at time: AUEventSampleTime, cable: UInt8, list: UnsafePointer<MIDIEventList>) -> Bool {
        let room = RenderEventPayloads.slotBytes - RenderEventPayloads.eventListOffset
        guard let payloads, let bytes = RenderEventPayloads.byteCount(of: list, limit: room), let slot = payloads.take() else {
            dropped.add(1, ordering: .relaxed)
            return false
        }
        (payloads.slot(slot) + RenderEventPayloads.eventListOffset).copyMemory(from: list, byteCount: bytes)
        var r = RenderEventRequest(time: time, type: .midiEventList)
        r.cable = cable
        r.slot = slot
        return push(r)
    }

    /// Gives back the payload slot of a request that will not be delivered.
    @inline(__always)
    private func release(_ request: RenderEventRequest) {
        if request.slot >= 0 {
            if let payloads = payloadsRef {
                let slot = request.slot
                payloads._withUnsafeGuaranteedRef { $0.give(slot) }
            }
        }
    }

    /// Queues a parameter change.
    @discardableResult
    func schedule(address: AUParameterAddress, value: AUValue, at time: AUEventSampleTime, ramp: AUAudioFrameCount) -> Bool {
        push(.parameter(address, value, at: time, ramp: ramp))
    }

    // MARK: the render thread

    /// Start of a cycle: moves every newly arrived event into the time-ordered pending list,
    /// resolving its time against this cycle (`cycleStart`, `hostTime`, the unit's `sampleRate`).
    @inline(__always)
    func collect(cycleStart: Int64, hostTime: UInt64, sampleRate: Double) {
        if queueRef._withUnsafeGuaranteedRef({ $0.isEmpty }) { return }
        collectSlow(cycleStart: cycleStart, hostTime: hostTime, sampleRate: sampleRate)
    }

    private func collectSlow(cycleStart: Int64, hostTime: UInt64, sampleRate: Double) {
        while let request = queueRef._withUnsafeGuaranteedRef({ $0.pop() }) {
            insert(ScheduledRenderEvent(sampleTime: request.sampleTime(cycleStart: cycleStart, hostTime: hostTime, sampleRate: sampleRate),
                                        request: request))
        }
    }

    private func insert(_ event: ScheduledRenderEvent) {
        guard count < capacity else { dropped.add(1, ordering: .relaxed); release(event.request); return }
        // Latest first; an event goes after (nearer the end than) every later event and before
        // every event of the same or an earlier time it meets... so that equal times keep
        // arrival order: earlier arrivals sit nearer the end and are taken first.
        // (a `break`, not `&&`: its autoclosure would capture, and so retain, self)
        var i = count
        while i > 0 {
            if pending[i - 1].sampleTime > event.sampleTime { break }
            i -= 1
        }
        var j = count
        while j > i {
            pending[j] = pending[j - 1]
            j -= 1
        }
        pending[i] = event
        count += 1
    }

    /// Whether an event is pending.
    @inline(__always)
    var isEmpty: Bool { count == 0 }

    /// Takes the next event if it is due before `end` (its time < `end`).
    @inline(__always)
    func popDue(before end: Int64) -> ScheduledRenderEvent? {
        guard count > 0, pending[count - 1].sampleTime < end else { return nil }
        count -= 1
        return pending[count]
    }

    /// Takes every event due before `end` and links them, in time order, as Apple's
    /// `AURenderEvent` list (nil when none). Times before `cycleStart` become `cycleStart`. The
    /// list stays valid until the next call.
    func eventList(before end: Int64, cycleStart: Int64) -> UnsafePointer<AURenderEvent>? {
        // The previous list's payload slots go back to the pool (that list is no longer valid).
        if deliveredCount > 0, let payloads = payloadsRef {
            var i = 0
            while i < deliveredCount {
                let slot = deliveredSlots[i]
                payloads._withUnsafeGuaranteedRef { $0.give(slot) }
                i += 1
            }
            deliveredCount = 0
        }
        var first: UnsafeMutablePointer<AURenderEvent>?
        var last: UnsafeMutablePointer<AURenderEvent>?
        var n = 0
        while n < capacity, let e = popDue(before: end) {
            let time = max(cycleStart, e.sampleTime)
            let r = e.request
            var node = nodes + n
            if r.slot >= 0, let payloads = payloadsRef {
                // The slot is the event: fill in its header around the data the producer copied.
                let slot = r.slot
                node = payloads._withUnsafeGuaranteedRef { $0.slot(slot) }.assumingMemoryBound(to: AURenderEvent.self)
                deliveredSlots[deliveredCount] = slot
                deliveredCount += 1
                if r.type == .midiSysEx {
                    var midi = node.pointee.MIDI
                    midi.next = nil
                    midi.eventSampleTime = time
                    midi.eventType = .midiSysEx
                    midi.reserved = 0
                    midi.length = r.payloadLength
                    midi.cable = r.cable
                    node.pointee.MIDI = midi
                } else {
                    var list = node.pointee.MIDIEventsList
                    list.next = nil
                    list.eventSampleTime = time
                    list.eventType = .midiEventList
                    list.reserved = 0
                    list.cable = r.cable
                    node.pointee.MIDIEventsList = list
                }
                if let last { last.pointee.head.next = node } else { first = node }
                last = node
                continue
            }
            switch r.type {
            case .parameter, .parameterRamp:
                node.pointee.parameter = AUParameterEvent(next: nil, eventSampleTime: time, eventType: r.type, reserved: (0, 0, 0),
                                                          rampDurationSampleFrames: r.ramp, parameterAddress: r.address, value: r.value)
            default:
                var midi = AUMIDIEvent()
                midi.eventSampleTime = time
                midi.eventType = r.type
                midi.length = UInt16(r.length)
                midi.cable = r.cable
                midi.data = r.bytes
                node.pointee.MIDI = midi
            }
            node.pointee.head.next = nil
            if let last { last.pointee.head.next = node } else { first = node }
            last = node
            n += 1
        }
        return first.map { UnsafePointer($0) }
    }

    /// Drops every pending event (render thread, or control side with rendering stopped).
    func removeAll() {
        while let request = queueRef._withUnsafeGuaranteedRef({ $0.pop() }) { release(request) }
        while count > 0 {
            count -= 1
            release(pending[count].request)
        }
    }
}

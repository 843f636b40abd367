// The sequencer's render side: turning beats into sample times, one render cycle at a time.
//
// DESIGN NOTE — what runs where, and why nothing drifts
// -----------------------------------------------------
// Control side (AVAudioSequencer, any thread, the sequencer's lock held): every edit, every
// change of a track's destination, loop, offset, mute or solo, and `prepareToPlay()` compile a
// `SequencerProgram` — per audible track a fixed array of prepared events (MIDI bytes, parameter
// changes, user-event indices) sorted by beat, each note already split into its note-on and its
// note-off, the destination unit's render-event scheduler as an unretained reference, the loop
// and offset; and the tempo map as a fixed array of segments. The program is published with an
// atomic exchange, exactly as the engine publishes render plans; the render thread adopts it at
// its next cycle and hands the old one back through a lock-free ring, and the control side frees
// it (never the render thread).
//
// Render side (`renderCycle`, called by the engine at the start of every cycle, before the plan
// renders): no lock, no allocation, no reference counting. Playback is anchored: at the cycle
// where playback starts (or is repositioned, or changes rate) the renderer records the anchor —
// a sample time and the sequence time in seconds there. An event at beat b then plays at sample
//     anchorSample + round((seconds(b) − anchorSeconds) · sampleRate / rate)
// computed from scratch for each event: nothing accumulates from cycle to cycle, so an hour of
// playback lands every event exactly where the formula puts it (no drift), and the result does
// not depend on how the timeline is cut into cycles (offline rendering is the same whatever the
// chunk sizes). A cycle [s, s+n) looks for events between the beats of samples s−1 and s+n+1
// and keeps those whose sample falls in [s, s+n): each event is claimed by exactly one cycle.
// Looping tracks unroll their loop in beat space (pass k of the loop is shifted by k loop
// lengths), so a loop's millionth pass is computed as exactly as its first.
//
// Delivery: each event is pushed into its destination unit's `RenderEventScheduler` (the same
// lock-free queue `scheduleMIDIEventBlock` uses; sysex messages through its payload slots) with its absolute sample time; the unit collects
// it when its own render starts in this same cycle and hands it to its internal render block at
// the exact frame offset.
//
// Rates. A destination renders on its own timeline: behind a mixer input's rate converter (an
// AVAudioUnitSampler connected with its default 44.1 kHz format to a mixer that plays at the
// device's 48 kHz) its sample times count its own frames, the input the converter consumed. Both
// timelines start together at the engine's start — but the converter pulls its input ahead of the output (its filter's
// look-ahead, whole input cycles), so such a destination's cycle is not the output cycle scaled.
// The converter is timed so that output frame t plays input frame t · inputRate / outputRate; an
// event at output position x belongs on the destination's frame round(x · destinationRate /
// outputRate). So the render plan, once it knows how many frames each rate domain renders in
// the cycle, tells each unit outside the output's domain its window (first frame, count) on its
// timeline, and the sequencers run then: for such a unit a track sends the events whose frame
// falls in that window — ahead of the output, as the unit renders ahead — and every event is
// sent once, as consecutive windows tile the timeline. When playback starts (or seeks) the unit
// has already rendered past the anchor by the converter's look-ahead: the events between the
// anchor and the window then go out on the window's first frame (a few milliseconds late, once). (Without a window, e.g. a destination the
// plan does not render, its events carry host times, which its scheduler resolves against its own
// cycle.) Found on 2026-12-07: a 1 s note through AVMIDIPlayer on a 48 kHz device lasted
// 48/44.1 s, as the destination read output sample times as its own.
//
// User events go back to the control side through a bounded single-producer ring, drained by
// the sequencer's delivery timer, which calls the client's callback (never on the render thread).
import Foundation
import MIDIFiles
import Synchronization

/// One event as the render thread plays it.
struct PreparedSequencerEvent {
    enum Kind: UInt8 { case midi, parameter, user, sysex }
    /// Beat on the track's own timeline (before offset and loop).
    var beat: Double
    var kind: Kind
    var length: UInt8 = 0
    var bytes: (UInt8, UInt8, UInt8) = (0, 0, 0)
    var address: AUParameterAddress = 0
    var value: AUValue = 0
    /// User events: the index in the program's user-event table. Sysex: the message's offset in
    /// the program's sysex bytes.
    var userIndex: Int32 = 0
    /// Sysex: the message's length.
    var sysexLength: UInt16 = 0
}

/// A track as the render thread plays it.
struct PreparedSequencerTrack {
    var events: UnsafeMutableBufferPointer<PreparedSequencerEvent>
    /// The destination's scheduler (kept alive by the program).
    var scheduler: Unmanaged<RenderEventScheduler>?
    var offset: Double
    /// Loop: start and length in beats, and how many passes (-1 forever; 0: not looping).
    var loopStart: Double
    var loopLength: Double
    var passes: Int
    var trackIndex: Int32
    /// The destination's sample rate (0: unknown, taken as the engine output's). Events are
    /// delivered on the destination's own timeline (see "Rates" in the design note).
    var destinationRate: Double = 0
}

/// What the render thread plays: built on the control side, immutable once published.
final class SequencerProgram {
    let tempo: UnsafeMutableBufferPointer<TempoMap.Segment>
    let tracks: UnsafeMutableBufferPointer<PreparedSequencerTrack>
    /// The schedulers every track delivers to (each once), kept alive here.
    let schedulers: [RenderEventScheduler]
    let schedulerList: UnsafeMutableBufferPointer<Unmanaged<RenderEventScheduler>>
    /// Each of `schedulerList`'s destination rates (0: the engine output's).
    let schedulerRates: UnsafeMutableBufferPointer<Double>
    /// User events: the track and data to give the callback.
    let userEvents: [(track: AVMusicTrack, data: Data)]
    /// Every sysex message of every track, back to back.
    let sysexBytes: UnsafeMutableBufferPointer<UInt8>
    /// The payload slots' layout (statics read here, on the control side).
    let sysexDataOffset = RenderEventPayloads.sysExDataOffset
    let maximumSysExBytes = RenderEventPayloads.maximumSysExBytes

    init(tempo: TempoMap, tracks: [(events: [PreparedSequencerEvent], scheduler: RenderEventScheduler?, offset: Double,
                                    loopStart: Double, loopLength: Double, passes: Int, index: Int, rate: Double)],
         userEvents: [(track: AVMusicTrack, data: Data)], sysexBytes: [UInt8] = []) {
        self.sysexBytes = .allocate(capacity: max(1, sysexBytes.count))
        _ = self.sysexBytes.initialize(from: sysexBytes)
        self.tempo = .allocate(capacity: tempo.segments.count)
        _ = self.tempo.initialize(from: tempo.segments)
        self.tracks = .allocate(capacity: tracks.count)
        var unique: [RenderEventScheduler] = []
        for (i, t) in tracks.enumerated() {
            let events = UnsafeMutableBufferPointer<PreparedSequencerEvent>.allocate(capacity: max(1, t.events.count))
            _ = events.initialize(from: t.events)
            if let s = t.scheduler, !unique.contains(where: { $0 === s }) { unique.append(s) }
            self.tracks.baseAddress!.advanced(by: i).initialize(to: PreparedSequencerTrack(
                events: UnsafeMutableBufferPointer(rebasing: events[0 ..< t.events.count]),
                scheduler: t.scheduler.map { .passUnretained($0) }, offset: t.offset,
                loopStart: t.loopStart, loopLength: t.loopLength, passes: t.passes, trackIndex: Int32(t.index),
                destinationRate: t.rate))
        }
        schedulers = unique
        let list = UnsafeMutableBufferPointer<Unmanaged<RenderEventScheduler>>.allocate(capacity: max(1, unique.count))
        schedulerList = UnsafeMutableBufferPointer(rebasing: list[0 ..< unique.count])
        for (i, s) in unique.enumerated() { schedulerList.baseAddress!.advanced(by: i).initialize(to: .passUnretained(s)) }
        let rates = UnsafeMutableBufferPointer<Double>.allocate(capacity: max(1, unique.count))
        schedulerRates = UnsafeMutableBufferPointer(rebasing: rates[0 ..< unique.count])
        for (i, s) in unique.enumerated() {
            schedulerRates.baseAddress!.advanced(by: i).initialize(to: tracks.first { $0.scheduler === s }?.rate ?? 0)
        }
        self.userEvents = userEvents
    }

    deinit {
        for t in tracks { UnsafeMutableBufferPointer(start: t.events.baseAddress, count: max(1, t.events.count)).deallocate() }
        tracks.deallocate()
        tempo.deallocate()
        sysexBytes.deallocate()
        UnsafeMutableBufferPointer(start: schedulerList.baseAddress, count: max(1, schedulerList.count)).deallocate()
        UnsafeMutableBufferPointer(start: schedulerRates.baseAddress, count: max(1, schedulerRates.count)).deallocate()
    }

}

final class SequencerRenderer {
    // MARK: shared with the control side
    private let pending = Atomic<UnsafeMutableRawPointer?>(nil)
    private let retired = RetiredPlanRing()
    private let retiredRef: Unmanaged<RetiredPlanRing>
    /// Whether the client wants playback.
    let playing = Atomic<Bool>(false)
    /// Bumped by the control side to (re)anchor playback at `requestedSeconds`.
    let anchorRequest = Atomic<Int>(0)
    let requestedSeconds = Atomic<UInt64>(0)
    let rateBits = Atomic<UInt64>(Double(1).bitPattern)
    /// The sequence time (seconds) at the end of the last rendered cycle, while playing.
    let positionBits = Atomic<UInt64>(0)
    /// Host time of the cycle the position was published for and the sample rate then (for host-time conversions).
    let positionHostTime = Atomic<UInt64>(0)
    /// A sequence lock over the pair above: odd while the render thread writes them, so that the
    /// control side reads a position and its host time from the same cycle (`positionAndHostTime`;
    /// a torn pair put `beats(forHostTime:)` one cycle off).
    let positionVersion = Atomic<UInt64>(0)
    /// Events lost because a destination's queue was full, or the user-event ring was.
    let dropped = Atomic<Int>(0)

    // User events, render → control (single producer, single consumer).
    private let userCapacity = 256
    private let userRing: UnsafeMutablePointer<(index: Int32, beat: Double)>
    private let userHead = Atomic<Int>(0)
    private let userTail = Atomic<Int>(0)

    // MARK: render-thread state
    private var current: Unmanaged<SequencerProgram>?
    /// The current program's arrays, copied out at adoption so that the cycle reads raw memory
    /// only (touching the program object inside the cycle would retain it).
    private var tempo = UnsafeMutableBufferPointer<TempoMap.Segment>(start: nil, count: 0)
    private var tracks = UnsafeMutableBufferPointer<PreparedSequencerTrack>(start: nil, count: 0)
    private var schedulerList = UnsafeMutableBufferPointer<Unmanaged<RenderEventScheduler>>(start: nil, count: 0)
    private var schedulerRates = UnsafeMutableBufferPointer<Double>(start: nil, count: 0)
    /// This cycle's output rate, first sample and host time (events for destinations at another
    /// rate are stamped with host times: see "Rates" in the design note).
    private var cycleRate: Double = 48_000
    private var cycleStart: Int64 = 0
    private var cycleHostTime: UInt64 = 0
    /// While emitting for a unit behind a converter: its rate (events land on its timeline,
    /// between `start` and `end` of its window, none before `emitFloor`); 0 otherwise.
    private var emitRate: Double = 0
    private var emitFloor: Int64 = 0
    /// True in the cycle where playback was (re)anchored: a unit behind a converter has already
    /// rendered past the anchor (it runs ahead of the output), so that cycle also sends it the
    /// events from the anchor to its window, on the window's first frame.
    private var anchoredThisCycle = false
    private var sysexBytes = UnsafeMutableBufferPointer<UInt8>(start: nil, count: 0)
    private var sysexDataOffset = 0
    private var maximumSysExBytes = 0
    private var running = false
    private var seenRequest = 0
    private var anchorSample: Int64 = 0
    private var anchorSeconds: Double = 0
    private var rate: Double = 1

    init() {
        retiredRef = .passUnretained(retired)
        userRing = .allocate(capacity: userCapacity)
        userRing.initialize(repeating: (0, 0), count: userCapacity)
    }

    deinit {
        collectRetired()
        if let raw = pending.exchange(nil, ordering: .acquiringAndReleasing) { Unmanaged<SequencerProgram>.fromOpaque(raw).release() }
        current?.release()
        userRing.deallocate()
    }

    // MARK: control side

    /// Makes `program` the one the next cycle plays.
    func publish(_ program: SequencerProgram) {
        collectRetired()
        if let stale = pending.exchange(Unmanaged.passRetained(program).toOpaque(), ordering: .acquiringAndReleasing) {
            Unmanaged<SequencerProgram>.fromOpaque(stale).release()
        }
    }

    /// Frees programs the render thread has let go of.
    func collectRetired() {
        while let raw = retired.pop() { Unmanaged<SequencerProgram>.fromOpaque(raw).release() }
    }

    /// Asks the render thread to play from `seconds` at its next cycle.
    func requestAnchor(atSeconds seconds: Double) {
        requestedSeconds.store(seconds.bitPattern, ordering: .relaxed)
        positionBits.store(seconds.bitPattern, ordering: .relaxed)
        anchorRequest.add(1, ordering: .releasing)
    }

    var position: Double { Double(bitPattern: positionBits.load(ordering: .relaxed)) }

    /// Control side: the position and the host time it was published for, from one cycle.
    func positionAndHostTime() -> (position: Double, hostTime: UInt64) {
        var attempt = 0
        while true {
            let before = positionVersion.load(ordering: .acquiring)
            let seconds = Double(bitPattern: positionBits.load(ordering: .relaxed))
            let host = positionHostTime.load(ordering: .relaxed)
            atomicMemoryFence(ordering: .acquiring)
            let after = positionVersion.load(ordering: .relaxed)
            attempt += 1
            if (before & 1 == 0 && before == after) || attempt > 1_000 { return (seconds, host) }
        }
    }

    /// Control side: the user events the render thread reported (index, beat), oldest first.
    func takeUserEvents() -> [(index: Int32, beat: Double)] {
        var out: [(index: Int32, beat: Double)] = []
        var h = userHead.load(ordering: .relaxed)
        while h != userTail.load(ordering: .acquiring) {
            out.append(userRing[h])
            h = h + 1 == userCapacity ? 0 : h + 1
            userHead.store(h, ordering: .releasing)
        }
        return out
    }

    // MARK: render thread

    /// One engine cycle of `frames` frames starting at `sampleTime`, at `sampleRate`.
    func renderCycle(sampleTime: Int64, frames: Int, sampleRate: Double, hostTime: UInt64) {
        if let raw = pending.exchange(nil, ordering: .acquiringAndReleasing) {
            if let old = current { _ = retiredRef._withUnsafeGuaranteedRef { $0.push(old.toOpaque()) } }
            let program = Unmanaged<SequencerProgram>.fromOpaque(raw)
            current = program
            (tempo, tracks, schedulerList, sysexBytes) = program._withUnsafeGuaranteedRef { ($0.tempo, $0.tracks, $0.schedulerList, $0.sysexBytes) }
            schedulerRates = program._withUnsafeGuaranteedRef { $0.schedulerRates }
            (sysexDataOffset, maximumSysExBytes) = program._withUnsafeGuaranteedRef { ($0.sysexDataOffset, $0.maximumSysExBytes) }
        }
        if current == nil { return }
        cycleRate = sampleRate
        cycleStart = sampleTime
        cycleHostTime = hostTime
        if !playing.load(ordering: .acquiring) {
            if running {
                running = false
                allNotesOff(at: sampleTime)
            }
            return
        }
        let request = anchorRequest.load(ordering: .acquiring)
        let wantedRate = max(1e-6, Double(bitPattern: rateBits.load(ordering: .relaxed)))
        // (no `||`: its autoclosure would capture, and retain, self)
        var reanchor = !running
        if request != seenRequest { reanchor = true }
        anchoredThisCycle = reanchor
        if reanchor {
            if running { allNotesOff(at: sampleTime) }
            seenRequest = request
            anchorSample = sampleTime
            anchorSeconds = Double(bitPattern: requestedSeconds.load(ordering: .relaxed))
            rate = wantedRate
            running = true
        } else if wantedRate != rate {
            anchorSeconds = seconds(atSample: sampleTime, sampleRate: sampleRate)
            anchorSample = sampleTime
            rate = wantedRate
        }
        let end = sampleTime + Int64(frames)
        let b0 = beat(forSeconds: seconds(atSample: sampleTime - 1, sampleRate: sampleRate))
        let b1 = beat(forSeconds: seconds(atSample: end + 1, sampleRate: sampleRate))
        var t = 0
        while t < tracks.count {
            let track = tracks.baseAddress.unsafelyUnwrapped + t
            t += 1
            let destinationRate = track.pointee.destinationRate
            if destinationRate > 0 && destinationRate != sampleRate, let scheduler = track.pointee.scheduler {
                // Behind a converter: the events of the frames the unit renders in this cycle, on
                // its timeline (the window the plan gave its scheduler for this cycle).
                let (cycle, w0, wn) = scheduler._withUnsafeGuaranteedRef { ($0.windowCycle, $0.windowStart, $0.windowFrames) }
                if cycle == sampleTime {
                    let scale = sampleRate / destinationRate
                    var lower = w0
                    if anchoredThisCycle {
                        let anchor = Double(anchorSample) / scale
                        lower = min(w0, Int64(anchor + (anchor >= 0 ? 0.5 : -0.5)))
                    }
                    let x0 = Double(lower) * scale, x1 = Double(w0 + Int64(wn)) * scale
                    emitRate = destinationRate
                    emitFloor = w0
                    emit(track: track, from: beat(forSeconds: seconds(atPosition: x0 - 2)), to: beat(forSeconds: seconds(atPosition: x1 + 2)),
                         start: lower, end: w0 + Int64(wn), sampleRate: sampleRate)
                    emitRate = 0
                    continue
                }
            }
            emit(track: track, from: b0, to: b1, start: sampleTime, end: end, sampleRate: sampleRate)
        }
        let version = positionVersion.load(ordering: .relaxed)
        positionVersion.store(version &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        positionBits.store(seconds(atSample: end, sampleRate: sampleRate).bitPattern, ordering: .relaxed)
        positionHostTime.store(hostTime &+ UInt64(Double(frames) / sampleRate * 1e9), ordering: .relaxed)
        positionVersion.store(version &+ 2, ordering: .releasing)
    }

    /// The sequence's seconds at a (fractional) output position, at this cycle's rate.
    @inline(__always)
    private func seconds(atPosition x: Double) -> Double {
        anchorSeconds + (x - Double(anchorSample)) / cycleRate * rate
    }

    @inline(__always)
    private func seconds(atSample sample: Int64, sampleRate: Double) -> Double {
        anchorSeconds + Double(sample - anchorSample) / sampleRate * rate
    }

    // The tempo map on the program's raw segments (the same arithmetic as TempoMap).
    @inline(__always)
    private func seconds(forBeat beat: Double) -> Double {
        var lo = 0, hi = tempo.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) >> 1
            if tempo[mid].beat <= beat { lo = mid } else { hi = mid - 1 }
        }
        let s = tempo[lo]
        return s.seconds + (beat - s.beat) * s.secondsPerBeat
    }
    @inline(__always)
    private func beat(forSeconds seconds: Double) -> Double {
        var lo = 0, hi = tempo.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) >> 1
            if tempo[mid].seconds <= seconds { lo = mid } else { hi = mid - 1 }
        }
        let s = tempo[lo]
        return s.beat + (seconds - s.seconds) / s.secondsPerBeat
    }

    /// Emits the events of one track whose sequence beats fall in [b0, b1) and whose samples fall
    /// in [start, end), walking the loop's passes in beat space.
    private func emit(track: UnsafeMutablePointer<PreparedSequencerTrack>, from b0: Double, to b1: Double,
                      start: Int64, end: Int64, sampleRate: Double) {
        let tr = track.pointee
        if tr.events.count == 0 { return }
        var u = b0 - tr.offset
        let u1 = b1 - tr.offset
        if u1 <= 0 { return }
        if u < 0 { u = 0 }
        guard tr.passes != 0, tr.loopLength > 0 else {
            emitRange(tr, local0: u, local1: u1, shift: tr.offset, start: start, end: end, sampleRate: sampleRate)
            return
        }
        let s = tr.loopStart, len = tr.loopLength, e = s + len
        var pieces = 0
        while u < u1 && pieces < 4096 {
            pieces += 1
            // Which pass holds u: pass 0 is everything before the loop's end; pass k ≥ 1 is
            // [s + k·len, s + (k+1)·len); after the last pass the track continues past e.
            var k = 0
            if u >= e {
                // floor of a non-negative quotient (u ≥ e > s): truncation (`rounded(.down)` names
                // the rounding-rule enum, metadata the real-time check rejects; libm's floor is
                // outside its view)
                let passes = (u - s) / len
                k = passes < 9e15 ? Int(passes) : Int(9e15)
            }
            let last = tr.passes < 0 ? Int.max : tr.passes - 1
            let pieceEnd: Double
            if k >= last {
                k = last
                pieceEnd = u1
            } else {
                pieceEnd = min(u1, s + Double(k + 1) * len)
            }
            let shift = Double(k) * len
            emitRange(tr, local0: u - shift, local1: pieceEnd - shift, shift: shift + tr.offset, start: start, end: end, sampleRate: sampleRate)
            u = pieceEnd
        }
    }

    @inline(__always)
    private func emitRange(_ tr: PreparedSequencerTrack, local0: Double, local1: Double, shift: Double,
                           start: Int64, end: Int64, sampleRate: Double) {
        let events = tr.events
        // First event at or after local0.
        var lo = 0, hi = events.count
        while lo < hi {
            let mid = (lo + hi) >> 1
            if events[mid].beat < local0 { lo = mid + 1 } else { hi = mid }
        }
        var i = lo
        while i < events.count {
            let ev = events.baseAddress.unsafelyUnwrapped + i
            let beat = ev.pointee.beat
            if beat >= local1 { break }
            let x = Double(anchorSample) + (seconds(forBeat: beat + shift) - anchorSeconds) * sampleRate / rate
            let sample = Int64(x + (x >= 0 ? 0.5 : -0.5))   // rounded half away from zero, written out (see above)
            if emitRate > 0 {
                // on the unit's timeline, inside the frames it renders in this cycle
                let y = x * (emitRate / sampleRate)
                let at = Int64(y + (y >= 0 ? 0.5 : -0.5))
                if at >= start && at < end { deliver(ev, tr, at: max(at, emitFloor), beat: beat + shift) }
            } else if sample >= start && sample < end {
                // a destination at another rate whose window is unknown this cycle: a host
                // time, which its scheduler resolves on its own timeline
                let at = tr.destinationRate > 0 && tr.destinationRate != sampleRate ? hostStamp(x) : sample
                deliver(ev, tr, at: at, beat: beat + shift)
            }
            i += 1
        }
    }

    @inline(__always)
    private func deliver(_ ev: UnsafeMutablePointer<PreparedSequencerEvent>, _ tr: PreparedSequencerTrack, at sample: Int64, beat: Double) {
        switch ev.pointee.kind {
        case .midi:
            guard let scheduler = tr.scheduler else { return }
            var r = RenderEventRequest(time: sample, type: .MIDI)
            r.length = ev.pointee.length
            r.bytes = ev.pointee.bytes
            if !scheduler._withUnsafeGuaranteedRef({ $0.push(r) }) { dropped.add(1, ordering: .relaxed) }
        case .parameter:
            guard let scheduler = tr.scheduler else { return }
            let r = RenderEventRequest.parameter(ev.pointee.address, ev.pointee.value, at: sample, ramp: 0)
            if !scheduler._withUnsafeGuaranteedRef({ $0.push(r) }) { dropped.add(1, ordering: .relaxed) }
        case .sysex:
            guard let scheduler = tr.scheduler, let base = sysexBytes.baseAddress else { return }
            let start = base + Int(ev.pointee.userIndex), length = Int(ev.pointee.sysexLength)
            let offset = sysexDataOffset, maximum = maximumSysExBytes
            if !scheduler._withUnsafeGuaranteedRef({ $0.pushSysExFromRenderThread(at: sample, bytes: start, length: length,
                                                                                  dataOffset: offset, maximumLength: maximum) }) {
                dropped.add(1, ordering: .relaxed)
            }
        case .user:
            let t = userTail.load(ordering: .relaxed)
            let next = t + 1 == userCapacity ? 0 : t + 1
            if next == userHead.load(ordering: .acquiring) { dropped.add(1, ordering: .relaxed); return }
            userRing[t] = (ev.pointee.userIndex, beat)
            userTail.store(next, ordering: .releasing)
        }
    }

    /// Stops sounding notes: "all notes off" (controller 123) on every channel of every destination.
    /// The host-time event stamp (AudioToolbox's `hostTimeFlag`, written as a literal: reading
    /// another module's global goes through its lazy initialiser, which the real-time check
    /// cannot see into) of output position `x` in this cycle.
    @inline(__always)
    private func hostStamp(_ x: Double) -> AUEventSampleTime {
        let ns = max(0, (x - Double(cycleStart)) / cycleRate * 1e9)
        return AUEventSampleTime(bitPattern: (cycleHostTime &+ UInt64(ns + 0.5)) & 0x3FFF_FFFF_FFFF_FFFF) | 0x4000_0000_0000_0000
    }

    private func allNotesOff(at sample: Int64) {
        var d = 0
        while d < schedulerList.count {
            let scheduler = schedulerList[d]
            let rate = d < schedulerRates.count ? schedulerRates[d] : 0
            // (no `&&` over a property: its autoclosure would capture, and retain, self)
            let outputRate = cycleRate
            let at = rate > 0 && rate != outputRate ? hostStamp(Double(sample)) : sample
            var ch: UInt8 = 0
            while ch < 16 {
                var r = RenderEventRequest(time: at, type: .MIDI)
                r.length = 3
                r.bytes = (0xB0 | ch, 123, 0)
                _ = scheduler._withUnsafeGuaranteedRef { $0.push(r) }
                ch += 1
            }
            d += 1
        }
    }
}

/// The sequencers attached to an engine, called at the start of every render cycle.
///
/// A fixed set of slots holding unretained renderers: the render thread reads them with one
/// atomic load each and no lock. A renderer stays alive (kept in `attached`) for as long as the
/// engine: a sequencer that goes away only empties its slot, so a cycle already holding the
/// pointer never sees it freed.
final class SequencerHooks {
    static let capacity = 16
    private let slots: UnsafeMutablePointer<Atomic<UnsafeMutableRawPointer?>>
    private let used = Atomic<Int>(0)
    private var attached: [SequencerRenderer] = []
    private let lock = NSLock()

    init() {
        slots = .allocate(capacity: Self.capacity)
        for i in 0 ..< Self.capacity { (slots + i).initialize(to: Atomic(nil)) }
    }
    deinit {
        slots.deinitialize(count: Self.capacity)
        slots.deallocate()
    }

    /// Registers a sequencer's renderer; false when every slot is taken.
    func add(_ renderer: SequencerRenderer) -> Bool {
        lock.lock(); defer { lock.unlock() }
        let raw = Unmanaged.passUnretained(renderer).toOpaque()
        for i in 0 ..< Self.capacity where slots[i].load(ordering: .relaxed) == nil {
            attached.append(renderer)
            slots[i].store(raw, ordering: .releasing)
            used.store(max(used.load(ordering: .relaxed), i + 1), ordering: .releasing)
            return true
        }
        return false
    }

    /// Empties the renderer's slot (the renderer itself lives on with the engine).
    func remove(_ renderer: SequencerRenderer) {
        lock.lock(); defer { lock.unlock() }
        let raw = Unmanaged.passUnretained(renderer).toOpaque()
        for i in 0 ..< Self.capacity where slots[i].load(ordering: .relaxed) == raw {
            slots[i].store(nil, ordering: .releasing)
        }
    }

    /// Render thread: every registered sequencer's step for this cycle.
    @inline(__always)
    func cycleWillRender(sampleTime: Int64, frames: Int, sampleRate: Double, hostTime: UInt64) {
        let n = used.load(ordering: .acquiring)
        if n == 0 { return }
        var i = 0
        while i < n {
            if let raw = slots[i].load(ordering: .acquiring) {
                Unmanaged<SequencerRenderer>.fromOpaque(raw)._withUnsafeGuaranteedRef {
                    $0.renderCycle(sampleTime: sampleTime, frames: frames, sampleRate: sampleRate, hostTime: hostTime)
                }
            }
            i += 1
        }
    }
}

// The render object of the time effects (AVAudioUnitVarispeed, AVAudioUnitTimePitch): nodes
// whose output frames differ from their input frames.
//
// A time effect's input bus is its own rate domain (`changesRate(onInputBus:)` is true although
// input and output have the same sample rate: the change is in time). At the start of each
// cycle the render plan asks `inputFrames(forOutputFrames:bus:)` of its step, and every node upstream
// renders that many frames before this one renders the cycle's output frames.
//
// DESIGN NOTE — sample-accurate parameter changes in a node that changes time
// ---------------------------------------------------------------------------
// Parameter events are stamped with sample times on the node's *output* timeline. At the start
// of a cycle (`beginCycle`, called from `inputFrames`), the unit's RenderEventScheduler (the one
// scheduler of every audio unit, RenderEventScheduler.swift) hands over the events due in the
// cycle as Apple's AURenderEvent list, in time order; those due at the cycle's first frame are
// applied, and those due later in the cycle are moved to `changes` with their offset. `render`
// then processes the cycle in segments — [0, k1), apply the change at k1, [k1, k2), ... — so a
// change takes effect at exactly the output frame it was scheduled for (for the varispeed, whose
// rate is a per-sample quantity; the time-pitch vocoder applies it from the first analysis frame
// it synthesises after that point, its own granularity). As a consequence the output does not
// depend on how the caller chunks the rendering.
//
// The input needed for such a cycle depends on parameters that change midway, so the DSP asks
// for an upper bound (the frames at the highest rate in the cycle, plus a margin) and keeps what
// it did not consume in its own FIFO for the next cycle; the bound is taken relative to what is
// already buffered, so the FIFO never grows beyond one cycle's margin. Without changes in a cycle
// the request is exact, as before.
//
// When the input is unconnected the plan asks nothing; `render` applies the changes itself and
// outputs silence.
//
// The DSP object of a format (sample rate, channel count, maximum frames) is created on the
// control side by the factory each time effect passes in (a `TimeEffectDSP`: typed, no abstract
// hooks to override) and carried over from plan to plan while the format stays the same, with its
// streaming state.
import Foundation
import Synchronization

/// What an AVAudioUnit needs from its render object: parameter events, bypass, latency.
protocol AudioUnitRenderer: AnyObject {
    /// The render object's event scheduler (the node's AUAudioUnit schedules into it).
    var scheduler: RenderEventScheduler { get }
    func schedule(address: AUParameterAddress, value: AUValue, at time: AUEventSampleTime, ramp: AUAudioFrameCount)
    var isBypassed: Bool { get set }
    var latencyFrames: Int { get }
}

extension EffectRenderer: AudioUnitRenderer {}

/// The DSP of a time effect for one format (sample rate, channel count, maximum frames): made on
/// the control side by the renderer's factory, used on the render thread (no allocation, locks or
/// I/O), carried over from plan to plan while the format stays the same.
///
/// A class, not a protocol, so that the render thread reaches it unmanaged with a plain virtual
/// call (an existential is metadata the compiler's real-time check rejects). The base class is a
/// muted time effect: it takes in what it is given, asks for one input frame per output frame and
/// outputs silence; the varispeed and the time-pitch DSPs override every member.
class TimeEffectDSP {
    /// Frames by which the output lags the input.
    var latencyFrames: Int { 0 }
    /// Applies a parameter change, gliding over `ramp` frames (0: the unit's default).
    func apply(_ address: AUParameterAddress, _ value: AUValue, ramp: Int) {}
    /// Input frames needed for `frames` output frames, given the parameter changes that will be
    /// applied during them (an upper bound when there are some: the DSP keeps unconsumed input).
    func inputFrames(_ frames: Int, changes: UnsafeBufferPointer<TimeEffectChange>) -> Int { frames }
    /// Upper bound of `inputFrames` (control side, buffer sizing).
    func maximumInputFrames(_ frames: Int) -> Int { frames }
    /// Takes in `input` (nil: nothing new this call — a later segment of a cycle) and writes
    /// `frames` frames into `output` from frame `offset`.
    func process(_ input: Unmanaged<RenderBuffer>?, _ output: Unmanaged<RenderBuffer>, offset: Int, frames: Int,
                 state: Unmanaged<TimeEffectRenderer.State>) {
        let channels = output.channels
        var c = 0
        while c < output.channelCount { zeroFloats(channels[c] + offset, frames); c += 1 }
    }
    /// Forgets the stream.
    func reset() {}
}

/// How the render thread calls a time effect's DSP: a closed switch over the two DSPs, not a
/// virtual call (the reason is StepKind.swift's design note: functions reached through a vtable
/// are not specialised where the real-time check runs).
enum TimeEffectKernel {
    case varispeed(Unmanaged<VarispeedRenderer.DSP>)
    case timePitch(Unmanaged<TimePitchRenderer.DSP>)
    /// Any other DSP (the muted base class): outputs silence.
    case muted

    /// Control side: the case of `dsp` (which the plan state keeps alive).
    init(_ dsp: TimeEffectDSP) {
        if let d = dsp as? VarispeedRenderer.DSP { self = .varispeed(.passUnretained(d)) }
        else if let d = dsp as? TimePitchRenderer.DSP { self = .timePitch(.passUnretained(d)) }
        else { self = .muted }
    }

    @inline(__always)
    func apply(_ address: AUParameterAddress, _ value: AUValue, ramp: Int) {
        switch self {
        case .varispeed(let d): d._withUnsafeGuaranteedRef { $0.apply(address, value, ramp: ramp) }
        case .timePitch(let d): d._withUnsafeGuaranteedRef { $0.apply(address, value, ramp: ramp) }
        case .muted: break
        }
    }

    @inline(__always)
    func inputFrames(_ frames: Int, changes: UnsafeBufferPointer<TimeEffectChange>) -> Int {
        switch self {
        case .varispeed(let d): return d._withUnsafeGuaranteedRef { $0.inputFrames(frames, changes: changes) }
        case .timePitch(let d): return d._withUnsafeGuaranteedRef { $0.inputFrames(frames, changes: changes) }
        case .muted: return frames
        }
    }

    @inline(__always)
    func process(_ input: Unmanaged<RenderBuffer>?, _ output: Unmanaged<RenderBuffer>, offset: Int, frames: Int,
                 state: Unmanaged<TimeEffectRenderer.State>) {
        switch self {
        case .varispeed(let d): d._withUnsafeGuaranteedRef { $0.process(input, output, offset: offset, frames: frames, state: state) }
        case .timePitch(let d): d._withUnsafeGuaranteedRef { $0.process(input, output, offset: offset, frames: frames, state: state) }
        case .muted:
            let channels = output.channels
            var c = 0
            while c < output.channelCount { zeroFloats(channels[c] + offset, frames); c += 1 }
        }
    }

    @inline(__always)
    func reset() {
        switch self {
        case .varispeed(let d): d._withUnsafeGuaranteedRef { $0.reset() }
        case .timePitch(let d): d._withUnsafeGuaranteedRef { $0.reset() }
        case .muted: break
        }
    }
}

/// Makes the DSP for (sample rate, channels, maximum frames) with the unit's current parameter values.
typealias TimeEffectDSPFactory = (_ sampleRate: Double, _ channels: Int, _ maximumFrames: Int) -> TimeEffectDSP

/// A parameter change due inside the current cycle, `offset` output frames after its start.
struct TimeEffectChange {
    var offset: Int
    var address: AUParameterAddress
    var value: AUValue
    var ramp: Int
}

class TimeEffectRenderer: NodeRenderer, AudioUnitRenderer {
    /// Parameter events from any thread, in time order (shared with the node's AUAudioUnit).
    let scheduler: RenderEventScheduler
    /// The scheduler for the render thread (`scheduler` keeps it alive).
    private let schedulerRef: Unmanaged<RenderEventScheduler>
    /// Changes due later in the current cycle (render thread), in time order.
    private let changeCapacity = 4096
    private let changes: UnsafeMutablePointer<TimeEffectChange>
    private var changeCount = 0
    private let bypassFlag = Atomic<Bool>(false)
    private let resetRequested = Atomic<Bool>(false)
    private let latency = Atomic<Int>(0)
    /// Render-thread state.
    private var bypassedThisCycle = false
    private var wasBypassed = false
    private var prepared = false
    private var cycleStart: Int64 = 0
    private var cycleHostTime: UInt64 = 0
    private var cycleRate: Double = 44_100
    private(set) var consumed: Int64 = 0
    /// Control side: the DSP object of the current format and its key.
    private var dsp: TimeEffectDSP?
    private var dspKey: (rate: Double, channels: Int, frames: Int)?
    private let makeDSP: TimeEffectDSPFactory

    init(makeDSP: @escaping TimeEffectDSPFactory) {
        self.makeDSP = makeDSP
        let scheduler = RenderEventScheduler()
        self.scheduler = scheduler
        schedulerRef = .passUnretained(scheduler)
        changes = .allocate(capacity: changeCapacity)
        super.init()
    }

    deinit { changes.deallocate() }

    var isBypassed: Bool {
        get { bypassFlag.load(ordering: .relaxed) }
        set { bypassFlag.store(newValue, ordering: .relaxed) }
    }

    var latencyFrames: Int { latency.load(ordering: .relaxed) }

    /// Any thread: queue a parameter change (applied at the start of the next cycle that reaches it).
    func schedule(address: AUParameterAddress, value: AUValue, at time: AUEventSampleTime, ramp: AUAudioFrameCount) {
        scheduler.schedule(address: address, value: value, at: time, ramp: ramp)
    }

    // MARK: plan state

    /// The time effect's part of one plan (see the design note in NodeRenderer.swift).
    ///
    /// Render-thread calls pass the state, the renderer, the DSP and the buffers unmanaged, through
    /// closures that capture only plain values (a closure capturing a reference retains it):
    /// proved by `RenderPathProof.timeEffect`.
    final class State: RenderStep {
        override var kind: StepKind { .timeEffect(.passUnretained(self)) }
        private let owner: Unmanaged<TimeEffectRenderer>
        let dsp: TimeEffectDSP
        /// The DSP for the render thread (`dsp` keeps it alive).
        let dspRef: TimeEffectKernel
        let channels: Int
        /// The node's sample rate (its output format's; host-time events convert with it).
        let sampleRate: Double
        let inputPointers: UnsafeMutablePointer<UnsafePointer<Float>>
        let outputPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        init(renderer: TimeEffectRenderer, dsp: TimeEffectDSP, channels: Int, sampleRate: Double) {
            owner = .passUnretained(renderer)
            self.dsp = dsp
            dspRef = TimeEffectKernel(dsp)
            self.channels = channels
            self.sampleRate = sampleRate
            inputPointers = .allocate(capacity: larger(1, channels))
            outputPointers = .allocate(capacity: larger(1, channels))
            super.init(renderer: renderer)
        }
        override func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>) {
            let me = Unmanaged.passUnretained(self)
            let input = inputs.count > 0 ? inputs.unmanaged(0) : nil
            let output = outputs.unmanaged(0)
            owner._withUnsafeGuaranteedRef { $0.render(&cycle, input: input, output: output, state: me) }
        }
        override func cycleWillStart(sampleTime: Int64, hostTime: UInt64, bus: Int) {
            let me = Unmanaged.passUnretained(self)
            owner._withUnsafeGuaranteedRef { $0.cycleWillStart(sampleTime: sampleTime, hostTime: hostTime, state: me) }
        }
        override func inputFrames(forOutputFrames outputFrames: Int, bus: Int) -> Int {
            let me = Unmanaged.passUnretained(self)
            return owner._withUnsafeGuaranteedRef { $0.inputFrames(forOutputFrames: outputFrames, state: me) }
        }
        override func maximumInputFrames(forOutputFrames outputFrames: Int, bus: Int) -> Int {
            larger(outputFrames, dsp.maximumInputFrames(outputFrames))
        }
        override func inputSampleTime(bus: Int) -> Int64 {
            owner._withUnsafeGuaranteedRef { $0.consumed }
        }
        deinit {
            inputPointers.deallocate()
            outputPointers.deallocate()
        }
        /// Points `inputPointers`/`outputPointers` at the buffers (input channels repeat when
        /// fewer), the output from frame `offset`.
        @inline(__always)
        func bind(_ input: Unmanaged<RenderBuffer>?, _ output: Unmanaged<RenderBuffer>, offset: Int = 0) {
            let out = output.channels
            var c = 0
            while c < channels { outputPointers[c] = out[c] + offset; c += 1 }
            if let input {
                let (source, count) = (input.channels, input.channelCount)
                c = 0
                while c < channels { inputPointers[c] = UnsafePointer(source[smaller(c, count - 1)]); c += 1 }
            }
        }
    }

    /// The DSP object for a format: the current one while the format stays the same (with its
    /// streaming state), else a new one with the unit's current parameter values. Control side.
    func dsp(sampleRate: Double, channels: Int, maximumFrames: Int) -> TimeEffectDSP {
        dspLock.lock(); defer { dspLock.unlock() }
        if let dsp, let key = dspKey, key.rate == sampleRate, key.channels == channels, key.frames >= maximumFrames {
            return dsp
        }
        let object = makeDSP(sampleRate, channels, maximumFrames)
        dsp = object
        dspKey = (sampleRate, channels, maximumFrames)
        latency.store(object.latencyFrames, ordering: .relaxed)
        return object
    }
    /// (the engine's plan compiler and a host allocating the unit on its own may ask at once)
    private let dspLock = NSLock()

    override func makeStepState(inputFormats: [AVAudioFormat?], outputFormats: [AVAudioFormat], maximumFrames: Int) -> RenderStep? {
        let format = outputFormats[0]
        let channels = Int(format.channelCount)
        return State(renderer: self, dsp: dsp(sampleRate: format.sampleRate, channels: channels, maximumFrames: maximumFrames),
                     channels: channels, sampleRate: format.sampleRate)
    }

    // MARK: the cycle

    /// Render thread: the cycle about to be rendered starts at `sampleTime` (see `RenderStep`).
    final func cycleWillStart(sampleTime: Int64, hostTime: UInt64, state: Unmanaged<State>) {
        cycleStart = sampleTime
        cycleHostTime = hostTime
        cycleRate = state._withUnsafeGuaranteedRef { $0.sampleRate }
    }

    /// Render thread: input frames for `outputFrames` output frames this cycle (see `RenderStep`).
    final func inputFrames(forOutputFrames outputFrames: Int, state: Unmanaged<State>) -> Int {
        let dsp = state._withUnsafeGuaranteedRef { $0.dspRef }
        beginCycle(frames: outputFrames, dsp: dsp, events: collectEvents(frames: outputFrames))
        prepared = true
        if bypassedThisCycle { return outputFrames }
        let pending = UnsafeBufferPointer(start: UnsafePointer(changes), count: changeCount)
        return larger(0, dsp.inputFrames(outputFrames, changes: pending))
    }

    /// Render thread: one cycle.
    final func render(_ cycle: inout RenderCycle, input: Unmanaged<RenderBuffer>?, output: Unmanaged<RenderBuffer>, state: Unmanaged<State>) {
        let frames = cycle.frames
        if !prepared {
            // (no input domain, so the plan did not start the cycle)
            cycleWillStart(sampleTime: cycle.sampleTime, hostTime: cycle.hostTime, state: state)
            beginCycle(frames: frames, dsp: state._withUnsafeGuaranteedRef { $0.dspRef }, events: collectEvents(frames: frames))
        }
        prepared = false
        renderCycle(input: input, output: output, frames: frames, state: state)
    }

    /// The cycle's output from `input` (nil: unconnected, silence), once `beginCycle` ran.
    @inline(__always)
    private func renderCycle(input: Unmanaged<RenderBuffer>?, output: Unmanaged<RenderBuffer>, frames: Int, state: Unmanaged<State>) {
        let dsp = state._withUnsafeGuaranteedRef { $0.dspRef }
        if let input {
            if bypassedThisCycle {
                output.copy(from: input, frames: frames)
            } else {
                // Segments between the changes due in this cycle; the input goes in with the first.
                var done = 0, fed = false
                var i = 0
                while i < changeCount {
                    let change = changes[i]
                    i += 1
                    if change.offset > done {
                        let (segmentInput, offset, count) = (fed ? nil : input, done, change.offset - done)
                        dsp.process(segmentInput, output, offset: offset, frames: count, state: state)
                        fed = true
                        done = change.offset
                    }
                    dsp.apply(change.address, change.value, ramp: change.ramp)
                }
                if done < frames || !fed {
                    let (segmentInput, offset, count) = (fed ? nil : input, done, frames - done)
                    dsp.process(segmentInput, output, offset: offset, frames: count, state: state)
                }
                changeCount = 0
                output.frames = frames
                output.isSilent = false
            }
            consumed += Int64(input.frames)
        } else {
            applyAllChanges(dsp: dsp)
            output.clear(frames: frames)
        }
    }

    /// Render thread, for a host calling the unit's render block outside the engine (the unit's
    /// render context already took the cycle's events from the scheduler: `events`). Pulls the
    /// input the cycle needs through `pull` (which fills `resources.input` and returns false on
    /// failure) and renders `frames` frames into `resources.output`. The same cycle as in the
    /// engine, so both hosts get the same samples.
    @inline(__always)
    func renderStandalone(frames: Int, start: Int64, hostTime: UInt64, events: UnsafePointer<AURenderEvent>?,
                          resources: StandaloneResources, pull: (_ frames: Int, _ inputSampleTime: Int64) -> Bool) -> Bool {
        let state = resources.state
        cycleStart = start
        cycleHostTime = hostTime
        cycleRate = state.sampleRate
        beginCycle(frames: frames, dsp: state.dspRef, events: events)
        let needed = bypassedThisCycle ? frames
            : larger(0, state.dsp.inputFrames(frames, changes: UnsafeBufferPointer(start: changes, count: changeCount)))
        let wanted = smaller(needed, resources.input.capacity)
        resources.input.resetBufferList(frames: wanted)
        guard pull(wanted, consumed) else {
            applyAllChanges(dsp: state.dspRef)
            return false
        }
        resources.input.frames = wanted
        resources.input.isSilent = false
        renderCycle(input: .passUnretained(resources.input), output: .passUnretained(resources.output), frames: frames,
                    state: .passUnretained(state))
        return true
    }

    /// What a unit rendering on its own needs: the DSP's plan state for its format, and buffers
    /// for the input it pulls and the output it produces (made when it allocates render resources).
    final class StandaloneResources {
        let state: State
        let input: RenderBuffer
        let output: RenderBuffer
        init(state: State, maximumFrames: Int) {
            self.state = state
            input = RenderBuffer(channelCount: state.channels, capacity: larger(maximumFrames, state.dsp.maximumInputFrames(maximumFrames)))
            output = RenderBuffer(channelCount: state.channels, capacity: maximumFrames)
        }
    }

    /// Control side: the resources for a unit hosted on its own, rendering `format`.
    func makeStandaloneResources(sampleRate: Double, channels: Int, maximumFrames: Int) -> StandaloneResources {
        let state = State(renderer: self, dsp: dsp(sampleRate: sampleRate, channels: channels, maximumFrames: maximumFrames),
                          channels: channels, sampleRate: sampleRate)
        return StandaloneResources(state: state, maximumFrames: maximumFrames)
    }

    private func applyAllChanges(dsp: TimeEffectKernel) {
        var i = 0
        while i < changeCount {
            let change = changes[i]
            dsp.apply(change.address, change.value, ramp: change.ramp)
            i += 1
        }
        changeCount = 0
    }

    /// The cycle's events from the node's scheduler (in the engine), as Apple's render-event list.
    @inline(__always)
    private func collectEvents(frames: Int) -> UnsafePointer<AURenderEvent>? {
        let (start, hostTime, rate) = (cycleStart, cycleHostTime, cycleRate)
        return schedulerRef._withUnsafeGuaranteedRef { s -> UnsafePointer<AURenderEvent>? in
            s.collect(cycleStart: start, hostTime: hostTime, sampleRate: rate)
            return s.eventList(before: start + Int64(frames), cycleStart: start)
        }
    }

    /// Start of a cycle (render thread): reset if asked, bypass transitions; parameter events due
    /// at the first frame are applied, those due later in the cycle go to `changes`.
    private func beginCycle(frames: Int, dsp: TimeEffectKernel, events: UnsafePointer<AURenderEvent>?) {
        // (nested ifs, not `&&` or `,`: an autoclosure would capture self)
        if resetRequested.load(ordering: .relaxed) {
            if resetRequested.exchange(false, ordering: .acquiringAndReleasing) { dsp.reset() }
        }
        bypassedThisCycle = isBypassed
        if wasBypassed { if !bypassedThisCycle { dsp.reset() } }   // the stream restarts
        wasBypassed = bypassedThisCycle
        changeCount = 0
        var event = events
        while let e = event {
            event = UnsafePointer(e.pointee.head.next)
            let type = e.pointee.head.eventType
            guard type == .parameter || type == .parameterRamp else { continue }
            let p = e.pointee.parameter
            let offset = Int(p.eventSampleTime - cycleStart)
            var now = offset <= 0 || offset >= frames
            if bypassedThisCycle { now = true }
            if changeCount == changeCapacity { now = true }
            if now {
                dsp.apply(p.parameterAddress, p.value, ramp: Int(p.rampDurationSampleFrames))
            } else {
                changes[changeCount] = TimeEffectChange(offset: offset, address: p.parameterAddress, value: p.value,
                                                        ramp: Int(p.rampDurationSampleFrames))
                changeCount += 1
            }
        }
    }

    /// Control side: the DSP forgets its stream at the start of the next cycle.
    override func resetState() {
        resetRequested.store(true, ordering: .releasing)
    }
}

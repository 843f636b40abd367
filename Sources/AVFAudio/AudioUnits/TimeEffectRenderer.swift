// The render object of the time effects (AVAudioUnitVarispeed, AVAudioUnitTimePitch): nodes
// whose output frames differ from their input frames.
//
// A time effect's input bus is its own rate domain (`changesRate(onInputBus:)` is true although
// input and output have the same sample rate: the change is in time). At the start of each
// cycle the render plan asks `inputFrames(forOutputFrames:bus:state:)`; that is where queued
// parameter changes are applied (the cycle boundary), so the frames pulled upstream match the
// rate the cycle renders with. `render` then turns exactly those input frames into the cycle's
// output frames. When the input is unconnected the plan asks nothing; `render` applies the
// changes itself and outputs silence.
//
// The DSP object of a format (sample rate, channel count, maximum frames) is created on the
// control side and carried over from plan to plan while the format stays the same, with its
// streaming state.
import Synchronization

/// What an AVAudioUnit needs from its render object: parameter events, bypass, latency.
protocol AudioUnitRenderer: AnyObject {
    func schedule(address: AUParameterAddress, value: AUValue, at time: AUEventSampleTime, ramp: AUAudioFrameCount)
    var isBypassed: Bool { get set }
    var latencyFrames: Int { get }
}

extension EffectRenderer: AudioUnitRenderer {}

class TimeEffectRenderer: NodeRenderer, AudioUnitRenderer {
    private let events = SPSCQueue<ParameterEvent>(capacity: 4096)
    private var pending: ParameterEvent?
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
    private var consumed: Int64 = 0
    /// Control side: the DSP object of the current format and its key.
    private var dsp: AnyObject?
    private var dspKey: (rate: Double, channels: Int, frames: Int)?

    var isBypassed: Bool {
        get { bypassFlag.load(ordering: .relaxed) }
        set { bypassFlag.store(newValue, ordering: .relaxed) }
    }

    var latencyFrames: Int { latency.load(ordering: .relaxed) }

    /// Any thread: queue a parameter change (applied at the start of the next cycle that reaches it).
    func schedule(address: AUParameterAddress, value: AUValue, at time: AUEventSampleTime, ramp: AUAudioFrameCount) {
        events.push(ParameterEvent(time: time, address: address, value: value, ramp: ramp))
    }

    // MARK: subclass hooks

    /// Control side: a DSP object for the format, with the unit's current parameter values.
    func makeDSP(sampleRate: Double, channels: Int, maximumFrames: Int) -> AnyObject { fatalError("subclass") }
    /// The DSP object's latency in frames.
    func latencyFrames(of dsp: AnyObject) -> Int { 0 }
    /// Render thread: apply a parameter change, gliding over `ramp` frames (0: the unit's default).
    func apply(_ address: AUParameterAddress, _ value: AUValue, ramp: Int, dsp: AnyObject) {}
    /// Input frames the DSP needs for `frames` output frames (render thread).
    func inputFrames(_ frames: Int, dsp: AnyObject) -> Int { frames }
    /// Upper bound of `inputFrames` (control side, buffer sizing).
    func maximumInputFrames(_ frames: Int, dsp: AnyObject) -> Int { frames }
    /// Render thread: turn `input` (nil: silence) into `frames` frames of `output`.
    func process(_ input: RenderBuffer?, _ output: RenderBuffer, frames: Int, dsp: AnyObject, state: State) {}
    /// Render thread: forget the stream.
    func reset(dsp: AnyObject) {}

    // MARK: plan state

    final class State {
        let dsp: AnyObject
        let channels: Int
        let inputPointers: UnsafeMutablePointer<UnsafePointer<Float>>
        let outputPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
        init(dsp: AnyObject, channels: Int) {
            self.dsp = dsp
            self.channels = channels
            inputPointers = .allocate(capacity: max(1, channels))
            outputPointers = .allocate(capacity: max(1, channels))
        }
        deinit {
            inputPointers.deallocate()
            outputPointers.deallocate()
        }
        /// Points `inputPointers`/`outputPointers` at the buffers (input channels repeat when fewer).
        @inline(__always)
        func bind(_ input: RenderBuffer?, _ output: RenderBuffer) {
            for c in 0..<channels {
                outputPointers[c] = output.channels[c]
                if let input { inputPointers[c] = UnsafePointer(input.channels[min(c, input.channelCount - 1)]) }
            }
        }
    }

    override func makeStepState(inputFormats: [AVAudioFormat?], outputFormats: [AVAudioFormat], maximumFrames: Int) -> AnyObject? {
        let format = outputFormats[0]
        let channels = Int(format.channelCount)
        let object: AnyObject
        if let dsp, let key = dspKey, key.rate == format.sampleRate, key.channels == channels, key.frames >= maximumFrames {
            object = dsp
        } else {
            object = makeDSP(sampleRate: format.sampleRate, channels: channels, maximumFrames: maximumFrames)
            dsp = object
            dspKey = (format.sampleRate, channels, maximumFrames)
            latency.store(latencyFrames(of: object), ordering: .relaxed)
        }
        return State(dsp: object, channels: channels)
    }

    // MARK: the cycle

    override func inputFrames(forOutputFrames outputFrames: Int, bus: Int, state: AnyObject?) -> Int {
        guard let state = state.map({ unsafeDowncast($0, to: State.self) }) else { return outputFrames }
        beginCycle(frames: outputFrames, dsp: state.dsp)
        prepared = true
        return bypassedThisCycle ? outputFrames : max(0, inputFrames(outputFrames, dsp: state.dsp))
    }

    override func maximumInputFrames(forOutputFrames outputFrames: Int, bus: Int, state: AnyObject?) -> Int {
        guard let state = state.map({ unsafeDowncast($0, to: State.self) }) else { return outputFrames }
        return max(outputFrames, maximumInputFrames(outputFrames, dsp: state.dsp))
    }

    override func inputSampleTime(bus: Int, state: AnyObject?) -> Int64 { consumed }

    override func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>, state: AnyObject?) {
        let output = outputs[0]
        let frames = cycle.frames
        cycleStart = cycle.sampleTime
        cycleHostTime = cycle.hostTime
        cycleRate = cycle.sampleRate
        guard let state = state.map({ unsafeDowncast($0, to: State.self) }) else { output.clear(frames: frames); return }
        let input = inputs.count > 0 ? inputs[0] : nil
        if !prepared { beginCycle(frames: frames, dsp: state.dsp) }
        prepared = false
        if input == nil {
            output.clear(frames: frames)
        } else if bypassedThisCycle {
            output.copy(from: input.unsafelyUnwrapped, frames: frames)
        } else {
            process(input, output, frames: frames, dsp: state.dsp, state: state)
            output.frames = frames
            output.isSilent = false
        }
        if let input { consumed += Int64(input.frames) }
        cycleStart = cycle.sampleTime + Int64(frames)
    }

    /// Start of a cycle (render thread): reset if asked, bypass transitions, due parameter events.
    private func beginCycle(frames: Int, dsp: AnyObject) {
        if resetRequested.load(ordering: .relaxed), resetRequested.exchange(false, ordering: .acquiringAndReleasing) {
            reset(dsp: dsp)
        }
        bypassedThisCycle = isBypassed
        if wasBypassed && !bypassedThisCycle { reset(dsp: dsp) }   // the stream restarts
        wasBypassed = bypassedThisCycle
        let end = cycleStart + Int64(frames)
        while true {
            if pending == nil { pending = events.pop() }
            guard let e = pending else { break }
            if resolve(e.time) >= end { break }
            apply(e.address, e.value, ramp: Int(e.ramp), dsp: dsp)
            pending = nil
        }
    }

    /// An event's sample time on the node's (output) timeline.
    @inline(__always)
    private func resolve(_ time: AUEventSampleTime) -> Int64 {
        if time >= AUEventSampleTimeImmediate && time < AUEventSampleTimeImmediate &+ (1 << 31) {
            return cycleStart + (time &- AUEventSampleTimeImmediate)
        }
        if time & hostTimeFlag != 0 && time > 0 {
            let host = UInt64(time & ~hostTimeFlag)
            let seconds = (Double(host) - Double(cycleHostTime)) * 1e-9
            return cycleStart + Int64((seconds * cycleRate).rounded())
        }
        return time
    }

    /// Control side: the DSP forgets its stream at the start of the next cycle.
    override func resetState() {
        resetRequested.store(true, ordering: .releasing)
    }
}

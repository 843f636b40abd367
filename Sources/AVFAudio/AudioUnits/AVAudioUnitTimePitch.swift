// AVAudioUnitTimePitch: Apple's time-pitch unit (AUNewTimePitch, 'aufc'/'nutp'): playback rate
// and pitch, independently.
//
// The DSP is AudioKernels' TimeStretcher: a phase vocoder with identity phase locking (every
// partial keeps its phase shape, so steady tones stay clean), transient preservation (at an
// onset the phases reset and the stretch factor is 1 while the attack is in the window, so
// attacks stay sharp) and a varispeed resampler after it for the pitch (pitch = stretch by
// 2^(cents/1200) and resample back). Like Apple's unit its input is its own rate domain: each
// cycle it pulls about rate x frames from upstream.
//
// Latency: the analysis window's half, 4096/2 frames at 44.1/48 kHz (about 43-46 ms), reported
// by `latency`. Parameters apply at the start of the render cycle they fall in.
import Synchronization
import AudioKernels

// Apple's parameter IDs of this unit (`kNewTimePitchParam_*`) are AudioToolbox's
// (Sources/AudioToolbox/AudioUnitParameters.swift).

/// A time effect that changes the playback rate and the pitch independently.
open class AVAudioUnitTimePitch: AVAudioUnitTimeEffect {
    private let rateParameter, pitchParameter, overlapParameter: AUParameter

    /// Creates a time-pitch unit at rate 1, pitch 0 cents, overlap 8.
    public init() {
        let parts = AVAudioUnitTimePitch.parts()
        (rateParameter, pitchParameter, overlapParameter) = (parts.parameters[0], parts.parameters[1], parts.parameters[2])
        super.init(description: AVAudioUnitTimePitch.componentDescription, renderer: parts.renderer, parameters: parts.parameters)
    }

    /// The playback rate: 2 plays twice as fast at the same pitch. Range 1/32 … 32, default 1.
    open var rate: Float {
        get { rateParameter.value }
        set { rateParameter.value = newValue }
    }

    /// The pitch shift in cents (100 per semitone). Range −2400 … 2400, default 0.
    open var pitch: Float {
        get { pitchParameter.value }
        set { pitchParameter.value = newValue }
    }

    /// Analysis windows per window length: more is smoother and costs more. Range 3 … 32, default 8.
    open var overlap: Float {
        get { overlapParameter.value }
        set { overlapParameter.value = newValue }
    }

    open override var name: String { "AUNewTimePitch" }

    /// The analysis window's half (2048 frames at 44.1/48 kHz), known before the unit renders.
    open override var latency: TimeInterval {
        let rate = outputFormats.first?.sampleRate ?? 44_100
        return Double(TimeStretcher.frameSize(sampleRate: rate) / 2) / rate
    }

    /// The input runs at its own pace: its own rate domain.
    override func changesRate(onInputBus bus: AVAudioNodeBus) -> Bool { true }

    static let componentDescription = AudioComponentDescription(
        componentType: kAudioUnitType_FormatConverter, componentSubType: kAudioUnitSubType_NewTimePitch,
        componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)

    static func parts() -> BuiltInUnits.TimeEffectParts {
        let parameters = [
            AVAudioUnit.parameter("rate", "Rate", address: AUParameterAddress(kNewTimePitchParam_Rate),
                                  min: 1.0 / 32, max: 32, unit: .rate, value: 1),
            AVAudioUnit.parameter("pitch", "Pitch", address: AUParameterAddress(kNewTimePitchParam_Pitch),
                                  min: -2400, max: 2400, unit: .cents, value: 0),
            AVAudioUnit.parameter("overlap", "Overlap", address: AUParameterAddress(kNewTimePitchParam_Overlap),
                                  min: 3, max: 32, unit: .generic, value: 8),
            AVAudioUnit.parameter("enablePeakLocking", "Peak Locking", address: AUParameterAddress(kNewTimePitchParam_EnablePeakLocking),
                                  min: 0, max: 1, unit: .boolean, value: 1),
            AVAudioUnit.parameter("enableTransientPreservation", "Transient Preservation",
                                  address: AUParameterAddress(kNewTimePitchParam_EnableTransientPreservation),
                                  min: 0, max: 1, unit: .boolean, value: 1),
        ]
        return (TimePitchRenderer(), parameters)
    }
}

/// The time-pitch unit's render object: a TimeStretcher per format.
final class TimePitchRenderer: TimeEffectRenderer {
    /// Current parameter values (any thread writes, the control side reads them for a new DSP).
    private let values: UnsafeMutablePointer<Atomic<UInt32>>

    init() {
        let values = UnsafeMutablePointer<Atomic<UInt32>>.allocate(capacity: 8)
        let defaults: [Float] = [1, 0, 0, 0, 8, 0, 1, 1]
        for i in 0..<8 { (values + i).initialize(to: Atomic(defaults[i].bitPattern)) }
        self.values = values
        super.init(makeDSP: { sampleRate, channels, maximumFrames in
            func value(_ id: AudioUnitParameterID) -> AUValue { Float(bitPattern: values[Int(id)].load(ordering: .relaxed)) }
            let s = TimeStretcher(sampleRate: sampleRate, channels: channels, maximumOutputFrames: maximumFrames)
            s.setRate(Double(value(kNewTimePitchParam_Rate)))
            s.setPitchScale(pow(2, Double(value(kNewTimePitchParam_Pitch)) / 1200))
            s.setOverlap(Double(value(kNewTimePitchParam_Overlap)))
            s.peakLocking = value(kNewTimePitchParam_EnablePeakLocking) >= 0.5
            s.preservesTransients = value(kNewTimePitchParam_EnableTransientPreservation) >= 0.5
            s.reset()
            return DSP(s)
        })
    }

    deinit {
        values.deinitialize(count: 8)
        values.deallocate()
    }

    override func schedule(address: AUParameterAddress, value: AUValue, at time: AUEventSampleTime, ramp: AUAudioFrameCount) {
        if address < 8 { values[Int(address)].store(value.bitPattern, ordering: .relaxed) }
        super.schedule(address: address, value: value, at: time, ramp: ramp)
    }
}

extension TimePitchRenderer {
    /// The DSP of one format: a TimeStretcher.
    final class DSP: TimeEffectDSP {
        let s: TimeStretcher
        /// The stretcher for the render thread (`s` keeps it alive); reached through KernelCall
        /// (proved in AudioKernels). Render-thread members proved by RenderPathProof.timeEffect.
        private let ref: Unmanaged<TimeStretcher>
        init(_ s: TimeStretcher) {
            self.s = s
            ref = .passUnretained(s)
        }

        override var latencyFrames: Int { s.latencyFrames }

        override func apply(_ address: AUParameterAddress, _ value: AUValue, ramp: Int) {
            // (Apple's parameter IDs as literals — kNewTimePitchParam_Rate 0, _Pitch 1, _Overlap 4,
            // _EnablePeakLocking 6, _EnableTransientPreservation 7 — because reading AudioToolbox's
            // global constants from the render thread goes through their lazy initialisers)
            let v = widen(value)
            switch address {
            case 0: KernelCall.setRate(ref, v)
            case 1: KernelCall.setPitchScale(ref, KernelCall.power(2, v / 1200))
            case 4: KernelCall.setOverlap(ref, v)
            case 6: KernelCall.setPeakLocking(ref, value >= 0.5)
            case 7: KernelCall.setPreservesTransients(ref, value >= 0.5)
            default: break
            }
        }

        override func inputFrames(_ frames: Int, changes: UnsafeBufferPointer<TimeEffectChange>) -> Int {
            if changes.count == 0 { return KernelCall.inputFramesNeeded(ref, forOutputFrames: frames, margin: 0) }
            // Changes midway: the input at the highest rate in the cycle, plus half a window for the
            // analysis hops the new settings may take (the hop never exceeds N/4, and the pitch
            // resampler glides over one hop); what is not used waits in the stretcher's FIFO.
            let (rate, fftSize) = ref._withUnsafeGuaranteedRef { ($0.rate, $0.fftSize) }
            var highest = rate
            var i = 0
            while i < changes.count {
                if changes[i].address == 0 {   // kNewTimePitchParam_Rate
                    highest = larger(highest, smaller(larger(widen(changes[i].value), 1.0 / 32), 32))
                }
                i += 1
            }
            let margin = roundUp(Double(frames) * (highest - rate)) + fftSize / 2
            return KernelCall.inputFramesNeeded(ref, forOutputFrames: frames, margin: margin)
        }

        override func maximumInputFrames(_ frames: Int) -> Int {
            s.maximumInputFrames(forOutputFrames: frames)
        }

        override func process(_ input: Unmanaged<RenderBuffer>?, _ output: Unmanaged<RenderBuffer>, offset: Int, frames: Int,
                              state: Unmanaged<TimeEffectRenderer.State>) {
            let (inputPointers, outputPointers) = state._withUnsafeGuaranteedRef { s -> (UnsafeMutablePointer<UnsafePointer<Float>>, UnsafeMutablePointer<UnsafeMutablePointer<Float>>) in
                s.bind(input, output, offset: offset)
                return (s.inputPointers, s.outputPointers)
            }
            KernelCall.process(ref, input: input == nil ? nil : UnsafePointer(inputPointers), inputFrames: input?.frames ?? 0,
                               output: UnsafePointer(outputPointers), outputFrames: frames)
        }

        override func reset() {
            KernelCall.reset(ref)
        }
    }
}

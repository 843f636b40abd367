// AVAudioUnitDelay: Apple's delay (AUDelay, 'aufx'/'dely'), and the kernel that runs it.
//
// One feedback delay line per channel, with a low-pass inside the loop so every repeat is
// darker than the one before:
//
//   r[n] = w[n − D]                      read D = delayTime · sampleRate samples back
//   e[n] = LP(r[n])                      the echo
//   w[n] = x[n] + feedback · e[n]        written into the line
//   y[n] = (1 − mix) · x[n] + mix · e[n]
//
// so the k-th echo of an impulse arrives at k·D with amplitude feedback^(k−1), filtered k times.
// LP is the first-order Butterworth low-pass (the bilinear transform of ωc/(s + ωc), prewarped so
// it is −3 dB exactly at `lowPassCutoff`); at a cutoff of sampleRate/2 it is the identity.
// A fractional D is read with 4-point (cubic) Lagrange interpolation, which reproduces
// polynomials up to degree 3 exactly: the centroid of an echo lands exactly on D. The line
// delays by at least one sample (a delay of 0 s renders as 1 sample: the feedback needs one).
//
// Parameter changes glide linearly over the event's ramp, or when it has none over 128 samples
// (feedback, mix, cutoff — click-free, as in AVAudioUnitEQ) or 50 ms (delay time: the read head
// slides to the new position like a tape delay's instead of jumping, which would click).
// The dry signal is not delayed: latency 0.

/// A delay with feedback and a low-pass in the feedback loop.
open class AVAudioUnitDelay: AVAudioUnitEffect {
    private let wetDryMixParameter, delayTimeParameter, feedbackParameter, lowPassCutoffParameter: AUParameter

    /// Creates a delay with Apple's defaults: 1 s, 50 % feedback, 15 kHz cutoff, 100 % wet.
    public init() {
        let parts = AVAudioUnitDelay.parts(wetDryMix: 100)
        (wetDryMixParameter, delayTimeParameter, feedbackParameter, lowPassCutoffParameter) =
            (parts.parameters[0], parts.parameters[1], parts.parameters[2], parts.parameters[3])
        super.init(description: AVAudioUnitDelay.componentDescription, kernelFactory: parts.kernel, parameters: parts.parameters)
    }

    /// Delay in seconds. Range 0 … 2, default 1.
    open var delayTime: TimeInterval {
        get { TimeInterval(delayTimeParameter.value) }
        set { delayTimeParameter.value = AUValue(newValue) }
    }

    /// Feedback in percent. Range −100 … 100, default 50.
    open var feedback: Float {
        get { feedbackParameter.value }
        set { feedbackParameter.value = newValue }
    }

    /// Cutoff of the low-pass in the feedback loop, in hertz. Range 10 … sample rate / 2, default 15 000.
    open var lowPassCutoff: Float {
        get { lowPassCutoffParameter.value }
        set {
            let nyquist = Float((outputFormats.first?.sampleRate ?? 44_100) / 2)
            lowPassCutoffParameter.value = Swift.min(Swift.max(newValue.isNaN ? 10 : newValue, 10), nyquist)
        }
    }

    /// Wet (delayed) share of the output in percent. Range 0 … 100, default 100.
    open var wetDryMix: Float {
        get { wetDryMixParameter.value }
        set { wetDryMixParameter.value = newValue }
    }

    open override var name: String { "AUDelay" }

    /// Until the echoes fall 60 dB below the first (the delay time when there is no feedback).
    override var tailTime: TimeInterval {
        let d = delayTime, fb = Double(abs(feedback)) / 100
        if fb <= 0 { return d }
        if fb >= 1 { return .infinity }
        return d * (1 + 3 / -log10(fb))
    }

    static let componentDescription = AudioComponentDescription(
        componentType: kAudioUnitType_Effect, componentSubType: kAudioUnitSubType_Delay,
        componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)

    // Apple's parameter IDs (AudioUnitParameters.h).
    static let wetDryMixAddress: AUParameterAddress = 0
    static let delayTimeAddress: AUParameterAddress = 1
    static let feedbackAddress: AUParameterAddress = 2
    static let lowPassCutoffAddress: AUParameterAddress = 3

    /// The parameters and kernel factory. The audio unit's own wet/dry default is 50 %
    /// (AudioUnitParameters.h); AVAudioUnitDelay sets 100 %.
    static func parts(wetDryMix: AUValue = 50) -> BuiltInUnits.EffectParts {
        let parameters = [
            AVAudioUnit.parameter("wetDryMix", "Dry/Wet Mix", address: wetDryMixAddress, min: 0, max: 100, unit: .equalPowerCrossfade, value: wetDryMix),
            AVAudioUnit.parameter("delayTime", "Delay Time", address: delayTimeAddress, min: 0, max: 2, unit: .seconds, value: 1),
            AVAudioUnit.parameter("feedback", "Feedback", address: feedbackAddress, min: -100, max: 100, unit: .percent, value: 50),
            // The range's top is Nyquist of the highest supported rate; the kernel (and
            // `lowPassCutoff`) clamp to Nyquist of the actual rate.
            AVAudioUnit.parameter("lopassCutoff", "Low Pass Cutoff Frequency", address: lowPassCutoffAddress, min: 10, max: 96_000, unit: .hertz, value: 15_000),
        ]
        let factory: EffectKernelFactory = { rate, channels, frames in
            let k = DelayKernel(sampleRate: rate, channels: channels, maximumFrames: frames)
            for p in parameters { k.setParameter(p.address, p.value, rampFrames: -1) }
            return k
        }
        return (factory, parameters)
    }
}

// The kernel (DelayKernel.swift) binds the parameters to AudioKernels' FeedbackDelayProcessor
// (Sources/AudioKernels/Effects/FeedbackDelayProcessor.swift), where the delay line runs.

// The effect chain of `avaudio convert`: with any effect option the file is rendered through an
// offline AVAudioEngine instead of copied or converted:
//
//     player (scheduleFile) ──► [time pitch] ──► [EQ] ──► [distortion] ──► [delay] ──► [reverb]
//         ──► main mixer (rate, channels) ──► output ──► renderOffline (4096-frame cycles) ──► AVAudioFile
//
//     avaudio convert take.wav wet.wav --reverb largeHall --reverb-mix 30
//     avaudio convert take.wav bright.wav --eq peak:1000:6:1 --eq highshelf:8000:3
//     avaudio convert take.wav slow.wav --tempo 0.5 --pitch -300
//
// The engine renders round(N × outRate / inRate / tempo) frames, then, when a delay or reverb is
// in the chain, its tail: further cycles until one is silent (below -96 dBFS) or the tail limit.
// The time-pitch unit's latency (half its analysis window, ~43 ms of input) is compensated: the
// first latency / tempo seconds of output are rendered and dropped, so the output starts with
// the input's first sample and ends with its last.
import AVFoundation
import ArgumentParser

/// One `--eq` band: TYPE:FREQUENCY[:GAIN_DB[:BANDWIDTH_OCTAVES]].
struct EQBandSpec {
    var type: AVAudioUnitEQFilterType
    var typeName: String
    var frequency: Float
    var gain: Float
    var bandwidth: Float

    static let types: [String: AVAudioUnitEQFilterType] = [
        "parametric": .parametric, "peak": .parametric, "lowshelf": .lowShelf, "highshelf": .highShelf,
        "lowpass": .lowPass, "highpass": .highPass, "bandpass": .bandPass,
    ]

    init(parsing spec: String) throws {
        let parts = spec.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (2...4).contains(parts.count) else {
            throw ValidationError("--eq '\(spec)': expected TYPE:FREQUENCY[:GAIN_DB[:BANDWIDTH_OCTAVES]], e.g. peak:1000:6:1")
        }
        guard let type = EQBandSpec.types[parts[0].lowercased()] else {
            throw ValidationError("--eq '\(spec)': unknown type '\(parts[0])' (\(EQBandSpec.types.keys.sorted().joined(separator: ", ")))")
        }
        guard let frequency = Float(parts[1]), frequency >= 20, frequency.isFinite else {
            throw ValidationError("--eq '\(spec)': the frequency must be a number of hertz, at least 20")
        }
        let gain = parts.count > 2 ? Float(parts[2]) : 0
        guard let gain, gain >= -96, gain <= 24 else {
            throw ValidationError("--eq '\(spec)': the gain must be between -96 and 24 dB")
        }
        let bandwidth = parts.count > 3 ? Float(parts[3]) : 1
        guard let bandwidth, bandwidth >= 0.05, bandwidth <= 5 else {
            throw ValidationError("--eq '\(spec)': the bandwidth must be between 0.05 and 5 octaves")
        }
        (self.type, typeName, self.frequency, self.gain, self.bandwidth) = (type, parts[0].lowercased(), frequency, gain, bandwidth)
    }

    var summary: String {
        var text = "\(typeName) \(formatRate(Double(frequency))) Hz"
        if [.parametric, .lowShelf, .highShelf].contains(type) { text += " \(gain >= 0 ? "+" : "")\(fixed(Double(gain), 1)) dB" }
        if [.parametric, .bandPass].contains(type) { text += " \(fixed(Double(bandwidth), 2)) oct" }
        return text
    }
}

struct EffectOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Reverb factory preset (\(AVAudioUnitReverbPreset.allCases.map { "\($0)" }.joined(separator: ", "))).", valueName: "preset"))
    var reverb: String?

    @Option(name: .customLong("reverb-mix"), help: ArgumentHelp("Reverb wet share in percent.", valueName: "pct"))
    var reverbMix: Float = 50

    @Option(help: ArgumentHelp("Delay time in seconds (0 to 2).", valueName: "seconds"))
    var delay: Double?

    @Option(name: .customLong("delay-feedback"), help: ArgumentHelp("Delay feedback in percent (-100 to 100).", valueName: "pct"))
    var delayFeedback: Float = 50

    @Option(name: .customLong("delay-mix"), help: ArgumentHelp("Delay wet share in percent.", valueName: "pct"))
    var delayMix: Float = 50

    @Option(help: ArgumentHelp("Distortion factory preset (\(AVAudioUnitDistortionPreset.allCases.map { "\($0)" }.joined(separator: ", "))).", valueName: "preset"))
    var distortion: String?

    @Option(help: ArgumentHelp("An equalizer band, TYPE:FREQUENCY[:GAIN_DB[:BANDWIDTH_OCTAVES]] (types parametric/peak, lowshelf, highshelf, lowpass, highpass, bandpass); repeatable.", valueName: "spec"))
    var eq: [String] = []

    @Option(help: ArgumentHelp("Time-stretch factor (AVAudioUnitTimePitch rate: 0.5 is half speed, twice as long).", valueName: "factor"))
    var tempo: Float?

    @Option(help: ArgumentHelp("Pitch shift in cents (-2400 to 2400), AVAudioUnitTimePitch.", valueName: "cents"))
    var pitch: Float?

    var any: Bool { reverb != nil || delay != nil || distortion != nil || !eq.isEmpty || tempo != nil || pitch != nil }

    var reverbPreset: AVAudioUnitReverbPreset? { reverb.flatMap { name in AVAudioUnitReverbPreset.allCases.first { "\($0)".lowercased() == name.lowercased() } } }
    var distortionPreset: AVAudioUnitDistortionPreset? { distortion.flatMap { name in AVAudioUnitDistortionPreset.allCases.first { "\($0)".lowercased() == name.lowercased() } } }

    func validate() throws {
        if reverb != nil && reverbPreset == nil {
            throw ValidationError("--reverb: unknown preset '\(reverb!)' (\(AVAudioUnitReverbPreset.allCases.map { "\($0)" }.joined(separator: ", ")))")
        }
        if distortion != nil && distortionPreset == nil {
            throw ValidationError("--distortion: unknown preset '\(distortion!)' (\(AVAudioUnitDistortionPreset.allCases.map { "\($0)" }.joined(separator: ", ")))")
        }
        if !(0...100).contains(reverbMix) { throw ValidationError("--reverb-mix must be between 0 and 100, not \(reverbMix)") }
        if !(0...100).contains(delayMix) { throw ValidationError("--delay-mix must be between 0 and 100, not \(delayMix)") }
        if let delay, !(0...2).contains(delay) { throw ValidationError("--delay must be between 0 and 2 seconds, not \(delay)") }
        if !(-100...100).contains(delayFeedback) { throw ValidationError("--delay-feedback must be between -100 and 100, not \(delayFeedback)") }
        if let tempo, !(tempo >= 1.0 / 32 && tempo <= 32) { throw ValidationError("--tempo must be between 1/32 and 32, not \(tempo)") }
        if let pitch, !(-2400...2400).contains(pitch) { throw ValidationError("--pitch must be between -2400 and 2400 cents, not \(pitch)") }
        for spec in eq { _ = try EQBandSpec(parsing: spec) }
    }
}

extension Convert {
    /// Renders `inFile` through the effect chain into a new file at `outURL`.
    func renderEffects(_ inFile: AVAudioFile, to outURL: URL, plan: Plan) throws {
        defer { inFile.close() }
        let inFormat = inFile.processingFormat
        let outFormat: AVAudioFormat
        if let layout = outputLayout(channels: plan.outChannels, input: inFormat) {
            outFormat = AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: plan.outRate, interleaved: false, channelLayout: layout)
        } else if let format = AVAudioFormat(standardFormatWithSampleRate: plan.outRate, channels: AVAudioChannelCount(plan.outChannels)) {
            outFormat = format
        } else {
            throw ToolError("cannot describe \(plan.outChannels) channels at \(formatRate(plan.outRate)) Hz")
        }

        let engine = AVAudioEngine()
        let maximumFrames: AVAudioFrameCount = 4096
        try engine.enableManualRenderingMode(.offline, format: outFormat, maximumFrameCount: maximumFrames)
        let player = AVAudioPlayerNode()
        engine.attach(player)

        // The chain, in a fixed order; each unit with a description for --verbose.
        var units: [(AVAudioNode, String)] = []
        var tail: Double = 0
        var timePitch: AVAudioUnitTimePitch?
        if effects.tempo != nil || effects.pitch != nil {
            let unit = AVAudioUnitTimePitch()
            timePitch = unit
            var text = "time pitch"
            if let tempo = effects.tempo { text += " tempo ×\(fixed(Double(tempo), 3))" }
            if let pitch = effects.pitch { text += " pitch \(pitch >= 0 ? "+" : "")\(fixed(Double(pitch), 0)) cents" }
            units.append((unit, text))
        }
        var eqUnit: AVAudioUnitEQ?
        let bands = try effects.eq.map { try EQBandSpec(parsing: $0) }
        if !bands.isEmpty {
            let unit = AVAudioUnitEQ(numberOfBands: bands.count)
            eqUnit = unit
            units.append((unit, "EQ " + bands.map(\.summary).joined(separator: ", ")))
        }
        if let preset = effects.distortionPreset {
            let unit = AVAudioUnitDistortion()
            unit.loadFactoryPreset(preset)
            units.append((unit, "distortion \(preset)"))
        }
        if let time = effects.delay {
            let unit = AVAudioUnitDelay()
            unit.delayTime = time
            unit.feedback = effects.delayFeedback
            unit.wetDryMix = effects.delayMix
            let fb = Double(abs(effects.delayFeedback)) / 100
            // Until the echoes fall 60 dB (≥ 1 s, at most 30 s); the silence test ends it sooner.
            tail += fb <= 0 ? time : (fb >= 1 ? 30 : time * (1 + 3 / -log10(fb)))
            units.append((unit, "delay \(fixed(time, 3)) s, feedback \(fixed(Double(effects.delayFeedback), 0)) %, mix \(fixed(Double(effects.delayMix), 0)) %"))
        }
        if let preset = effects.reverbPreset {
            let unit = AVAudioUnitReverb()
            unit.loadFactoryPreset(preset)
            unit.wetDryMix = effects.reverbMix
            tail += 8   // at most; the silence test ends it when the room has died away
            units.append((unit, "reverb \(preset), mix \(fixed(Double(effects.reverbMix), 0)) %"))
        }
        if tail > 0 { tail = min(max(tail, 2), 30) }

        var previous: AVAudioNode = player
        for (unit, _) in units {
            engine.attach(unit)
            engine.connect(previous, to: unit, format: inFormat)
            previous = unit
        }
        engine.connect(previous, to: engine.mainMixerNode, format: inFormat)
        // Parameters set once connected, so frequency limits see the real sample rate.
        if let timePitch {
            if let tempo = effects.tempo { timePitch.rate = tempo }
            if let pitch = effects.pitch { timePitch.pitch = pitch }
        }
        if let eqUnit {
            for (band, spec) in zip(eqUnit.bands, bands) {
                band.filterType = spec.type
                band.frequency = spec.frequency
                band.gain = spec.gain
                band.bandwidth = spec.bandwidth
                band.bypass = false
            }
        }

        guard let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: engine.manualRenderingMaximumFrameCount) else {
            throw ToolError("cannot allocate a render buffer in \(engine.manualRenderingFormat)")
        }
        player.scheduleFile(inFile, at: nil)
        try engine.start()
        defer { engine.stop() }
        player.play()

        let tempo = Double(effects.tempo ?? 1)
        let body = Int64((Double(inFile.length) * plan.outRate / plan.inFacts.sampleRate / tempo).rounded())
        // The time pitch's output lags by its latency (input seconds), which is latency / tempo
        // seconds of output: render that much first and drop it.
        let skip = Int64(((timePitch?.latency ?? 0) / tempo * plan.outRate).rounded())
        while engine.manualRenderingSampleTime < skip {
            let n = AVAudioFrameCount(min(Int64(maximumFrames), skip - engine.manualRenderingSampleTime))
            let status = try engine.renderOffline(n, to: buffer)
            guard status == .success else { throw ToolError("AVAudioEngine renderOffline failed (status \(status.rawValue))") }
        }
        let tailLimit = Int64((tail * plan.outRate).rounded())
        let silence: Float = 1.6e-5   // -96 dBFS
        var inTail = false
        var tailDone = false
        let (written, format) = try stream(to: outURL, settings: plan.settings, commonFormat: .pcmFormatFloat32, total: body + tailLimit) {
            let done = engine.manualRenderingSampleTime - skip
            if tailDone || done >= body + tailLimit { return nil }
            let n = AVAudioFrameCount(min(Int64(maximumFrames), (done < body ? body : body + tailLimit) - done))
            let status = try engine.renderOffline(n, to: buffer)
            guard status == .success else { throw ToolError("AVAudioEngine renderOffline failed (status \(status.rawValue))") }
            if inTail || done + Int64(n) > body {
                // A silent cycle after the input ends closes the tail.
                if inTail, peak(buffer) < silence { tailDone = true }
                inTail = true
            }
            return (buffer, engine.manualRenderingSampleTime - skip)
        }
        if verbose {
            let chain = (["player"] + units.map(\.1) + ["main mixer"]).joined(separator: " → ")
            print("\(input) → \(output): \(inFile.length) → \(written) frames (\(written - body) of tail), effects: \(chain); \(FormatFacts(format).summary)")
        }
    }

    private func peak(_ buffer: AVAudioPCMBuffer) -> Float {
        guard let data = buffer.floatChannelData else { return 0 }
        var p: Float = 0
        for c in 0..<Int(buffer.format.channelCount) {
            for i in 0..<Int(buffer.frameLength) { p = max(p, abs(data[c][i])) }
        }
        return p
    }
}

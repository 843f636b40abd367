// The engine part of `avaudio demo`: an AVAudioEngine graph rendered offline to a file, and
// checked against what the graph should produce.
//
//     player 1 (mono 48 kHz, 220 Hz) ─► EQ ─► submixer ─┐
//     player 2 (stereo 48 kHz, 1000 | 1500 Hz)─┤
//     player 3 (mono 44.1 kHz, 2500 Hz)       ─┼─► main mixer ──► output ──► renderOffline ──► WAV file
//     synth: AVAudioSourceNode, 300+375+450 Hz ┘        │
//                                                       └─ tap: peak and RMS per channel
//
// Player 1 goes through an AVAudioUnitEQ with one parametric band, +6 dB at its tone's frequency
// (so the tone comes out 6 dB louder), and a submixer that carries its volume and pan (volume and
// pan belong to a mixer input, which the EQ's output is). Every voice has its own volume and pan; player 3 runs at 44.1 kHz, so the mixer converts its
// rate. The engine renders 5 s in manual rendering mode (.offline, 48 kHz stereo, 4096-frame
// cycles) into a 32-bit float WAV file, which is then read back. Checks:
//
//  * the render: every call succeeds, the engine's sample time ends at the frames asked for;
//  * the tap: it sees every frame, in consecutive buffers;
//  * the file: its length and format; its peak and RMS per channel equal the tap's (the file
//    stores exactly what was rendered);
//  * the mix, analytically: each tone's amplitude on each channel, measured with the Goertzel
//    algorithm over 2 s of the file, is its amplitude × volume × the mixer's pan law (equal power
//    for mono voices: left cos((1 + pan)·π/4), right cos((1 − pan)·π/4); a balance for stereo
//    voices: left min(1, 1 − pan), right min(1, 1 + pan)) within 0.5 dB, and a tone is absent (below
//    -90 dBFS) from a channel nothing routes it to; each channel's RMS is that of the sum of its
//    tones, √(Σ a²/2), within 0.05 dB.
//
// Every frequency is a whole number of cycles in one second at its voice's rate, so the players
// loop one-second buffers seamlessly, and a whole number of cycles in the 2 s analysis window,
// so each tone falls exactly on a Goertzel bin and the others contribute nothing to it.
import AVFoundation
import Dispatch

struct EngineDemo {
    static let sampleRate = 48_000.0
    static let seconds = 5
    static let maximumFrames: AVAudioFrameCount = 4096
    /// The tap's buffer size: 0.1 s, which divides the render length, so the tap sees every frame.
    static let tapFrames: AVAudioFrameCount = 4800
    /// The Goertzel window: 2 s from 1 s in, past the mixer's rate converter settling.
    static let analysisStart = 48_000
    static let analysisFrames = 96_000
    static let levelTolerance = 0.5     // dB, for the tone levels
    static let rmsTolerance = 0.05      // dB, for the channel RMS
    static let absentLevel = -90.0      // dBFS
    static let eqGain = 6.0             // dB, of the EQ band on player 1
    static let eqBandwidth: Float = 0.5 // octaves

    var totalFrames: Int { Int(EngineDemo.sampleRate) * EngineDemo.seconds }

    /// A sine: frequency in Hz, peak amplitude (full scale 1).
    struct Tone {
        var frequency: Double
        var amplitude: Double
    }

    /// One source in the mix: a player or the synth.
    struct Voice {
        var name: String
        var isSynth = false
        var sampleRate: Double
        /// The tones of each input channel (one array: mono; two: stereo, left and right).
        var channels: [[Tone]]
        var volume: Float
        var pan: Float
        /// The frequency of an AVAudioUnitEQ band (+`EngineDemo.eqGain` dB) the voice goes through.
        var eqFrequency: Double? = nil

        /// The EQ's gain at a tone: the band's gain at its centre, 0 dB elsewhere (only tones at
        /// the centre are boosted in this graph).
        func eqGain(_ tone: Tone) -> Double {
            tone.frequency == eqFrequency ? pow(10, EngineDemo.eqGain / 20) : 1
        }

        /// The mixer's gain for output channel `c` (0 left, 1 right): volume × pan law — equal
        /// power for a mono voice (1/√2 each side at the centre, as Apple's mixer measures), a
        /// balance for a stereo one (see AVAudioMixerNode.swift).
        func gain(_ c: Int) -> Double {
            let p = Double(pan)
            if channels.count == 1 {
                return Double(volume) * max(0, cos((1 + (c == 0 ? p : -p)) * Double.pi / 4))
            }
            return Double(volume) * (c == 0 ? min(1, 1 - p) : min(1, 1 + p))
        }

        var format: AVAudioFormat {
            AVAudioFormat(standardFormatWithSampleRate: sampleRate, channels: AVAudioChannelCount(channels.count))!
        }

        var summary: String {
            let tones = channels.map { $0.map { formatRate($0.frequency) }.joined(separator: "+") + " Hz" }.joined(separator: " | ")
            let amplitudes = Set(channels.flatMap { $0.map(\.amplitude) }).sorted().map { fixed($0, 2) }.joined(separator: "/")
            let kind = isSynth ? "AVAudioSourceNode chord" : "AVAudioPlayerNode sine" + (channels.joined().count > 1 ? "s" : "")
            var text = "\(kind) \(tones), amplitude \(amplitudes), \(channels.count == 1 ? "mono" : "stereo") \(formatRate(sampleRate)) Hz"
            if sampleRate != EngineDemo.sampleRate { text += " (the mixer converts the rate)" }
            if let eqFrequency { text += ", through an EQ band +\(fixed(EngineDemo.eqGain, 0)) dB at \(formatRate(eqFrequency)) Hz and a submixer" }
            return text + ", volume \(fixed(Double(volume), 2)), pan \(signed(Double(pan)))"
        }
    }

    static let voices: [Voice] = [
        Voice(name: "player 1", sampleRate: 48_000, channels: [[Tone(frequency: 220, amplitude: 0.4)]], volume: 0.8, pan: -0.5,
              eqFrequency: 220),
        Voice(name: "player 2", sampleRate: 48_000,
              channels: [[Tone(frequency: 1_000, amplitude: 0.4)], [Tone(frequency: 1_500, amplitude: 0.4)]], volume: 0.5, pan: 0.6),
        Voice(name: "player 3", sampleRate: 44_100, channels: [[Tone(frequency: 2_500, amplitude: 0.4)]], volume: 0.7, pan: 0),
        // A just major triad (4:5:6) on 75 Hz.
        Voice(name: "synth", isSynth: true, sampleRate: 48_000,
              channels: [[Tone(frequency: 300, amplitude: 0.1), Tone(frequency: 375, amplitude: 0.1), Tone(frequency: 450, amplitude: 0.1)]],
              volume: 1, pan: 0.25),
    ]

    /// One verified property.
    struct Check {
        var name: String
        var measured: String
        var expected: String
        var passed: Bool
    }

    /// Renders the graph into a file in `directory`, prints the report; returns whether every
    /// check passed and the file written.
    func run(directory: URL, removedAtEnd: Bool) -> (passed: Bool, file: URL) {
        let url = directory.appendingPathComponent("engine-mix.wav")
        print("Engine: \(EngineDemo.seconds) s rendered offline by AVAudioEngine (manual rendering, \(formatRate(EngineDemo.sampleRate)) Hz stereo, \(EngineDemo.maximumFrames)-frame cycles)")
        let nameWidth = EngineDemo.voices.map(\.name.count).max()!
        for voice in EngineDemo.voices {
            print("  \(voice.name.padding(toLength: nameWidth, withPad: " ", startingAt: 0))  \(voice.summary)")
        }
        print("  \("tap".padding(toLength: nameWidth, withPad: " ", startingAt: 0))  main mixer output, \(EngineDemo.tapFrames)-frame buffers: peak and RMS per channel")
        print("  \("file".padding(toLength: nameWidth, withPad: " ", startingAt: 0))  \(url.path) (WAV, 32-bit float\(removedAtEnd ? "; removed at the end" : ""))")
        print("")

        var checks: [Check] = []
        do {
            let rendered = try render(to: url)
            checks += rendered.checks
            let duration = Double(totalFrames) / EngineDemo.sampleRate
            print("Rendered \(totalFrames) frames (\(fixed(duration, 2)) s of audio) in \(fixed(rendered.renderSeconds, 3)) s: "
                  + "\(fixed(duration / rendered.renderSeconds, 1))× realtime; with writing the file \(fixed(rendered.seconds, 3)) s, "
                  + "\(fixed(duration / rendered.seconds, 1))× realtime")
            checks += try verify(url: url, tap: rendered.tap)
        } catch {
            checks.append(Check(name: "render and read back", measured: errorMessage(error), expected: "no error", passed: false))
        }
        print("")
        printTable(checks)
        let passed = checks.filter(\.passed).count
        print("")
        print("Engine: \(passed) of \(checks.count) checks passed.")
        for check in checks where !check.passed {
            print("FAIL engine \(check.name): measured \(check.measured), expected \(check.expected)")
        }
        return (passed == checks.count, url)
    }

    // MARK: Rendering

    /// Peak and sum of squares per channel of the buffers a tap receives.
    final class TapMeter {
        var peak: [Double]
        var sumOfSquares: [Double]
        var frames = 0
        var buffers = 0
        /// Whether every buffer had `bufferSize` frames and started where the previous one ended.
        var contiguous = true
        private var nextSampleTime: AVAudioFramePosition = 0

        init(channels: Int) {
            peak = Array(repeating: 0, count: channels)
            sumOfSquares = Array(repeating: 0, count: channels)
        }

        func add(_ buffer: AVAudioPCMBuffer, at time: AVAudioTime) {
            let n = Int(buffer.frameLength)
            if n != Int(EngineDemo.tapFrames) || time.sampleTime != nextSampleTime { contiguous = false }
            nextSampleTime = time.sampleTime + AVAudioFramePosition(n)
            guard let data = buffer.floatChannelData else { contiguous = false; return }
            for c in 0..<min(peak.count, Int(buffer.format.channelCount)) {
                let samples = data[c]
                var p: Float = 0
                var sum = 0.0
                for i in 0..<n {
                    let x = samples[i]
                    p = max(p, abs(x))
                    sum += Double(x) * Double(x)
                }
                peak[c] = max(peak[c], Double(p))
                sumOfSquares[c] += sum
            }
            frames += n
            buffers += 1
        }

        var rms: [Double] { sumOfSquares.map { frames > 0 ? ($0 / Double(frames)).squareRoot() : 0 } }
    }

    struct Rendered {
        var checks: [Check]
        var tap: TapMeter
        /// Wall-clock time of the render loop, and of the renderOffline calls alone.
        var seconds: Double
        var renderSeconds: Double
    }

    /// Builds the graph, renders `totalFrames` frames into the file at `url`.
    private func render(to url: URL) throws -> Rendered {
        let rate = EngineDemo.sampleRate
        let outputFormat = AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: outputFormat, maximumFrameCount: EngineDemo.maximumFrames)
        let mixer = engine.mainMixerNode

        var players: [(AVAudioPlayerNode, AVAudioPCMBuffer)] = []
        for voice in EngineDemo.voices {
            let node: AVAudioNode & AVAudioMixing
            if voice.isSynth {
                node = AVAudioSourceNode(format: voice.format, renderBlock: EngineDemo.synthBlock(voice))
            } else {
                let player = AVAudioPlayerNode()
                players.append((player, try EngineDemo.loopBuffer(voice)))
                node = player
            }
            engine.attach(node)
            if let frequency = voice.eqFrequency {
                // node ─► EQ ─► submixer (the voice's volume and pan) ─► main mixer.
                let eq = AVAudioUnitEQ(numberOfBands: 1)
                let submixer = AVAudioMixerNode()
                engine.attach(eq)
                engine.attach(submixer)
                engine.connect(node, to: eq, format: voice.format)
                engine.connect(eq, to: submixer, format: voice.format)
                engine.connect(submixer, to: mixer, format: voice.format)
                let band = eq.bands[0]
                band.filterType = .parametric
                band.frequency = Float(frequency)
                band.gain = Float(EngineDemo.eqGain)
                band.bandwidth = EngineDemo.eqBandwidth
                band.bypass = false
                submixer.volume = voice.volume
                submixer.pan = voice.pan
            } else {
                engine.connect(node, to: mixer, format: voice.format)
                node.volume = voice.volume
                node.pan = voice.pan
            }
        }

        let meter = TapMeter(channels: Int(outputFormat.channelCount))
        mixer.installTap(onBus: 0, bufferSize: EngineDemo.tapFrames, format: nil) { buffer, time in
            meter.add(buffer, at: time)
        }
        defer { mixer.removeTap(onBus: 0) }

        let file = try AVAudioFile(forWriting: url, settings: [
            AVAudioFileTypeKey: kAudioFileWAVEType,
            AVFormatIDKey: kAudioFormatLinearPCM,
            AVSampleRateKey: rate,
            AVNumberOfChannelsKey: 2,
            AVLinearPCMBitDepthKey: 32,
            AVLinearPCMIsFloatKey: true,
            AVLinearPCMIsBigEndianKey: false,
            AVLinearPCMIsNonInterleaved: false,
        ])
        defer { file.close() }
        guard let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: engine.manualRenderingMaximumFrameCount) else {
            throw ToolError("cannot allocate a render buffer in \(engine.manualRenderingFormat)")
        }

        try engine.start()
        defer { engine.stop() }
        for (player, loop) in players {
            player.scheduleBuffer(loop, at: nil, options: .loops)
            player.play()
        }

        let start = DispatchTime.now().uptimeNanoseconds
        var renderNanoseconds: UInt64 = 0
        var calls = 0
        var failedCalls: [String] = []
        while engine.manualRenderingSampleTime < AVAudioFramePosition(totalFrames) {
            let n = AVAudioFrameCount(min(Int64(engine.manualRenderingMaximumFrameCount), Int64(totalFrames) - engine.manualRenderingSampleTime))
            let before = DispatchTime.now().uptimeNanoseconds
            let status = try engine.renderOffline(n, to: buffer)
            renderNanoseconds += DispatchTime.now().uptimeNanoseconds - before
            calls += 1
            if status != .success {
                failedCalls.append("call \(calls): status \(status.rawValue)")
                if failedCalls.count > 3 { break }
            }
            try file.write(from: buffer)
        }
        let seconds = max(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, 1e-9)
        let renderSeconds = max(Double(renderNanoseconds) / 1e9, 1e-9)

        var checks: [Check] = []
        checks.append(Check(name: "render: \(calls) renderOffline calls",
                            measured: failedCalls.isEmpty ? "all .success" : failedCalls.joined(separator: ", "),
                            expected: "all .success", passed: failedCalls.isEmpty))
        checks.append(Check(name: "render: engine sample time", measured: "\(engine.manualRenderingSampleTime)",
                            expected: "\(totalFrames)", passed: engine.manualRenderingSampleTime == AVAudioFramePosition(totalFrames)))
        checks.append(Check(name: "tap: frames in \(EngineDemo.tapFrames)-frame buffers",
                            measured: "\(meter.frames) in \(meter.buffers)\(meter.contiguous ? "" : " (gaps)")",
                            expected: "\(totalFrames) in \(totalFrames / Int(EngineDemo.tapFrames))",
                            passed: meter.frames == totalFrames && meter.contiguous))
        return Rendered(checks: checks, tap: meter, seconds: seconds, renderSeconds: renderSeconds)
    }

    /// One second of `voice` at its rate (a whole number of cycles of every tone), to loop.
    private static func loopBuffer(_ voice: Voice) throws -> AVAudioPCMBuffer {
        let frames = Int(voice.sampleRate)
        guard let buffer = AVAudioPCMBuffer(pcmFormat: voice.format, frameCapacity: AVAudioFrameCount(frames)),
              let data = buffer.floatChannelData else {
            throw ToolError("cannot allocate a buffer in \(voice.format)")
        }
        for (c, tones) in voice.channels.enumerated() {
            for i in 0..<frames {
                data[c][i] = Float(tones.reduce(0) { $0 + $1.amplitude * sin(2 * Double.pi * $1.frequency * Double(i) / voice.sampleRate) })
            }
        }
        buffer.frameLength = AVAudioFrameCount(frames)
        return buffer
    }

    /// The synth's render block: the voice's chord, computed from the render timestamp's sample
    /// time (so it needs no state and does not drift).
    private static func synthBlock(_ voice: Voice) -> AVAudioSourceNodeRenderBlock {
        let tones = voice.channels[0]
        let rate = voice.sampleRate
        return { _, timestamp, frameCount, audioBufferList in
            let buffers = UnsafeMutableAudioBufferListPointer(audioBufferList)
            let first = timestamp.pointee.mSampleTime
            for frame in 0..<Int(frameCount) {
                // Phase reduced to one period in integers, so it stays exact over hours.
                let n = Int64(first) + Int64(frame)
                var value = 0.0
                for tone in tones {
                    let cycles = Double(n % Int64(rate)) * tone.frequency / rate
                    value += tone.amplitude * sin(2 * Double.pi * (cycles - cycles.rounded(.down)))
                }
                for buffer in buffers {
                    UnsafeMutableBufferPointer<Float>(buffer)[frame] = Float(value)
                }
            }
            return noErr
        }
    }

    // MARK: Verification

    /// Reads the file back and checks it against the tap and against the graph's arithmetic.
    private func verify(url: URL, tap: TapMeter) throws -> [Check] {
        let file = try AVAudioFile(forReading: url)
        defer { file.close() }
        var checks: [Check] = []
        let facts = FormatFacts(file.fileFormat)
        let formatOK = facts.sampleRate == EngineDemo.sampleRate && facts.channels == 2 && facts.isFloat && facts.bitsPerChannel == 32
        checks.append(Check(name: "file: length and format", measured: "\(file.length) frames, \(facts.channels) ch \(formatRate(facts.sampleRate)) Hz \(facts.bitsPerChannel)-bit \(facts.isFloat ? "float" : "int")",
                            expected: "\(totalFrames) frames, 2 ch 48000 Hz 32-bit float",
                            passed: formatOK && file.length == AVAudioFramePosition(totalFrames)))

        // Levels: the tap's and the file's, which hold the same samples; and the analytic RMS.
        let levels = try measureLevels(of: file)
        let tapRMS = tap.rms
        let expected = (0..<2).map { c in expectedTones(channel: c) }
        let expectedRMS = expected.map { tones in (tones.reduce(0) { $0 + $1.amplitude * $1.amplitude / 2 }).squareRoot() }
        print("")
        print("levels (dBFS)   tap peak  file peak   tap RMS  file RMS  expected RMS")
        for c in 0..<2 {
            let cells = [tap.peak[c], levels.peak[c], tapRMS[c], levels.rms[c], expectedRMS[c]].map { dBText(dBFS($0)) }
            print("  \(c == 0 ? "left " : "right")        " + cells.map { String(repeating: " ", count: max(0, 9 - $0.count)) + $0 }.joined(separator: " "))
        }
        for c in 0..<2 {
            let side = c == 0 ? "left" : "right"
            let rmsAgree = abs(tapRMS[c] - levels.rms[c]) <= 1e-9 * max(levels.rms[c], 1e-30)
            checks.append(Check(name: "tap = file: \(side) peak, RMS",
                                measured: "\(dBText(dBFS(tap.peak[c]))), \(dBText(dBFS(tapRMS[c]))) dB",
                                expected: "\(dBText(dBFS(levels.peak[c]))), \(dBText(dBFS(levels.rms[c]))) dB",
                                passed: tap.peak[c] == levels.peak[c] && rmsAgree && tap.peak[c] > 0))
            let rmsError = abs(20 * log10(max(levels.rms[c], 1e-30) / expectedRMS[c]))
            checks.append(Check(name: "RMS \(side) = √(Σ a²/2) of its tones",
                                measured: dBText(dBFS(levels.rms[c])) + " dB", expected: dBText(dBFS(expectedRMS[c])) + " dB",
                                passed: rmsError <= EngineDemo.rmsTolerance))
        }

        // Tone levels over the analysis window.
        file.framePosition = AVAudioFramePosition(EngineDemo.analysisStart)
        guard let window = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(EngineDemo.analysisFrames)),
              let data = window.floatChannelData else {
            throw ToolError("cannot allocate a buffer in \(file.processingFormat)")
        }
        try file.read(into: window, frameCount: AVAudioFrameCount(EngineDemo.analysisFrames))
        guard Int(window.frameLength) == EngineDemo.analysisFrames else {
            checks.append(Check(name: "analysis window", measured: "\(window.frameLength) frames", expected: "\(EngineDemo.analysisFrames)", passed: false))
            return checks
        }
        for voice in EngineDemo.voices {
            for (k, tones) in voice.channels.enumerated() {
                for tone in tones {
                    for c in 0..<2 {
                        let side = c == 0 ? "L" : "R"
                        // A mono input reaches both sides; a stereo input's channel k only side k.
                        let reaches = voice.channels.count == 1 || k == c
                        let amplitude = tone.amplitude * voice.eqGain(tone) * (reaches ? voice.gain(c) : 0)
                        let measured = goertzelAmplitude(data[c], count: EngineDemo.analysisFrames, frequency: tone.frequency)
                        let name = "\(formatRate(tone.frequency)) Hz \(side) (\(voice.name))"
                        if amplitude > 0 {
                            let error = abs(20 * log10(max(measured, 1e-30) / amplitude))
                            checks.append(Check(name: name, measured: fixed(20 * log10(max(measured, 1e-30)), 3) + " dB",
                                                expected: fixed(20 * log10(amplitude), 3) + " dB ± \(fixed(EngineDemo.levelTolerance, 1))",
                                                passed: error <= EngineDemo.levelTolerance))
                        } else {
                            checks.append(Check(name: name, measured: dBText(dBFS(measured)) + " dB", expected: "absent (< \(fixed(EngineDemo.absentLevel, 0)))",
                                                passed: (dBFS(measured) ?? -.infinity) < EngineDemo.absentLevel))
                        }
                    }
                }
            }
        }
        return checks
    }

    /// Every tone on output channel `c`, with its amplitude after volume and pan.
    private func expectedTones(channel c: Int) -> [Tone] {
        EngineDemo.voices.flatMap { voice in
            voice.channels.enumerated().flatMap { k, tones -> [Tone] in
                guard voice.channels.count == 1 || k == c else { return [] }
                return tones.map { Tone(frequency: $0.frequency, amplitude: $0.amplitude * voice.eqGain($0) * voice.gain(c)) }
            }
        }
    }

    /// The amplitude of the sine at `frequency` in `count` samples (Goertzel: one DFT bin).
    private func goertzelAmplitude(_ x: UnsafePointer<Float>, count: Int, frequency: Double) -> Double {
        let w = 2 * Double.pi * frequency / EngineDemo.sampleRate
        let coefficient = 2 * cos(w)
        var s1 = 0.0, s2 = 0.0
        for i in 0..<count {
            let s = Double(x[i]) + coefficient * s1 - s2
            s2 = s1
            s1 = s
        }
        let real = s1 - s2 * cos(w)
        let imaginary = s2 * sin(w)
        return 2 * (real * real + imaginary * imaginary).squareRoot() / Double(count)
    }

    private func printTable(_ checks: [Check]) {
        let header = ["check", "measured", "expected", "verdict"]
        let rows = checks.map { [$0.name, $0.measured, $0.expected, $0.passed ? "PASS" : "FAIL"] }
        var widths = header.map(\.count)
        for row in rows { for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) } }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                i == cells.count - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count)
            }.joined(separator: "  ")
        }
        print(line(header))
        for row in rows { print(line(row)) }
    }
}

/// "+0.25", "-0.50", "0".
private func signed(_ value: Double) -> String {
    value == 0 ? "0" : (value > 0 ? "+" : "") + fixed(value, 2)
}

// AVAudioUnitTimePitch through the engine: parameters, duration and pitch, tone purity
// (bench_stretch.py's checks), transients, latency, and a side-by-side with Rubber Band R3
// (`rubberband --fine`) where the CLI is installed.
import Testing
import AVFoundation
import AudioAnalysis

/// Rendering through a time effect, and bench_stretch.py's tone checks in Swift.
enum TimeEffectTesting {
    static let rate = 48_000.0

    static func sine(_ frequency: Double, seconds: Double, amplitude: Float = 0.5) -> [Float] {
        let n = Int(seconds * rate)
        var x = [Float](repeating: 0, count: n)
        for i in 0..<n { x[i] = amplitude * Float(sin(2 * Double.pi * frequency * Double(i) / rate)) }
        return x
    }

    /// Plays `input` (one array per channel) through `unit` (player → unit → main mixer) and
    /// renders `frames` frames offline in chunks of `chunk`; `between(done)` runs before each chunk.
    static func render(_ unit: AVAudioNode, _ input: [[Float]], frames: Int, chunk: Int = 1024, maximumFrames: Int = 4096,
                       between: ((Int) -> Void)? = nil) throws -> [[Float]] {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.attach(unit)
        let buffer = Offline.buffer(input)
        engine.connect(player, to: unit, format: buffer.format)
        engine.connect(unit, to: engine.mainMixerNode, format: buffer.format)
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(rate, AVAudioChannelCount(input.count)),
                                             maximumFrameCount: AVAudioFrameCount(maximumFrames))
        try engine.start()
        player.scheduleBuffer(buffer, at: nil)
        player.play()
        let out = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: AVAudioFrameCount(maximumFrames))!
        var result = [[Float]](repeating: [Float](repeating: 0, count: frames), count: input.count)
        var done = 0
        while done < frames {
            between?(done)
            let n = min(chunk, frames - done)
            let status = try engine.renderOffline(AVAudioFrameCount(n), to: out)
            #expect(status == .success)
            for c in 0..<input.count {
                let p = out.floatChannelData![c]
                result[c].withUnsafeMutableBufferPointer { r in (r.baseAddress! + done).update(from: p, count: n) }
            }
            done += n
        }
        engine.stop()
        return result
    }

    /// Local frequency of a tone from its rising zero crossings in `y[range]` (interpolated).
    static func zeroCrossingFrequency(_ y: [Float], _ range: Range<Int>) -> Double {
        Levels.zeroCrossingFrequency(y[range], sampleRate: rate)
    }

    /// First and last frame above `threshold` (the audible span).
    static func span(_ y: [Float], threshold: Float = 0.01) -> (first: Int, last: Int) {
        var first = -1, last = -1
        for i in 0..<y.count where abs(y[i]) > threshold {
            if first < 0 { first = i }
            last = i
        }
        return (first, last)
    }

    typealias ToneStats = ToneAnalysis.Stats

    /// bench_stretch.py's tone checks on `y[range]` (see `ToneAnalysis.stats`).
    static func toneStats(_ y: ArraySlice<Float>, expected: Double) -> ToneStats {
        ToneAnalysis.stats(y, sampleRate: rate, expected: expected)
    }

    // MARK: Rubber Band

    static let rubberband = ["/usr/bin/rubberband", "/usr/local/bin/rubberband"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// Runs `rubberband --fine` (R3) on a mono signal; returns its output.
    static func rubberbandR3(_ x: [Float], arguments: [String]) throws -> [Float] {
        let dir = FileManager.default.temporaryDirectory
        let input = dir.appendingPathComponent("tp-rb-in-\(UUID().uuidString).wav"), output = dir.appendingPathComponent("tp-rb-out-\(UUID().uuidString).wav")
        defer { try? FileManager.default.removeItem(at: input); try? FileManager.default.removeItem(at: output) }
        do {
            let file = try AVAudioFile(forWriting: input, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: rate,
                                                                      AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 32,
                                                                      AVLinearPCMIsFloatKey: true])
            try file.write(from: Offline.buffer([x]))
        }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: rubberband!)
        p.arguments = ["-q", "--fine"] + arguments + [input.path, output.path]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        try p.run()
        p.waitUntilExit()
        #expect(p.terminationStatus == 0)
        let file = try AVAudioFile(forReading: output)
        let b = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(file.length))!
        try file.read(into: b)
        return Array(UnsafeBufferPointer(start: b.floatChannelData![0], count: Int(b.frameLength)))
    }
}

@Suite struct AVAudioUnitTimePitchTests {
    typealias T = TimeEffectTesting

    @Test func parametersAreApplesAUNewTimePitch() throws {
        let unit = AVAudioUnitTimePitch()
        #expect(unit.audioComponentDescription.componentType == kAudioUnitType_FormatConverter)
        #expect(unit.audioComponentDescription.componentSubType == kAudioUnitSubType_NewTimePitch)
        #expect(unit.rate == 1 && unit.pitch == 0 && unit.overlap == 8)
        let tree = try #require(unit.auAudioUnit.parameterTree)
        let rate = try #require(tree.parameter(withAddress: AUParameterAddress(kNewTimePitchParam_Rate)))
        let pitch = try #require(tree.parameter(withAddress: AUParameterAddress(kNewTimePitchParam_Pitch)))
        let overlap = try #require(tree.parameter(withAddress: AUParameterAddress(kNewTimePitchParam_Overlap)))
        #expect(kNewTimePitchParam_Rate == 0 && kNewTimePitchParam_Pitch == 1 && kNewTimePitchParam_Overlap == 4)
        #expect(rate.minValue == 1.0 / 32 && rate.maxValue == 32 && rate.unit == .rate)
        #expect(pitch.minValue == -2400 && pitch.maxValue == 2400 && pitch.unit == .cents)
        #expect(overlap.minValue == 3 && overlap.maxValue == 32)
        unit.rate = 2
        unit.pitch = 300
        unit.overlap = 4
        #expect(rate.value == 2 && pitch.value == 300 && overlap.value == 4)
        unit.rate = 100
        #expect(unit.rate == 32)
        pitch.value = -1200
        #expect(unit.pitch == -1200)
        #expect(unit is AVAudioUnitTimeEffect)
    }

    @Test func latencyIsHalfTheAnalysisWindow() throws {
        let unit = AVAudioUnitTimePitch()
        // an impulse at 0.1 s comes out latency later at rate 1
        var x = [Float](repeating: 0, count: Int(0.5 * T.rate))
        x[4800] = 1
        #expect(abs(unit.latency - 2048.0 / 44_100) < 1e-9)   // unconnected: the default 44.1 kHz format
        let y = try T.render(unit, [x], frames: 12_000)[0]
        #expect(abs(unit.latency - 2048.0 / 48_000) < 1e-9)
        #expect(abs(unit.auAudioUnit.latency - unit.latency) < 1e-12)
        var peak = 0
        for i in 0..<y.count where abs(y[i]) > abs(y[peak]) { peak = i }
        #expect(peak == 4800 + 2048, "impulse came out at \(peak)")
        #expect(abs(y[peak] - 1) < 1e-3)
    }

    @Test(arguments: [0.5, 1.5])
    func rateChangesDurationNotPitch(_ rate: Double) throws {
        let unit = AVAudioUnitTimePitch()
        unit.rate = Float(rate)
        let seconds = 1.5
        let y = try T.render(unit, [T.sine(440, seconds: seconds)], frames: Int((seconds / rate + 0.3) * T.rate))[0]
        let (first, last) = T.span(y)
        let length = Double(last - first) / T.rate
        #expect(abs(length - seconds / rate) < 0.01, "audible for \(length) s, expected \(seconds / rate) s")
        let mid = (first + last) / 2, half = Int(0.3 * T.rate / rate)
        let stats = T.toneStats(y[(mid - half)..<(mid + half)], expected: 440)
        #expect(abs(stats.centsError) < 1, "pitch off by \(stats.centsError) cents")
        #expect(stats.thdnDB < -58, "THD+N \(stats.thdnDB) dB")
        #expect(stats.envelopeDipDB > -1, "envelope dips \(stats.envelopeDipDB) dB")
    }

    @Test(arguments: [500.0, -700.0, 1200.0])
    func pitchShiftLandsWithinACent(_ cents: Double) throws {
        let unit = AVAudioUnitTimePitch()
        unit.pitch = Float(cents)
        let seconds = 1.0
        let y = try T.render(unit, [T.sine(440, seconds: seconds)], frames: Int((seconds + 0.3) * T.rate))[0]
        let (first, last) = T.span(y)
        #expect(abs(Double(last - first) / T.rate - seconds) < 0.01, "audible for \(Double(last - first) / T.rate) s")
        let mid = (first + last) / 2, half = Int(0.25 * T.rate)
        let expected = 440 * pow(2, cents / 1200)
        let stats = T.toneStats(y[(mid - half)..<(mid + half)], expected: expected)
        #expect(abs(stats.centsError) < 1, "pitch off by \(stats.centsError) cents")
        #expect(stats.thdnDB < -58, "THD+N \(stats.thdnDB) dB")
        #expect(stats.envelopeDipDB > -1, "envelope dips \(stats.envelopeDipDB) dB")
    }

    /// A short burst stays a short burst at half speed: its peak survives and its energy stays
    /// within a few milliseconds (transient preservation: phase reset, stretch 1 at the attack).
    @Test func transientsStaySharp() throws {
        let unit = AVAudioUnitTimePitch()
        unit.rate = 0.5
        var x = T.sine(330, seconds: 1.2, amplitude: 0.05)
        let at = Int(0.6 * T.rate)
        for i in 0..<240 { x[at + i] += 0.8 * exp(-Float(i) / 30) * (i % 8 < 4 ? 1 : -1) }
        let y = try T.render(unit, [x], frames: Int(2.6 * T.rate))[0]
        /// The loudest sample from `start`, and the share of the energy within 6 ms of it (of ±100 ms).
        func burst(_ y: [Float], from start: Int) -> (peak: Float, share: Double) {
            var peak = start
            for i in start..<y.count where abs(y[i]) > abs(y[peak]) { peak = i }
            var near = 0.0, around = 0.0
            for i in (peak - Int(0.1 * T.rate))..<(peak + Int(0.1 * T.rate)) {
                let e = Double(y[i]) * Double(y[i])
                around += e
                if abs(i - peak) < Int(0.006 * T.rate) { near += e }
            }
            return (abs(y[peak]), near / around)
        }
        let input = burst(x, from: Int(0.2 * T.rate)), output = burst(y, from: Int(0.5 * T.rate))
        #expect(output.peak > 0.9 * input.peak, "burst peak \(output.peak), input \(input.peak)")
        // (the 330 Hz tone around it is there twice as long at half speed: a little less share)
        #expect(output.share > 0.85 * input.share, "\(output.share) of the energy near the burst, input \(input.share)")
        // and it comes out where half speed puts it: 2 x 0.6 s plus the latency, within 10 ms
        var position = Int(0.5 * T.rate)
        for i in position..<y.count where abs(y[i]) > abs(y[position]) { position = i }
        let expected = 2 * (0.6 * T.rate + 2048)
        #expect(abs(Double(position) - expected) < 0.01 * T.rate, "burst at \(Double(position) / T.rate) s, expected \(expected / T.rate) s")
    }

    @Test func parameterChangesWhilePlayingAndBypass() throws {
        let unit = AVAudioUnitTimePitch()
        let x = T.sine(440, seconds: 2)
        let y = try T.render(unit, [x], frames: Int(2.2 * T.rate), chunk: 512) { done in
            if done == 24_576 { unit.rate = 0.75; unit.pitch = 200 }
            if done == 49_152 { unit.overlap = 4; unit.pitch = -100 }
        }[0]
        #expect(y.allSatisfy { $0.isFinite && abs($0) < 1 })
        // bypassed, the input passes straight through
        let bypassed = AVAudioUnitTimePitch()
        bypassed.rate = 0.5
        bypassed.bypass = true
        #expect(bypassed.auAudioUnit.shouldBypassEffect)
        let z = try T.render(bypassed, [Array(x[0..<9000])], frames: 9000)[0]
        #expect(z == Array(x[0..<9000]))
    }

    /// Rate and pitch changes scheduled at sample times through `scheduleParameterBlock` give the
    /// same samples however the rendering is chunked (37, 512, 4096 frames per call, and a
    /// maximumFrameCount of 512 or 4096), and a pitch change starts at its sample: the tone is
    /// still 440 Hz up to it and 880 Hz (+1200 cents) within 1024 frames after it (the pitch
    /// resampler glides over one 512-frame hop).
    @Test func scheduledChangesLandOnTheirSamplesWhateverTheChunking() throws {
        let T = TimeEffectTesting.self
        let pitchAt = 20_000, rateAt = 34_567, frames = 52_000
        func run(chunk: Int, maximumFrames: Int) throws -> [Float] {
            let unit = AVAudioUnitTimePitch()
            return try T.render(unit, [T.sine(440, seconds: 1.6)], frames: frames, chunk: chunk, maximumFrames: maximumFrames) { done in
                if done == 0 {
                    unit.auAudioUnit.scheduleParameterBlock(AUEventSampleTime(pitchAt), 0, AUParameterAddress(kNewTimePitchParam_Pitch), 1200)
                    unit.auAudioUnit.scheduleParameterBlock(AUEventSampleTime(rateAt), 0, AUParameterAddress(kNewTimePitchParam_Rate), 1.5)
                }
            }[0]
        }
        let reference = try run(chunk: 4096, maximumFrames: 4096)
        for (chunk, maximumFrames) in [(37, 4096), (512, 512), (1000, 4096)] {
            let y = try run(chunk: chunk, maximumFrames: maximumFrames)
            let firstDifference = y.indices.first { y[$0] != reference[$0] }
            #expect(firstDifference == nil, "chunk \(chunk), maximumFrameCount \(maximumFrames): first difference at \(firstDifference ?? -1)")
        }
        let before = T.zeroCrossingFrequency(reference, (pitchAt - 4096)..<pitchAt)
        let after = T.zeroCrossingFrequency(reference, (pitchAt + 1024)..<(pitchAt + 9216))
        #expect(abs(1200 * log2(before / 440)) < 5, "before the change: \(before) Hz")
        #expect(abs(1200 * log2(after / 880)) < 5, "after the change: \(after) Hz")
        // the rate change keeps the pitch (880 Hz) and speeds the input up 1.5 times
        let late = T.toneStats(reference[(rateAt + 6000)..<(rateAt + 14_000)], expected: 880)
        #expect(abs(late.centsError) < 1, "after the rate change: \(late.frequency) Hz")
    }

    /// Dense automation — rate (0.5 … 2.7) and pitch (−700 … +900 cents) changes every 900
    /// frames — renders identically at 37 and 4096 frames per call.
    @Test func denseAutomationIsIndependentOfChunking() throws {
        let frames = 30_000
        let input = TimeEffectTesting.sine(330, seconds: 2.5)
        func run(chunk: Int) throws -> [Float] {
            let unit = AVAudioUnitTimePitch()
            return try TimeEffectTesting.render(unit, [input], frames: frames, chunk: chunk) { done in
                guard done == 0 else { return }
                for k in 1..<33 {
                    let address = AUParameterAddress(k % 2 == 0 ? kNewTimePitchParam_Rate : kNewTimePitchParam_Pitch)
                    let value = k % 2 == 0 ? AUValue(0.5 + 2.2 * Double((k * 5) % 7) / 6) : AUValue(-700 + 1600 * Double((k * 3) % 5) / 4)
                    unit.auAudioUnit.scheduleParameterBlock(AUEventSampleTime(900 * k), 0, address, value)
                }
            }[0]
        }
        let a = try run(chunk: 4096), b = try run(chunk: 37)
        let same = a == b
        #expect(same, "first difference at \(a.indices.first { a[$0] != b[$0] } ?? -1)")
        #expect(a[frames - 100 ..< frames].contains { $0 != 0 }, "still playing at the end")
    }

    @Test func createdFromItsComponentDescription() throws {
        let d = AudioComponentDescription(componentType: kAudioUnitType_FormatConverter, componentSubType: kAudioUnitSubType_NewTimePitch,
                                          componentManufacturer: kAudioUnitManufacturer_Apple, componentFlags: 0, componentFlagsMask: 0)
        let unit = AVAudioUnitTimeEffect(audioComponentDescription: d)
        unit.auAudioUnit.parameterTree?.parameter(withAddress: AUParameterAddress(kNewTimePitchParam_Rate))?.value = 2
        let y = try T.render(unit, [T.sine(440, seconds: 1)], frames: Int(0.8 * T.rate))[0]
        let (first, last) = T.span(y)
        #expect(abs(Double(last - first) / T.rate - 0.5) < 0.05)
    }

    /// Our unit next to Rubber Band R3 on the same 440 Hz tone: pitch within a cent and THD+N at
    /// least as low as −58 dB (R3's figures are recorded alongside).
    @Test(.enabled(if: TimeEffectTesting.rubberband != nil, "the rubberband CLI is not installed (Debian: rubberband-cli)"),
          arguments: [0.5, 1.5])
    func comparedWithRubberBandR3(_ rate: Double) throws {
        let x = T.sine(440, seconds: 2)
        let unit = AVAudioUnitTimePitch()
        unit.rate = Float(rate)
        let ours = try T.render(unit, [x], frames: Int((2 / rate + 0.2) * T.rate))[0]
        let r3 = try T.rubberbandR3(x, arguments: ["-T", "\(rate)"])
        func middle(_ y: [Float]) -> ArraySlice<Float> {
            let (first, last) = T.span(y)
            let quarter = (last - first) / 4
            return y[(first + quarter)..<(last - quarter)]
        }
        let a = T.toneStats(middle(ours), expected: 440), b = T.toneStats(middle(r3), expected: 440)
        let (o0, o1) = T.span(ours), (r0, r1) = T.span(r3)
        print("rate \(rate): ours \(Double(o1 - o0) / T.rate) s, \(a.centsError) cents, dip \(a.envelopeDipDB) dB, THD+N \(a.thdnDB) dB; "
              + "Rubber Band R3 \(Double(r1 - r0) / T.rate) s, \(b.centsError) cents, dip \(b.envelopeDipDB) dB, THD+N \(b.thdnDB) dB")
        #expect(abs(a.centsError) <= 1)
        #expect(a.thdnDB <= -58)
        #expect(a.thdnDB <= b.thdnDB + 3, "ours \(a.thdnDB) dB vs R3 \(b.thdnDB) dB")
        #expect(a.envelopeDipDB >= -1)
        #expect(abs(Double(o1 - o0) - Double(r1 - r0)) < 0.01 * T.rate, "ours \(o1 - o0) frames, R3 \(r1 - r0) frames")
    }
}

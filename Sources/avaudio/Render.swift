// `avaudio render SONG.mid --soundfont BANK.sf2 -o OUT.wav`: a Standard MIDI File played by
// AVAudioSequencer into AVAudioUnitSampler, rendered offline (manual rendering) to a file — the
// way an app would do it with the public API.
import AVFoundation
import ArgumentParser

struct Render: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Render a MIDI file through the SoundFont sampler to an audio file (offline).",
        discussion: "Without --soundfont the sampler's built-in tone plays every channel."
    )

    @Argument(help: "The Standard MIDI File.") var song: String
    @Option(name: .long, help: "A SoundFont 2 bank (.sf2).") var soundfont: String?
    @Option(name: [.short, .long], help: "The output file (.wav, .aif or .caf).") var output: String
    @Option(help: "Sample rate of the output.") var rate: Double = 48_000
    @Option(help: "Seconds rendered after the last event (release tails).") var tail: Double = 2
    @Option(help: "Gain of the sampler in dB (overallGain).") var gain: Float = 0
    @Flag(help: "Do not print progress.") var quiet = false

    mutating func run() throws {
        let format = AVAudioFormat(standardFormatWithSampleRate: rate, channels: 2)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 4096)
        let sampler = AVAudioUnitSampler()
        engine.attach(sampler)
        engine.connect(sampler, to: engine.mainMixerNode, format: format)
        if let soundfont {
            do {
                try sampler.loadSoundBankInstrument(at: URL(fileURLWithPath: soundfont), program: 0,
                                                    bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB), bankLSB: UInt8(kAUSampler_DefaultBankLSB))
            } catch {
                reportError(error, path: soundfont)
                throw ExitCode(1)
            }
        }
        sampler.overallGain = gain
        let sequencer = AVAudioSequencer(audioEngine: engine)
        do { try sequencer.load(from: URL(fileURLWithPath: song), options: []) } catch {
            reportError(error, path: song)
            throw ExitCode(1)
        }
        for track in sequencer.tracks { track.destinationAudioUnit = sampler }
        let length = sequencer.tracks.map(\.lengthInSeconds).max() ?? 0
        let total = AVAudioFramePosition(((length + tail) * rate).rounded(.up))
        let settings = format.settings.merging([AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false,
                                                AVFormatIDKey: kAudioFormatLinearPCM]) { $1 }
        let file: AVAudioFile
        do {
            file = try AVAudioFile(forWriting: URL(fileURLWithPath: output), settings: settings,
                                   commonFormat: .pcmFormatFloat32, interleaved: false)
        } catch {
            reportError(error, path: output)
            throw ExitCode(1)
        }
        try engine.start()
        sequencer.prepareToPlay()
        try sequencer.start()
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4096)!
        var done: AVAudioFramePosition = 0
        var lastPercent = -1
        let started = Date()
        while done < total {
            let n = AVAudioFrameCount(min(4096, total - done))
            guard try engine.renderOffline(n, to: buffer) == .success else { break }
            try file.write(from: buffer)
            done += AVAudioFramePosition(buffer.frameLength)
            let percent = Int(100 * done / max(1, total))
            if !quiet && percent != lastPercent && percent % 5 == 0 {
                lastPercent = percent
                FileHandle.standardError.write(Data("\r[\(String(repeating: "#", count: percent / 5))\(String(repeating: " ", count: 20 - percent / 5))] \(percent)%".utf8))
            }
        }
        sequencer.stop()
        engine.stop()
        file.close()
        let seconds = Double(done) / rate
        let elapsed = Date().timeIntervalSince(started)
        if !quiet { FileHandle.standardError.write(Data("\n".utf8)) }
        print("rendered \(String(format: "%.2f", seconds)) s to \(output) in \(String(format: "%.2f", elapsed)) s (\(String(format: "%.0f", seconds / max(elapsed, 1e-9)))× realtime)")
    }
}

// `avaudio play` and `avaudio record`: AVAudioPlayer (AVMIDIPlayer for MIDI files) and AVAudioRecorder from the command line,
// like macOS's afplay and afrecord, with level meters drawn from averagePower/peakPower.
//
//     avaudio play song.flac --loops 1 --fade 2 --volume 0.8
//     avaudio play song.mid --soundfont /usr/share/sounds/sf2/FluidR3_GM.sf2
//     avaudio record take.wav --duration 10 --channels 2 --rate 48000 --bits 24
//
// Both run until done or Ctrl-C; a recording stopped by Ctrl-C (or killed outright) is a valid
// file holding every frame captured (the WAV/AIFF/CAF headers are rewritten after every write).
import ArgumentParser
import AVFoundation
#if canImport(Glibc)
import Glibc
#endif

/// Draws one meter line on stderr: a bar per channel from −60 to 0 dBFS, average as '#', the
/// peak as '|', and the numbers.
enum MeterBars {
    static func line(average: [Float], peak: [Float], position: String) -> String {
        let width = 30
        let bars = zip(average, peak).map { avg, pk -> String in
            func cells(_ db: Float) -> Int { Int(((max(-60, min(0, db)) + 60) / 60 * Float(width)).rounded()) }
            var bar = Array(repeating: Character(" "), count: width)
            for k in 0..<cells(avg) { bar[k] = "#" }
            let p = cells(pk)
            if p > 0 { bar[p - 1] = "|" }
            return "[" + String(bar) + "] " + String(format: "%6.1f/%6.1f dB", avg, pk)
        }
        return "\r\(position) " + bars.joined(separator: "  ")
    }

    static var enabledByDefault: Bool { isatty(2) != 0 }
}

/// Stops on Ctrl-C (SIGINT) instead of dying: the flag is polled by the command's loop.
final class InterruptFlag: @unchecked Sendable {
    private(set) var raised = false
    private var source: DispatchSourceSignal?
    init() {
        signal(SIGINT, SIG_IGN)
        let source = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        source.setEventHandler { [weak self] in self?.raised = true }
        source.resume()
        self.source = source
    }
}

struct Play: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Play audio files with AVAudioPlayer, and MIDI files with AVMIDIPlayer, on a real device (PulseAudio, ALSA, JACK) or the null device.",
        discussion: """
            --device takes a selector as listed by `avaudio devices` (pulse, pulse:SINK, alsa:default, \
            alsa:hw:0, jack, null); without it AVAUDIO_BACKEND, else PulseAudio when a server answers, else \
            ALSA default, else the null device. Standard MIDI Files (.mid, .midi, .smf, .kar) play \
            through AVMIDIPlayer with --soundfont's bank (SoundFont 2/3 or DLS; without it the \
            sampler's built-in tone); --rate, --time and --loops apply to them, --volume, --pan and \
            --fade do not. Ctrl-C stops.
            """
    )

    @Argument(help: "The audio files to play, one after the other.")
    var files: [String]

    @Option(help: "The device selector (see `avaudio devices`).")
    var device: String?

    @Option(help: "Volume, 0…1.")
    var volume: Float = 1

    @Option(help: "Pan, −1 (left) … 1 (right).")
    var pan: Float = 0

    @Option(help: "Playback rate 0.5…2, pitch kept.")
    var rate: Float?

    @Option(help: "Times to play each file again after the first (−1: forever).")
    var loops: Int = 0

    @Option(help: "Seconds to fade in at the start and out before the end.")
    var fade: Double = 0

    @Option(help: "Start this many seconds into each file.")
    var time: Double = 0

    @Option(help: "Device period in frames (applied through AVAudioSession's preferred IO buffer duration).")
    var period: Int?

    @Option(help: "The sound bank MIDI files play with (.sf2, .sf3, .dls).")
    var soundfont: String?

    @Flag(help: "Draw level meters (default: when stderr is a terminal).")
    var meter = false

    @Flag(help: "No level meters.")
    var noMeter = false

    mutating func run() throws {
        if let period {
            let session = AVAudioSession.sharedInstance()
            try session._setDeviceSelector(device)
            try session.setPreferredIOBufferDuration(Double(period) / 48_000)
            try session.setActive(true)
        }
        let interrupt = InterruptFlag()
        let showMeters = !noMeter && (meter || MeterBars.enabledByDefault)
        for path in files {
            if ["mid", "midi", "smf", "kar"].contains((path as NSString).pathExtension.lowercased()) {
                try playMIDI(path, interrupt: interrupt, showPosition: showMeters)
                if interrupt.raised { break }
                continue
            }
            let player = try AVAudioPlayer(contentsOf: URL(fileURLWithPath: path))
            player.currentDevice = device
            player.numberOfLoops = loops
            player.pan = pan
            if let rate { player.enableRate = true; player.rate = rate }
            player.isMeteringEnabled = showMeters
            player.currentTime = time
            player.volume = fade > 0 ? 0 : volume
            guard player.play() else { throw ValidationError("cannot play \(path): the output device did not start") }
            if fade > 0 { player.setVolume(volume, fadeDuration: fade) }
            FileHandle.standardError.write(Data("playing \(path) (\(String(format: "%.2f", player.duration)) s, \(player.numberOfChannels) ch, \(Int(player.format.sampleRate)) Hz)\n".utf8))
            let speed = Double(rate ?? 1)
            let total = loops < 0 ? Double.infinity : (player.duration * Double(loops + 1) - time) / speed
            let start = Date()
            var fadingOut = false
            while player.isPlaying && !interrupt.raised {
                usleep(50_000)
                let elapsed = Date().timeIntervalSince(start)
                if fade > 0, !fadingOut, elapsed >= total - fade {
                    fadingOut = true
                    player.setVolume(0, fadeDuration: max(0.01, total - elapsed))
                }
                if showMeters {
                    player.updateMeters()
                    let channels = 0..<player.numberOfChannels
                    let position = String(format: "%7.2f s", player.currentTime)
                    FileHandle.standardError.write(Data(MeterBars.line(average: channels.map(player.averagePower(forChannel:)),
                                                                       peak: channels.map(player.peakPower(forChannel:)), position: position).utf8))
                }
            }
            player.stop()
            if showMeters { FileHandle.standardError.write(Data("\n".utf8)) }
            if interrupt.raised { break }
        }
    }

    /// A Standard MIDI File through AVMIDIPlayer (its own engine and sampler) on the chosen device,
    /// `loops` more times after the first, with the position shown while it plays when meters
    /// would be (the same --meter/--no-meter rule as for audio files).
    func playMIDI(_ path: String, interrupt: InterruptFlag, showPosition: Bool) throws {
        guard volume == 1, pan == 0, fade == 0 else {
            throw ValidationError("--volume, --pan and --fade apply to audio files, not to the MIDI file \(path)")
        }
        if let device { try AVAudioSession.sharedInstance()._setDeviceSelector(device) }
        let player = try AVMIDIPlayer(contentsOf: URL(fileURLWithPath: path), soundBankURL: soundfont.map { URL(fileURLWithPath: $0) })
        if let rate { player.rate = rate }
        FileHandle.standardError.write(Data("playing \(path) (\(String(format: "%.2f", player.duration)) s, MIDI\(soundfont.map { ", \($0)" } ?? ""))\n".utf8))
        final class Finished: @unchecked Sendable {
            let lock = NSLock()
            var done = false
        }
        var pass = 0
        while !interrupt.raised && (loops < 0 || pass <= loops) {
            player.currentPosition = pass == 0 ? time : 0
            player.prepareToPlay()
            let finished = Finished()
            player.play { finished.lock.lock(); finished.done = true; finished.lock.unlock() }
            guard player.isPlaying else { throw ValidationError("cannot play \(path): the output device did not start") }
            while !interrupt.raised {
                finished.lock.lock(); let done = finished.done; finished.lock.unlock()
                if done { break }
                usleep(50_000)
                if showPosition {
                    FileHandle.standardError.write(Data(String(format: "\r%7.2f s of %.2f s", player.currentPosition, player.duration).utf8))
                }
            }
            pass += 1
        }
        player.stop()
        if showPosition { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

struct Record: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Record from the input device with AVAudioRecorder into a .wav, .aif, .caf, .flac or .m4a file.",
        discussion: """
            --device takes a selector for an input (pulse::SOURCE, pulse::SINK.monitor, alsa:hw:1, null; \
            alsa:PLAYBACK|CAPTURE records from CAPTURE); \
            without it the default input. Runs for --duration seconds, or until Ctrl-C; either way the \
            file is complete and valid. .m4a records Apple Lossless (--flac: FLAC in MP4), .flac FLAC, \
            .caf linear PCM (--alac: Apple Lossless).
            """
    )

    @Argument(help: "The file to write (.wav, .aif, .caf, .flac, .m4a).")
    var file: String

    @Option(help: "Seconds to record (default: until Ctrl-C).")
    var duration: Double?

    @Option(help: "The input device selector (see `avaudio devices`).")
    var device: String?

    @Option(help: "Channels.")
    var channels: Int = 2

    @Option(help: "Sample rate (default: the device's).")
    var rate: Double?

    @Option(help: "Bits per sample: 16, 24 or 32.")
    var bits: Int = 16

    @Flag(help: "Write floating-point samples (32 bits).")
    var float = false

    @Flag(help: "Apple Lossless in a .caf file (an .m4a file holds Apple Lossless unless --flac).")
    var alac = false

    @Flag(help: "FLAC in an .m4a/.mp4 file.")
    var flac = false

    @Flag(help: "Draw level meters (default: when stderr is a terminal).")
    var meter = false

    @Flag(help: "No level meters.")
    var noMeter = false

    mutating func run() throws {
        var settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVNumberOfChannelsKey: channels,
                                       AVLinearPCMBitDepthKey: float ? 32 : bits, AVLinearPCMIsFloatKey: float]
        // The data the container holds (the lossless codecs take the bit depth as a hint).
        let ext = URL(fileURLWithPath: file).pathExtension.lowercased()
        let codec: AudioFormatID? = ext == "flac" || ((ext == "m4a" || ext == "mp4") && flac) ? kAudioFormatFLAC
            : ext == "m4a" || ext == "mp4" || (ext == "caf" && alac) ? kAudioFormatAppleLossless : nil
        if let codec {
            guard !float else { throw ValidationError("--float: \(codec == kAudioFormatFLAC ? "FLAC" : "Apple Lossless") stores integer samples") }
            settings = [AVFormatIDKey: codec, AVNumberOfChannelsKey: channels, AVEncoderBitDepthHintKey: bits]
        }
        if let rate { settings[AVSampleRateKey] = rate }
        if let device, rate == nil {
            // The device's own rate (the session describes the chosen backend).
            try? AVAudioSession.sharedInstance()._setDeviceSelector(device)
        }
        let url = URL(fileURLWithPath: file)
        let recorder = try AVAudioRecorder(url: url, settings: settings)
        recorder._deviceSelector = device
        let interrupt = InterruptFlag()
        let showMeters = !noMeter && (meter || MeterBars.enabledByDefault)
        recorder.isMeteringEnabled = showMeters
        let started = duration.map { recorder.record(forDuration: $0) } ?? recorder.record()
        guard started else { throw ValidationError("cannot record to \(file): the file or the input device could not be opened") }
        FileHandle.standardError.write(Data("recording \(file) (\(recorder.format.channelCount) ch, \(Int(recorder.format.sampleRate)) Hz)\(duration.map { " for \($0) s" } ?? ", Ctrl-C stops")\n".utf8))
        var seconds = 0.0
        while recorder.isRecording && !interrupt.raised {
            usleep(50_000)
            seconds = max(seconds, recorder.currentTime)
            if showMeters {
                recorder.updateMeters()
                let channels = 0..<Int(recorder.format.channelCount)
                FileHandle.standardError.write(Data(MeterBars.line(average: channels.map(recorder.averagePower(forChannel:)),
                                                                   peak: channels.map(recorder.peakPower(forChannel:)),
                                                                   position: String(format: "%7.2f s", recorder.currentTime)).utf8))
            }
        }
        recorder.stop()
        if showMeters { FileHandle.standardError.write(Data("\n".utf8)) }
        let written = try AVAudioFile(forReading: url)
        print("\(file): \(written.length) frames (\(String(format: "%.3f", Double(written.length) / written.fileFormat.sampleRate)) s)")
    }
}

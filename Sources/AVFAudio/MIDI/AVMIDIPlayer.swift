// AVMIDIPlayer: plays a standard MIDI file through a SoundFont (or the sampler's built-in tone).
//
// DESIGN NOTE — what it is built from
// -----------------------------------
// One private engine per player: an `AVAudioSequencer` on that engine whose tracks all play into
// one `AVAudioUnitSampler` connected to the main mixer (the sampler is a General MIDI synth: each
// MIDI channel keeps its own program, channel 10 is drums). The engine opens the device the
// shared AVAudioSession chooses for playback (as AVAudioPlayer does), so `AVAUDIO_BACKEND` and
// the session's selector apply.
//
// The sound bank: Apple documents that on macOS `soundBankURL` may be nil "for the default"
// (iOS requires a bank). On Linux the default is the General MIDI bank Debian's packages install
// (`/usr/share/sounds/sf2/default-GM.sf2`, the alternatives link that fluid-soundfont-gm and
// timgm6mb-soundfont provide, else `FluidR3_GM.sf2` or `TimGM6mb.sf2` there), and without one the
// sampler's built-in tone plays every note (as `avaudio render` does without `--soundfont`).
//
// Threading: the public calls take `lock` only to read or change the player's own state; engine
// and sequencer calls run outside it. The end of the sequence is noticed by a timer on a private
// queue (every 10 ms), which stops playback (sequencer and engine: the output device is released
// until the next `play`) and then calls the completion handler on that queue, with no lock held. Apple calls the handler "when playback completes"; we do not call it when
// `stop()` ends playback early (Apple does not document that case).
import Foundation

/// A callback the system invokes when MIDI playback completes (Apple's declaration).
public typealias AVMIDIPlayerCompletionHandler = () -> Void

/// An object that plays MIDI data through a sound bank (SoundFont 2), as Apple's AVMIDIPlayer.
open class AVMIDIPlayer: NSObject, @unchecked Sendable {
    private let engine = AVAudioEngine()
    private let sampler = AVAudioUnitSampler()
    private let sequencer: AVAudioSequencer
    private let lock = NSLock()
    private var completion: (@Sendable () -> Void)?
    private var watcher: DispatchSourceTimer?
    private let queue = DispatchQueue(label: "AVMIDIPlayer")
    private var generation = 0

    /// Creates a player for the MIDI file at `inURL`, playing through the SoundFont at `bankURL`
    /// (nil: the system's General MIDI bank, or the sampler's built-in tone; see the note above).
    /// Throws an NSError when the file or the bank cannot be read.
    public convenience init(contentsOf inURL: URL, soundBankURL bankURL: URL?) throws {
        let data: Data
        do {
            data = try Data(contentsOf: inURL)
        } catch {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioFileFileNotFoundError),
                          userInfo: [NSLocalizedDescriptionKey: "AVMIDIPlayer: cannot read the MIDI file \"\(inURL.path)\": \((error as NSError).localizedDescription)",
                                     NSFilePathErrorKey: inURL.path])
        }
        try self.init(data: data, soundBankURL: bankURL)
    }

    /// Creates a player for MIDI file data (a standard MIDI file's bytes), playing through the
    /// SoundFont at `bankURL` (nil: see the note above). Throws an NSError when the data is not a
    /// MIDI file or the bank cannot be read.
    public init(data: Data, soundBankURL bankURL: URL?) throws {
        sequencer = AVAudioSequencer(audioEngine: engine)
        super.init()
        try? engine._setAudioDevice(AVAudioSession.sharedInstance().playbackSelector)
        engine.attach(sampler)
        engine.connect(sampler, to: engine.mainMixerNode, format: nil)
        if let bank = bankURL ?? AVMIDIPlayer.defaultSoundBank() {
            try sampler.loadSoundBankInstrument(at: bank, program: 0, bankMSB: UInt8(kAUSampler_DefaultMelodicBankMSB),
                                                bankLSB: UInt8(kAUSampler_DefaultBankLSB))
        }
        try sequencer.load(from: data, options: [])
        for track in sequencer.tracks { track.destinationAudioUnit = sampler }
    }

    deinit {
        watcher?.cancel()
        sequencer.stop()
        engine.stop()
    }

    /// The system's General MIDI SoundFont, if one is installed (Debian's paths).
    static func defaultSoundBank() -> URL? {
        for path in ["/usr/share/sounds/sf2/default-GM.sf2", "/usr/share/sounds/sf2/FluidR3_GM.sf2",
                     "/usr/share/sounds/sf2/TimGM6mb.sf2"] where FileManager.default.isReadableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        return nil
    }

    /// The duration of the loaded sequence in seconds: its longest track, at the file's tempo.
    open var duration: TimeInterval {
        sequencer.tracks.map(\.lengthInSeconds).max() ?? 0
    }

    /// Whether the sequence is playing.
    open var isPlaying: Bool { sequencer.isPlaying }

    /// The playback rate (1 is the file's tempo; Apple does not document a range, the sequencer
    /// takes any positive rate).
    open var rate: Float {
        get { sequencer.rate }
        set { sequencer.rate = newValue }
    }

    /// The playback position in seconds; setting it seeks (while playing too).
    open var currentPosition: TimeInterval {
        get { sequencer.currentPositionInSeconds }
        set { sequencer.currentPositionInSeconds = max(0, newValue) }
    }

    /// Prepares the player (starts the engine's graph and prerolls the sequence's events), so
    /// that `play` starts at once.
    open func prepareToPlay() {
        engine.prepare()
        sequencer.prepareToPlay()
    }

    /// Plays the sequence from the current position; `completionHandler` is called (on a private
    /// queue) when playback reaches the end. Failing to start (no output device) is reported on
    /// standard error and the handler is not called, as there is no error channel in Apple's API.
    open func play(_ completionHandler: (@Sendable () -> Void)? = nil) {
        do {
            if !engine.isRunning { try engine.start() }
            if currentPosition >= duration { currentPosition = 0 }
            try sequencer.start()
        } catch {
            FileHandle.standardError.write(Data("AVMIDIPlayer: play() failed: \((error as NSError).localizedDescription)\n".utf8))
            return
        }
        lock.lock()
        generation += 1
        let g = generation
        completion = completionHandler
        watcher?.cancel()
        let timer = DispatchSource.makeTimerSource(queue: queue)
        watcher = timer
        lock.unlock()
        timer.schedule(deadline: .now() + .milliseconds(10), repeating: .milliseconds(10))
        timer.setEventHandler { [weak self] in self?.checkEnd(generation: g) }
        timer.resume()
    }

    /// Stops playback; the position stays where it is (the next `play` resumes from it).
    open func stop() {
        lock.lock()
        generation += 1
        watcher?.cancel()
        watcher = nil
        completion = nil
        lock.unlock()
        sequencer.stop()
        engine.stop()   // (releases the output device; play() starts it again)
    }

    /// On the private queue: at the end of the sequence, stop and call the completion handler.
    private func checkEnd(generation g: Int) {
        guard sequencer.isPlaying, currentPosition >= duration else { return }
        lock.lock()
        guard g == generation else { lock.unlock(); return }
        generation += 1
        watcher?.cancel()
        watcher = nil
        let handler = completion
        completion = nil
        lock.unlock()
        sequencer.stop()
        engine.stop()
        handler?()
    }
}

// AVAudioPlayer: plays a file (or an in-memory file image) with looping, seeking, volume fades,
// pan, rate and metering.
//
// Design: one AVAudioEngine per player. Apple builds AVAudioPlayer on one Audio Queue per player,
// and the public behaviour follows from that: each player starts and stops its own output
// stream, and players never affect each other's graph, timing or failures. Here each player owns
// an engine — `AVAudioPlayerNode → [AVAudioUnitTimePitch when enableRate] → mainMixerNode →
// output` — created by `prepareToPlay()` (or `play()`), started by `play()` and stopped by
// `stop()`. A shared engine would save a device stream per playing player but would make one
// player's device failure or format change every player's problem, and would couple their
// lifetimes through one graph; sound servers (PulseAudio, PipeWire) mix client streams anyway.
// The cost: on a bare ALSA `hw:` device (no dmix), two players cannot play at once — as two Audio
// Queues could not share an exclusive device.
//
// Timing and position. The player node's own timeline counts file frames (it is connected in the
// file's processing format; the time-pitch unit after it changes the rate of consumption, not
// the count), so `currentTime` is `(anchor + frames played) mod length` where `anchor` is the file
// frame the current scheduling started from (play, seek, resume). Loops are scheduled one
// segment ahead: each segment's `.dataConsumed` completion schedules the one after next, the last
// uses `.dataPlayedBack`, which finishes the player and tells the delegate. A generation counter
// makes completions of segments dropped by a seek, pause or stop do nothing. With the time-pitch
// unit in the chain, a short silent buffer follows the last segment, so that the unit's window is
// flushed before the player finishes (else the last ~70 ms at rate 2 would be cut). A 10 Hz
// sampler keeps the last known position while playing, so that it survives the engine stopping
// under the player (an output device that goes away: the player pauses there and its delegate
// hears `audioPlayerBeginInterruption`).
//
// Cost, measured with 16 players playing on the null device (debug build): about 2 threads per
// playing player (its engine's device thread and event dispatcher) and 1.1 MB of memory (mostly
// the file segment's 2 s read-ahead ring); a stopped player holds no thread.
//
// `deviceCurrentTime` is the host clock in seconds (CLOCK_MONOTONIC, the engine's host time), the
// same clock for every player, so `play(atTime: other.deviceCurrentTime + 0.5)` starts several
// players together, as Apple's documentation shows.
//
// Locks: `stateLock` guards the numbers above and is never held while calling into the engine
// (the engine may run a completion handler synchronously, which takes it); `transportLock`
// serialises play/pause/stop/seek/finish so that the engine is started and stopped in order.
// Completion handlers never take `transportLock` (they hand finishing to `controlQueue`).
import Foundation

open class AVAudioPlayer: NSObject {
    // MARK: Creating

    /// Creates a player for the audio file at `url`. Throws an NSError in NSOSStatusErrorDomain
    /// (Apple reports file errors there, e.g. 1954115647 'typ?' for an unsupported file) with a
    /// sentence naming the file.
    public convenience init(contentsOf url: URL) throws {
        try self.init(contentsOf: url, fileTypeHint: nil)
    }

    /// Creates a player for the file at `url`. `utiString` (an `AVFileType` raw value such as
    /// "com.microsoft.waveform-audio") is accepted for compatibility: the container is always
    /// recognised from the file's first bytes, which decides unambiguously for every supported format.
    public init(contentsOf url: URL, fileTypeHint utiString: String?) throws {
        self.url = url
        self.data = nil
        self.file = try AVAudioPlayer.openFile(url)
        self.temporaryDirectory = nil
        self.meter = AudioLevelMeter(channels: Int(file.fileFormat.channelCount))
        super.init()
    }

    /// Creates a player for an audio file held in memory (the bytes of a WAV, AIFF, CAF, FLAC ... file).
    public convenience init(data: Data) throws {
        try self.init(data: data, fileTypeHint: nil)
    }

    /// Creates a player for an audio file held in memory; see `init(contentsOf:fileTypeHint:)` for the hint.
    public init(data: Data, fileTypeHint utiString: String?) throws {
        // The file layer reads from paths (and each scheduled segment reopens its file), so the
        // bytes go to a private temporary file, removed when the player goes away.
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("avaudioplayer-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("data")
        do {
            try data.write(to: path)
            self.file = try AVAudioPlayer.openFile(path, describedAs: "the audio data (\(data.count) bytes)")
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        self.url = nil
        self.data = data
        self.temporaryDirectory = directory
        self.meter = AudioLevelMeter(channels: Int(file.fileFormat.channelCount))
        super.init()
    }

    private static func openFile(_ url: URL, describedAs what: String? = nil) throws -> AVAudioFile {
        do {
            return try AVAudioFile(forReading: url)
        } catch let error as NSError {
            var info = error.userInfo
            let reason = error.localizedDescription
            info[NSLocalizedDescriptionKey] = what.map { "AVAudioPlayer cannot play \($0): \(reason)" } ?? "AVAudioPlayer: \(reason)"
            info[NSUnderlyingErrorKey] = error
            throw NSError(domain: NSOSStatusErrorDomain, code: error.code, userInfo: info)
        }
    }

    deinit {
        fadeTimer?.cancel()
        positionSampler?.cancel()
        if let token = configurationObserver { NotificationCenter.default.removeObserver(token) }
        engine?.stop()
        if let temporaryDirectory { try? FileManager.default.removeItem(at: temporaryDirectory) }
    }

    // MARK: What it plays

    /// The file's URL (nil for a player created from data).
    public let url: URL?
    /// The audio data (nil for a player created from a URL).
    public let data: Data?
    let file: AVAudioFile
    private let temporaryDirectory: URL?

    /// The format of the audio data (the file's data format).
    open var format: AVAudioFormat { file.fileFormat }
    /// The audio data's settings dictionary (`AVFormatIDKey`, `AVSampleRateKey`, ...).
    open var settings: [String: Any] { file.fileFormat.settings }
    /// The number of channels in the audio data.
    open var numberOfChannels: Int { Int(file.fileFormat.channelCount) }
    /// The length of the audio, in seconds.
    open var duration: TimeInterval { Double(file.length) / file.processingFormat.sampleRate }

    /// The delegate (weak, as on Apple platforms); told on the main queue.
    open weak var delegate: AVAudioPlayerDelegate?

    // MARK: State

    enum State { case stopped, playing, paused }
    let stateLock = NSLock()
    let transportLock = NSRecursiveLock()
    /// Where finishing work (stopping the engine, telling the delegate) runs.
    let controlQueue = DispatchQueue(label: "AVAudioPlayer.control")
    var state = State.stopped
    /// The file frame the current scheduling started from (also the position while not playing).
    var anchorFrame: Int64 = 0
    /// Loops still to play after the segment starting at `anchorFrame` (−1: forever).
    var loopsAfterAnchor = 0
    var generation = 0
    /// Segments of this generation scheduled so far, and how many it has in all (nil: forever).
    var segmentsScheduled = 0
    var segmentsTotal: Int? = 1
    var _volume: Float = 1
    var _pan: Float = 0
    var _rate: Float = 1
    var _enableRate = false
    var _numberOfLoops = 0
    var _meteringEnabled = false
    var _currentDevice: String?
    var _channelAssignments: [AVAudioSessionChannelDescription]?

    // The engine graph (built by prepareToPlay).
    var engine: AVAudioEngine?
    var playerNode: AVAudioPlayerNode?
    var timePitch: AVAudioUnitTimePitch?
    /// Whether the built graph has the time-pitch unit.
    var graphHasRate = false
    /// The output channel (0-based) each file channel plays on, from `channelAssignments`, as the
    /// built graph routes them (nil: the default layout mapping).
    var graphAssignedOutputs: [Int]?
    /// The graph's routing for the player node's file segments: output channel k plays file
    /// channel graphChannelMap[k] (negative: silent).
    var graphChannelMap: [Int]?
    var configurationObserver: NSObjectProtocol?
    var fadeTimer: DispatchSourceTimer?
    var positionSampler: DispatchSourceTimer?
    /// The player node's frames played at the last sample, for generation `generation`.
    var lastKnownPlayed: (generation: Int, frames: Int64) = (-1, 0)
    let meter: AudioLevelMeter

    var length: Int64 { max(1, file.length) }

    /// Whether the player is playing.
    open var isPlaying: Bool {
        stateLock.lock(); defer { stateLock.unlock() }
        return state == .playing
    }

    /// The number of times to play the sound again after the first time: 0 (the default) plays
    /// it once, n plays it n + 1 times, a negative value loops until `stop()` or `pause()`.
    /// A change applies from the next `play()` or seek.
    open var numberOfLoops: Int {
        get { stateLock.lock(); defer { stateLock.unlock() }; return _numberOfLoops }
        set { stateLock.lock(); _numberOfLoops = newValue; stateLock.unlock() }
    }

    /// The time, in seconds, of the output device's clock: host time (CLOCK_MONOTONIC), shared by
    /// every player and recorder, increasing whether or not anything plays.
    open var deviceCurrentTime: TimeInterval {
        AVAudioTime.seconds(forHostTime: HostClock.now())
    }

    /// The playback position within the sound, in seconds. Setting it seeks (while playing too).
    /// As Apple documents, `stop()` does not reset it; when the sound finishes it returns to 0.
    open var currentTime: TimeInterval {
        get { Double(currentFrame()) / file.processingFormat.sampleRate }
        set { seek(toFrame: Int64((max(0, newValue) * file.processingFormat.sampleRate).rounded(.down))) }
    }

    /// The output device's identifier (macOS API): here a device selector as `AVAUDIO_BACKEND`
    /// takes (`pulse`, `pulse:SINK`, `alsa:hw:0`, `null`; `AVAudioSessionPortDescription.uid`
    /// values are such selectors), or nil for the default device (the one the audio session describes). Takes effect at the next `play()`
    /// (a playing player restarts on the new device).
    open var currentDevice: String? {
        get { stateLock.lock(); defer { stateLock.unlock() }; return _currentDevice }
        set {
            transportLock.lock(); defer { transportLock.unlock() }
            stateLock.lock()
            _currentDevice = newValue
            let wasPlaying = state == .playing
            stateLock.unlock()
            guard let engine else { return }
            if wasPlaying { pauseLocked() }
            engine.stop()
            try? engine._setAudioDevice(newValue ?? AVAudioSession.sharedInstance().playbackSelector)
            if wasPlaying { _ = startLocked(at: nil) }
        }
    }

    /// The output channels the player's channels play on, one description per player channel
    /// (from the session's `currentRoute.outputs[…].channels`: its `channelNumber`, 1-based,
    /// names the output channel). Output channels no player channel is assigned to are silent;
    /// nil (the default) maps the channels by layout. Takes effect at the next `prepareToPlay()`
    /// or `play()` (the graph is rebuilt); the meters stay per player channel.
    open var channelAssignments: [AVAudioSessionChannelDescription]? {
        get { stateLock.lock(); defer { stateLock.unlock() }; return _channelAssignments }
        set { stateLock.lock(); _channelAssignments = newValue; stateLock.unlock() }
    }

    // MARK: Transport (implemented in AVAudioPlayer+Transport.swift; declared here so that a
    // subclass can override them, as it can on Apple platforms)

    /// Builds the engine graph and reads the start of the file, so that `play()` starts at once.
    /// Returns false when the engine cannot be set up.
    @discardableResult
    open func prepareToPlay() -> Bool { prepareToPlayImpl() }

    /// Plays from the current position; returns false when the output device cannot start.
    @discardableResult
    open func play() -> Bool { playImpl() }

    /// Plays from the current position at `time` on the device clock (`deviceCurrentTime`);
    /// a time already past plays at once. Returns false when the output device cannot start.
    @discardableResult
    open func play(atTime time: TimeInterval) -> Bool { playImpl(atTime: time) }

    /// Pauses: the position is kept and `play()` resumes from it. The output device stops.
    open func pause() { pauseImpl() }

    /// Stops playback and releases the output device. As Apple documents, the position
    /// (`currentTime`) is kept, and the delegate is not told.
    open func stop() { stopImpl() }

    // MARK: Volume, pan, rate (AVAudioPlayer+Mixing.swift)

    /// The playback volume, 0 (silent) to 1 (unity). Setting it cancels a fade in progress.
    open var volume: Float {
        get { volumeImpl }
        set { volumeImpl = newValue }
    }

    /// Changes the volume to `volume` over `duration` seconds (a linear, click-free ramp; 0 s: at once).
    open func setVolume(_ volume: Float, fadeDuration duration: TimeInterval) { setVolumeImpl(volume, fadeDuration: duration) }

    /// The stereo position: −1 full left, 0 centre, 1 full right.
    open var pan: Float {
        get { panImpl }
        set { panImpl = newValue }
    }

    /// Whether `rate` applies. As Apple documents, set it before `prepareToPlay()` or `play()`
    /// (here a stopped or paused player also picks it up at its next `play()`).
    open var enableRate: Bool {
        get { enableRateImpl }
        set { enableRateImpl = newValue }
    }

    /// The playback rate, 0.5 (half speed) to 2 (double speed), 1 normal; pitch is kept (the
    /// engine's time-pitch unit). Has effect only with `enableRate`.
    open var rate: Float {
        get { rateImpl }
        set { rateImpl = newValue }
    }

    // MARK: Metering (AVAudioPlayer+Metering.swift)

    /// Whether metering is on (off by default: the meters read −160 dBFS).
    open var isMeteringEnabled: Bool {
        get { isMeteringEnabledImpl }
        set { isMeteringEnabledImpl = newValue }
    }

    /// Refreshes the values `averagePower(forChannel:)` and `peakPower(forChannel:)` return.
    open func updateMeters() { updateMetersImpl() }

    /// The average power of channel `channelNumber` (0-based) in dBFS at the last `updateMeters()`:
    /// −160 (silence) up to 0 (full scale), above 0 when the signal exceeds full scale.
    open func averagePower(forChannel channelNumber: Int) -> Float { averagePowerImpl(forChannel: channelNumber) }

    /// The peak power of channel `channelNumber` (0-based) in dBFS at the last `updateMeters()`.
    open func peakPower(forChannel channelNumber: Int) -> Float { peakPowerImpl(forChannel: channelNumber) }
}

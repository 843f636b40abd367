// AVAudioRecorder: records from the input device into a file.
//
// Design: one AVAudioEngine per recorder — its input node, connected to its main mixer at zero
// output volume (so that the engine pulls the input and nothing is heard), with a tap on the
// input node. The tap's blocks arrive in time order on the engine's dispatcher thread (never the
// device thread); each is converted (AVAudioConverter: rate and channel count) to the file's
// processing format and written with `AVAudioFile.write(from:)`, which rewrites the header after
// every write — so the file on disk is a valid file holding every frame written so far at every
// moment, and a process killed mid-recording (even by SIGKILL) leaves a readable file.
//
// The container comes from the URL's extension, as on Apple platforms: .wav/.wave, .aif/.aiff/
// .aifc, .caf (linear PCM or Apple Lossless), .flac (native FLAC) and .m4a/.mp4 (Apple Lossless
// or FLAC), each encoded as AVAudioFile writes it — and so valid at every moment too (the MP4
// writer republishes its `moov` after every write, CAF its packet table, FLAC its STREAMINFO).
// Other extensions (.mp3, ...) need encoders this project does not have yet: `init` throws an
// NSError (NSOSStatusErrorDomain, kAudioFileUnsupportedFileTypeError 'typ?') saying so; AAC
// data throws kAudioFileUnsupportedDataFormatError naming AAC (`completedSettings`).
// Settings missing from the dictionary default to linear PCM (FLAC for a .flac URL), the
// session's sample rate, one channel and 16-bit integers (Apple does not document its defaults).
//
// Time: `currentTime` counts the frames written (seconds at the file's rate); `deviceCurrentTime`
// is the host clock in seconds, shared with AVAudioPlayer, for `record(atTime:)`. A start time or
// a duration is honoured to the frame: the tap's blocks carry the host time of their first frame,
// frames before the start are dropped, and writing stops at exactly the duration's frame count.
//
// Locks: `stateLock` guards the state and the file and is held by the tap while it writes; it is
// never held while calling into the engine (stop() waits for the tap to finish).
import Foundation

open class AVAudioRecorder: NSObject {
    // MARK: Creating

    /// Creates a recorder that will write to `url` with `settings` (AVFormatIDKey, AVSampleRateKey,
    /// AVNumberOfChannelsKey, AVLinearPCMBitDepthKey, ...). Throws for a container or format that
    /// cannot be written.
    public init(url: URL, settings: [String: Any]) throws {
        self.url = url
        let completed = try AVAudioRecorder.completedSettings(settings, url: url)
        self.requestedSettings = completed
        self.meter = AudioLevelMeter(channels: Int(AVAudioFormat(settings: completed)?.channelCount ?? 1))
        super.init()
    }

    /// Creates a recorder that will write to `url` in `format`.
    public convenience init(url: URL, format: AVAudioFormat) throws {
        try self.init(url: url, settings: format.settings)
    }

    deinit {
        if let configurationObserver { NotificationCenter.default.removeObserver(configurationObserver) }
        if let engine { engine.stop() }
        file?.close()
    }

    static let supportedExtensions: Set<String> = ["wav", "wave", "aif", "aiff", "aifc", "caf", "flac", "m4a", "mp4"]

    /// The settings `settings` complete for `url`'s container, or an NSError (NSOSStatusErrorDomain)
    /// naming what cannot be recorded there.
    ///
    /// Data per container: .wav/.aif hold linear PCM; .caf linear PCM (the default) or Apple
    /// Lossless; .flac FLAC (the default); .m4a/.mp4 Apple Lossless or FLAC, as `AVAudioFile`
    /// writes them. AAC (`kAudioFormatMPEG4AAC`) has no encoder here yet and is refused by name
    /// with `kAudioFileUnsupportedDataFormatError`. An .m4a/.mp4 URL whose settings name no
    /// format is refused the same way: Apple documents no default format for AVAudioRecorder
    /// (its header says only that the file type is inferred from the extension), but the
    /// MPEG-4 audio file type's principal data format is AAC — what iOS's own recorders write to
    /// .m4a — so AAC is what an Apple recorder would write, and picking Apple Lossless instead
    /// would silently give a different (and ten times larger) file than the code asked for.
    static func completedSettings(_ settings: [String: Any], url: URL) throws -> [String: Any] {
        let ext = url.pathExtension.lowercased()
        guard supportedExtensions.contains(ext) else {
            let what = ext.isEmpty ? "a file name without an extension" : "the .\(ext) container"
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioFileUnsupportedFileTypeError), userInfo: [
                NSLocalizedDescriptionKey: "AVAudioRecorder cannot record to '\(url.path)': \(what) is not supported yet (.mp3 and other lossy containers come with the lossy codecs); use .wav, .aif, .caf, .flac or .m4a",
            ])
        }
        func refuse(_ text: String) -> NSError {
            NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioFileUnsupportedDataFormatError), userInfo: [
                NSLocalizedDescriptionKey: "AVAudioRecorder cannot record to '\(url.path)': \(text)",
            ])
        }
        let aacNotYet = "AAC (kAudioFormatMPEG4AAC) is not supported yet: this library has no AAC encoder"
        var settings = settings
        let mpeg4 = ext == "m4a" || ext == "mp4"
        if settings[AVFormatIDKey] == nil {
            if mpeg4 {
                throw refuse("the settings name no format, and an MPEG-4 audio file's default data is AAC; \(aacNotYet). Set AVFormatIDKey to kAudioFormatAppleLossless or kAudioFormatFLAC")
            }
            settings[AVFormatIDKey] = ext == "flac" ? kAudioFormatFLAC : kAudioFormatLinearPCM
        }
        let id = AVAudioFormat.integer(settings[AVFormatIDKey]).flatMap { $0 }.map { AudioFormatID(truncatingIfNeeded: $0) }
        if ext == "flac" {
            guard id == kAudioFormatFLAC else {
                throw refuse("a .flac file holds FLAC data; set AVFormatIDKey to kAudioFormatFLAC or leave it out")
            }
        }
        if id == kAudioFormatMPEG4AAC {
            throw refuse("\(aacNotYet); record Apple Lossless (kAudioFormatAppleLossless) into .m4a or .caf, or FLAC into .m4a or .flac")
        }
        if mpeg4 {
            guard id == kAudioFormatAppleLossless || id == kAudioFormatFLAC else {
                throw refuse("an MPEG-4 audio file (.\(ext)) holds Apple Lossless or FLAC here (kAudioFormatAppleLossless, kAudioFormatFLAC), not \(id.map(fourCharCodeString) ?? "an unreadable AVFormatIDKey") data")
            }
        }
        if ext == "caf" {
            guard id == kAudioFormatLinearPCM || id == kAudioFormatAppleLossless else {
                throw refuse("a .caf recording holds linear PCM or Apple Lossless (kAudioFormatLinearPCM, kAudioFormatAppleLossless), not \(id.map(fourCharCodeString) ?? "an unreadable AVFormatIDKey") data")
            }
        }
        if settings[AVSampleRateKey] == nil { settings[AVSampleRateKey] = AVAudioSession.sharedInstance().sampleRate }
        if settings[AVNumberOfChannelsKey] == nil { settings[AVNumberOfChannelsKey] = 1 }
        if (settings[AVFormatIDKey] as? NSNumber)?.uint32Value ?? (settings[AVFormatIDKey] as? UInt32) == kAudioFormatLinearPCM,
           settings[AVLinearPCMBitDepthKey] == nil {
            settings[AVLinearPCMBitDepthKey] = 16
        }
        guard AVAudioFormat(settings: settings) != nil else {
            throw NSError(domain: NSOSStatusErrorDomain, code: Int(kAudioFileUnsupportedDataFormatError), userInfo: [
                NSLocalizedDescriptionKey: "AVAudioRecorder cannot record to '\(url.path)': the settings do not describe a format it can write (\(settings))",
            ])
        }
        return settings
    }

    // MARK: Properties

    /// Where the recording goes.
    public let url: URL
    let requestedSettings: [String: Any]

    /// The recording's settings (the file's, once prepared).
    open var settings: [String: Any] {
        stateLock.lock(); defer { stateLock.unlock() }
        return file?.fileFormat.settings ?? requestedSettings
    }

    /// The recording's format (the file's data format).
    open var format: AVAudioFormat {
        stateLock.lock(); defer { stateLock.unlock() }
        return file?.fileFormat ?? AVAudioFormat(settings: requestedSettings)!
    }

    /// The delegate (weak); told on the main queue.
    open weak var delegate: AVAudioRecorderDelegate?

    /// Whether it is recording.
    open var isRecording: Bool {
        stateLock.lock(); defer { stateLock.unlock() }
        return state == .recording
    }

    /// Seconds recorded so far (0 when stopped, as Apple documents: valid only while recording).
    open var currentTime: TimeInterval {
        stateLock.lock(); defer { stateLock.unlock() }
        guard state != .stopped, let file else { return 0 }
        return Double(framesWritten) / file.processingFormat.sampleRate
    }

    /// The host clock in seconds (shared with AVAudioPlayer.deviceCurrentTime).
    open var deviceCurrentTime: TimeInterval { AVAudioTime.seconds(forHostTime: HostClock.now()) }

    /// The input device to record from, as a device selector (`pulse::SOURCE`, `alsa:hw:1`,
    /// `null`, an `AVAudioSessionPortDescription.uid`); nil: the session's preferred input, else
    /// the default input. Not part of Apple's API (which routes through AVAudioSession).
    public var _deviceSelector: String? {
        get { stateLock.lock(); defer { stateLock.unlock() }; return selector }
        set { stateLock.lock(); selector = newValue; stateLock.unlock() }
    }

    /// The channel descriptions the recorder's channels come from (iOS). Stored and returned; the
    /// recorder always takes the input device's channels in order.
    open var channelAssignments: [AVAudioSessionChannelDescription]? {
        get { stateLock.lock(); defer { stateLock.unlock() }; return _channelAssignments }
        set { stateLock.lock(); _channelAssignments = newValue; stateLock.unlock() }
    }

    // MARK: State

    enum State { case stopped, prepared, recording, paused }
    let stateLock = NSLock()
    let transportLock = NSRecursiveLock()
    let controlQueue = DispatchQueue(label: "AVAudioRecorder.control")
    var state = State.stopped
    var file: AVAudioFile?
    var engine: AVAudioEngine?
    var converter: AVAudioConverter?
    var converted: AVAudioPCMBuffer?
    var framesWritten: Int64 = 0
    /// Frames at which recording stops by itself (record(forDuration:)), nil: none.
    var frameLimit: Int64?
    /// Host time before which captured frames are dropped (record(atTime:)).
    var startHostTime: UInt64 = 0
    var generation = 0
    var tapInstalled = false
    var configurationObserver: NSObjectProtocol?
    var selector: String?
    var _channelAssignments: [AVAudioSessionChannelDescription]?
    var _meteringEnabled = false
    let meter: AudioLevelMeter

    // MARK: Transport (AVAudioRecorder+Capture.swift; declared here so that subclasses can override)

    /// Creates the file (replacing one at the URL) and sets up the input; returns false when the
    /// file cannot be created or no input device can be opened.
    @discardableResult
    open func prepareToRecord() -> Bool { prepareImpl() }

    /// Starts or resumes recording; returns false when it cannot.
    @discardableResult
    open func record() -> Bool { recordImpl(at: nil, duration: nil) }

    /// Starts recording at `time` on the device clock (`deviceCurrentTime`).
    @discardableResult
    open func record(atTime time: TimeInterval) -> Bool { recordImpl(at: time, duration: nil) }

    /// Records for `duration` seconds, then stops by itself (the delegate is told).
    @discardableResult
    open func record(forDuration duration: TimeInterval) -> Bool { recordImpl(at: nil, duration: duration) }

    /// Records for `duration` seconds from `time` on the device clock.
    @discardableResult
    open func record(atTime time: TimeInterval, forDuration duration: TimeInterval) -> Bool { recordImpl(at: time, duration: duration) }

    /// Pauses: the file stays open and `record()` appends to it.
    open func pause() { pauseImpl() }

    /// Stops recording and closes the file; the delegate is told (successfully: true).
    open func stop() { stopImpl(notify: true, successfully: true) }

    /// Deletes the recording file; the recorder must be stopped. Returns whether it was deleted.
    @discardableResult
    open func deleteRecording() -> Bool {
        stateLock.lock()
        let busy = state == .recording || state == .paused
        stateLock.unlock()
        guard !busy else { return false }
        return (try? FileManager.default.removeItem(at: url)) != nil
    }

    // MARK: Metering

    /// Whether metering is on (off by default: the meters read −160 dBFS).
    open var isMeteringEnabled: Bool {
        get { stateLock.lock(); defer { stateLock.unlock() }; return _meteringEnabled }
        set {
            stateLock.lock()
            _meteringEnabled = newValue
            stateLock.unlock()
            meter.reset()
        }
    }

    /// Refreshes `averagePower(forChannel:)` and `peakPower(forChannel:)` (ballistics in AudioLevelMeter.swift).
    open func updateMeters() {
        guard isMeteringEnabled else { return }
        meter.update()
    }

    /// The average power of channel `channelNumber` in dBFS at the last `updateMeters()` (−160: silence).
    open func averagePower(forChannel channelNumber: Int) -> Float {
        guard isMeteringEnabled else { return AudioLevelMeter.floorDecibels }
        return meter.averagePower(forChannel: channelNumber)
    }

    /// The peak power of channel `channelNumber` in dBFS at the last `updateMeters()`.
    open func peakPower(forChannel channelNumber: Int) -> Float {
        guard isMeteringEnabled else { return AudioLevelMeter.floorDecibels }
        return meter.peakPower(forChannel: channelNumber)
    }
}

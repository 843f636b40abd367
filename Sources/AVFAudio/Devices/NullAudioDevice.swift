// A device that plays into nothing, paced by the clock exactly like a sound card: one callback of
// `bufferFrames` frames every `bufferFrames / sampleRate` seconds, scheduled on absolute
// deadlines (clock_nanosleep TIMER_ABSTIME on CLOCK_MONOTONIC) so timing does not drift.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

final class NullAudioDevice: AudioOutputDevice {
    private(set) var sampleRate: Double
    private(set) var channelCount: Int
    let bufferFrames: Int
    var configurationChangeHandler: (() -> Void)?
    var presentationLatency: TimeInterval { Double(bufferFrames) / sampleRate }
    var name: String { "null output (\(Int(sampleRate)) Hz, \(channelCount) ch, \(bufferFrames)-frame buffers)" }

    /// One per start(): its own run flag and exit signal, so a stop called from the device thread
    /// (which cannot wait for itself) never confuses the next start.
    private final class Session: @unchecked Sendable {
        let running = Atomic<Bool>(true)
        let finished = DispatchSemaphore(value: 0)
        weak var thread: Thread?   // (weak: the running thread keeps itself alive; its closure holds the session)
    }
    private var session: Session?
    private var memory: UnsafeMutablePointer<Float>
    private var channels: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    init(sampleRate: Double, channelCount: Int, bufferFrames: Int) {
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        self.bufferFrames = bufferFrames
        memory = .allocate(capacity: channelCount * bufferFrames)
        memory.initialize(repeating: 0, count: channelCount * bufferFrames)
        channels = .allocate(capacity: channelCount)
        for c in 0..<channelCount { channels[c] = memory + c * bufferFrames }
    }

    deinit {
        stop()
        memory.deallocate()
        channels.deallocate()
    }

    func start(render: @escaping (UnsafePointer<UnsafeMutablePointer<Float>>, Int, UInt64) -> Void) throws {
        guard session == nil else { return }
        let session = Session()
        let period = UInt64((Double(bufferFrames) / sampleRate * 1e9).rounded())
        let frames = bufferFrames
        let channels = UncheckedSendable(self.channels)
        let thread = Thread { [session] in
            var deadline = HostClock.now()
            var cycles: UInt64 = 0
            let origin = deadline
            while session.running.load(ordering: .acquiring) {
                render(UnsafePointer(channels.value), frames, deadline)
                cycles += 1
                // Absolute deadlines: origin + n × period, so rounding never accumulates.
                deadline = origin + cycles * period
                var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
                while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
            }
            session.finished.signal()
        }
        thread.name = "OpenAVFAudio null output"
        thread.qualityOfService = .userInteractive
        session.thread = thread
        self.session = session
        thread.start()
    }

    /// Stops the device thread and returns after its last callback — or, called from the device
    /// thread itself (a render block stopping the engine), at once: the thread exits after the
    /// current callback.
    func stop() {
        guard let session else { return }
        self.session = nil
        session.running.store(false, ordering: .releasing)
        if Thread.current !== session.thread { session.finished.wait() }
    }

    /// Behaves as hardware whose format changed (another program switched the sound card's rate,
    /// a different device became the default): stops, takes the new format, tells the engine.
    func changeConfiguration(sampleRate: Double, channelCount: Int) {
        stop()
        memory.deallocate()
        channels.deallocate()
        self.sampleRate = sampleRate
        self.channelCount = channelCount
        memory = .allocate(capacity: channelCount * bufferFrames)
        memory.initialize(repeating: 0, count: channelCount * bufferFrames)
        channels = .allocate(capacity: channelCount)
        for c in 0..<channelCount { channels[c] = memory + c * bufferFrames }
        configurationChangeHandler?()
    }
}

/// Carries a value the compiler cannot prove Sendable into a thread we own.
struct UncheckedSendable<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// A flag shared with a thread we own.
final class RunFlag: @unchecked Sendable {
    let value = Atomic<Bool>(false)
}

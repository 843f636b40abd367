// A device that plays into nothing and records silence, paced by the clock exactly like a sound
// card: one callback of `periodFrames` frames every `periodFrames / sampleRate` seconds,
// scheduled on absolute deadlines (clock_nanosleep TIMER_ABSTIME on CLOCK_MONOTONIC) so timing
// does not drift. The engine uses it when no real device is chosen (headless machines, the test
// suite), so taps, completion handlers and timing behave as they would with hardware.
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

public final class NullAudioDevice: AudioDevice {
    public private(set) var sampleRate: Double
    public private(set) var outputChannelCount: Int
    public private(set) var inputChannelCount: Int
    public let periodFrames: Int
    public var maximumFramesPerCallback: Int { periodFrames }
    public var configurationChangeHandler: (() -> Void)?
    public var outputLatency: Double { Double(periodFrames) / sampleRate }
    public var inputLatency: Double { 0 }
    public var xrunCount: Int { 0 }
    public var hasFailed: Bool { false }
    public var isRealTime: Bool { status.realTime.load(ordering: .relaxed) }
    public var name: String { "null device (\(Int(sampleRate)) Hz, \(outputChannelCount) ch, \(periodFrames)-frame periods)" }
    public var info: AudioDeviceInfo {
        AudioDeviceInfo(backend: "null", id: "null", name: "Null device (timer-clocked, no sound)",
                        outputChannels: outputChannelCount, inputChannels: inputChannelCount,
                        sampleRates: [sampleRate], nominalSampleRate: sampleRate, isDefaultOutput: true, isDefaultInput: true)
    }

    /// One per start(): its own run flag, so a stop called from the device thread (which cannot
    /// wait for itself) never confuses the next start.
    private final class Session: @unchecked Sendable {
        let running = Atomic<Bool>(true)
        var thread: DeviceThread?
        /// Asks RealtimeKit for the thread when its own SCHED_FIFO request is refused.
        var realTimeRequester: RealtimeKitRequester?
    }
    private var session: Session?
    private let status = DeviceStatus()
    private var buffers = PlanarBuffers(channels: 0, frames: 0)
    private var inputBuffers = PlanarBuffers(channels: 0, frames: 0)

    public init(sampleRate: Double = 48_000, channelCount: Int = 2, inputChannelCount: Int = 2, periodFrames: Int = 512) {
        self.sampleRate = sampleRate
        outputChannelCount = channelCount
        self.inputChannelCount = inputChannelCount
        self.periodFrames = periodFrames
    }

    deinit { stop() }

    public func start(render: @escaping AudioDeviceRenderCallback) throws {
        guard session == nil else { return }
        buffers = PlanarBuffers(channels: outputChannelCount, frames: periodFrames)
        inputBuffers = PlanarBuffers(channels: inputChannelCount, frames: periodFrames)
        let session = Session()
        let period = UInt64((Double(periodFrames) / sampleRate * 1e9).rounded())
        let frames = periodFrames
        let output = UnsafePointer(buffers.pointers)
        let input = inputChannelCount > 0 ? UnsafePointer(inputBuffers.pointers) : nil
        let status = self.status
        let keep = (buffers, inputBuffers)   // (alive until the thread ends, even if a later start() replaces them)
        status.resetRealTime()
        session.realTimeRequester = RealtimeKitRequester.startIfUseful(status: status)
        session.thread = try DeviceThread(name: "avaudio null") { [session] in
            withExtendedLifetime(keep) {
            RealTimeScheduling.promoteCurrentThread(status)
            var deadline = monotonicNanoseconds()
            var cycles: UInt64 = 0
            let origin = deadline
            while session.running.load(ordering: .acquiring) {
                render(AudioDeviceCycle(output: output, input: input, frames: frames, hostTime: deadline))
                cycles += 1
                // Absolute deadlines: origin + n × period, so rounding never accumulates.
                deadline = origin + cycles * period
                var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
                while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
            }
            }
        }
        self.session = session
    }

    public func stop() {
        guard let session else { return }
        self.session = nil
        session.running.store(false, ordering: .releasing)
        session.realTimeRequester?.cancel()
        session.thread?.join()   // (from the device thread itself: detached, exits after this callback)
    }

    /// Behaves as hardware whose format changed (another program switched the sound card's rate,
    /// a different device became the default): stops, takes the new format, tells the engine.
    public func changeConfiguration(sampleRate: Double, channelCount: Int) {
        stop()
        self.sampleRate = sampleRate
        outputChannelCount = channelCount
        configurationChangeHandler?()
    }
}

/// Planar Float32 buffers with a pointer array, allocated on the control side.
final class PlanarBuffers {
    let channels: Int
    let frames: Int
    let memory: UnsafeMutablePointer<Float>
    let pointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>

    init(channels: Int, frames: Int) {
        self.channels = channels
        self.frames = frames
        memory = .allocate(capacity: max(1, channels * frames))
        memory.initialize(repeating: 0, count: max(1, channels * frames))
        pointers = .allocate(capacity: max(1, channels))
        for c in 0..<channels { pointers[c] = memory + c * frames }
    }
    deinit {
        memory.deallocate()
        pointers.deallocate()
    }

    func clear(frames: Int) {
        for c in 0..<channels { pointers[c].update(repeating: 0, count: frames) }
    }
}

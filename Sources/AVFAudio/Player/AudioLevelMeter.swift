// The level meter behind AVAudioPlayer's and AVAudioRecorder's `averagePower(forChannel:)` and
// `peakPower(forChannel:)`.
//
// What Apple documents: both values are in dBFS, 0 dBFS is full scale, −160 dBFS means minimum
// power (near silence), values may exceed 0 when the signal exceeds full scale, and
// `updateMeters()` must be called to refresh them (AVAudioPlayer/AVAudioRecorder reference pages,
// averagePower(forChannel:) and peakPower(forChannel:)). Apple does not publish the meters'
// ballistics (integration and decay times); the classes are built on Audio Queue level metering
// (`kAudioQueueProperty_CurrentLevelMeterDB`), whose behaviour is not documented either; what
// developers report is only that its values are smoothed across buffers rather than computed per
// buffer (a per-buffer RMS does not reproduce them: Stack Overflow question 14320698). So the
// ballistics here are this implementation's choice, taken from the broadcast metering standards
// and stated so that a test can check them:
//
//   * average power: the mean square of the signal through a one-pole integrator with a 300 ms
//     time constant (the VU meter's integration time, IEC 60268-17), reported as
//     10·log10(mean square). A steady sine of amplitude A reads 20·log10(A/√2) dBFS (a full-scale
//     sine −3.01 dBFS; full-scale DC 0 dBFS), which is how "average power" is conventionally read.
//   * peak power: the largest |sample| with instant attack, falling at 20 dB per 1.7 s
//     (≈ 11.76 dB/s, the fall-back time of an IEC 60268-10 type I peak programme meter) measured in
//     audio time; reported as 20·log10(peak).
//   * below −160 dBFS (and before any audio) both read −160.
//
// The meter is fed with audio blocks in time order (from an engine tap on the dispatcher thread)
// and read by `updateMeters()` on any thread; a lock guards the few numbers (never the render
// thread's: taps run off it).
import Foundation

final class AudioLevelMeter: @unchecked Sendable {
    /// The floor Apple documents for silence.
    static let floorDecibels: Float = -160
    /// Integration time constant of the average (seconds).
    static let averageTimeConstant = 0.300
    /// Peak fall-back rate (dB per second).
    static let peakDecayDecibelsPerSecond = 20.0 / 1.7

    private let lock = NSLock()
    private var meanSquare: [Double]
    private var peakDecibels: [Double]
    private var snapshotAverage: [Float]
    private var snapshotPeak: [Float]

    init(channels: Int) {
        meanSquare = Array(repeating: 0, count: channels)
        peakDecibels = Array(repeating: Double(Self.floorDecibels), count: channels)
        snapshotAverage = Array(repeating: Self.floorDecibels, count: channels)
        snapshotPeak = Array(repeating: Self.floorDecibels, count: channels)
    }

    var channelCount: Int { meanSquare.count }

    /// Which channel of the tapped buffers each meter channel reads (nil: the same index). Set
    /// when the player's channels are routed to other output channels (`channelAssignments`):
    /// the meters stay per channel of the file, as Apple's are per channel of the player.
    private var sources: [Int]?
    func setChannelSources(_ sources: [Int]?) {
        lock.lock(); self.sources = sources; lock.unlock()
    }

    /// Forgets everything: both meters read −160 until audio arrives.
    func reset() {
        lock.lock(); defer { lock.unlock() }
        for c in meanSquare.indices {
            meanSquare[c] = 0
            peakDecibels[c] = Double(Self.floorDecibels)
            snapshotAverage[c] = Self.floorDecibels
            snapshotPeak[c] = Self.floorDecibels
        }
    }

    /// Feeds one block: `channels` planar Float32 buffers of `frames` frames at `sampleRate`,
    /// scaled by `gain` (the player's volume).
    func process(_ buffer: AVAudioPCMBuffer, gain: Float = 1) {
        guard let data = buffer.floatChannelData else { return }
        let frames = Int(buffer.frameLength)
        guard frames > 0 else { return }
        let rate = buffer.format.sampleRate
        let stride = buffer.stride
        let bufferChannels = Int(buffer.format.channelCount)
        // One-pole coefficient per sample for the mean square; peak decay per sample in dB.
        let a = exp(-1.0 / (Self.averageTimeConstant * rate))
        let decayPerFrame = Self.peakDecayDecibelsPerSecond / rate
        let g = Double(gain)
        lock.lock(); defer { lock.unlock() }
        for c in 0..<channelCount {
            let source = sources.map { c < $0.count ? $0[c] : -1 } ?? c
            guard source >= 0, source < bufferChannels else { continue }
            let p = data[source]
            var ms = meanSquare[c]
            var blockPeak = 0.0
            for i in 0..<frames {
                let x = Double(p[i * stride]) * g
                ms = a * ms + (1 - a) * x * x
                blockPeak = max(blockPeak, abs(x))
            }
            meanSquare[c] = ms
            // The held peak falls over the block, then takes the block's peak if louder.
            let fallen = peakDecibels[c] - decayPerFrame * Double(frames)
            let blockDecibels = blockPeak > 0 ? 20 * log10(blockPeak) : Double(Self.floorDecibels)
            peakDecibels[c] = max(Double(Self.floorDecibels), max(fallen, blockDecibels))
        }
    }

    /// Takes the current values as what `averagePower`/`peakPower` report (`updateMeters()`).
    func update() {
        lock.lock(); defer { lock.unlock() }
        for c in meanSquare.indices {
            let ms = meanSquare[c]
            snapshotAverage[c] = ms > 0 ? max(Self.floorDecibels, Float(10 * log10(ms))) : Self.floorDecibels
            snapshotPeak[c] = Float(peakDecibels[c])
        }
    }

    func averagePower(forChannel channel: Int) -> Float {
        lock.lock(); defer { lock.unlock() }
        return snapshotAverage.indices.contains(channel) ? snapshotAverage[channel] : Self.floorDecibels
    }

    func peakPower(forChannel channel: Int) -> Float {
        lock.lock(); defer { lock.unlock() }
        return snapshotPeak.indices.contains(channel) ? snapshotPeak[channel] : Self.floorDecibels
    }
}

// AVAudioPlayer metering: a tap on the node feeding the player's mixer (the player node, or the
// time-pitch unit when rate is enabled) feeds the level meter (ballistics and evidence in
// AudioLevelMeter.swift) with the file's channels scaled by the volume; `updateMeters()` takes
// its current values. Pan is not reflected (the meter counts the file's channels, not the
// device's).
import Foundation

extension AVAudioPlayer {
    /// Whether metering is on (off by default: the meters read −160 dBFS).
    var isMeteringEnabledImpl: Bool {
        get { stateLock.lock(); defer { stateLock.unlock() }; return _meteringEnabled }
        set {
            transportLock.lock(); defer { transportLock.unlock() }
            stateLock.lock()
            let was = _meteringEnabled
            _meteringEnabled = newValue
            stateLock.unlock()
            guard was != newValue else { return }
            if newValue { installMeterTap() } else { removeMeterTap() }
        }
    }

    /// Refreshes the values `averagePower(forChannel:)` and `peakPower(forChannel:)` return.
    func updateMetersImpl() {
        guard isMeteringEnabledImpl else { return }
        meter.update()
    }

    /// The average power of channel `channelNumber` (0-based) in dBFS at the last `updateMeters()`:
    /// −160 (silence) up to 0 (full scale), above 0 when the signal exceeds full scale.
    func averagePowerImpl(forChannel channelNumber: Int) -> Float {
        guard isMeteringEnabledImpl else { return AudioLevelMeter.floorDecibels }
        return meter.averagePower(forChannel: channelNumber)
    }

    /// The peak power of channel `channelNumber` (0-based) in dBFS at the last `updateMeters()`.
    func peakPowerImpl(forChannel channelNumber: Int) -> Float {
        guard isMeteringEnabledImpl else { return AudioLevelMeter.floorDecibels }
        return meter.peakPower(forChannel: channelNumber)
    }

    /// (transportLock held)
    func installMeterTap() {
        guard let node = timePitch ?? playerNode else { return }
        meter.reset()
        let meter = self.meter
        node.installTap(onBus: 0, bufferSize: 512, format: nil) { [weak self] buffer, _ in
            guard let self else { return }
            self.stateLock.lock()
            let gain = self._volume
            self.stateLock.unlock()
            meter.process(buffer, gain: gain)
        }
    }

    func removeMeterTap() {
        (timePitch ?? playerNode)?.removeTap(onBus: 0)
        meter.reset()
    }
}

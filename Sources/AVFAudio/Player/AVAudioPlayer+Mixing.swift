// AVAudioPlayer volume, fades, pan and rate.
//
// Volume is the player's engine's main mixer output volume (one engine per player), pan the
// player node's pan at that mixer (equal-power for a mono file, balance for stereo: see the pan
// law in README.md), rate the time-pitch unit's rate (pitch kept).
//
// Fades (`setVolume(_:fadeDuration:)`): a timer moves the mixer's volume every 5 ms along a
// straight line from the current volume to the target; the mixer glides each change linearly over
// 10 ms of output frames, so the gain the audio sees is continuous (piecewise linear, no step at
// any sample) whatever the timer's jitter. A late tick only delays the line a little; the fade
// ends on the exact target.
import Foundation

extension AVAudioPlayer {
    /// The playback volume, 0 (silent) to 1 (unity). Setting it cancels a fade in progress.
    var volumeImpl: Float {
        get { stateLock.lock(); defer { stateLock.unlock() }; return _volume }
        set {
            fadeTimer?.cancel()
            fadeTimer = nil
            stateLock.lock(); _volume = max(0, newValue); stateLock.unlock()
            applyMixing()
        }
    }

    /// Changes the volume to `volume` over `duration` seconds (a linear ramp; 0 s: at once).
    func setVolumeImpl(_ volume: Float, fadeDuration duration: TimeInterval) {
        fadeTimer?.cancel()
        fadeTimer = nil
        let target = max(0, volume)
        guard duration > 0 else { volumeImpl = target; return }
        stateLock.lock()
        let from = _volume
        stateLock.unlock()
        let start = DispatchTime.now().uptimeNanoseconds
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .userInteractive))
        timer.schedule(deadline: .now(), repeating: .milliseconds(5), leeway: .milliseconds(1))
        timer.setEventHandler { [weak self] in
            // (the handler holds the timer until it cancels itself: the fade's own lifetime)
            guard let self else { timer.cancel(); return }
            let t = Double(DispatchTime.now().uptimeNanoseconds - start) * 1e-9 / duration
            let value = t >= 1 ? target : from + (target - from) * Float(t)
            self.stateLock.lock(); self._volume = value; self.stateLock.unlock()
            self.applyMixing()
            if t >= 1 { timer.cancel() }
        }
        fadeTimer = timer
        timer.resume()
    }

    /// The stereo position: −1 full left, 0 centre, 1 full right.
    var panImpl: Float {
        get { stateLock.lock(); defer { stateLock.unlock() }; return _pan }
        set { stateLock.lock(); _pan = min(1, max(-1, newValue)); stateLock.unlock(); applyMixing() }
    }

    /// Whether `rate` applies. As Apple documents, set it before `prepareToPlay()` or `play()`
    /// (here a stopped or paused player also picks it up at its next `play()`).
    var enableRateImpl: Bool {
        get { stateLock.lock(); defer { stateLock.unlock() }; return _enableRate }
        set { stateLock.lock(); _enableRate = newValue; stateLock.unlock() }
    }

    /// The playback rate, 0.5 (half speed) to 2 (double speed), 1 normal; pitch is kept (the
    /// engine's time-pitch unit). Has effect only with `enableRate`.
    var rateImpl: Float {
        get { stateLock.lock(); defer { stateLock.unlock() }; return _rate }
        set { stateLock.lock(); _rate = min(2, max(0.5, newValue)); stateLock.unlock(); applyMixing() }
    }

    /// Sends volume, pan and rate to the engine's nodes (any thread; no lock held while setting).
    func applyMixing() {
        stateLock.lock()
        let volume = _volume, pan = _pan, rate = _rate
        let mixer = engine?.mainMixerNode, player = playerNode, pitch = timePitch
        stateLock.unlock()
        mixer?.outputVolume = volume
        player?.pan = pan
        pitch?.rate = rate
    }
}

// AVAudioPlayer transport: prepare, play, play(atTime:), pause, stop, seeking, looping and
// finishing (design note at the top of AVAudioPlayer.swift).
import Foundation

extension AVAudioPlayer {
    /// Builds the engine graph and reads the start of the file, so that `play()` starts at once.
    /// Returns false when the engine cannot be set up.
    func prepareToPlayImpl() -> Bool {
        transportLock.lock(); defer { transportLock.unlock() }
        buildGraphIfNeeded()
        engine?.prepare()
        return engine != nil
    }

    /// Plays from the current position; returns false when the output device cannot start.
    func playImpl() -> Bool {
        transportLock.lock(); defer { transportLock.unlock() }
        return startLocked(at: nil)
    }

    /// Plays from the current position at `time` on the device clock (`deviceCurrentTime`);
    /// a time already past plays at once. Returns false when the output device cannot start.
    func playImpl(atTime time: TimeInterval) -> Bool {
        transportLock.lock(); defer { transportLock.unlock() }
        return startLocked(at: time)
    }

    /// Pauses: the position is kept and `play()` resumes from it. The output device stops.
    func pauseImpl() {
        transportLock.lock(); defer { transportLock.unlock() }
        pauseLocked()
    }

    /// Stops playback and releases the output device. As Apple documents, the position
    /// (`currentTime`) is kept, and the delegate is not told.
    func stopImpl() {
        transportLock.lock(); defer { transportLock.unlock() }
        fadeTimer?.cancel()
        fadeTimer = nil
        pauseLocked()
        engine?.stop()
        stateLock.lock(); state = .stopped; stateLock.unlock()
    }

    // MARK: Implementation (transportLock held)

    func buildGraphIfNeeded() {
        stateLock.lock()
        let wantsRate = _enableRate
        let device = _currentDevice
        let metering = _meteringEnabled
        stateLock.unlock()
        stateLock.lock()
        let assigned = _channelAssignments.flatMap { $0.isEmpty ? nil : $0.map { $0.channelNumber - 1 } }
        stateLock.unlock()
        if engine != nil, graphHasRate == wantsRate, graphAssignedOutputs == assigned { return }
        if let engine {
            engine.stop()
            if let configurationObserver { NotificationCenter.default.removeObserver(configurationObserver) }
            configurationObserver = nil
        }
        let engine = AVAudioEngine()
        try? engine._setAudioDevice(device ?? AVAudioSession.sharedInstance().playbackSelector)
        let player = AVAudioPlayerNode()
        engine.attach(player)
        var format = file.processingFormat
        var channelMap: [Int]?
        if let assigned {
            // channelAssignments: the player's channels go to the output channels named (their
            // channelNumber, 1-based as the session's route gives them); every other output
            // channel is silent. The player node then feeds the mixer in the output's own
            // channel count and layout, so the mixer passes each channel straight through.
            let output = engine.mainMixerNode.outputFormat(forBus: 0)
            let channels = Int(output.channelCount)
            let fileChannels = Int(format.channelCount)
            let routed = output.channelLayout.flatMap {
                AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: format.sampleRate, interleaved: false, channelLayout: $0)
            } ?? AVAudioFormat(standardFormatWithSampleRate: format.sampleRate, channels: AVAudioChannelCount(channels))
            if let routed {
                format = routed
                channelMap = (0..<channels).map { k in assigned.firstIndex(of: k).flatMap { $0 < fileChannels ? $0 : nil } ?? -1 }
            }
        }
        meter.setChannelSources(channelMap == nil ? nil : assigned)
        var last: AVAudioNode = player
        var pitch: AVAudioUnitTimePitch?
        if wantsRate {
            let unit = AVAudioUnitTimePitch()
            engine.attach(unit)
            engine.connect(player, to: unit, format: format)
            last = unit
            pitch = unit
        }
        engine.connect(last, to: engine.mainMixerNode, format: format)
        self.engine = engine
        self.playerNode = player
        self.timePitch = pitch
        graphHasRate = wantsRate
        graphAssignedOutputs = assigned
        graphChannelMap = channelMap
        applyMixing()
        if metering { installMeterTap() }
        configurationObserver = NotificationCenter.default.addObserver(forName: .AVAudioEngineConfigurationChange, object: engine, queue: nil) {
            [weak self] _ in self?.engineConfigurationDidChange()
        }
    }

    /// Starts (or resumes) playback; `time`: a device-clock start time.
    func startLocked(at time: TimeInterval?) -> Bool {
        stateLock.lock()
        if state == .playing { stateLock.unlock(); return true }
        stateLock.unlock()
        buildGraphIfNeeded()
        guard let engine, let player = playerNode else { return false }
        stateLock.lock()
        if state == .stopped || anchorFrame >= length {
            // A fresh play (not a resume) takes numberOfLoops as it is now.
            loopsAfterAnchor = _numberOfLoops < 0 ? -1 : _numberOfLoops
            if anchorFrame >= length { anchorFrame = 0 }
        }
        stateLock.unlock()
        do {
            try engine.start()
        } catch {
            // (play() answers with a Bool, as on Apple platforms; say why on stderr)
            FileHandle.standardError.write(Data("AVAudioPlayer: play() failed: \((error as NSError).localizedDescription)\n".utf8))
            return false
        }
        scheduleFromAnchor(player: player)
        if let time, time > deviceCurrentTime {
            // The player node maps host time to its timeline from the engine's render time:
            // wait (briefly) for the first cycle, then start at `time`.
            let deadline = Date().addingTimeInterval(0.5)
            while player.lastRenderTime?.isHostTimeValid != true, Date() < deadline { usleep(1_000) }
            player.play(at: AVAudioTime(hostTime: AVAudioTime.hostTime(forSeconds: time)))
        } else {
            player.play()
        }
        stateLock.lock(); state = .playing; stateLock.unlock()
        startPositionSampler()
        return true
    }

    /// While playing, samples the position ten times a second, so that it survives the engine
    /// stopping under the player (a device that goes away loses its render times).
    func startPositionSampler() {
        positionSampler?.cancel()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global(qos: .utility))
        timer.schedule(deadline: .now() + .milliseconds(100), repeating: .milliseconds(100), leeway: .milliseconds(20))
        timer.setEventHandler { [weak self] in
            guard let self, self.isPlaying else { timer.cancel(); return }
            _ = self.currentFrameAndLoops()
        }
        positionSampler = timer
        timer.resume()
    }

    /// Schedules the first two segments of a new generation from `anchorFrame`.
    func scheduleFromAnchor(player: AVAudioPlayerNode) {
        stateLock.lock()
        generation += 1
        let g = generation
        segmentsScheduled = 0
        segmentsTotal = loopsAfterAnchor < 0 ? nil : 1 + loopsAfterAnchor
        stateLock.unlock()
        scheduleNextSegment(player: player, generation: g)
        scheduleNextSegment(player: player, generation: g)
    }

    /// Schedules the next segment of generation `g`, if it has one left.
    func scheduleNextSegment(player: AVAudioPlayerNode, generation g: Int) {
        stateLock.lock()
        guard g == generation, segmentsTotal.map({ segmentsScheduled < $0 }) ?? true else { stateLock.unlock(); return }
        let index = segmentsScheduled
        segmentsScheduled += 1
        let isLast = segmentsTotal.map { index == $0 - 1 } ?? false
        let start = index == 0 ? anchorFrame : 0
        stateLock.unlock()
        let frames = AVAudioFrameCount(clamping: file.length - start)
        // With the time-pitch unit, the last frames are still inside it when the player has
        // played them back: a silent tail flushes them, and its playback ends the sound.
        let tail = isLast && timePitch != nil ? silentTail() : nil
        let channelMap = graphChannelMap
        player.scheduleSegment(file, startingFrame: start, frameCount: frames, at: nil,
                               callbackType: isLast && tail == nil ? .dataPlayedBack : .dataConsumed, handler: { [weak self, weak player] _ in
            guard let self, let player else { return }
            if isLast {
                if tail == nil { self.segmentsDidFinish(generation: g) }
            } else {
                self.scheduleNextSegment(player: player, generation: g)
            }
        }, decodeErrorHandler: { [weak self] error in
            // A damaged frame or a file truncated while playing: playback stops, and the delegate
            // hears audioPlayerDecodeErrorDidOccur, then audioPlayerDidFinishPlaying with
            // successfully false. Apple's page for the latter says only "whether the audio finishes
            // playing successfully"; its older text, kept in Microsoft's .NET binding of it
            // (AVAudioPlayer.FinishedPlaying), says the flag is "false if it stopped because a
            // decoding error occurred".
            // The first second is decoded inside play() (transportLock held, not yet .playing):
            // finish only once the transport call in progress has returned.
            self?.controlQueue.async { [weak self] in
                guard let self else { return }
                transportLock.lock(); transportLock.unlock()
                segmentsDidFinish(generation: g, decodeError: error)
            }
        }, channelMap: channelMap)
        if let tail {
            player.scheduleBuffer(tail, completionCallbackType: .dataPlayedBack) { [weak self] _ in
                self?.segmentsDidFinish(generation: g)
            }
        }
    }

    /// Silence long enough to push the time-pitch unit's analysis window out (0.25 s of input).
    private func silentTail() -> AVAudioPCMBuffer? {
        let format = file.processingFormat
        guard let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: AVAudioFrameCount(format.sampleRate / 4)) else { return nil }
        buffer.frameLength = buffer.frameCapacity   // (a new buffer holds zeros)
        return buffer
    }

    /// The last segment has been played back: the player stops, rewinds to 0 and tells its delegate.
    func segmentsDidFinish(generation g: Int, decodeError: NSError? = nil) {
        stateLock.lock()
        guard g == generation, state == .playing else { stateLock.unlock(); return }
        generation += 1
        state = .stopped
        anchorFrame = 0
        stateLock.unlock()
        controlQueue.async { [self] in
            transportLock.lock()
            stateLock.lock()
            let stillStopped = state == .stopped
            stateLock.unlock()
            if stillStopped { engine?.stop() }
            transportLock.unlock()
            DispatchQueue.main.async { [self] in
                if let decodeError { delegate?.audioPlayerDecodeErrorDidOccur(self, error: decodeError) }
                delegate?.audioPlayerDidFinishPlaying(self, successfully: decodeError == nil)
            }
        }
    }

    /// Stops the player node keeping the position (pause and the first half of stop and seek).
    func pauseLocked() {
        stateLock.lock()
        guard state == .playing else { stateLock.unlock(); return }
        stateLock.unlock()
        let frame = currentFrameAndLoops()
        stateLock.lock()
        generation += 1
        state = .paused
        anchorFrame = frame.position
        loopsAfterAnchor = frame.loopsLeft
        stateLock.unlock()
        playerNode?.stop()
        engine?.pause()
    }

    /// Moves the position to `frame` (clamped to the file), rescheduling when playing.
    func seek(toFrame frame: Int64) {
        transportLock.lock(); defer { transportLock.unlock() }
        let target = min(max(0, frame), length)
        stateLock.lock()
        let playing = state == .playing
        let loops = currentLoopsLeftLocked()
        stateLock.unlock()
        guard playing, let player = playerNode else {
            stateLock.lock(); anchorFrame = target; stateLock.unlock()
            return
        }
        stateLock.lock()
        generation += 1
        anchorFrame = min(target, length - 1)
        loopsAfterAnchor = loops
        stateLock.unlock()
        player.stop()
        scheduleFromAnchor(player: player)
        player.play()
    }

    private func currentLoopsLeftLocked() -> Int { loopsAfterAnchor }

    /// The position in the file (frames).
    func currentFrame() -> Int64 { currentFrameAndLoops().position }

    /// The position, and the loops still to play after the current pass.
    func currentFrameAndLoops() -> (position: Int64, loopsLeft: Int) {
        stateLock.lock()
        let playing = state == .playing
        let anchor = anchorFrame
        let loops = loopsAfterAnchor
        let g = generation
        let cached = lastKnownPlayed
        stateLock.unlock()
        guard playing else { return (anchor, loops) }
        var played: Int64
        if let player = playerNode, let now = player.lastRenderTime, let playerTime = player.playerTime(forNodeTime: now) {
            played = max(0, playerTime.sampleTime)
            stateLock.lock()
            if generation == g { lastKnownPlayed = (g, played) }
            stateLock.unlock()
        } else if cached.generation == g {
            // The engine stopped under us (the device went away): the last position sampled.
            played = cached.frames
        } else {
            return (anchor, loops)
        }
        var total = anchor + played
        if loops >= 0 { total = min(total, length * Int64(loops + 1) - 1) }
        let passes = Int(total / length)
        return (total % length, loops < 0 ? -1 : max(0, loops - passes))
    }

    /// The output device changed or went away: the engine has stopped. Playback pauses (position
    /// kept) and the delegate hears of an interruption, as when a session is interrupted.
    func engineConfigurationDidChange() {
        stateLock.lock()
        let wasPlaying = state == .playing
        stateLock.unlock()
        guard wasPlaying else { return }
        controlQueue.async { [self] in
            transportLock.lock()
            pauseLocked()
            transportLock.unlock()
            DispatchQueue.main.async { [self] in delegate?.audioPlayerBeginInterruption(self) }
        }
    }
}

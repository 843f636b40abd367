// AVAudioRecorder's engine, tap and file writing (design note at the top of AVAudioRecorder.swift).
import Foundation

extension AVAudioRecorder {
    func prepareImpl() -> Bool {
        transportLock.lock(); defer { transportLock.unlock() }
        stateLock.lock()
        let needsFile = file == nil
        let deviceSelector = selector
        stateLock.unlock()
        if needsFile {
            do {
                let created = try AVAudioFile(forWriting: url, settings: requestedSettings)
                stateLock.lock()
                file = created
                framesWritten = 0
                converter = nil
                stateLock.unlock()
            } catch {
                return false
            }
        }
        if engine == nil {
            let engine = AVAudioEngine()
            try? engine._setAudioDevice(deviceSelector ?? AVAudioSession.sharedInstance().recordingSelector)
            // The mixer pulls the input (so the tap sees it) and plays it at zero volume.
            engine.connect(engine.inputNode, to: engine.mainMixerNode, format: nil)
            engine.mainMixerNode.outputVolume = 0
            self.engine = engine
            // The input device went away (unplugged, server gone): the engine has stopped. The
            // recording pauses (the file keeps every frame so far) and the delegate hears of an
            // interruption; `record()` resumes on the device that is there then.
            configurationObserver = NotificationCenter.default.addObserver(forName: .AVAudioEngineConfigurationChange, object: engine, queue: nil) {
                [weak self] _ in
                guard let self else { return }
                self.controlQueue.async {
                    self.stateLock.lock()
                    let wasRecording = self.state == .recording
                    if wasRecording { self.state = .paused }
                    self.stateLock.unlock()
                    guard wasRecording else { return }
                    DispatchQueue.main.async { self.delegate?.audioRecorderBeginInterruption(self) }
                }
            }
        }
        stateLock.lock()
        if state == .stopped { state = .prepared }
        stateLock.unlock()
        return true
    }

    func recordImpl(at time: TimeInterval?, duration: TimeInterval?) -> Bool {
        transportLock.lock(); defer { transportLock.unlock() }
        stateLock.lock()
        let current = state
        let needsPrepare = file == nil || engine == nil
        stateLock.unlock()
        if current == .recording { return true }
        if needsPrepare { guard prepareImpl() else { return false } }
        guard let engine else { return false }
        stateLock.lock()
        guard let file else { stateLock.unlock(); return false }
        if let duration { frameLimit = framesWritten + Int64((max(0, duration) * file.processingFormat.sampleRate).rounded()) }
        else if current != .paused { frameLimit = nil }
        startHostTime = time.map { AVAudioTime.hostTime(forSeconds: $0) } ?? 0
        generation += 1
        state = .recording
        stateLock.unlock()
        do {
            try engine.start()
        } catch {
            stateLock.lock(); state = current == .paused ? .paused : .prepared; stateLock.unlock()
            return false
        }
        if !tapInstalled {
            // (after start: the input node has the device's format by now)
            engine.inputNode.installTap(onBus: 0, bufferSize: 1024, format: nil) { [weak self] buffer, when in
                self?.capture(buffer, at: when)
            }
            tapInstalled = true
        }
        return true
    }

    func pauseImpl() {
        transportLock.lock(); defer { transportLock.unlock() }
        stateLock.lock()
        guard state == .recording else { stateLock.unlock(); return }
        state = .paused
        stateLock.unlock()
        engine?.pause()
    }

    func stopImpl(notify: Bool, successfully: Bool) {
        transportLock.lock()
        stateLock.lock()
        guard state != .stopped else { stateLock.unlock(); transportLock.unlock(); return }
        state = .stopped
        stateLock.unlock()
        if tapInstalled { engine?.inputNode.removeTap(onBus: 0); tapInstalled = false }
        engine?.stop()
        stateLock.lock()
        file?.close()
        file = nil
        converter = nil
        converted = nil
        framesWritten = 0
        frameLimit = nil
        stateLock.unlock()
        transportLock.unlock()
        if notify {
            DispatchQueue.main.async { [self] in delegate?.audioRecorderDidFinishRecording(self, successfully: successfully) }
        }
    }

    /// One tap block (dispatcher thread): drop frames before the start time, convert, write,
    /// meter, and stop at the duration's last frame.
    func capture(_ buffer: AVAudioPCMBuffer, at when: AVAudioTime) {
        stateLock.lock()
        guard state == .recording, let file else { stateLock.unlock(); return }
        let rate = buffer.format.sampleRate
        var skip = 0
        if startHostTime > 0, when.isHostTimeValid, when.hostTime < startHostTime {
            skip = Int((AVAudioTime.seconds(forHostTime: startHostTime - when.hostTime) * rate).rounded())
        }
        guard skip < Int(buffer.frameLength) else { stateLock.unlock(); return }
        var failure: Error?
        var reachedLimit = false
        if let output = convert(buffer, skipping: skip, to: file.processingFormat), output.frameLength > 0 {
            if let limit = frameLimit {
                let remaining = max(0, limit - framesWritten)
                if Int64(output.frameLength) >= remaining {
                    output.frameLength = AVAudioFrameCount(remaining)
                    reachedLimit = true
                }
            }
            do {
                if output.frameLength > 0 { try file.write(from: output) }
                framesWritten += Int64(output.frameLength)
                if _meteringEnabled { meter.process(output) }
            } catch {
                failure = error
            }
        }
        if reachedLimit || failure != nil { state = .paused }   // (no more writing; stop() follows)
        stateLock.unlock()
        if let failure {
            DispatchQueue.main.async { [self] in delegate?.audioRecorderEncodeErrorDidOccur(self, error: failure) }
            controlQueue.async { [self] in stopImpl(notify: true, successfully: false) }
        } else if reachedLimit {
            controlQueue.async { [self] in stopImpl(notify: true, successfully: true) }
        }
    }

    /// `buffer` from frame `skip` in `format` (stateLock held): copied when the formats match,
    /// else through an AVAudioConverter kept across blocks (its resampler state carries over).
    private func convert(_ buffer: AVAudioPCMBuffer, skipping skip: Int, to format: AVAudioFormat) -> AVAudioPCMBuffer? {
        let frames = Int(buffer.frameLength) - skip
        var input = buffer
        if skip > 0 {
            guard let slice = AVAudioPCMBuffer(pcmFormat: buffer.format, frameCapacity: AVAudioFrameCount(frames)) else { return nil }
            slice.frameLength = AVAudioFrameCount(frames)
            for c in 0..<Int(buffer.format.channelCount) {
                slice.floatChannelData![c].update(from: buffer.floatChannelData![c] + skip * buffer.stride, count: frames * buffer.stride)
            }
            input = slice
        }
        if buffer.format.sampleRate == format.sampleRate && buffer.format.channelCount == format.channelCount
            && buffer.format.commonFormat == format.commonFormat && buffer.format.isInterleaved == format.isInterleaved {
            return input
        }
        if converter == nil || converter?.inputFormat != buffer.format {
            converter = AVAudioConverter(from: buffer.format, to: format)
        }
        guard let converter else { return nil }
        let capacity = AVAudioFrameCount(Double(frames) * format.sampleRate / buffer.format.sampleRate) + 64
        if converted == nil || converted!.frameCapacity < capacity {
            converted = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: capacity)
        }
        guard let output = converted else { return nil }
        output.frameLength = 0
        var given = false
        var error: NSError?
        _ = converter.convert(to: output, error: &error) { _, status in
            if given { status.pointee = .noDataNow; return nil }
            given = true
            status.pointee = .haveData
            return input
        }
        return error == nil ? output : nil
    }
}

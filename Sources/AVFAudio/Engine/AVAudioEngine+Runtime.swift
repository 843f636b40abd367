// AVAudioEngine runtime: prepare/start/pause/stop/reset, the output device, render cycles.
//
// See RenderCore/RenderPlan.swift for the plan exchange, and RenderCore/EventDispatcher.swift for
// the locking design (which thread waits for which, and why nothing deadlocks): in short, the
// engine's lock is never held while client code runs or while waiting for a thread that runs it.
import Synchronization
import AudioDevices

extension AVAudioEngine {
    // MARK: Running

    /// Implementation of `prepare()` (the public method is in AVAudioEngine.swift).
    func prepareEngine() {
        lock.lock(); defer { lock.unlock() }
        prepared = true
        exchange.publish(compilePlan())
    }

    /// Implementation of `start()` (the public method is in AVAudioEngine.swift).
    func startEngine() throws {
        lock.lock(); defer { lock.unlock() }
        guard !running else { return }
        if let mode = manualMode {
            prepared = true
            exchange.publish(compilePlan())
            running = true
            if mode == .realtime { startDispatcher() }
            gate.openGate()
            return
        }
        let device = try openDevice()
        outputNode.deviceFormat = AVAudioFormat(standardFormatWithSampleRate: device.sampleRate,
                                                channels: AVAudioChannelCount(max(1, device.outputChannelCount)))
        outputNodeFormatDidChange()
        inputNodeFormatDidChange()
        prepared = true
        exchange.publish(compilePlan())
        startDispatcher()
        running = true
        gate.openGate()
        let outputChannels = device.outputChannelCount
        let inputChannels = device.inputChannelCount
        do {
            try device.start { [unowned self] cycle in
                self.renderDeviceCycle(cycle, outputChannels: outputChannels, inputChannels: inputChannels)
            }
        } catch {
            running = false
            gate.closeGate()
            // (not joined: it may be running a handler that waits for this lock; it exits by itself)
            dispatcher?.requestStop()
            dispatcher = nil
            // Apple: com.apple.coreaudio.avfaudio -10851 when the output unit cannot be set up
            // (evidence in Types/AVAudioErrors.swift).
            throw avfaudioError(kAudioUnitErr_InvalidPropertyValue,
                                "AVAudioEngine could not start the output device \(device.name): \(error)",
                                userInfo: [NSUnderlyingErrorKey: error as NSError])
        }
    }

    /// The device, opened on first use (with input when the engine's input node exists; reopened
    /// when the input node appeared after an output-only open, or after the device failed: a
    /// server that died and came back, a card plugged in again); it reports configuration
    /// changes to the engine. Engine lock held, not running.
    func openDevice() throws -> AudioDevice {
        let wantsInput = _inputNode != nil
        if let device {
            if !device.hasFailed && (!wantsInput || device.inputChannelCount > 0 || deviceLacksInput) { return device }
            device.stop()
            self.device = nil
        }
        let device = try AudioDeviceRegistry.openDevice(selector: deviceSelector, periodFrames: devicePeriodFrames, input: wantsInput)
        deviceLacksInput = wantsInput && device.inputChannelCount == 0
        device.configurationChangeHandler = { [weak self] in
            guard let self else { return }
            // Off the device's thread, and never under its lock: the engine takes its own lock.
            let engine = UncheckedSendable(self)
            DispatchQueue.global(qos: .userInitiated).async { engine.value.outputDeviceConfigurationDidChange() }
        }
        self.device = device
        return device
    }

    /// Chooses the engine's audio device (not part of Apple's API, which selects devices by
    /// `AudioDeviceID` on macOS): a selector as `AVAUDIO_BACKEND` takes — `null`, `alsa:PCM`
    /// (`alsa:default`, `alsa:hw:0`, `alsa:plughw:1,0`, any asound.conf name), `alsa:PLAYBACK|CAPTURE`
    /// (input from a second PCM, resampled to the playback clock), `pulse`,
    /// `pulse:SINK[:SOURCE]`, `jack`, `jack:CLIENT[@SERVER]` (JACK takes the server's period, not
    /// `periodFrames`) — or nil for `AVAUDIO_BACKEND`/automatic; and the period to ask for.
    /// Takes effect at the next `start()`; throws for a selector it cannot parse, or while running.
    public func _setAudioDevice(_ selector: String?, periodFrames: Int = 512) throws {
        if let selector {
            do { _ = try AudioDeviceSelection(parsing: selector) } catch let error as AudioDeviceError {
                throw avfaudioError(kAudioUnitErr_InvalidPropertyValue, error.message)
            }
        }
        precondition(periodFrames > 0 && periodFrames <= 65_536, "AVAudioEngine._setAudioDevice: period \(periodFrames) frames is outside 1…65536")
        lock.lock(); defer { lock.unlock() }
        guard !running else {
            throw avfaudioError(kAudioUnitErr_InvalidPropertyValue, "AVAudioEngine._setAudioDevice: stop the engine before changing its device")
        }
        device?.stop()
        device = nil
        deviceLacksInput = false
        deviceSelector = selector
        devicePeriodFrames = periodFrames
    }

    /// The running device's description and xrun count (not part of Apple's API, which has no
    /// xrun counter): underruns and overruns the backend recovered since the device was opened,
    /// output and input alike (an input overrun: captured audio dropped because the render did
    /// not come back in time; see `AudioDevice.xrunCount`; tested end to end through PulseAudio
    /// in PulseAudioInputOverrunTests).
    public var _audioDeviceName: String? { lock.lock(); defer { lock.unlock() }; return device?.name }
    public var _audioDeviceXrunCount: Int { lock.lock(); defer { lock.unlock() }; return device?.xrunCount ?? 0 }
    /// Whether the device thread runs with real-time priority (SCHED_FIFO granted).
    public var _audioDeviceIsRealTime: Bool { lock.lock(); defer { lock.unlock() }; return device?.isRealTime ?? false }

    /// The device's format or route changed: as on Apple platforms the engine stops, the output
    /// node takes the device's new format (the main mixer follows), and
    /// `.AVAudioEngineConfigurationChange` is posted with the engine as its object; the client
    /// reconnects what it needs and calls `start()` again.
    func outputDeviceConfigurationDidChange() {
        haltRendering()
        lock.lock()
        if manualMode == nil, let device {
            outputNode.deviceFormat = AVAudioFormat(standardFormatWithSampleRate: device.sampleRate,
                                                    channels: AVAudioChannelCount(max(1, device.outputChannelCount)))
            outputNodeFormatDidChange()
            if prepared { exchange.publish(compilePlan()) }
        }
        lock.unlock()
        NotificationCenter.default.post(name: .AVAudioEngineConfigurationChange, object: self)
    }

    /// Makes the null output device behave as if its hardware format changed (for testing how an
    /// app handles `.AVAudioEngineConfigurationChange` on a machine without a sound card; not part
    /// of Apple's API). The engine stops and posts the notification asynchronously.
    /// Throws when no device can be opened, or when the output is a real device.
    public func _simulateOutputDeviceConfigurationChange(sampleRate: Double, channelCount: AVAudioChannelCount) throws {
        lock.lock()
        let opened: AudioDevice
        do { opened = try openDevice() } catch { lock.unlock(); throw error }
        lock.unlock()
        guard let null = opened as? NullAudioDevice else {
            throw NSError(domain: NSOSStatusErrorDomain, code: -50, userInfo: [
                NSLocalizedDescriptionKey: "only the null output device can simulate a configuration change (the output is \(opened.name))",
            ])
        }
        // (outside the engine's lock: the device joins its thread, then calls the handler)
        null.changeConfiguration(sampleRate: sampleRate, channelCount: Int(channelCount))
    }

    /// Implementation of `pause()` (the public method is in AVAudioEngine.swift).
    func pauseEngine() {
        haltRendering()
    }

    /// Implementation of `stop()` (the public method is in AVAudioEngine.swift).
    func stopEngine() {
        let stoppedHere = haltRendering { [self] in
            prepared = false
            exchange.clear()
        }
        guard stoppedHere else { return }
        // Players complete what they hold (their handlers run on this thread, no lock held).
        lock.lock()
        let players = nodes.values.compactMap { $0 as? AVAudioPlayerNode }
        lock.unlock()
        for player in players { player.engineDidStop() }
    }

    /// Implementation of `reset()` (the public method is in AVAudioEngine.swift).
    func resetEngine() {
        lock.lock()
        let all = Array(nodes.values)
        lock.unlock()
        for node in all { node.reset() }
    }

    /// Stops rendering (pause and stop) without holding the lock while waiting:
    ///
    /// 1. under the lock: `running = false`, the render gate closed, the dispatcher taken;
    /// 2. without it: wait for the render cycle in flight (not when called from it), stop the
    ///    dispatcher (joined; only asked to stop when called from one of its handlers);
    /// 3. under the lock again, if no `start()` came in between and no cycle is in flight: stop
    ///    the device thread (it can no longer run client code) and run `finish`;
    /// 4. without it: run the events left (completions, tap audio) on this thread.
    ///
    /// Returns whether step 3 ran (false: a concurrent start() won, or called from a render block).
    @discardableResult
    func haltRendering(finish: () -> Void = {}) -> Bool {
        lock.lock()
        running = false
        gate.closeGate()
        let dispatcher = self.dispatcher
        self.dispatcher = nil
        lock.unlock()

        let fromRenderThread = !gate.waitUntilIdle()
        dispatcher?.stop()

        lock.lock()
        guard !running else { lock.unlock(); return false }
        let idle = !gate.isBusy
        if idle || fromRenderThread { device?.stop() }   // (from its own thread: does not wait)
        guard idle else { lock.unlock(); return false }
        finish()
        exchange.collectRetired()
        let undelivered = events.takeUndelivered()
        lock.unlock()

        drainEvents()
        events.run(undelivered)
        return true
    }

    /// Control side: run the queued events, then release the retired plans they pointed into
    /// (see `PlanExchange`). Does nothing when another thread is draining.
    func drainEvents() {
        let dead = exchange.takeGraveyard()
        if events.drain() {
            withExtendedLifetime(dead) {}
        } else {
            exchange.returnToGraveyard(dead)
        }
    }

    func startDispatcher() {
        let dispatcher = EventDispatcher { [weak self] in self?.drainEvents() }
        self.dispatcher = dispatcher
        dispatcher.start()
    }

    /// Takes the lock once no render cycle is in flight (or the caller is that cycle): for
    /// changes to memory the render side reads (manual-rendering scratch, formats).
    func lockWhenRenderIdle() {
        lock.lock()
        while gate.isBusy && !gate.isCurrentThreadRendering {
            lock.unlock()
            gate.waitUntilIdle()
            lock.lock()
        }
    }

    /// The latency from the output node to the listener, in seconds.
    var outputPresentationLatency: TimeInterval { device?.outputLatency ?? 0 }
    /// The latency from the device's input to the input node, in seconds.
    var inputPresentationLatency: TimeInterval { device?.inputLatency ?? 0 }

    // MARK: Rendering (render thread)

    /// One device callback. A callback larger than the plan's maximum cycle is served in several
    /// engine cycles, back to back (never with silence); the input node reads the device's
    /// captured frames at the same offsets.
    func renderDeviceCycle(_ cycle: AudioDeviceCycle, outputChannels: Int, inputChannels: Int) {
        let output = cycle.output
        let frames = cycle.frames
        guard gate.enter() == .admitted else {
            for c in 0..<outputChannels { output[c].update(repeating: 0, count: frames) }
            return
        }
        defer { gate.leave() }
        events.retryUndelivered()
        let rate = outputNode.outputRate
        let events = self.events
        let deviceInput = self.deviceInput
        let sequencers = Unmanaged.passUnretained(self.sequencerHooks)
        // (the plan unretained, as the render loop's proof requires; see RenderCore/RenderPlan.swift)
        let rendered = exchange.planForCycle()?._withUnsafeGuaranteedRef { plan -> Bool in
            guard let source = plan.outputSource, plan.maximumFrames > 0 else { return false }
            deviceInput.channels = cycle.input == nil ? 0 : inputChannels
            deviceInput.pointers = cycle.input
            var offset = 0
            while offset < frames {
                let n = min(plan.maximumFrames, frames - offset)
                deviceInput.offset = offset
                let hostTime = cycle.hostTime &+ UInt64(Double(offset) / rate * 1e9)
                _ = plan.render(frames: n, sampleTime: renderSampleTime, hostTime: hostTime, outputRate: rate,
                                isOffline: false, events: events, sequencers: sequencers)
                renderSampleTime += Int64(n)
                let m = min(outputChannels, source.channelCount)
                for c in 0..<m { (output[c] + offset).update(from: source.channels[c], count: n) }
                for c in m..<outputChannels { (output[c] + offset).update(repeating: 0, count: n) }
                offset += n
            }
            deviceInput.pointers = nil
            return true
        } ?? false
        if !rendered {
            renderSampleTime += Int64(frames)
            for c in 0..<outputChannels { output[c].update(repeating: 0, count: frames) }
        }
    }

    /// Manual rendering: renders `frames` frames into a planar Float32 destination.
    /// Returns (status, the source buffer) for the caller to convert. The caller holds the gate.
    func renderManualCycle(frames: Int) -> (AVAudioEngineManualRenderingStatus, RenderBuffer?) {
        events.retryUndelivered()
        let unmanagedPlan = exchange.planForCycle()
        let sampleTime = manualSampleTime.load(ordering: .relaxed)
        manualSampleTime.store(sampleTime + Int64(frames), ordering: .relaxed)
        guard let unmanagedPlan else { return (.success, nil) }
        let hostTime = HostClock.now(), rate = outputNode.outputRate, offline = manualMode == .offline, events = self.events
        let sequencers = Unmanaged.passUnretained(self.sequencerHooks)
        return unmanagedPlan._withUnsafeGuaranteedRef { plan in
            let insufficient = plan.render(frames: frames, sampleTime: sampleTime, hostTime: hostTime,
                                           outputRate: rate, isOffline: offline, events: events, sequencers: sequencers)
            return (insufficient ? .insufficientDataFromInputNode : .success, plan.outputSource)
        }
    }

    // MARK: Graph changes

    /// Recompiles and republishes the plan when the engine is prepared or running.
    func graphDidChange() {
        lock.lock(); defer { lock.unlock() }
        guard prepared || running else { return }
        exchange.publish(compilePlan())
    }

    /// The largest cycle the plan must render.
    var maximumCycleFrames: Int {
        if manualMode != nil { return Int(_manualMaximumFrames) }
        // The device's callback size, capped at 4096 (larger callbacks are served in several cycles).
        return min(4096, device?.maximumFramesPerCallback ?? 4096)
    }

    // MARK: Manual rendering (state; the API is in AVAudioEngine+ManualRendering.swift)

    var manualRenderingState: (mode: AVAudioEngineManualRenderingMode?, format: AVAudioFormat?, maximumFrames: AVAudioFrameCount) {
        (manualMode, _manualFormat, _manualMaximumFrames)
    }

    func setManualRendering(_ mode: AVAudioEngineManualRenderingMode?, format: AVAudioFormat?, maximumFrames: AVAudioFrameCount) {
        manualMode = mode
        _manualFormat = format
        _manualMaximumFrames = maximumFrames
        manualSampleTime.store(0, ordering: .relaxed)
        // Scratch for converting the output: a pointer per channel, and a silent channel.
        manualChannelPointers.deallocate()
        manualChannelPointers = .allocate(capacity: max(1, Int(format?.channelCount ?? 1)))
        manualSilence.pointee.deallocate()
        manualSilence.pointee = .allocate(capacity: max(1, Int(maximumFrames)))
        manualSilence.pointee.initialize(repeating: 0, count: max(1, Int(maximumFrames)))
    }

    /// Output-conversion scratch for manual rendering (allocated when the mode is set).
    var manualChannelPointers: UnsafeMutablePointer<UnsafeMutableRawPointer> {
        get { _manualChannelPointers }
        set { _manualChannelPointers = newValue }
    }
    var createdInputNode: AVAudioInputNode? { _inputNode }

    var currentManualSampleTime: Int64 { manualSampleTime.load(ordering: .relaxed) }
    var isRunningUnlocked: Bool { running }
    var isPreparedOrRunning: Bool { prepared || running }

    func drainEventsAfterOfflineRender() {
        lock.lock()
        exchange.collectRetired()
        lock.unlock()
        drainEvents()
    }

}

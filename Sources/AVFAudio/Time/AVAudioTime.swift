// AVAudioTime: a moment on the host clock, on a sample timeline, or both.
//
//     let t = AVAudioTime(sampleTime: 48_000, atRate: 48_000)       // 1 s on a sample timeline
//     let anchor = AVAudioTime(hostTime: AVAudioTime.hostTime(forSeconds: 10),
//                              sampleTime: 0, atRate: 48_000)
//     t.extrapolateTime(fromAnchor: anchor)!.hostTime               // anchor + 1 s in host ticks

/// A time on the host clock and/or a sample timeline. Immutable.
open class AVAudioTime: NSObject, @unchecked Sendable {
    private let stamp: AudioTimeStamp
    /// The sample rate of `sampleTime` (0 when the time has no sample time).
    public let sampleRate: Double

    /// Creates a time from a Core Audio time stamp; `sampleRate` qualifies its sample time.
    public init(audioTimeStamp ts: UnsafePointer<AudioTimeStamp>, sampleRate: Double) {
        stamp = ts.pointee
        self.sampleRate = sampleRate
        super.init()
    }

    /// Creates a time with only a host time.
    public init(hostTime: UInt64) {
        var ts = AudioTimeStamp()
        ts.mHostTime = hostTime
        ts.mFlags = .hostTimeValid
        stamp = ts
        sampleRate = 0
        super.init()
    }

    /// Creates a time with only a sample time, at `sampleRate`.
    public init(sampleTime: AVAudioFramePosition, atRate sampleRate: Double) {
        var ts = AudioTimeStamp()
        ts.mSampleTime = Double(sampleTime)
        ts.mFlags = .sampleTimeValid
        stamp = ts
        self.sampleRate = sampleRate
        super.init()
    }

    /// Creates a time with both a host time and a sample time.
    public init(hostTime: UInt64, sampleTime: AVAudioFramePosition, atRate sampleRate: Double) {
        var ts = AudioTimeStamp()
        ts.mHostTime = hostTime
        ts.mSampleTime = Double(sampleTime)
        ts.mFlags = [.hostTimeValid, .sampleTimeValid]
        stamp = ts
        self.sampleRate = sampleRate
        super.init()
    }

    // MARK: Host time conversion

    /// Host ticks in `seconds` (negative seconds clamp to 0).
    open class func hostTime(forSeconds seconds: TimeInterval) -> UInt64 {
        guard seconds > 0, seconds.isFinite else { return 0 }
        return UInt64((seconds * 1e9 / Double(HostClock.nanosecondsPerTick)).rounded())
    }

    /// Seconds in `hostTime` ticks.
    open class func seconds(forHostTime hostTime: UInt64) -> TimeInterval {
        Double(hostTime) * Double(HostClock.nanosecondsPerTick) * 1e-9
    }

    // MARK: Properties

    open var isHostTimeValid: Bool { stamp.mFlags.contains(.hostTimeValid) }
    open var hostTime: UInt64 { stamp.mHostTime }
    open var isSampleTimeValid: Bool { stamp.mFlags.contains(.sampleTimeValid) }
    open var sampleTime: AVAudioFramePosition { AVAudioFramePosition(stamp.mSampleTime.rounded(.down)) }
    /// The time as a Core Audio time stamp.
    open var audioTimeStamp: AudioTimeStamp { stamp }

    /// Fills in whichever of host time and sample time is missing, using `anchor`, which must have
    /// both. Returns nil when the anchor lacks either, or self has neither.
    ///
    /// The sample rate of the result is self's when it has one, else the anchor's.
    open func extrapolateTime(fromAnchor anchor: AVAudioTime) -> AVAudioTime? {
        guard anchor.isHostTimeValid, anchor.isSampleTimeValid else { return nil }
        let rate = (isSampleTimeValid && sampleRate > 0) ? sampleRate : anchor.sampleRate
        guard rate > 0 else { return nil }
        switch (isHostTimeValid, isSampleTimeValid) {
        case (true, true):
            return self
        case (false, true):
            // Convert the sample offset from the anchor to seconds at our rate.
            let anchorSampleAtRate = Double(anchor.stamp.mSampleTime) * rate / anchor.sampleRate
            let seconds = (stamp.mSampleTime - anchorSampleAtRate) / rate
            let ticks = seconds * 1e9 / Double(HostClock.nanosecondsPerTick)
            let host = Double(anchor.hostTime) + ticks
            return AVAudioTime(hostTime: UInt64(max(0, host.rounded())), sampleTime: sampleTime, atRate: rate)
        case (true, false):
            let deltaSeconds = (Double(hostTime) - Double(anchor.hostTime)) * Double(HostClock.nanosecondsPerTick) * 1e-9
            let sample = anchor.stamp.mSampleTime + deltaSeconds * anchor.sampleRate
            return AVAudioTime(hostTime: hostTime, sampleTime: AVAudioFramePosition(sample.rounded()), atRate: anchor.sampleRate)
        case (false, false):
            return nil
        }
    }

    open override var description: String {
        var parts: [String] = []
        if isHostTimeValid { parts.append("host time \(hostTime)") }
        if isSampleTimeValid { parts.append("sample time \(sampleTime) @ \(sampleRate) Hz") }
        return "<AVAudioTime: " + (parts.isEmpty ? "invalid" : parts.joined(separator: ", ")) + ">"
    }
}

extension AVAudioTime {
    /// Sample, host and rate-scalar valid: the flags of render-cycle time stamps. Built from raw
    /// values, because an option-set literal builds an array (an allocation in debug builds); a
    /// computed property, because a static `let` is initialised lazily behind a once-lock.
    @inline(__always)
    static var renderStampFlags: AudioTimeStampFlags { .renderCycle }
}

extension AudioTimeStampFlags {
    /// `AVAudioTime.renderStampFlags`, reachable from the render thread (a static member of a
    /// class goes through its metadata, which the real-time check rejects).
    @inline(__always)
    static var renderCycle: AudioTimeStampFlags {
        AudioTimeStampFlags(rawValue: AudioTimeStampFlags.sampleTimeValid.rawValue
            | AudioTimeStampFlags.hostTimeValid.rawValue | AudioTimeStampFlags.rateScalarValid.rawValue)
    }
}

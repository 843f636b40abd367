// Carrying captured audio from one device clock to another.
//
// Why. A duplex engine renders its output in the playback device's periods and takes its input
// from a FIFO that the capture device fills. When both directions run on one clock (one ALSA
// card with linked PCMs, one JACK server, a PulseAudio null sink and its monitor) the FIFO's fill
// only jitters. When they do not (a USB microphone and the built-in speakers behind one PulseAudio
// server), the two crystals differ by tens to hundreds of parts per million: at 48 kHz, 100 ppm
// is 4.8 frames a second, so a FIFO primed with 1,536 frames runs dry after about five minutes
// (or grows without bound the other way), and each time it does the input glitches. The server
// does not fix this for us: PulseAudio resamples a stream only to its device's nominal rate, on
// that device's clock (its module-loopback has its own adaptive resampler for exactly this case).
//
// How. Frames are stored planar in a ring. While the fill stays within a dead band around the
// level it settled at, reads copy frames exactly (so on one clock the input stays bit-exact
// forever, as before). Once the smoothed fill leaves the dead band (a real clock difference;
// jitter averages out), the bridge switches for good to the project's varispeed resampler
// (`SampleRateConverter` with `variableRatio`), fed first with the frames just read so that the
// switch adds no discontinuity (`.preroll`). A proportional-integral controller on the smoothed
// fill then sets the ratio: the integral term converges on the clocks' true ratio, so the fill
// returns to its target and stays there; the ratio glides over each read (no zipper noise).
//
// Controller. With e the fill's excess over its target in seconds, u the correction (input
// frames consumed per output frame minus 1) and d the clocks' true difference, e' = d − u and
// u = kp·e + ki·∫e: a second-order loop, critically damped at ωn = 0.02 rad/s (kp = 0.04 /s,
// ki = 0.0004 /s²). It is slow on purpose: the fill seen at each read wobbles, by a fraction of a
// capture fragment as the two devices' periods slide past each other when writes carry no
// arrival times (with 10 ms fragments and 8 ms reads, ±0.5 ms with a period that grows as the
// drift shrinks), by the stamps' jitter when they do (see "Arrival times"), and a loop fast
// enough to follow that would modulate the pitch with it; at this gain a 1 ms wobble moves the ratio by
// 40 ppm. So that a slow loop needs no minutes to lock, it starts from the drift the fill showed
// before it left the dead band: the least-squares slope of every read's fill since the target
// was taken (the two ends alone would carry the wobble into the estimate). And it starts
// bumpless: the target moves to where that fitted line is at the switch, so the proportional
// term starts at 0 instead of adding kp × the dead band (133 ppm for 3 ms) to the estimate,
// which the slow loop would then take minutes to work off while the fill swings back across its
// old target. The fill is smoothed with a 1 s time constant, which removes period-sized
// jitter. |u| is clamped to 1 % (crystals differ by far less; a larger difference is a
// misdeclared rate).
//
// The fill. What the controller steers is the latency the bridge adds: the frames in the ring
// plus, while resampling, the input the converter has taken but not yet turned into output
// (`SampleRateConverter.pendingInputFrames`, its filter's look-ahead included). That sum moves
// only with the frames written and the frames read; the ring's count alone also moves with how
// much the converter happened to take in its last piece. The converter is fed pieces rounded up,
// so what it holds creeps up by half a frame a read until one read needs no new input: a
// sawtooth a read high (0.8 s long at 8 kHz, too slow for the 1 s smoothing) that the
// controller used to read as drift. The switch from copying to resampling is continuous in this
// measure (the ring takes back the pre-roll, the fresh converter's pending input is minus as much).
//
// Two rates. When the capture device runs at another nominal rate than the playback device (a
// USB microphone at 44.1 kHz, speakers at 48 kHz: two ALSA PCMs), the bridge resamples from the
// start: the converter's ratio is the nominal out/in ratio times the controller's correction,
// and the fill is counted in capture frames. While the clocks agree the conversion is exact
// (ALSADuplexTests). Simulated at 1,470 against 1,600 Hz both ways (44.1/48 kHz scaled by 30,
// InputClockBridgeTests; a 12 ms dead band there) at ±100 and ±300 ppm. Before (the ring's count
// as the fill, the loop started at the endpoint drift plus the P term): the first correction
// was 765-810 ppm for a 300 ppm drift and 580-600 ppm for 100 ppm, and 3-11 s after it the mean
// was still 300-420 ppm off, the fill 9-19 frames (6-13 ms) from its target. Now: the first
// estimate is within 0.4 ppm of the drift, from 3 s after it the mean is within 0.5 ppm, every
// read within 6 ppm (the pitch wobble) and the smoothed fill within 0.2 frames of its target;
// the sine through it is clean to -87 dB (-77 dB before). What that scaled run hides: its
// fragments (15 frames, 10.2 ms) and reads (13 frames, 8.1 ms) are not commensurate, so the
// phase at which reads sample the capture sawtooth sweeps fast and averages out; at real
// periods it does not (next paragraph).
//
// Arrival times. The frames held jump by a whole capture fragment at each write: sampled at
// the reads, a sawtooth between the two devices' periods. At the real rates, 441-frame fragments
// against 384-frame reads (10 and 8 ms exactly, as devices' periods often are) sample it at a
// phase that slides only with the drift itself (a 2 ms cycle: 6.7 s at 300 ppm; with equal
// periods a whole fragment, 33 s), a wobble of up to a fragment that the least-squares slope
// cannot average out over the 12 s the fill takes to cross its dead band. So writes and reads
// carry host times (nanoseconds on CLOCK_MONOTONIC, the engine's host clock; passed in, so that
// tests simulate clocks exactly), and the fill at a read is what the capture device has
// produced by then less what was read: the frames held plus the time since the last write
// arrived at the nominal capture rate (plus the converter's pending input, as above). Between
// writes it now grows as the device captures instead of standing still and jumping; what is
// left is the jitter of the stamps, which the fit averages. The extrapolation stops at the
// frames the last write brought (one fragment): a late or missing write holds it there, as if
// the write had come on time, instead of letting it run away, and when the write comes the
// frames held take over continuously; a read stamped before the last write adds nothing. A
// write without a time forgets the last arrival, and a read without one adds nothing: the fill
// is then the frames held, exactly as before. Times move only the controller's measure, never a
// frame: the copy on one clock stays bit-exact. How good the stamps are is the caller's: each
// write's should trail the capture of its last frame by a constant plus jitter (a constant
// drops out of a slope). PulseAudio's capture callback stamps the moment the server's packet is
// read; ALSA's bridged capture stamps each snd_pcm_readi as it returns, which, pulled once a
// playback period just before the read, is up to a period late (no better than the frames held;
// the hardware pointer's own timestamp, snd_pcm_htimestamp, is not bound yet).
//
// Measured (InputClockBridgeTests: 44.1/48 kHz scaled by 1/3 to 14,700 and 16,000 Hz, which keeps
// 147-frame fragments against 128-frame reads, 10 and 8 ms, and the reverse, 160 against 147
// frames, 10 and 10 ms; 16 kHz on one rate, 160 against 128; every arrival and read jittered by
// ±0.5 ms; dead bands of 3.3-3.8 ms). Without times, the first estimate was 314.6 and -313.8
// ppm for ±300 in the real case (330 and -235 in an earlier measurement: it depends on where
// in the slide the fit falls), 313.4 and -305.2 on one rate, 94.8 and -96.1 for ±100
// there, and 40.3 and -35.7 with equal periods, where the fill crossed its dead band late, on a
// jump; 2 s later the fill was 2-6 frames from its target (4-7 ms with equal periods) and the
// correction up to 16 ppm off (110 ppm). With times: the first estimate within 2.5 ppm of the
// drift at ±300 ppm in all three, within 0.7 ppm at ±100 ppm (100.7 and -100.0 in the real case,
// 100.7 and -99.8 on one rate); 2 s later the smoothed fill within 1.3 frames of its target and
// every read's correction within 3.5 ppm of the drift; at 0 ppm the fill stays in its dead
// band (on one rate the bridge keeps copying).
//
// Overruns. A reader that stalls (a blocked render thread) while capture goes on finds the ring
// full: the writes drop the oldest frames and count one overrun per episode. The next read then
// primes again, trimmed to the priming level whatever `trimsAtPriming` says (the stream already
// has a gap there; a second costs nothing more), so the latency is back at once instead of the
// controller reading a full ring as a clock difference and draining it at its 1 % limit, sharp
// by 17 cents, for tens of seconds.
//
// Threading. One writer and one reader on the same thread (PulseAudio's mainloop thread, the
// ALSA device thread of a two-PCM duplex), or any single thread in tests: no atomics, no locks. Nothing is allocated after init.
import AudioKernels

public final class InputClockBridge {
    public let channels: Int
    /// The rate reads deliver (the playback clock's).
    public let sampleRate: Double
    /// The rate writes arrive at (the capture device's nominal rate; `sampleRate` unless given).
    public let inputSampleRate: Double
    /// Frames the ring holds at most.
    public let capacity: Int
    /// Frames that must have arrived before reads start taking them (and again after a read found
    /// the ring empty). With `maximumPrimingFrames` above it, it grows after each underrun.
    public private(set) var primingFrames: Int
    /// The most `primingFrames` may grow to (equal to the initial priming: fixed).
    public let maximumPrimingFrames: Int
    /// How much `primingFrames` grows after an underrun.
    public let primingStep: Int
    /// Reads return this many frames at most.
    public let maximumReadFrames: Int
    /// Whether the bridge may switch to resampling. False where reads are driven by the writes
    /// themselves (an input-only device reads each period as it arrives: one clock by design).
    public let compensates: Bool
    /// Whether priming drops what arrived beyond `primingFrames` (see `read`).
    public let trimsAtPriming: Bool

    /// Frames waiting in the ring.
    public private(set) var count = 0
    /// True once the bridge has switched to resampling (the clocks differ).
    public private(set) var isCompensating = false
    /// The current correction in parts per million: how many more input frames than output frames
    /// the bridge consumes (positive: the capture clock runs fast). 0 while copying.
    public var correctionPPM: Double { isCompensating ? correction * 1e6 : 0 }
    /// Reads that found too few frames (the rest was silence), and overflows of the ring between
    /// two reads (writes found it full and dropped its oldest frames: one count however many
    /// writes did, as a stalled reader meets a burst of small capture fragments).
    public private(set) var underruns = 0
    public private(set) var overruns = 0
    /// The fill (frames) the controller holds the ring at, once measured; nil before.
    public private(set) var targetFill: Double?
    /// The smoothed fill (frames).
    public private(set) var smoothedFill = 0.0
    /// Frames a write can append now without dropping any (the capture side may take no more
    /// than this from a device that has more waiting).
    public var writableFrames: Int { max(0, capacity - converter.leadingFrames - count) }

    private let ring: UnsafeMutablePointer<Float>     // channels × capacity, planar
    private var start = 0
    private var primed = false
    /// A write dropped frames since the last read (see `read`).
    private var overran = false
    /// The same, for counting: one overrun per episode, however many writes it took.
    private var overflowing = false
    /// The next priming trims, as after an overrun.
    private var trimsOnce = false
    /// Frames read since the last priming (history behind `start` that is still intact).
    private var readSincePriming = 0
    /// Seconds of reading since the last priming.
    private var elapsed = 0.0
    private let converter: SampleRateConverter
    private let inPointers: UnsafeMutablePointer<UnsafePointer<Float>>
    private let outPointers: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private var correction = 0.0
    /// The PI controller steers the ratio (from when the fill first left the dead band). Equal
    /// to `isCompensating` on one rate; on two rates the bridge resamples before it steers.
    private var controlling = false
    private var integral = 0.0
    /// The smoothed fill starts from the fill after the first read since priming (not before it,
    /// which is a read higher: an offset the 1 s smoothing would still carry, 5 %, when the target
    /// is taken after 3 s, and the controller would chase as a drift).
    private var smoothingStarts = false
    /// `elapsed` when the target fill was taken.
    private var targetTakenAt = 0.0
    /// Least-squares sums of the fill's excess (seconds) against the time since the target was
    /// taken, over the reads before the controller starts: n, Σt, Σt², Σf, Σtf.
    private var trend = (n: 0.0, t: 0.0, tt: 0.0, f: 0.0, tf: 0.0)
    /// The host time (nanoseconds) of the last write, when it carried one.
    private var arrivalTime: UInt64 = 0
    /// The frames that write brought: how far the fill may be extrapolated beyond it (0: the last
    /// write carried no time, and the fill is the frames held, as before arrival times).
    private var arrivalFrames = 0
    /// Output frames per input frame at the two nominal rates (1 on one rate).
    private let nominalRatio: Double
    /// The rates differ: the bridge resamples always, never copies.
    private let resamplesAlways: Bool

    // Tuning (see the note at the top of the file).
    static let smoothingSeconds = 1.0
    static let settleSeconds = 3.0
    static let kp = 0.04
    static let ki = 0.0004
    static let maximumCorrection = 0.01

    /// - Parameters:
    ///   - capacity: frames the ring holds (at least `primingFrames` + 2 × `maximumReadFrames`).
    ///   - primingFrames: frames to wait for before reading (the output device's buffer plus one
    ///     period is a safe choice: playback asks for data in bursts up to its buffer).
    ///   - maximumPrimingFrames: when above `primingFrames`, the priming adapts: it starts at
    ///     `primingFrames` and grows by `primingStep` after each underrun, up to this (a jitter
    ///     buffer that finds the smallest margin the two streams' timing allows). nil: fixed.
    ///   - compensates: false to copy always (see `compensates`).
    ///   - inputSampleRate: the capture device's nominal rate when it differs from `sampleRate`
    ///     (frames counts for `capacity` and `primingFrames` are then in capture frames).
    ///   - trimsAtPriming: whether priming drops what arrived beyond the priming level (see `read`).
    public init(channels: Int, sampleRate: Double, capacity: Int, primingFrames: Int, maximumPrimingFrames: Int? = nil,
                primingStep: Int? = nil, maximumReadFrames: Int, compensates: Bool = true, trimsAtPriming: Bool = false,
                inputSampleRate: Double? = nil) {
        precondition(channels >= 1 && sampleRate > 0 && primingFrames >= 0 && maximumReadFrames >= 1,
                     "InputClockBridge: \(channels) channels, \(sampleRate) Hz, priming \(primingFrames), reads of \(maximumReadFrames)")
        self.channels = channels
        self.sampleRate = sampleRate
        self.primingFrames = primingFrames
        self.maximumPrimingFrames = max(primingFrames, maximumPrimingFrames ?? primingFrames)
        self.primingStep = max(1, primingStep ?? maximumReadFrames / 2)
        self.maximumReadFrames = maximumReadFrames
        self.trimsAtPriming = trimsAtPriming
        let inputRate = inputSampleRate ?? sampleRate
        precondition(inputRate > 0 && inputRate.isFinite, "InputClockBridge: input rate \(inputRate) Hz")
        self.inputSampleRate = inputRate
        nominalRatio = sampleRate / inputRate
        resamplesAlways = inputRate != sampleRate
        self.compensates = compensates || resamplesAlways
        // The converter's pre-roll is read from the history behind `start`: keep room for it.
        converter = SampleRateConverter(inputRate: inputRate, outputRate: sampleRate, channels: channels, quality: .low,
                                        priming: .preroll,
                                        // (the range always spans 1: the varispeed builds its down-sampling table only
                                        // for ranges that reach below 1, and its ramps may pass there)
                                        variableRatio: (min(nominalRatio, 1) / (1 + Self.maximumCorrection))...(max(nominalRatio, 1) / (1 - Self.maximumCorrection)))
        // The capture frames one read can take at most (the ratio's extreme, rounded up).
        let readInput = Int((Double(maximumReadFrames) / nominalRatio * (1 + Self.maximumCorrection)).rounded(.up)) + 1
        self.capacity = max(capacity, self.maximumPrimingFrames + 2 * readInput + (resamplesAlways ? converter.leadingFrames : 0)) + converter.leadingFrames
        isCompensating = resamplesAlways
        ring = .allocate(capacity: channels * self.capacity)
        ring.initialize(repeating: 0, count: channels * self.capacity)
        inPointers = .allocate(capacity: channels)
        outPointers = .allocate(capacity: channels)
    }

    deinit {
        ring.deallocate()
        inPointers.deallocate()
        outPointers.deallocate()
    }

    // MARK: writing (the capture side)

    /// Appends `frames` interleaved frames (`channels` samples each); nil appends silence (a hole
    /// in the capture stream). When the ring is full the oldest frames are dropped (an overrun).
    ///
    /// `hostTime`: when these frames arrived, in nanoseconds of the clock the reads are stamped
    /// with (the engine's host clock, CLOCK_MONOTONIC): the closer to the moment the device
    /// captured the last of them, the better. With it, the fill the controller sees grows
    /// between writes at the capture rate instead of jumping by a fragment at each (see the note
    /// at the top of the file); without it, the fill is the frames held.
    public func write(interleaved samples: UnsafePointer<Float>?, frames: Int, hostTime: UInt64? = nil) {
        if let hostTime {
            if frames > 0 { arrivalTime = hostTime; arrivalFrames = frames }
        } else {
            arrivalFrames = 0
        }
        // Room for the converter's pre-roll history is kept behind `start` as well.
        let limit = capacity - converter.leadingFrames
        var source = samples
        var n = frames
        if n > limit {   // only the newest frames fit
            source = source.map { $0 + (n - limit) * channels }
            n = limit
        }
        let drop = count + n - limit
        if drop > 0 {
            start = (start + drop) % capacity
            count -= drop
            if !overflowing { overruns += 1 }
            overflowing = true
            if primed { overran = true }
        }
        var written = 0
        while written < n {
            let slot = (start + count) % capacity
            let run = min(n - written, capacity - slot)
            for c in 0..<channels {
                let destination = ring + c * capacity + slot
                if let source {
                    var p = source + written * channels + c
                    for i in 0..<run { destination[i] = p.pointee; p += channels }
                } else {
                    destination.update(repeating: 0, count: run)
                }
            }
            count += run
            written += run
        }
    }

    // MARK: reading (the playback side)

    /// Fills `frames` (≤ `maximumReadFrames`) frames of each planar buffer in `output`. Returns
    /// false when the ring ran dry (the rest is silence; the bridge primes again). Before the
    /// first priming completes, silence without counting an underrun.
    ///
    /// `hostTime`: when this read happens, on the clock the writes are stamped with (see
    /// `write`); nil measures the fill as the frames held.
    @discardableResult
    public func read(into output: UnsafePointer<UnsafeMutablePointer<Float>>, frames n: Int, hostTime: UInt64? = nil) -> Bool {
        precondition(n >= 0 && n <= maximumReadFrames, "InputClockBridge.read: \(n) frames; at most \(maximumReadFrames)")
        overflowing = false
        if overran {
            // The ring filled while the reader was away (a stalled render) and the writes dropped
            // its oldest frames: the stream already has a gap here. The bridge primes again,
            // trimmed to the priming level whatever `trimsAtPriming` says (a second gap costs
            // nothing more than the first), so the latency returns to its usual level at once
            // instead of the controller reading the full ring as a clock difference and draining
            // it at its 1 % limit, audibly sharp, for tens of seconds.
            overran = false
            restart()
            trimsOnce = true
        }
        if !primed {
            // (on two rates the fresh converter takes its pre-roll, `leadingFrames`, from the
            // ring at the first read: those are waited for too)
            guard count >= primingFrames + (resamplesAlways ? converter.leadingFrames : 0) else {
                for c in 0..<channels { output[c].update(repeating: 0, count: n) }
                return true
            }
            primed = true
            // Trimmed, the fill keeps beyond the priming level what a switch to resampling needs:
            // the frames the converter's filter looks ahead and the dead band the fill may drift
            // through before the controller acts (else a slow capture clock runs the ring dry
            // just as the controller takes over).
            let level = primingFrames + (resamplesAlways ? converter.leadingFrames : 0)
                + (compensates ? converter.leadingFrames + deadBandFrames : 0)
            if (trimsAtPriming || trimsOnce) && count > level {
                // Nothing has been handed out since the priming began (reads returned silence), so
                // dropping the oldest frames now costs no discontinuity, and the fill (the latency
                // this bridge adds) starts at exactly that level, not at wherever the last capture
                // burst left it.
                let excess = count - level
                start = (start + excess) % capacity
                count -= excess
            }
            trimsOnce = false
            readSincePriming = 0
            elapsed = 0
            smoothingStarts = true
        }
        let produced = isCompensating ? resample(into: output, frames: n) : copy(into: output, frames: n)
        if produced < n {
            for c in 0..<channels { (output[c] + produced).update(repeating: 0, count: n - produced) }
            underruns += 1
            restart()
            primingFrames = min(maximumPrimingFrames, primingFrames + primingStep)
            return false
        }
        control(frames: n, at: hostTime)
        return true
    }

    /// After a gap in the stream (an underrun or an overrun): back to priming, and to copying on
    /// one rate; the controller starts over (its target was a level the gap has moved away from).
    private func restart() {
        primed = false
        if isCompensating {
            converter.reset()
            isCompensating = resamplesAlways
            controlling = false
            integral = 0
            correction = 0
            converter.setRatio(nominalRatio)
        }
        targetFill = nil
    }

    private func copy(into output: UnsafePointer<UnsafeMutablePointer<Float>>, frames n: Int) -> Int {
        let available = min(n, count)
        let first = min(available, capacity - start)
        for c in 0..<channels {
            let channel = ring + c * capacity
            output[c].update(from: channel + start, count: first)
            if available > first { (output[c] + first).update(from: channel, count: available - first) }
        }
        advance(available)
        return available
    }

    private func advance(_ frames: Int) {
        start = (start + frames) % capacity
        count -= frames
        readSincePriming += frames
    }

    /// Converts from the ring until `n` frames are out or the ring and the converter are empty.
    /// The converter is fed in pieces about the size of what is still missing, so that what it
    /// holds stays near its filter's reach.
    private func resample(into output: UnsafePointer<UnsafeMutablePointer<Float>>, frames n: Int) -> Int {
        var produced = 0
        while produced < n {
            let wanted = max(1, Int((Double(n - produced) * (1 + correction) / nominalRatio).rounded(.up)))
            let piece = min(count, capacity - start, wanted)
            for c in 0..<channels {
                inPointers[c] = UnsafePointer(ring + c * capacity + start)
                outPointers[c] = output[c]
            }
            let r = converter.process(input: UnsafeBufferPointer(start: inPointers, count: channels), offset: 0, inputFrames: piece,
                                      output: UnsafeBufferPointer(start: outPointers, count: channels), offset: produced,
                                      outputCapacity: n - produced)
            advance(r.consumed)
            produced += r.produced
            if r.consumed == 0 && r.produced == 0 { break }   // the ring and the converter are empty
        }
        return produced
    }

    /// The fill the controller steers: the frames in the ring plus, while resampling, the input
    /// the converter has taken but not yet turned into output (`pendingInputFrames`), in capture
    /// frames. That sum is the bridge's latency, and it moves only with the frames written and
    /// the frames read; the ring's count alone also moves with how much the converter happened to
    /// take in its last piece (see the note at the top of the file).
    private var held: Double { Double(count) + (isCompensating ? converter.pendingInputFrames : 0) }

    /// The capture frames the device has produced since the last write, as of `time`: the time
    /// since that write's arrival at the nominal capture rate, from 0 up to the frames it brought
    /// (one fragment: a late or missing write holds the estimate there instead of letting it run
    /// away, and the next write, when it comes, takes over continuously). 0 without times.
    private func arrivedSince(at time: UInt64?) -> Double {
        guard let time, arrivalFrames > 0 else { return 0 }
        let seconds = Double(Int64(bitPattern: time &- arrivalTime)) * 1e-9
        return max(0, min(Double(arrivalFrames), seconds * inputSampleRate))
    }

    /// The dead band (see `control`), in capture frames: an eighth of the priming level, at least 2 ms.
    private var deadBandFrames: Int { max(primingFrames / 8, Int((0.002 * inputSampleRate).rounded(.up))) }

    /// Updates the smoothed fill, decides when to start compensating, and steers the ratio.
    private func control(frames n: Int, at time: UInt64?) {
        guard compensates else { return }
        let dt = Double(n) / sampleRate
        elapsed += dt
        let alpha = min(1, dt / Self.smoothingSeconds)
        // What was captured by now, less what was read (see the note at the top of the file).
        let fill = held + arrivedSince(at: time)
        if smoothingStarts {
            smoothedFill = fill
            smoothingStarts = false
        }
        smoothedFill += (fill - smoothedFill) * alpha
        guard elapsed >= Self.settleSeconds else { return }
        guard var target = targetFill else {
            targetFill = smoothedFill
            targetTakenAt = elapsed
            trend = (0, 0, 0, 0, 0)
            return
        }
        var error = (smoothedFill - target) / inputSampleRate   // seconds of excess input
        if !controlling {
            // The fill's trend since the target was taken (seconds of input against seconds).
            let t = elapsed - targetTakenAt, f = (fill - target) / inputSampleRate
            trend = (trend.n + 1, trend.t + t, trend.tt + t * t, trend.f + f, trend.tf + t * f)
            // The dead band: an eighth of the priming level (at least 2 ms), beyond averaged
            // jitter, and reached while the ring still holds most of its margin: the converter's
            // filter needs some of it (the frames it looks ahead), the rest absorbs the bursts in
            // which capture and playback move data.
            let deadBand = Double(deadBandFrames) / inputSampleRate
            guard abs(error) > deadBand, isCompensating || startCompensating() else { return }
            controlling = true
            // Start from the drift the copy phase saw: the slope of the fill since the target was
            // taken, fitted by least squares to every read's fill (the two ends alone would
            // carry the period-sized wobble into the estimate: at 100 ppm the fill takes 30 s to
            // cross a 3 ms dead band, and 0.3 ms of wobble at either end is 10 ppm).
            let d = trend.n * trend.tt - trend.t * trend.t
            let measured = d > 0 ? (trend.n * trend.tf - trend.t * trend.f) / d : error / max(elapsed - targetTakenAt, dt)
            integral = max(-Self.maximumCorrection, min(Self.maximumCorrection, measured)) / Self.ki
            // The fitted line's value now (seconds of excess input).
            let now = d > 0 ? (trend.f + measured * (t * trend.n - trend.t)) / trend.n : error + measured * Self.smoothingSeconds
            // Bumpless: the target moves to where the fill is now, so the proportional term
            // starts from 0 instead of kicking the ratio by kp × the dead band (133 ppm for 3 ms)
            // on top of the drift, which the slow loop would then take minutes to work off, the
            // fill swinging back across the target meanwhile. The latency stays a dead band
            // from where it started, which the priming level leaves room for. The target, and
            // the smoothed fill, are put where the fitted line is now: the smoothed fill trails
            // a ramp by its slope × the smoothing time, and once the ramp stops it would catch up
            // by as much (300 ppm × 1 s is 0.3 ms, which through kp is 12 ppm, a minute to work off).
            target += now * inputSampleRate
            targetFill = target
            smoothedFill = target
            error = 0
        }
        integral = max(-Self.maximumCorrection / Self.ki, min(Self.maximumCorrection / Self.ki, integral + error * dt))
        correction = max(-Self.maximumCorrection, min(Self.maximumCorrection, Self.kp * error + Self.ki * integral))
        converter.setRatio(nominalRatio / (1 + correction), rampFrames: n)
    }

    /// Switches to resampling. The converter's pre-roll is the frames just read, still intact
    /// behind `start`: they are put back in front of the ring, so its first output is the next
    /// unread frame and the switch adds no discontinuity. False when too little history is intact
    /// (soon after a priming): then the bridge tries again on a later read.
    private func startCompensating() -> Bool {
        let lead = converter.leadingFrames
        guard readSincePriming >= lead else { return false }
        converter.reset()
        start = (start - lead + capacity) % capacity
        count += lead
        isCompensating = true
        // (the fill is continuous across the switch: the ring gained `lead` frames, and the
        // fresh converter's pending input is −`lead` until it has taken them as its pre-roll)
        return true
    }
}

// Starting a voice, its per-block control update, and its inner loops (interpolation, filter,
// mix). See the design note in SamplerVoice.swift.

import CSamplerKernels

extension SamplerSynth {
    func startVoice(_ v: UnsafeMutablePointer<Voice>, zone: PlayZone, zoneIndex: Int, channel: Int, key noteKey: Int, velocity noteVelocity: Int) {
        if zone.modulatorCount > 0 || zone.disabledDefaults != 0, let view {
            startModulatedVoice(v, zone: zone, zoneIndex: zoneIndex, channel: channel, key: noteKey, velocity: noteVelocity, view: view)
            return
        }
        let key = zone.keynum >= 0 ? Int(min(zone.keynum, 127)) : noteKey
        let velocity = zone.velocity >= 0 ? Int(min(zone.velocity, 127)) : noteVelocity
        var voice = Voice()
        voice.playing = true
        voice.channel = channel
        voice.noteKey = noteKey
        voice.key = key
        voice.velocity = velocity
        voice.order = noteCounterValue
        voice.exclusiveClass = zone.exclusiveClass
        voice.start = zone.start; voice.end = zone.end
        voice.loopStart = zone.loopStart; voice.loopEnd = zone.loopEnd; voice.loopMode = zone.loopMode
        voice.phase = UInt64(zone.start) << 32
        voice.rateRatio = zone.sampleRate / sampleRate
        voice.pitchStatic = zone.scaleTuning * (Float(key) - zone.rootPitch / 100) + zone.tune
        voice.attenuationStatic = zone.attenuation + SynthMath.concaveCentibels(UInt8(velocity))
        voice.pan = zone.pan
        // No velocity → cutoff modulator: SoundFont 2.01/2.04 list one (−2400 cents), but FluidSynth
        // 2.3 — our reference — leaves the cutoff alone at every velocity (measured: a 1.1 kHz tone
        // through a 1.6 kHz cutoff comes out at the same level at velocities 40, 70, 100 and 127
        // once the velocity → attenuation curve is taken out), and so do we.
        voice.fcStatic = zone.filterFc
        let qdB = max(0, min(96, zone.filterQ / 10))
        voice.qLinear = Float(SynthMath.pow10(Double(qdB - 3.01) / 20))
        voice.filterGain = Float(1 / SynthMath.sqrt(Double(voice.qLinear)))
        // An open filter (≥ 13500 cents, about 19.9 kHz, no resonance, no modulation) is left out:
        // FluidSynth runs it at 0.45 × the rate, where it changes nothing below 10 kHz by 0.1 dB.
        voice.filterEnabled = !(voice.fcStatic >= 13_500 && zone.filterQ <= 0 && zone.modLfoToFilterFc == 0 && zone.modEnvToFilterFc == 0)
        voice.modLfoToPitch = zone.modLfoToPitch; voice.vibLfoToPitch = zone.vibLfoToPitch; voice.modEnvToPitch = zone.modEnvToPitch
        voice.modLfoToFc = zone.modLfoToFilterFc; voice.modEnvToFc = zone.modEnvToFilterFc; voice.modLfoToVolume = zone.modLfoToVolume
        voice.reverbStatic = zone.reverbSend; voice.chorusStatic = zone.chorusSend
        voice.vol = envelope(zone.volEnv, key: key, minimumRelease: -7_200)
        voice.mod = envelope(zone.modEnv, key: key, minimumRelease: -12_000)
        voice.modLfo = lfo(delay: zone.delayModLFO, frequency: zone.freqModLFO)
        voice.vibLfo = lfo(delay: zone.delayVibLFO, frequency: zone.freqVibLFO)
        voice.framesToUpdate = 0
        v.pointee = voice
        (filterStates + 4 * (v - voices)).update(repeating: 0, count: 4)
    }

    /// A voice whose zone has modulators of its own: the zone's generators plus the modulators'
    /// sums at note-on (every destination), then started as any other; the real-time parts are
    /// kept for re-evaluation (SamplerSynth+Modulators.swift).
    func startModulatedVoice(_ v: UnsafeMutablePointer<Voice>, zone original: PlayZone, zoneIndex: Int, channel: Int, key noteKey: Int,
                             velocity noteVelocity: Int, view: InstrumentView) {
        let key = original.keynum >= 0 ? Int(min(original.keynum, 127)) : noteKey
        let velocity = original.velocity >= 0 ? Int(min(original.velocity, 127)) : noteVelocity
        v.pointee.channel = channel; v.pointee.key = key; v.pointee.velocity = velocity
        evaluateModulators(v, zone: original, view: view)
        let s = modulatorSums
        var zone = original
        zone.modulatorCount = 0; zone.disabledDefaults = 0
        zone.attenuation += s[48]
        zone.pan += s[17]
        zone.filterFc += s[8]; zone.filterQ += s[9]
        zone.scaleTuning += s[56]
        zone.tune += 100 * s[51] + s[52]
        zone.modLfoToPitch += s[5]; zone.vibLfoToPitch += s[6]; zone.modEnvToPitch += s[7]
        zone.modLfoToFilterFc += s[10]; zone.modEnvToFilterFc += s[11]; zone.modLfoToVolume += s[13]
        zone.reverbSend += s[16]; zone.chorusSend += s[15]
        zone.delayModLFO += s[21]; zone.freqModLFO += s[22]; zone.delayVibLFO += s[23]; zone.freqVibLFO += s[24]
        zone.modEnv = (zone.modEnv.0 + s[25], zone.modEnv.1 + s[26], zone.modEnv.2 + s[27], zone.modEnv.3 + s[28],
                       zone.modEnv.4 + s[29], zone.modEnv.5 + s[30], zone.modEnv.6 + s[31], zone.modEnv.7 + s[32])
        zone.volEnv = (zone.volEnv.0 + s[33], zone.volEnv.1 + s[34], zone.volEnv.2 + s[35], zone.volEnv.3 + s[36],
                       zone.volEnv.4 + s[37], zone.volEnv.5 + s[38], zone.volEnv.6 + s[39], zone.volEnv.7 + s[40])
        let generation = v.pointee.modulatorGeneration
        startVoice(v, zone: zone, zoneIndex: zoneIndex, channel: channel, key: noteKey, velocity: noteVelocity)
        // (velocity → attenuation, default: off when the zone replaced it)
        let velocityAttenuation = original.disabledDefaults & 1 != 0 ? 0 : SynthMath.concaveCentibels(UInt8(velocity))
        v.pointee.velocityAttenuation = velocityAttenuation
        v.pointee.attenuationStatic = zone.attenuation + velocityAttenuation
        v.pointee.pitchBase = zone.scaleTuning * (Float(key) - zone.rootPitch / 100) + original.tune
        v.pointee.zoneIndex = Int32(zoneIndex)
        v.pointee.modulatorCount = original.modulatorCount
        v.pointee.disabledDefaults = original.disabledDefaults
        v.pointee.modulatorGeneration = generation
        if original.modulatesFilter { v.pointee.filterEnabled = true }
    }

    var noteCounterValue: UInt64 { noteCounterForVoices }

    /// Stage lengths in control blocks, as FluidSynth counts them (see SamplerVoice.swift).
    func envelope(_ e: (Float, Float, Float, Float, Float, Float, Float, Float), key: Int, minimumRelease: Float) -> Envelope {
        let perBlock = sampleRate / Double(synthBlockFrames)
        var env = Envelope()
        let delay = e.0 <= -32_768 ? 0 : SynthMath.seconds(timecents: max(-12_000, min(5_000, e.0)))
        env.blocks.0 = Int(perBlock * delay)
        env.blocks.1 = 1 + Int(perBlock * SynthMath.seconds(timecents: max(-12_000, min(8_000, e.1))))
        var hold = e.2 + e.6 * Float(60 - key)
        if hold <= -32_768 { env.blocks.2 = 0 } else {
            hold = max(-12_000, min(5_000, hold))
            env.blocks.2 = Int(perBlock * SynthMath.seconds(timecents: hold) + 0.5)
        }
        let decay = max(-12_000, min(8_000, e.3 + e.7 * Float(60 - key)))
        env.blocks.3 = Int(perBlock * SynthMath.seconds(timecents: decay) + 0.5)
        env.sustain = max(0, min(1, 1 - 0.001 * e.4))
        env.blocks.5 = 1 + Int(perBlock * SynthMath.seconds(timecents: max(minimumRelease, min(8_000, e.5))))
        return env
    }

    func lfo(delay: Float, frequency: Float) -> LFO {
        var l = LFO()
        let d = delay <= -32_768 ? 0 : SynthMath.seconds(timecents: max(-12_000, min(5_000, delay)))
        // (the delay in whole frames, then the first block that starts at or after it, as FluidSynth counts)
        let frames = Int(sampleRate * d)
        l.delayBlocks = (frames + synthBlockFrames - 1) / synthBlockFrames
        let hz = Double(8.176) * SynthMath.exp2(Double(max(-16_000, min(4_500, frequency))) / 1_200)
        l.incr = Float(4 * Double(synthBlockFrames) * hz / sampleRate)
        return l
    }

    /// The block's envelopes, LFOs, pitch, gains and filter.
    @inline(__always)
    func controlUpdate(_ v: UnsafeMutablePointer<Voice>) {
        var targetL: Float = 0, targetR: Float = 0, targetReverb: Float = 0, targetChorus: Float = 0
        if v.pointee.killing {
            v.pointee.finishing = true
        } else {
            v.pointee.vol.step()
            if v.pointee.vol.stage >= 6 { v.pointee.finishing = true }
            v.pointee.mod.step()
            v.pointee.modLfo.step()
            v.pointee.vibLfo.step()
            let ch = channels + v.pointee.channel
            if v.pointee.modulatorCount > 0 && v.pointee.modulatorGeneration != ch.pointee.generation { applyRealTimeModulators(v) }
            // the channel's default modulators (some turned off by the zone's own: PlayModulator.swift)
            var chAttenuation = ch.pointee.attenuation, chPan = ch.pointee.panOffset
            var chBend = ch.pointee.bendCents, chVibrato = ch.pointee.vibratoExtra
            if v.pointee.disabledDefaults != 0 {
                let off = v.pointee.disabledDefaults
                chAttenuation = (off & 1 << 4 != 0 ? 0 : ch.pointee.attenuationVolume) + (off & 1 << 6 != 0 ? 0 : ch.pointee.attenuationExpression)
                chPan = off & 1 << 5 != 0 ? 0 : ch.pointee.panOffset
                chBend = off & 1 << 9 != 0 ? 0 : ch.pointee.bendCents
                chVibrato = (off & 1 << 2 != 0 ? 0 : ch.pointee.vibratoPressure) + (off & 1 << 3 != 0 ? 0 : ch.pointee.vibratoModulation)
            }
            let modLfo = v.pointee.modLfo.value, vibLfo = v.pointee.vibLfo.value, modEnv = v.pointee.mod.value
            let cents = v.pointee.pitchStatic + chBend + cycleTuningValue
                + modLfo * v.pointee.modLfoToPitch + vibLfo * (v.pointee.vibLfoToPitch + chVibrato)
                + modEnv * v.pointee.modEnvToPitch
            // (clamped: a hostile bank's tuning or sample rate must not make the position overflow)
            let ratio = max(1e-6, min(1_024, SynthMath.exp2(Double(max(-24_000, min(24_000, cents))) / 1_200) * v.pointee.rateRatio))
            v.pointee.incr = UInt64(ratio * 4_294_967_296)
            if !v.pointee.finishing && v.pointee.vol.stage > 0 {
                let att = max(0, v.pointee.attenuationStatic + chAttenuation - modLfo * v.pointee.modLfoToVolume)
                let x = v.pointee.vol.value
                let amp = v.pointee.vol.stage == 1 ? x * SynthMath.amplitude(centibels: att)
                                                    : SynthMath.amplitude(centibels: att + 960 * (1 - x))
                let pan = max(-500, min(500, v.pointee.pan + chPan))
                if pan != v.pointee.lastPan {
                    v.pointee.lastPan = pan
                    v.pointee.panLeft = Float(SynthMath.sin(Double(500 - pan) / 1_000 * Double.pi / 2))
                    v.pointee.panRight = Float(SynthMath.sin(Double(500 + pan) / 1_000 * Double.pi / 2))
                }
                // (a voice without the filter still gets its DC gain 1/√q, as FluidSynth's always-on filter gives it)
                let g = amp * cycleGainValue * (v.pointee.filterEnabled ? 1 : v.pointee.filterGain)
                targetL = g * cycleGainLeft * v.pointee.panLeft
                targetR = g * cycleGainRight * v.pointee.panRight
                // Effect sends (SoundFont 2.04 #15, #16, 0.1 % units, with CC91/CC93 × 200 as FluidSynth's
                // default modulators give them): the mono voice, before pan, × the send, as FluidSynth feeds its effects.
                let off = v.pointee.disabledDefaults
                let reverb = v.pointee.reverbStatic + (off & 1 << 7 != 0 ? 0 : ch.pointee.reverbDepth)
                let chorus = v.pointee.chorusStatic + (off & 1 << 8 != 0 ? 0 : ch.pointee.chorusDepth)
                if reverb > 0 { targetReverb = g * min(1_000, reverb) / 1_000 }
                if chorus > 0 { targetChorus = g * min(1_000, chorus) / 1_000 }
                // Past the attack, a voice whose level is below the noise floor (−90 dB, FluidSynth's
                // FLUID_NOISE_FLOOR; the sample's own peak taken as full scale) ends, as FluidSynth's do.
                if v.pointee.vol.stage >= 3 && amp < 3e-5 { v.pointee.finishing = true; targetL = 0; targetR = 0; targetReverb = 0; targetChorus = 0 }
            }
            if v.pointee.filterEnabled {
                let fc = v.pointee.fcStatic + modEnv * v.pointee.modEnvToFc + modLfo * v.pointee.modLfoToFc
                let hz = max(5, min(0.45 * Float(sampleRate), SynthMath.hertz(cents: fc)))
                if abs(hz - v.pointee.lastFcHz) > 0.01 {
                    v.pointee.lastFcHz = hz
                    // Robert Bristow-Johnson's low-pass, with FluidSynth's Q mapping and gain 1/√Q.
                    let omega = 2 * Double.pi * Double(hz) / sampleRate
                    let sn = SynthMath.sin(omega), cs = SynthMath.cos(omega)
                    let alpha = sn / (2 * Double(v.pointee.qLinear))
                    let a0 = 1 / (1 + alpha)
                    v.pointee.a1 = Float(-2 * cs * a0)
                    v.pointee.a2 = Float((1 - alpha) * a0)
                    let b1 = (1 - cs) * a0 * Double(v.pointee.filterGain)
                    v.pointee.b1 = Float(b1)
                    v.pointee.b0 = Float(b1 * 0.5)
                    VoiceKernels.biquadPrepare(kernels, v.pointee.a1, v.pointee.a2,
                                               blockCache + synthCacheStride * (v - voices) + synthCacheCoefficients)
                }
            }
        }
        let n = Float(synthBlockFrames)
        v.pointee.ampL = v.pointee.targetL
        v.pointee.ampR = v.pointee.targetR
        v.pointee.targetL = targetL
        v.pointee.targetR = targetR
        v.pointee.stepL = (targetL - v.pointee.ampL) / n
        v.pointee.stepR = (targetR - v.pointee.ampR) / n
        v.pointee.ampReverb = v.pointee.targetReverb
        v.pointee.ampChorus = v.pointee.targetChorus
        v.pointee.targetReverb = targetReverb
        v.pointee.targetChorus = targetChorus
        v.pointee.stepReverb = (targetReverb - v.pointee.ampReverb) / n
        v.pointee.stepChorus = (targetChorus - v.pointee.ampChorus) / n
        v.pointee.framesToUpdate = synthBlockFrames
    }

    /// Renders one voice for `frames` frames, adding into left/right: mixes from the voice's block
    /// cache, rendering each block whole at its first frame (SamplerVoice.swift, "blocks rendered
    /// whole").
    func renderVoice(_ v: UnsafeMutablePointer<Voice>, _ samples: SamplePoints,
                     _ left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>,
                     _ reverbBus: UnsafeMutablePointer<Float>, _ chorusBus: UnsafeMutablePointer<Float>, _ frames: Int) {
        let k = kernels
        let cache = blockCache + synthCacheStride * (v - voices)
        var done = 0
        while done < frames {
            if v.pointee.framesToUpdate == 0 {
                if v.pointee.finishing { v.pointee.playing = false; return }
                controlUpdate(v)
                let state = filterStates + 4 * (v - voices), start = cache + 2 * synthBlockFrames
                start[0] = state[0]; start[1] = state[1]; start[2] = state[2]; start[3] = state[3]
                fill(v, samples, cache, from: 0)
            }
            let position = synthBlockFrames - v.pointee.framesToUpdate
            let n = min(frames - done, v.pointee.framesToUpdate)
            let available = max(0, min(n, v.pointee.blockProduced - position))
            let x = (v.pointee.filterEnabled ? cache + synthBlockFrames : cache) + position
            VoiceKernels.mix(k, x, left + done, right + done, available, v.pointee.ampL, v.pointee.stepL,
                             v.pointee.ampR, v.pointee.stepR, position)
            if v.pointee.ampReverb != 0 || v.pointee.stepReverb != 0 || v.pointee.ampChorus != 0 || v.pointee.stepChorus != 0 {
                VoiceKernels.mix(k, x, reverbBus + done, chorusBus + done, available, v.pointee.ampReverb, v.pointee.stepReverb,
                                 v.pointee.ampChorus, v.pointee.stepChorus, position)
                sendsUsed = true
            }
            v.pointee.framesToUpdate -= n
            done += n
            if available < n { v.pointee.playing = false; return }
        }
    }

    /// Interpolates and filters the voice's block from frame `start` to its end into its cache;
    /// the sample position and the low-pass state must be those of frame `start`.
    @inline(__always)
    func fill(_ v: UnsafeMutablePointer<Voice>, _ samples: SamplePoints, _ cache: UnsafeMutablePointer<Float>, from start: Int) {
        v.pointee.fillStart = start
        v.pointee.fillPhase = v.pointee.phase
        let produced = interpolate(v, samples, cache + start, synthBlockFrames - start)
        v.pointee.blockProduced = start + produced
        if v.pointee.filterEnabled {
            VoiceKernels.biquad(kernels, cache + start, cache + synthBlockFrames + start, produced, v.pointee.b0, v.pointee.b1,
                                v.pointee.a1, v.pointee.a2, filterStates + 4 * (v - voices), cache + synthCacheCoefficients)
        }
    }

    /// `fill` from frame `start` of the current block (an event's frame), with the samples of the
    /// instrument playing.
    func fillBlock(_ v: UnsafeMutablePointer<Voice>, from start: Int) {
        guard let view else { return }
        fill(v, SamplePoints(base: view.samples, int16: view.samplesAreInt16), blockCache + synthCacheStride * (v - voices), from: start)
    }

    /// Brings the voice's sample position and low-pass state back from its block's end to the
    /// block's current frame (an event's), before the event changes what the rest of the block
    /// holds. Nothing to do before the first block, or past the frames the block produced.
    func cutBlock(_ v: UnsafeMutablePointer<Voice>) {
        guard let view, v.pointee.framesToUpdate > 0 else { return }
        let position = synthBlockFrames - v.pointee.framesToUpdate
        guard position < v.pointee.blockProduced, position >= v.pointee.fillStart else { return }
        // the position: the fill's interpolation again, up to this frame (into the scratch block)
        v.pointee.phase = v.pointee.fillPhase
        _ = interpolate(v, SamplePoints(base: view.samples, int16: view.samplesAreInt16), scratch, position - v.pointee.fillStart)
        // the state: the block's last two inputs and outputs before this frame
        let cache = blockCache + synthCacheStride * (v - voices)
        let startState = cache + 2 * synthBlockFrames
        func input(_ i: Int) -> Float { i >= 0 ? cache[i] : startState[-1 - i] }
        func output(_ i: Int) -> Float { i >= 0 ? cache[synthBlockFrames + i] : startState[1 - i] }
        let state = filterStates + 4 * (v - voices)
        state[0] = input(position - 1); state[1] = input(position - 2)
        state[2] = output(position - 1); state[3] = output(position - 2)
    }

    /// 4-point (Catmull-Rom) interpolation of the sample into `out`; returns the frames produced
    /// (fewer than `n` when an unlooped sample ends). Runs whose four points lie inside the
    /// sample go to the kernel; the frames next to a loop's end (whose points wrap to its start)
    /// and at the pool's first point are computed here.
    @inline(__always)
    func interpolate(_ v: UnsafeMutablePointer<Voice>, _ s: SamplePoints, _ out: UnsafeMutablePointer<Float>, _ n: Int) -> Int {
        let k = kernels
        var ph = v.pointee.phase
        let inc = v.pointee.incr
        var i = 0
        let one: UInt64 = 1 << 32
        let looping = v.pointee.loopMode == 1 || (v.pointee.loopMode == 3 && !v.pointee.released)
        if looping {
            let loopEnd = v.pointee.loopEnd
            let length = loopEnd - v.pointee.loopStart
            let le = UInt64(loopEnd) << 32
            let lenFx = UInt64(length) << 32
            let fastLimit = UInt64(loopEnd - 2) << 32
            while i < n {
                if ph >= le {
                    ph -= lenFx * ((ph - le) / lenFx + 1)
                    continue
                }
                if ph < fastLimit && ph >= one {
                    let run = min(n - i, Int((fastLimit - ph + inc - 1) / inc))
                    ph = s.cubic(k, out + i, run, ph, inc)
                    i += run
                } else {
                    let idx = Int(ph >> 32)
                    let f = Float(Int32(truncatingIfNeeded: UInt32(truncatingIfNeeded: ph) >> 8)) * (1 / 16_777_216)
                    let j1 = idx + 1 >= loopEnd ? idx + 1 - length : idx + 1
                    let j2 = idx + 2 >= loopEnd ? idx + 2 - length : idx + 2
                    out[i] = synthCubic(s[max(idx - 1, 0)], s[idx], s[j1], s[j2], f)
                    ph &+= inc
                    i += 1
                }
            }
        } else {
            let endFx = UInt64(v.pointee.end) << 32
            while i < n {
                if ph >= endFx { v.pointee.phase = ph; return i }
                if ph < one {
                    let idx = Int(ph >> 32)
                    let f = Float(Int32(truncatingIfNeeded: UInt32(truncatingIfNeeded: ph) >> 8)) * (1 / 16_777_216)
                    out[i] = synthCubic(s[idx], s[idx], s[idx + 1], s[idx + 2], f)
                    ph &+= inc
                    i += 1
                    continue
                }
                let run = min(n - i, Int((endFx - ph + inc - 1) / inc))
                ph = s.cubic(k, out + i, run, ph, inc)
                i += run
            }
        }
        v.pointee.phase = ph
        return n
    }

}

/// The render side's view of the sample pool: its base address and whether its points are Float or
/// Int16 (read as value / 32768, exactly the Float the pool would otherwise hold; SamplePool.swift).
struct SamplePoints {
    let base: UnsafeRawPointer
    let int16: Bool

    /// Point `i` as a Float.
    @inline(__always)
    subscript(i: Int) -> Float {
        int16 ? Float(base.assumingMemoryBound(to: Int16.self)[i]) * (1 / 32_768) : base.assumingMemoryBound(to: Float.self)[i]
    }

    /// The interpolation kernel for this pool's points (CSamplerKernels.h).
    @inline(__always)
    func cubic(_ k: UnsafePointer<CSKKernels>, _ out: UnsafeMutablePointer<Float>, _ n: Int, _ phase: UInt64, _ incr: UInt64) -> UInt64 {
        int16 ? VoiceKernels.cubic16(k, base.assumingMemoryBound(to: Int16.self), out, n, phase, incr)
              : VoiceKernels.cubic(k, base.assumingMemoryBound(to: Float.self), out, n, phase, incr)
    }
}

// Evaluating a zone's custom modulators for one voice (see PlayModulator.swift for the model):
// source values as FluidSynth 2.3 reads them (fluid_mod_get_source_value: 7-bit values over a
// range of 128, the pitch wheel over 16384, "no controller" as the amount source = 1), the 16
// curves of §8.2 (fluid_mod_transform_source_value), output = amount × primary × secondary.
// Render side: no allocation, no lock (the scratch is the synth's).
import SoundBanks

extension SamplerSynth {
    /// FluidSynth's tables: concave[127 − i] = −(5/12)·log10(i/127), convex[i] = 1 + (5/12)·log10(i/127),
    /// both 0 at 0 and 1 at 127 (fluid_conv.c, "according to the pictures on SF2.01 page 73").
    static func fillCurves(_ t: UnsafeMutablePointer<Float>) {
        t[0] = 0; t[127] = 1; t[128] = 0; t[255] = 1
        for i in 1..<127 {
            let x = -(400.0 / 960.0) * SynthMath.log10(Double(i) / 127)
            t[127 - i] = Float(x)
            t[128 + i] = Float(1 - x)
        }
    }

    /// A curve at x in 0 … 127, linearly interpolated between the table's points, as FluidSynth
    /// 2.3 reads them (fluid_concave/fluid_convex: "interpolation between convex steps"; measured:
    /// a convex velocity curve at velocity 127, x = 0.99, gives FluidSynth 2.3.1 5.9 dB of a 48 dB
    /// range, the interpolated value, where the point below would give none).
    @inline(__always)
    func curve(_ table: Int, _ x: Float) -> Float {
        if x < 0 { return 0 }
        let i = Int(x)
        if i >= 127 { return 1 }
        let t = curves + 128 * table
        return t[i] + (t[i + 1] - t[i]) * (x - Float(i))
    }

    /// A source's mapped value (§8.2.1–8.2.4): the raw value over its range, then direction, polarity and curve.
    @inline(__always)
    func sourceValue(_ index: UInt8, _ flags: UInt8, _ v: UnsafeMutablePointer<Voice>) -> Float {
        let ch = v.pointee.channel
        var range: Float = 128
        let raw: Float
        if flags & PlayModulator.ccFlag != 0 {
            raw = Float(controllerValues[128 * ch + Int(index)])
        } else {
            switch index {
            case 0: return 1
            case 2: raw = Float(v.pointee.velocity)
            case 3: raw = Float(v.pointee.key)
            case 10: raw = Float(polyPressure[128 * ch + v.pointee.key])
            case 13: raw = Float(channels[ch].pressure)
            case 14: raw = Float(channels[ch].pitchBend); range = 16_384
            case 16: raw = Float(channels[ch].bendSemitones)
            default: return 0
            }
        }
        let x = raw / range
        switch flags & 15 {
        case 0: return x
        case 1: return 1 - x
        case 2: return -1 + 2 * x
        case 3: return 1 - 2 * x
        case 4: return curve(0, 127 * x)
        case 5: return curve(0, 127 * (1 - x))
        case 6: return x > 0.5 ? curve(0, 127 * 2 * (x - 0.5)) : -curve(0, 127 * 2 * (0.5 - x))
        case 7: return x > 0.5 ? -curve(0, 127 * 2 * (x - 0.5)) : curve(0, 127 * 2 * (0.5 - x))
        case 8: return curve(1, 127 * x)
        case 9: return curve(1, 127 * (1 - x))
        case 10: return x > 0.5 ? curve(1, 127 * 2 * (x - 0.5)) : -curve(1, 127 * 2 * (0.5 - x))
        case 11: return x > 0.5 ? -curve(1, 127 * 2 * (x - 0.5)) : curve(1, 127 * 2 * (0.5 - x))
        case 12: return x >= 0.5 ? 1 : 0
        case 13: return x >= 0.5 ? 0 : 1
        case 14: return x >= 0.5 ? 1 : -1
        default: return x >= 0.5 ? -1 : 1
        }
    }

    /// Evaluates a zone's modulators for a voice into `modulatorSums[0 ..< SF2Generator.count]`.
    func evaluateModulators(_ v: UnsafeMutablePointer<Voice>, zone: PlayZone, view: InstrumentView) {
        let sums = modulatorSums
        let links = modulatorSums + SF2Generator.count
        sums.update(repeating: 0, count: SF2Generator.count)
        let n = min(Int(zone.modulatorCount), SF2Modulator.maximumPerVoice)
        links.update(repeating: 0, count: n)
        let mods = view.modulators + Int(zone.firstModulator)
        var k = 0
        while k < n {
            let m = mods[k]
            let v1 = m.linked ? links[k] : sourceValue(m.source, m.sourceFlags, v)
            var out: Float = 0
            if v1 != 0 {
                out = m.amount * v1 * sourceValue(m.amountSource, m.amountFlags, v)
                if m.absolute { out = abs(out) }
            }
            let d = Int(m.destination)
            if d >= 0 { if d < SF2Generator.count { sums[d] += out } } else if -1 - d < n { links[-1 - d] += out }
            k += 1
        }
        v.pointee.modulatorGeneration = channels[v.pointee.channel].generation
    }

    /// After a controller change: the real-time destinations from the zone's values plus the new sums.
    func applyRealTimeModulators(_ v: UnsafeMutablePointer<Voice>) {
        guard let view else { return }
        let zone = view.zones[Int(v.pointee.zoneIndex)]
        evaluateModulators(v, zone: zone, view: view)
        let s = modulatorSums
        v.pointee.attenuationStatic = zone.attenuation + v.pointee.velocityAttenuation + s[48]
        v.pointee.pan = zone.pan + s[17]
        v.pointee.pitchStatic = v.pointee.pitchBase + 100 * s[51] + s[52]
        v.pointee.modLfoToPitch = zone.modLfoToPitch + s[5]; v.pointee.vibLfoToPitch = zone.vibLfoToPitch + s[6]
        v.pointee.modEnvToPitch = zone.modEnvToPitch + s[7]
        v.pointee.modLfoToFc = zone.modLfoToFilterFc + s[10]; v.pointee.modEnvToFc = zone.modEnvToFilterFc + s[11]
        v.pointee.modLfoToVolume = zone.modLfoToVolume + s[13]
        v.pointee.reverbStatic = zone.reverbSend + s[16]; v.pointee.chorusStatic = zone.chorusSend + s[15]
        v.pointee.fcStatic = zone.filterFc + s[8]
        setFilterQ(v, zone.filterQ + s[9])
    }

    /// Q in centibels → the low-pass's linear Q and its gain 1/√Q (FluidSynth's mapping).
    @inline(__always)
    func setFilterQ(_ v: UnsafeMutablePointer<Voice>, _ centibels: Float) {
        let qdB = max(0, min(96, centibels / 10))
        let q = Float(SynthMath.pow10(Double(qdB - 3.01) / 20))
        if q != v.pointee.qLinear {
            v.pointee.qLinear = q
            v.pointee.filterGain = Float(1 / SynthMath.sqrt(Double(q)))
            v.pointee.lastFcHz = -1   // (recompute the coefficients at this block)
        }
    }
}

/// A channel's controller values at reset, as FluidSynth initialises a channel
/// (fluid_channel_init_ctrl): all 0 except volume 100, balance and pan 64, expression 127,
/// the sound controllers 70–79 at 64 and (N)RPN numbers 127. `all: false` is Reset All
/// Controllers, which leaves bank select, volume, pan, the sound controllers and the
/// effect depths (91–95) alone.
func resetControllerValues(_ cc: UnsafeMutablePointer<UInt8>, all: Bool) {
    var i = 0
    while i < 128 {
        defer { i += 1 }
        if !all && (i == 0 || i == 32 || i == 7 || i == 10 || (i >= 70 && i <= 79) || (i >= 91 && i <= 95)) { continue }
        cc[i] = 0
    }
    if all { cc[7] = 100; cc[10] = 64; cc[8] = 64; var k = 70; while k <= 79 { cc[k] = 64; k += 1 } }
    cc[11] = 127
    cc[98] = 127; cc[99] = 127; cc[100] = 127; cc[101] = 127
}


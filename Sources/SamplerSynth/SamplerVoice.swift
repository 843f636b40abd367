// One sampler voice: a zone's sample played at a pitch, through the resonant low-pass and the
// volume envelope, into the stereo mix.
//
// DESIGN NOTE — control blocks
// ----------------------------
// Like FluidSynth (and EMU's hardware before it), a voice updates its envelopes, LFOs, pitch,
// filter and gains once per control block of 64 frames, and ramps its left/right gains linearly
// across the block; between updates the inner loops run without branches on the modulation.
// The blocks are counted from the voice's own start, not from the render cycle, so a voice sounds
// the same whatever the host's cycle sizes (offline rendering stays chunk-independent) and a
// note starts on its exact frame. Controllers (volume, pan, bend, modulation) take effect at
// each voice's next block boundary (≤ 1.3 ms at 48 kHz).
//
// DESIGN NOTE — blocks rendered whole
// -----------------------------------
// At a block's first frame the voice interpolates and filters the whole block into its own cache
// (input and output, 64 frames each), and render cycles then mix from the cache whatever their
// sizes. The AVX2 low-pass runs eight frames at a time (CSamplerKernels.h), which rounds
// differently depending on where its call starts; starting calls only at block starts keeps a
// voice's samples independent of how cycles split it. Two events change a block already
// rendered, and both take effect on their exact frame: a release, for a voice looping only while
// the key is held (loop mode 3), refills the rest of the block without the loop from that frame;
// a kill (steal, all sound off, exclusive class) ends the block there and starts a fading one.
// Either first brings the sample position and the low-pass state back to that frame: the
// position by interpolating again from the fill's start (at most one block), the state from the
// cached input and output (`cutBlock`). Both depend only on the event's frame, not on the cycles.
//
// Envelope model (SoundFont 2.04 §8.1.3, as FluidSynth implements it, since its renderings are
// our reference): the volume envelope's value x runs 0 → 1 linearly in the attack (amplitude
// x), then in the decay, sustain and release stages the amplitude is 10^(−960·(1 − x)/200), so a
// decay or release that runs x from 1 to 0 falls 96 dB linearly in decibels over its time. Stage
// lengths are whole control blocks (delay truncated, attack and release 1 + truncated, hold and
// decay rounded, as FluidSynth counts them). The modulation envelope has the same stages in a
// linear 0…1 value. LFOs are triangles from 0 rising, stepped per block.

/// What a voice is doing.
struct Voice {
    var playing = false
    var channel = 0
    /// The key it was started by (note-off matching) and the key it sounds (keynum generator).
    var noteKey = 0, key = 0, velocity = 0
    var released = false, heldByPedal = false, killing = false
    var order: UInt64 = 0
    var exclusiveClass: Int32 = 0

    // sample playback: the position in 32.32 fixed point (index into the pool, fraction)
    var phase: UInt64 = 0
    var start = 0, end = 0, loopStart = 0, loopEnd = 0
    var loopMode: UInt8 = 0
    var rateRatio: Double = 1
    /// scaleTuning·(key − root) + tune, in cents (without bend and modulation).
    var pitchStatic: Float = 0
    var incr: UInt64 = 1 << 32

    // levels
    var attenuationStatic: Float = 0
    var pan: Float = 0
    var fcStatic: Float = 13_500
    var qLinear: Float = 0.7
    var filterGain: Float = 1
    var filterEnabled = false
    var modLfoToPitch: Float = 0, vibLfoToPitch: Float = 0, modEnvToPitch: Float = 0
    var modLfoToFc: Float = 0, modEnvToFc: Float = 0, modLfoToVolume: Float = 0

    // custom modulators (PlayModulator.swift): the zone (its list), the defaults it turns off,
    // the channel generation last evaluated, and the note-on parts the re-evaluation builds on
    var zoneIndex: Int32 = 0
    var modulatorCount: Int32 = 0
    var disabledDefaults: UInt16 = 0
    var modulatorGeneration: UInt32 = 0
    var velocityAttenuation: Float = 0
    /// The zone's reverb and chorus sends with their modulators (0.1 % units; the channel's CC91/CC93 added per block).
    var reverbStatic: Float = 0, chorusStatic: Float = 0
    /// Send gains (mono, before pan) at the block's first frame, their steps and targets.
    var ampReverb: Float = 0, stepReverb: Float = 0, targetReverb: Float = 0
    var ampChorus: Float = 0, stepChorus: Float = 0, targetChorus: Float = 0
    /// scaleTuning·(key − root) + tune with the note-on scale-tuning modulation, without coarse/fine modulation.
    var pitchBase: Float = 0

    // envelopes: stage 0 delay, 1 attack, 2 hold, 3 decay, 4 sustain, 5 release, 6 finished
    var vol = Envelope(), mod = Envelope()
    var modLfo = LFO(), vibLfo = LFO()

    // per-block render state
    var framesToUpdate = 0
    /// Frames of the current block in the voice's block cache (fewer than a block when an
    /// unlooped sample ended in it), and where its last fill started (its first frame and the
    /// sample phase there): see "Blocks" in SamplerSynth+Voices.swift.
    var blockProduced = 0
    var fillStart = 0
    var fillPhase: UInt64 = 0
    /// Gains at the block's first frame, their steps per frame, and the block's targets.
    var ampL: Float = 0, ampR: Float = 0, stepL: Float = 0, stepR: Float = 0
    var targetL: Float = 0, targetR: Float = 0
    var lastFcHz: Float = -1
    /// The pan position the side gains were computed for, and those gains (sin law).
    var lastPan: Float = .nan
    var panLeft: Float = 0, panRight: Float = 0
    var b0: Float = 0, b1: Float = 0, a1: Float = 0, a2: Float = 0
    // (the low-pass's state — x[n−1], x[n−2], y[n−1], y[n−2] — is in SamplerSynth.filterStates)
    /// This block is the last: the gains ramp to zero and the voice frees itself after it.
    var finishing = false
}

struct Envelope {
    var stage = 0
    var count = 0          // blocks spent in the stage
    var value: Float = 0
    var blocks = (0, 0, 0, 0, 0, 0)   // delay, attack, hold, decay, (sustain), release
    var sustain: Float = 1

    /// The stage's length in blocks, its increment per block and its limits.
    @inline(__always)
    mutating func step() {
        while stage < 6 {
            switch stage {
            case 0:
                if count >= blocks.0 { stage = 1; count = 0; continue }
                value = 0
            case 1:
                if count >= blocks.1 { stage = 2; count = 0; value = 1; continue }
                value += 1 / Float(blocks.1)
                if value >= 1 { value = 1; stage = 2; count = 0; return }
            case 2:
                if count >= blocks.2 { stage = 3; count = 0; continue }
                value = 1
            case 3:
                if count >= blocks.3 { stage = 4; count = 0; value = max(value, sustain); continue }
                value -= 1 / Float(max(blocks.3, 1))
                if value <= sustain { value = sustain; stage = 4; count = 0; return }
            case 4:
                value = sustain
                return
            default:
                if count >= blocks.5 { stage = 6; count = 0; value = 0; return }
                value -= 1 / Float(blocks.5)
                if value <= 0 { value = 0; stage = 6; count = 0; return }
            }
            count += 1
            return
        }
    }
}

struct LFO {
    var delayBlocks = 0
    var value: Float = 0
    var incr: Float = 0
    @inline(__always)
    mutating func step() {
        if delayBlocks > 0 { delayBlocks -= 1; return }
        value += incr
        if value > 1 { value = 2 - value; incr = -incr } else if value < -1 { value = -2 - value; incr = -incr }
    }
}

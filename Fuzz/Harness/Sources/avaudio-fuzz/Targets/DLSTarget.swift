// AVAudioUnitSampler.loadInstrument(at:) on the bytes as a DLS bank (Level 1 and 2), then a few
// cycles of notes through the unit's own render block: the parser (the chunk walk, 'lins' with
// its regions and articulation lists, 'ptbl', the wave pool with 8- and 16-bit waves, wsmp loops)
// and the DLS → zone mapping (connection blocks onto envelopes, LFOs, filter, custom modulators)
// on whatever the bank describes. The notes and render are the sf2 target's (`loadSoundBank`
// plays any bank the sampler loads), so both formats meet the same voice checks.
//
// Checks beyond "no crash, no hang, no leak, no huge allocation": a load either succeeds or throws
// a readable AVFAudio error; rendering returns noErr and finite samples.
import AVFoundation

extension FuzzTarget {
    static let dls = FuzzTarget(name: "dls", structure: .riff) { loadSoundBank($0, fileExtension: "dls") }
}

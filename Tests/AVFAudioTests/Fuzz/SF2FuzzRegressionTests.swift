// Inputs the fuzzing harness found (Scripts/fuzz.sh), kept as regression tests.
import Foundation
import Testing
import AVFoundation

@Suite struct SF2FuzzRegressionTests {
    /// A SoundFont whose instrument zone holds a modulator chain ending in a record that links
    /// past the zone's list (9,606 bytes, found by the `sf2` target in the release's long run of
    /// 2026-12-08, after 807,292 inputs): the chain's cycle check indexed past the list and
    /// trapped. The chain is now dropped; the bank loads with the zone's other records, and plays.
    @Test func modulatorChainIntoALinkPastTheListLoads() throws {
        let bytes = try Data(contentsOf: savedFuzzFinding("sf2-fixed-link-chain-past-the-list"))
        let copy = temporaryURL("sf2-finding-\(UUID().uuidString).sf2")
        try bytes.write(to: copy)
        defer { try? FileManager.default.removeItem(at: copy) }
        let sampler = AVAudioUnitSampler()
        try sampler.loadInstrument(at: copy)
        // and it plays: a few notes across the keyboard render finite samples
        let out = try renderSampler(sampler, events: [(0, [0x90, 36, 100]), (0, [0x90, 60, 127]), (0, [0x90, 96, 64]),
                                                      (2_400, [0x80, 60, 0])], frames: 4_800)
        #expect(out.left.allSatisfy(\.isFinite) && out.right.allSatisfy(\.isFinite))
    }
}

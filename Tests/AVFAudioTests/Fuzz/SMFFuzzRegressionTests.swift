// Findings of the `smf` fuzz target (Scripts/fuzz.sh), replayed through the public API.
import Foundation
import Testing
import AVFoundation

@Suite struct SMFFuzzRegressionTests {
    /// Finding 1 (crash-f9272693, the generated seed `gen-smpte25.mid`): an SMPTE-division file
    /// with a tempo meta event. The event was kept as a meta event in its track; written at a PPQ
    /// division and loaded again, it became a real tempo change (60 BPM), retiming the sequence,
    /// and a second write differed from the first. SMPTE files' tempo events are now dropped.
    @Test func smpteFileWithTempoEventWritesStably() throws {
        let file = smfBytes(format: 0, division: 0xE728, tracks: [[
            (0, [0xFF, 0x51, 3, 0x07, 0xA1, 0x20]), (0, [0x90, 60, 100]), (1000, [0x80, 60, 0]), (500, [0xFF, 0x51, 3, 0x0F, 0x42, 0x40]),
            (0, [0x90, 62, 100]), (500, [0x80, 62, 0])]])
        let s = AVAudioSequencer()
        try s.load(from: file, options: [])
        let written = s.data(withSMPTEResolution: 0, error: nil)
        let again = AVAudioSequencer()
        try again.load(from: written, options: [])
        #expect(again.data(withSMPTEResolution: 0, error: nil) == written)
        // 1000 ticks at 1000 ticks/s = 1 s = 2 beats at 120 BPM, before and after the round trip.
        for seq in [s, again] {
            #expect(describe(seq.tracks[0]) == ["0.0 note ch0 k60 v100 d2.0", "3.0 note ch0 k62 v100 d1.0"])
            #expect(seq.seconds(forBeats: 3) == 1.5)
        }
    }
}

extension SMFFuzzRegressionTests {
    /// Finding 2 (crash-e9c24686, a mutation of freedink-data's 1003.mid): notes whose note-on
    /// and note-off share a tick were written note-off first (the writer put every note-off
    /// before the note-ons of its tick), so reading the file back found the note-off before its
    /// note-on and held the note to the end of the track. A note of no length is now released
    /// after its own note-on, in files and in playback.
    @Test func zeroLengthNotesSurviveARoundTrip() throws {
        let file = smfBytes(format: 0, division: 96, tracks: [[(0, [0x90, 60, 100]), (0, [0x80, 60, 0]), (96, [0x90, 62, 100]), (96, [0x80, 62, 0])]])
        let s = AVAudioSequencer()
        try s.load(from: file, options: [])
        #expect(describe(s.tracks[0]) == ["0.0 note ch0 k60 v100 d0.0", "1.0 note ch0 k62 v100 d1.0"])
        let written = s.data(withSMPTEResolution: 96, error: nil)
        let again = AVAudioSequencer()
        try again.load(from: written, options: [])
        #expect(describe(again.tracks[0]) == describe(s.tracks[0]))
        #expect(again.data(withSMPTEResolution: 96, error: nil) == written)
    }
}

extension SMFFuzzRegressionTests {
    /// Finding 3 (CI's slice of 2026-11-28, `Fuzz/findings/smf-fixed-rewrite-differs-after-rounding`):
    /// a 192-tick file whose overlapping notes of one key end on half ticks at the 480 ticks the
    /// sequencer writes. The first write rounds them; reloading pairs each release with the oldest
    /// sounding note of its key, so some releases changed owners, and the releases of one tick
    /// came out in another order on the second write. Releases of one tick are now written in
    /// channel and key order.
    @Test func releasesOfOneTickWriteInOneOrder() throws {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Inputs/smf-rewrite-differs-after-rounding.mid")
        let bytes = try Data(contentsOf: url)
        let s = AVAudioSequencer()
        try s.load(from: bytes, options: bytes.count & 1 == 1 ? .smf_ChannelsToTracks : [])
        let written = s.data(withSMPTEResolution: 0, error: nil)
        let again = AVAudioSequencer()
        try again.load(from: written, options: [])
        #expect(again.data(withSMPTEResolution: 0, error: nil) == written)
        #expect(again.tracks.count == s.tracks.count)
    }
}

// Standard MIDI Files through AVAudioSequencer.load(from: Data) (the MIDIFiles reader and the
// sequencer's conversion into tracks); an odd input length chooses smf_ChannelsToTracks (bytes
// after the last announced track are ignored, so one trailing byte flips the option).
//
// Checks: no crash, no hang, no leak; a refused file throws an NSError with a sentence; an
// accepted file writes (or refuses to write with an NSError) and what it writes loads again and
// writes the same bytes a second time; tempo conversions stay finite and invert each other.
import AVFoundation

extension FuzzTarget {
    static let smf = FuzzTarget(name: "smf", structure: nil) { fuzzSMF($0) }
}

func fuzzSMF(_ bytes: [UInt8]) {
    let sequencer = AVAudioSequencer()
    let options: AVMusicSequenceLoadOptions = bytes.count & 1 == 1 ? .smf_ChannelsToTracks : []
    do {
        try sequencer.load(from: Data(bytes), options: options)
    } catch let error as NSError {
        if error.localizedDescription.isEmpty { fuzzFailure("smf: an error without a description") }
        return
    }
    var lengths = 0.0
    for track in sequencer.tracks {
        var previous = -Double.infinity
        track.enumerateEvents(in: AVMakeBeatRange(0, AVMusicTimeStampEndOfTrack)) { _, stamp, _ in
            if !(stamp.pointee >= previous) { fuzzFailure("smf: events out of order (\(stamp.pointee) after \(previous))") }
            previous = stamp.pointee
        }
        lengths = max(lengths, track.lengthInBeats)
    }
    let seconds = sequencer.seconds(forBeats: lengths)
    if !seconds.isFinite || seconds < 0 { fuzzFailure("smf: \(lengths) beats are \(seconds) s") }
    let back = sequencer.beats(forSeconds: seconds)
    if abs(back - lengths) > 1e-6 * max(1, lengths) { fuzzFailure("smf: beats(forSeconds: seconds(forBeats: \(lengths))) = \(back)") }

    var error: NSError?
    let written = sequencer.data(withSMPTEResolution: 0, error: &error)
    if let error {
        if error.localizedDescription.isEmpty { fuzzFailure("smf: a write error without a description") }
        return
    }
    let again = AVAudioSequencer()
    do { try again.load(from: written, options: []) } catch { fuzzFailure("smf: what the sequencer wrote does not load: \(error)") }
    let rewritten = again.data(withSMPTEResolution: 0, error: &error)
    if rewritten != written { fuzzFailure("smf: writing a reloaded sequence gives other bytes (\(written.count) then \(rewritten.count))") }
}

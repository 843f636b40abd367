// AVAudioSequencer and AVMusicTrack without playback: every event class through a write/read
// round trip (identical events and beats), track editing, tempo conversions, metadata, errors.
import Foundation
import Testing
import AVFoundation

/// A track's events as comparable text: beat and content.
func describe(_ track: AVMusicTrack) -> [String] {
    var out: [String] = []
    track.enumerateEvents(in: AVMakeBeatRange(0, AVMusicTimeStampEndOfTrack)) { event, stamp, _ in
        let b = stamp.pointee
        switch event {
        case let e as AVMIDINoteEvent: out.append("\(b) note ch\(e.channel) k\(e.key) v\(e.velocity) d\(e.duration)")
        case let e as AVMIDIControlChangeEvent: out.append("\(b) cc ch\(e.channel) \(e.messageType) \(e.value)")
        case let e as AVMIDIProgramChangeEvent: out.append("\(b) pc ch\(e.channel) \(e.programNumber)")
        case let e as AVMIDIPitchBendEvent: out.append("\(b) bend ch\(e.channel) \(e.value)")
        case let e as AVMIDIChannelPressureEvent: out.append("\(b) chpress ch\(e.channel) \(e.pressure)")
        case let e as AVMIDIPolyPressureEvent: out.append("\(b) polypress ch\(e.channel) k\(e.key) \(e.pressure)")
        case let e as AVMIDISysexEvent: out.append("\(b) sysex \(e.sizeInBytes)")
        case let e as AVMIDIMetaEvent: out.append("\(b) meta \(e.type)")
        case let e as AVExtendedTempoEvent: out.append("\(b) tempo \(e.tempo)")
        default: out.append("\(b) \(type(of: event))")
        }
    }
    return out
}

@Suite struct AVAudioSequencerEditingTests {
    /// A sequence with every event class a Standard MIDI File can carry.
    static func makeSequence() -> AVAudioSequencer {
        let s = AVAudioSequencer()
        s.tempoTrack.addEvent(AVExtendedTempoEvent(tempo: 120), at: 0)
        s.tempoTrack.addEvent(AVMIDIMetaEvent(type: .timeSignature, data: Data([3, 2, 24, 8])), at: 0)
        s.tempoTrack.addEvent(AVExtendedTempoEvent(tempo: 60), at: 8)
        let t = s.createAndAppendTrack()
        t.addEvent(AVMIDIMetaEvent(type: .trackName, data: Data("Piano".utf8)), at: 0)
        t.addEvent(AVMIDIProgramChangeEvent(channel: 1, programNumber: 5), at: 0)
        t.addEvent(AVMIDIControlChangeEvent(channel: 1, messageType: .volume, value: 100), at: 0)
        t.addEvent(AVMIDINoteEvent(channel: 1, key: 60, velocity: 90, duration: 1.5), at: 0.5)
        t.addEvent(AVMIDINoteEvent(channel: 1, key: 64, velocity: 80, duration: 0.25), at: 1.25)
        t.addEvent(AVMIDIPitchBendEvent(channel: 1, value: 12_000), at: 2)
        t.addEvent(AVMIDIChannelPressureEvent(channel: 1, pressure: 33), at: 2.5)
        t.addEvent(AVMIDIPolyPressureEvent(channel: 1, key: 60, pressure: 44), at: 2.75)
        t.addEvent(AVMIDISysexEvent(data: Data([0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7])), at: 3)
        t.addEvent(AVMIDIMetaEvent(type: .marker, data: Data("B".utf8)), at: 4)
        let u = s.createAndAppendTrack()
        u.addEvent(AVMIDINoteEvent(channel: 9, key: 36, velocity: 127, duration: 0.125), at: 0)
        u.addEvent(AVMIDINoteEvent(channel: 9, key: 36, velocity: 127, duration: 0.125), at: 7.875)
        return s
    }

    @Test func writeThenReadGivesIdenticalEventsAndTiming() throws {
        let original = Self.makeSequence()
        var error: NSError?
        let data = original.data(withSMPTEResolution: 480, error: &error)
        #expect(error == nil)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("seq-\(UUID().uuidString).mid")
        defer { try? FileManager.default.removeItem(at: url) }
        try original.write(to: url, smpteResolution: 480, replaceExisting: false)
        #expect(throws: (any Error).self) { try original.write(to: url, smpteResolution: 480, replaceExisting: false) }
        try original.write(to: url, smpteResolution: 480, replaceExisting: true)
        #expect(try Data(contentsOf: url) == data)

        for source in [0, 1] {
            let copy = AVAudioSequencer()
            if source == 0 { try copy.load(from: data, options: []) } else { try copy.load(from: url, options: []) }
            #expect(copy.tracks.count == 2)
            #expect(describe(copy.tempoTrack) == describe(original.tempoTrack))
            for (a, b) in zip(copy.tracks, original.tracks) { #expect(describe(a) == describe(b)) }
            #expect(copy.tracks[0].timeResolution == 480)
            #expect(copy.seconds(forBeats: 10) == 8 * 0.5 + 2 * 1.0)
            #expect(copy.tracks[1].lengthInBeats == 8)
            #expect(copy.tracks[1].lengthInSeconds == 4 + 0 * 1.0)
            #expect(copy.userInfo[AVAudioSequencer.InfoDictionaryKey.timeSignature.rawValue] as? String == "3/4")
        }
        // Writing the reloaded sequence gives the same bytes.
        let copy = AVAudioSequencer()
        try copy.load(from: data, options: [])
        #expect(copy.data(withSMPTEResolution: 480, error: nil) == data)
    }

    @Test func channelsToTracksSplitsAFormat0File() throws {
        let file = smfBytes(format: 0, division: 96, tracks: [[
            (0, [0xFF, 0x03, 1, 0x41]), (0, [0x90, 60, 100]), (0, [0x91, 62, 100]), (96, [0x80, 60, 0]), (0, [0x81, 62, 0]), (0, [0x92, 64, 1]), (48, [0x82, 64, 0])]])
        let kept = AVAudioSequencer()
        try kept.load(from: file, options: .smf_PreserveTracks)
        #expect(kept.tracks.count == 1)
        let split = AVAudioSequencer()
        try split.load(from: file, options: .smf_ChannelsToTracks)
        #expect(split.tracks.count == 3)
        #expect(describe(split.tracks[0]) == ["0.0 meta trackName", "0.0 note ch0 k60 v100 d1.0"])
        #expect(describe(split.tracks[1]) == ["0.0 note ch1 k62 v100 d1.0"])
        #expect(describe(split.tracks[2]) == ["1.0 note ch2 k64 v1 d0.5"])
        #expect(AVMusicSequenceLoadOptions.smf_ChannelsToTracks.rawValue == 1 && AVMusicSequenceLoadOptions.smf_PreserveTracks.rawValue == 0)
    }

    @Test func editingOperations() {
        let s = AVAudioSequencer()
        let t = s.createAndAppendTrack()
        for b in 0 ..< 8 { t.addEvent(AVMIDINoteEvent(channel: 0, key: UInt32(60 + b), velocity: 100, duration: 0.5), at: Double(b)) }
        func keys(_ track: AVMusicTrack) -> [String] {
            var out: [String] = []
            track.enumerateEvents(in: AVMakeBeatRange(0, AVMusicTimeStampEndOfTrack)) { e, b, _ in out.append("\((e as! AVMIDINoteEvent).key)@\(b.pointee)") }
            return out
        }
        t.moveEvents(in: AVMakeBeatRange(6, 2), by: 4)
        #expect(keys(t) == ["60@0.0", "61@1.0", "62@2.0", "63@3.0", "64@4.0", "65@5.0", "66@10.0", "67@11.0"])
        t.clearEvents(in: AVMakeBeatRange(4, 2))
        #expect(keys(t) == ["60@0.0", "61@1.0", "62@2.0", "63@3.0", "66@10.0", "67@11.0"])
        t.cutEvents(in: AVMakeBeatRange(1, 2))
        #expect(keys(t) == ["60@0.0", "63@1.0", "66@8.0", "67@9.0"])
        let u = s.createAndAppendTrack()
        u.addEvent(AVMIDINoteEvent(channel: 0, key: 40, velocity: 1, duration: 1), at: 0)
        u.addEvent(AVMIDINoteEvent(channel: 0, key: 41, velocity: 1, duration: 1), at: 2)
        u.copyEvents(in: AVMakeBeatRange(0, 2), from: t, insertAt: 1)
        #expect(keys(u) == ["40@0.0", "60@1.0", "63@2.0", "41@4.0"])
        u.copyAndMergeEvents(in: AVMakeBeatRange(8, 1), from: t, mergeAt: 2)
        #expect(keys(u) == ["40@0.0", "60@1.0", "63@2.0", "66@2.0", "41@4.0"])
        // Enumeration: remove one, move one, change one.
        u.enumerateEvents(in: AVMakeBeatRange(0, AVMusicTimeStampEndOfTrack)) { e, b, remove in
            let n = e as! AVMIDINoteEvent
            if n.key == 63 { remove.pointee = true }
            if n.key == 40 { b.pointee = 5 }
            if n.key == 66 { n.velocity = 7 }
        }
        #expect(keys(u) == ["60@1.0", "66@2.0", "41@4.0", "40@5.0"])
        var velocity: UInt32 = 0
        u.enumerateEvents(in: AVMakeBeatRange(2, 1)) { e, _, _ in velocity = (e as! AVMIDINoteEvent).velocity }
        #expect(velocity == 7)
        // The track keeps copies: changing an added event later does not change the track.
        let note = AVMIDINoteEvent(channel: 0, key: 90, velocity: 1, duration: 1)
        u.addEvent(note, at: 9)
        note.key = 91
        #expect(keys(u).last == "90@9.0")
        #expect(u.lengthInBeats == 10)
        #expect(s.removeTrack(u) && !s.removeTrack(u))
        #expect(s.tracks.count == 1)
        // Reverse: a note at b with duration d in a track of length L goes to L - b - d.
        s.reverseEvents()
        #expect(keys(t) == ["67@0.0", "66@1.0", "63@8.0", "60@9.0"])
    }

    @Test func eventClassesKeepTheirValues() {
        #expect(AVMIDIControlChangeEvent.MessageType.RPN_MSB.rawValue == 101 && AVMIDIControlChangeEvent.MessageType.monoModeOff.rawValue == 127)
        #expect(AVMIDIMetaEvent.EventType.tempo.rawValue == 0x51 && AVMIDIMetaEvent.EventType.proprietaryEvent.rawValue == 0x7F)
        #expect(AVMusicTrackLoopCount.forever.rawValue == -1)
        #expect(AVExtendedNoteOnEvent.defaultInstrument == 0)
        let x = AVExtendedNoteOnEvent(midiNote: 60.5, velocity: 90, groupID: 2, duration: 1)
        #expect(x.instrumentID == AVExtendedNoteOnEvent.defaultInstrument && x.groupID == 2)
        let p = AVParameterEvent(parameterID: 3, scope: 0, element: 1, value: 0.25)
        #expect(p.parameterID == 3 && p.element == 1 && p.value == 0.25)
        let preset = AVAUPresetEvent(scope: 0, element: 0, dictionary: ["name": "x"])
        #expect(preset.presetDictionary["name"] as? String == "x")
        #expect(AVMusicUserEvent(data: Data([1, 2])).sizeInBytes == 2)
        #expect(AVMIDISysexEvent(data: Data([0xF0, 1, 0xF7])).sizeInBytes == 3)
        let range = AVMakeBeatRange(1, 2)
        #expect(range.start == 1 && range.length == 2)
        #expect(AVMusicTimeStampEndOfTrack == Double.greatestFiniteMagnitude)
        #expect(AVAudioSequencer.InfoDictionaryKey.title.rawValue == "title")
        let t = AVAudioSequencer().createAndAppendTrack()
        #expect(t.destinationAudioUnit == nil && t.destinationMIDIEndpoint == 0)
        t.destinationMIDIEndpoint = 5
        #expect(t.destinationMIDIEndpoint == 5)
    }

    @Test func errorsAreNSErrorsThatSayWhatIsWrong() throws {
        let s = AVAudioSequencer()
        do {
            try s.load(from: Data("MThd garbage".utf8), options: [])
            Issue.record("garbage loaded")
        } catch let error as NSError {
            #expect(error.domain == NSOSStatusErrorDomain)
            #expect(error.code == Int(kAudioFileInvalidFileError))
            #expect(error.localizedDescription.contains("byte"))
        }
        do {
            try s.load(from: URL(fileURLWithPath: "/nonexistent/x.mid"), options: [])
            Issue.record("missing file loaded")
        } catch let error as NSError {
            #expect(error.localizedDescription.contains("/nonexistent/x.mid"))
        }
        // Playing needs an engine that runs.
        #expect(throws: (any Error).self) { try s.start() }
        let engine = AVAudioEngine()
        let withEngine = AVAudioSequencer(audioEngine: engine)
        #expect(throws: (any Error).self) { try withEngine.start() }
        var error: NSError?
        _ = withEngine.hostTime(forBeats: 1, error: &error)
        #expect(error != nil)
    }
}

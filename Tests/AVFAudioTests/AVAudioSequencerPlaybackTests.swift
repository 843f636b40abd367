// AVAudioSequencer playback through the engine, proved on the sample: a client music device
// (an AUAudioUnit subclass of type 'aumu', `ImpulseInstrument`) writes 1.0 at the frame of each
// note-on it receives and logs the note-on's absolute sample time, so a test knows exactly where
// every note landed. Expected samples are computed here from the tempo map by hand (48 kHz:
// 120 BPM is 24,000 samples a beat, 60 BPM 48,000, 150 BPM 19,200), not by the code under test.
import Foundation
import Testing
import AVFoundation
import Synchronization

/// Writes an impulse at each note-on's frame; logs (sample time, key) of every note-on.
final class ImpulseInstrument: AUAudioUnit {
    final class Log {
        let capacity = 16_384
        let times: UnsafeMutablePointer<Int64>
        let keys: UnsafeMutablePointer<UInt8>
        /// Written on the render thread, read by tests on theirs (released after each entry).
        private let countAtomic = Atomic<Int>(0)
        var count: Int {
            get { countAtomic.load(ordering: .acquiring) }
            set { countAtomic.store(newValue, ordering: .releasing) }
        }
        var noteOffs = 0
        var allNotesOff = 0
        /// System-exclusive messages: (sample time, bytes), the first 64.
        var sysex: [(time: Int64, bytes: [UInt8])] = []
        init() { times = .allocate(capacity: capacity); keys = .allocate(capacity: capacity); sysex.reserveCapacity(64) }
        deinit { times.deallocate(); keys.deallocate() }
        var entries: [(time: Int64, key: UInt8)] { (0 ..< count).map { (times[$0], keys[$0]) } }
    }
    let log = Log()
    private var outputs: AUAudioUnitBusArray!

    override init(componentDescription: AudioComponentDescription, options: AudioComponentInstantiationOptions = []) throws {
        try super.init(componentDescription: componentDescription, options: options)
        outputs = AUAudioUnitBusArray(audioUnit: self, busType: .output,
                                      busses: [try AUAudioUnitBus(format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!)])
    }
    override var outputBusses: AUAudioUnitBusArray { outputs }

    override var internalRenderBlock: AUInternalRenderBlock {
        let log = self.log
        return { _, timestamp, frameCount, _, output, events, _ in
            let list = UnsafeMutableAudioBufferListPointer(output)
            for b in 0 ..< list.count { list[b].mData!.assumingMemoryBound(to: Float.self).update(repeating: 0, count: Int(frameCount)) }
            let start = AUEventSampleTime(timestamp.pointee.mSampleTime)
            var event = events
            while let e = event {
                if e.pointee.head.eventType == .midiSysEx && log.sysex.count < 64 {
                    // (a test instrument: copying the bytes allocates; real units must not)
                    let offset = MemoryLayout<AUMIDIEvent>.offset(of: \AUMIDIEvent.data)!
                    let data = (UnsafeRawPointer(e) + offset).assumingMemoryBound(to: UInt8.self)
                    log.sysex.append((e.pointee.MIDI.eventSampleTime, Array(UnsafeBufferPointer(start: data, count: Int(e.pointee.MIDI.length)))))
                }
                if e.pointee.head.eventType == .MIDI {
                    let m = e.pointee.MIDI
                    let offset = Int(m.eventSampleTime - start)
                    if m.data.0 & 0xF0 == 0x90 && m.data.2 > 0 {
                        if offset >= 0 && offset < Int(frameCount) {
                            for b in 0 ..< list.count { list[b].mData!.assumingMemoryBound(to: Float.self)[offset] = 1 }
                        }
                        if log.count < log.capacity { log.times[log.count] = m.eventSampleTime; log.keys[log.count] = m.data.1; log.count += 1 }
                    } else if m.data.0 & 0xF0 == 0x80 {
                        log.noteOffs += 1
                    } else if m.data.0 & 0xF0 == 0xB0 && m.data.1 == 123 {
                        log.allNotesOff += 1
                    }
                }
                event = UnsafePointer(e.pointee.head.next)
            }
            return noErr
        }
    }
}

/// Builds Standard MIDI File bytes: tracks of (delta ticks, event bytes).
func smfBytes(format: UInt16, division: UInt16, tracks: [[(UInt32, [UInt8])]]) -> Data {
    func vlq(_ v: UInt32) -> [UInt8] {
        var out = [UInt8(v & 0x7F)]
        var v = v >> 7
        while v > 0 { out.insert(UInt8(v & 0x7F) | 0x80, at: 0); v >>= 7 }
        return out
    }
    func be32(_ v: Int) -> [UInt8] { [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)] }
    var out = Array("MThd".utf8) + be32(6) + [UInt8(format >> 8), UInt8(format & 0xFF), 0, UInt8(tracks.count), UInt8(division >> 8), UInt8(division & 0xFF)]
    for t in tracks {
        var body: [UInt8] = []
        for (delta, bytes) in t { body += vlq(delta) + bytes }
        body += [0, 0xFF, 0x2F, 0]
        out += Array("MTrk".utf8) + be32(body.count) + body
    }
    return Data(out)
}

/// Note events at beats (PPQ 480), each a quarter of a beat long, on channel 0.
func noteTrack(_ beats: [Double], key: UInt8 = 60) -> [(UInt32, [UInt8])] {
    var events: [(tick: Int, bytes: [UInt8])] = []
    for b in beats {
        let t = Int((b * 480).rounded())
        events.append((t, [0x90, key, 100]))
        events.append((t + 120, [0x80, key, 0]))
    }
    events.sort { $0.tick < $1.tick }
    var last = 0
    return events.map { e in defer { last = e.tick }; return (UInt32(e.tick - last), e.bytes) }
}

@Suite(.serialized) struct AVAudioSequencerPlaybackTests {
    static let description = AudioComponentDescription(componentType: kAudioUnitType_MusicDevice, componentSubType: fourCC("impl"),
                                                       componentManufacturer: fourCC("Test"),
                                                       componentFlags: AudioComponentFlags.unsearchable.rawValue, componentFlagsMask: 0)
    static let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!

    /// An offline engine with one impulse instrument into the main mixer.
    static func makeEngine(maximumFrames: AVAudioFrameCount = 512, format: AVAudioFormat = format) async throws -> (AVAudioEngine, AVAudioUnitMIDIInstrument, ImpulseInstrument.Log) {
        AUAudioUnit.registerSubclass(ImpulseInstrument.self, as: description, name: "Test: Impulse", version: 1)
        let node = try await AVAudioUnit.instantiate(with: description)
        let instrument = try #require(node as? AVAudioUnitMIDIInstrument)
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: maximumFrames)
        engine.attach(instrument)
        engine.connect(instrument, to: engine.mainMixerNode, format: format)
        return (engine, instrument, (instrument.auAudioUnit as! ImpulseInstrument).log)
    }

    /// Renders `total` frames in chunks cycling through `chunks`; returns channel 0.
    static func render(_ engine: AVAudioEngine, _ total: Int, chunks: [Int]) throws -> [Float] {
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: engine.manualRenderingMaximumFrameCount)!
        var out: [Float] = []
        out.reserveCapacity(total)
        var k = 0
        while out.count < total {
            let n = min(chunks[k % chunks.count], total - out.count, Int(engine.manualRenderingMaximumFrameCount))
            k += 1
            let status = try engine.renderOffline(AVAudioFrameCount(n), to: buffer)
            #expect(status == .success)
            out += UnsafeBufferPointer(start: buffer.floatChannelData![0], count: Int(buffer.frameLength))
        }
        return out
    }

    static func impulses(_ samples: [Float]) -> [Int] { samples.indices.filter { samples[$0] != 0 } }

    /// 120 BPM to beat 4, 60 BPM to beat 6, then 150 BPM: the sample of a beat at 48 kHz.
    static func tempoChangeSample(_ b: Double) -> Int {
        if b <= 4 { return Int(b * 24_000) }
        if b <= 6 { return 96_000 + Int((b - 4) * 48_000) }
        return 192_000 + Int((b - 6) * 19_200)
    }
    static let tempoChangeBeats: [Double] = [0, 1, 2.5, 3.75, 4, 5.5, 6, 7.25, 8]
    static var tempoChangeFile: Data {
        // Conductor track: 120 BPM at 0, 60 BPM at beat 4 (tick 1920), 150 BPM at beat 6 (tick 2880).
        smfBytes(format: 1, division: 480, tracks: [
            [(0, [0xFF, 0x51, 3, 0x07, 0xA1, 0x20]), (1920, [0xFF, 0x51, 3, 0x0F, 0x42, 0x40]), (960, [0xFF, 0x51, 3, 0x06, 0x1A, 0x80])],
            noteTrack(tempoChangeBeats)])
    }

    @Test func ppqFileWithTempoChangesLandsOnExactSamples() async throws {
        var outputs: [[Float]] = []
        for chunks in [[512], [1, 37, 512, 200, 3, 480, 511], [64]] {
            let (engine, _, log) = try await Self.makeEngine()
            let sequencer = AVAudioSequencer(audioEngine: engine)
            try sequencer.load(from: Self.tempoChangeFile, options: [])
            #expect(sequencer.tracks.count == 1)
            #expect(sequencer.seconds(forBeats: 5) == 3.0)
            #expect(sequencer.beats(forSeconds: 4.5) == 7.25)   // 4 s is beat 6, then 0.4 s a beat
            try engine.start()
            sequencer.prepareToPlay()
            try sequencer.start()
            #expect(sequencer.isPlaying)
            let out = try Self.render(engine, 260_000, chunks: chunks)
            let expected = Self.tempoChangeBeats.map(Self.tempoChangeSample)
            #expect(Self.impulses(out) == expected)
            #expect(log.entries.map { Int($0.time) } == expected)
            #expect(log.noteOffs == expected.count)
            outputs.append(out)
            sequencer.stop()
            #expect(!sequencer.isPlaying)
            #expect(abs(sequencer.currentPositionInSeconds - 260_000.0 / 48_000) < 512.0 / 48_000)
            engine.stop()
        }
        // Offline rendering is deterministic whatever the chunk sizes.
        #expect(outputs[0] == outputs[1] && outputs[1] == outputs[2])
    }

    /// An instrument connected at 44.1 kHz to a mixer that renders at 48 kHz (AVAudioUnitSampler's
    /// default format on a 48 kHz device): its events arrive on its own timeline, on the frame the
    /// tempo map gives at 44.1 kHz, and the output hears each on its own sample (before 2026-12-07
    /// they came 48/44.1 late, the output's sample times read as the instrument's).
    @Test func eventsReachAnInstrumentBehindARateConverterOnItsTimeline() async throws {
        let (engine, instrument, log) = try await Self.makeEngine()
        engine.disconnectNodeOutput(instrument)
        engine.connect(instrument, to: engine.mainMixerNode, format: AVAudioFormat(standardFormatWithSampleRate: 44_100, channels: 2)!)
        let sequencer = AVAudioSequencer(audioEngine: engine)
        try sequencer.load(from: Self.tempoChangeFile, options: [])
        try engine.start()
        sequencer.prepareToPlay()
        try sequencer.start()
        let out = try Self.render(engine, 260_000, chunks: [512, 333])
        // Each impulse, through the mixer's converter, peaks where the output hears it.
        var peaks: [Int] = []
        var k = 0
        while k < out.count {
            if abs(out[k]) > 0.2 {
                let end = min(out.count, k + 200)
                let p = (k..<end).max { abs(out[$0]) < abs(out[$1]) }!
                peaks.append(p); k = end
            } else { k += 1 }
        }
        let expected = Self.tempoChangeBeats.map(Self.tempoChangeSample)
        // on the instrument's timeline: the tempo map's samples × 44.1/48, to the frame
        let onTimeline = expected.map { Int((Double($0) * 44_100 / 48_000).rounded()) }
        #expect(log.entries.map { Int($0.time) } == onTimeline)
        // and the output hears each impulse on its own sample (the converter plays input frame
        // t · 44.1/48 at output frame t), give or take the band-limited impulse's peak
        #expect(peaks.count == expected.count, "\(peaks)")
        for (p, e) in zip(peaks, expected) { #expect(abs(p - e) <= 2, "an impulse peaks at \(p), expected \(e)") }
        sequencer.stop()
        engine.stop()
    }

    @Test func smpteFileLandsOnExactSamples() async throws {
        // 25 frames per second × 40 ticks per frame = 1000 ticks a second; the tempo event (60 BPM)
        // must not change a real-time file's timing.
        let division: UInt16 = 0xE728
        let file = smfBytes(format: 0, division: division, tracks: [[
            (0, [0xFF, 0x51, 3, 0x0F, 0x42, 0x40]),
            (0, [0x90, 60, 100]), (250, [0x90, 62, 100]), (1250, [0x90, 64, 100]), (501, [0x90, 65, 100]), (100, [0x80, 60, 0])]])
        let (engine, _, log) = try await Self.makeEngine()
        let sequencer = AVAudioSequencer(audioEngine: engine)
        try sequencer.load(from: file, options: [])
        try engine.start()
        try sequencer.start()
        let out = try Self.render(engine, 110_000, chunks: [300, 512, 17])
        let expected = [0, 12_000, 72_000, 96_048]   // ticks × 48 samples
        #expect(Self.impulses(out) == expected)
        #expect(log.entries.map(\.key) == [60, 62, 64, 65])
    }

    @Test(arguments: [Float(0.5), 2]) func rateScalesEverySample(rate: Float) async throws {
        let (engine, _, _) = try await Self.makeEngine()
        let sequencer = AVAudioSequencer(audioEngine: engine)
        try sequencer.load(from: Self.tempoChangeFile, options: [])
        sequencer.rate = rate
        try engine.start()
        try sequencer.start()
        let total = Int(Double(Self.tempoChangeSample(8)) / Double(rate)) + 1000
        let out = try Self.render(engine, total, chunks: [333, 512])
        let expected = Self.tempoChangeBeats.map { Int((Double(Self.tempoChangeSample($0)) / Double(rate)).rounded()) }
        #expect(Self.impulses(out) == expected)
    }

    @Test func loopsOffsetsMuteAndSolo() async throws {
        let (engine, _, log) = try await Self.makeEngine()
        let sequencer = AVAudioSequencer(audioEngine: engine)
        let looped = sequencer.createAndAppendTrack()
        for (b, key) in [(0.0, UInt32(60)), (1.0, 61), (2.5, 62)] {
            looped.addEvent(AVMIDINoteEvent(channel: 0, key: key, velocity: 100, duration: 0.5), at: b)
        }
        looped.loopRange = AVMakeBeatRange(0, 2)
        looped.numberOfLoops = 3
        looped.isLoopingEnabled = true
        let offset = sequencer.createAndAppendTrack()
        offset.addEvent(AVMIDINoteEvent(channel: 1, key: 70, velocity: 100, duration: 0.25), at: 0)
        offset.offsetTime = 0.5
        let muted = sequencer.createAndAppendTrack()
        muted.addEvent(AVMIDINoteEvent(channel: 2, key: 80, velocity: 100, duration: 0.25), at: 0.25)
        muted.isMuted = true
        try engine.start()
        try sequencer.start()
        _ = try Self.render(engine, 24_000 * 8, chunks: [512, 100])
        // Three passes of [0, 2): notes at 0, 1, 2, 3, 4, 5; then the track goes on: 2.5 + 2 × 2 = 6.5.
        let expected: [(Int64, UInt8)] = [(0, 60), (12_000, 70), (24_000, 61), (48_000, 60), (72_000, 61), (96_000, 60), (120_000, 61), (156_000, 62)]
        #expect(log.entries.map(\.time) == expected.map(\.0))
        #expect(log.entries.map(\.key) == expected.map(\.1))

        // Solo: only soloed tracks play (from the next cycle on; position moved back to 0).
        sequencer.stop()
        log.count = 0
        offset.isSoloed = true
        sequencer.currentPositionInBeats = 0
        let startSample = engine.manualRenderingSampleTime
        try sequencer.start()
        _ = try Self.render(engine, 24_000 * 2, chunks: [512])
        #expect(log.entries.map(\.key) == [70])
        #expect(log.entries.first?.time == startSample + 12_000)
    }

    /// Tracks without a destination play on the first instrument attached to the engine; a
    /// track's `destinationAudioUnit` sends it elsewhere.
    @Test func destinations() async throws {
        let (engine, first, firstLog) = try await Self.makeEngine()
        let second = try #require(try await AVAudioUnit.instantiate(with: Self.description) as? AVAudioUnitMIDIInstrument)
        let secondLog = (second.auAudioUnit as! ImpulseInstrument).log
        engine.attach(second)
        engine.connect(second, to: engine.mainMixerNode, format: Self.format)
        let sequencer = AVAudioSequencer(audioEngine: engine)
        let a = sequencer.createAndAppendTrack()
        a.addEvent(AVMIDINoteEvent(channel: 0, key: 50, velocity: 100, duration: 0.5), at: 0.5)
        let b = sequencer.createAndAppendTrack()
        b.addEvent(AVMIDINoteEvent(channel: 0, key: 51, velocity: 100, duration: 0.5), at: 0.25)
        b.destinationAudioUnit = second
        #expect(b.destinationAudioUnit === second && a.destinationAudioUnit == nil)
        _ = first
        try engine.start()
        try sequencer.start()
        _ = try Self.render(engine, 24_000, chunks: [512])
        #expect(firstLog.entries.map(\.key) == [50] && firstLog.entries.map(\.time) == [12_000])
        #expect(secondLog.entries.map(\.key) == [51] && secondLog.entries.map(\.time) == [6_000])
    }

    /// A track's system-exclusive events reach the instrument whole, at their sample.
    @Test func sysexEventsArriveOnTheirSamples() async throws {
        let (engine, _, log) = try await Self.makeEngine()
        let sequencer = AVAudioSequencer(audioEngine: engine)
        let track = sequencer.createAndAppendTrack()
        let gmOn: [UInt8] = [0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]
        let long: [UInt8] = [0xF0, 0x43] + (0 ..< 300).map { UInt8($0 % 128) } + [0xF7]
        track.addEvent(AVMIDISysexEvent(data: Data(gmOn)), at: 0.25)
        track.addEvent(AVMIDISysexEvent(data: Data(long)), at: 1.5)
        try engine.start()
        try sequencer.start()
        _ = try Self.render(engine, 48_000, chunks: [512, 77])
        #expect(log.sysex.map(\.time) == [6_000, 36_000])
        #expect(log.sysex.map(\.bytes) == [gmOn, long])
    }

    @Test func seekingWhilePlaying() async throws {
        let (engine, _, log) = try await Self.makeEngine()
        let sequencer = AVAudioSequencer(audioEngine: engine)
        let track = sequencer.createAndAppendTrack()
        for b in 0 ..< 16 { track.addEvent(AVMIDINoteEvent(channel: 0, key: UInt32(40 + b), velocity: 100, duration: 0.5), at: Double(b)) }
        try engine.start()
        try sequencer.start()
        _ = try Self.render(engine, 30_000, chunks: [500])   // notes at 0 and 24000
        sequencer.currentPositionInBeats = 10                 // anchors beat 10 at the next cycle (sample 30000)
        _ = try Self.render(engine, 50_000, chunks: [500])
        #expect(log.entries.map(\.key) == [40, 41, 50, 51, 52])
        #expect(log.entries.map(\.time) == [0, 24_000, 30_000, 54_000, 78_000])
        #expect(log.allNotesOff == 16)   // the seek silenced what was sounding (one per channel)
        #expect(sequencer.currentPositionInBeats == 10 + 50_000.0 / 24_000)
    }

    /// An hour of a looping one-beat pattern, rendered offline at 8 kHz (to render the hour in
    /// seconds): every one of the 7,200 notes on its exact sample (k × 4,000), none early, none
    /// late, none missing.
    @Test func anHourOfLoopingDoesNotDriftBySingleSample() async throws {
        let format = AVAudioFormat(standardFormatWithSampleRate: 8_000, channels: 2)!
        let (engine, _, log) = try await Self.makeEngine(maximumFrames: 4096, format: format)
        let sequencer = AVAudioSequencer(audioEngine: engine)
        let track = sequencer.createAndAppendTrack()
        track.addEvent(AVMIDINoteEvent(channel: 0, key: 60, velocity: 100, duration: 0.5), at: 0)
        track.loopRange = AVMakeBeatRange(0, 1)
        track.numberOfLoops = AVMusicTrackLoopCount.forever.rawValue
        track.isLoopingEnabled = true
        try engine.start()
        try sequencer.start()
        let render = engine.manualRenderingBlock
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4096)!
        var status = noErr
        let hour = 3600 * 8_000
        var done = 0
        let chunks = [4096, 4000, 1234, 4096, 17]
        var k = 0
        while done < hour {
            let n = min(chunks[k % chunks.count], hour - done)
            k += 1
            _ = render(AVAudioFrameCount(n), buffer.mutableAudioBufferList, &status)
            done += n
        }
        #expect(status == noErr)
        #expect(log.count == 7_200)
        let times = log.entries.map(\.time)
        #expect(times == (0 ..< 7_200).map { Int64($0) * 4_000 })
        #expect(log.noteOffs == 7_200)
        #expect(sequencer.currentPositionInSeconds == 3600)
    }

    @Test func realTimeOnTheNullDeviceKeepsExactSpacing() async throws {
        AUAudioUnit.registerSubclass(ImpulseInstrument.self, as: Self.description, name: "Test: Impulse", version: 1)
        let node = try await AVAudioUnit.instantiate(with: Self.description)
        let instrument = try #require(node as? AVAudioUnitMIDIInstrument)
        let log = (instrument.auAudioUnit as! ImpulseInstrument).log
        let engine = AVAudioEngine()
        try engine._setAudioDevice("null", periodFrames: 256)
        engine.attach(instrument)
        engine.connect(instrument, to: engine.mainMixerNode, format: Self.format)
        let sequencer = AVAudioSequencer(audioEngine: engine)
        let track = sequencer.createAndAppendTrack()
        for b in 0 ..< 8 { track.addEvent(AVMIDINoteEvent(channel: 0, key: 60, velocity: 100, duration: 0.05), at: Double(b) * 0.125) }
        sequencer.rate = 2
        let rate = engine.outputNode.outputFormat(forBus: 0).sampleRate
        let finished = withWatchdog("sequencer on the null device", seconds: 20) {
            do {
                try engine.start()
                try sequencer.start()
                _ = eventually(seconds: 5) { log.count >= 8 }
                // Host time ↔ beats while playing: 0.25 beat at 120 BPM and rate 2 is 62.5 ms.
                var error: NSError?
                let h1 = sequencer.hostTime(forBeats: 1.0, error: &error), h2 = sequencer.hostTime(forBeats: 1.25, error: &error)
                #expect(error == nil)
                #expect(abs(Int64(h2) - Int64(h1) - 62_500_000) <= 1)
                #expect(abs(sequencer.beats(forHostTime: h2, error: &error) - 1.25) < 1e-6)
                sequencer.stop()
                engine.stop()
            } catch { Issue.record("\(error)") }
        }
        #expect(finished)
        let times = log.entries.map(\.time)
        try #require(times.count == 8)
        // 0.125 beat at 120 BPM and rate 2 = 1/32 s apart, exactly.
        let outRate = rate > 0 ? rate : 48_000
        #expect(times.map { $0 - times[0] } == (0 ..< 8).map { Int64((Double($0) * outRate / 32).rounded()) })
    }

    @Test func userCallbackReceivesUserEvents() async throws {
        let (engine, _, _) = try await Self.makeEngine()
        let sequencer = AVAudioSequencer(audioEngine: engine)
        let track = sequencer.createAndAppendTrack()
        track.addEvent(AVMusicUserEvent(data: Data([1, 2, 3])), at: 0.5)
        track.addEvent(AVMusicUserEvent(data: Data([4])), at: 1.5)
        let received = Received()
        sequencer.setUserCallback { t, data, beat in received.add((t === track, [UInt8](data), beat)) }
        try engine.start()
        try sequencer.start()
        _ = try Self.render(engine, 24_000 * 2, chunks: [512])
        #expect(eventually(seconds: 5) { received.count == 2 })
        let got = received.all
        #expect(got.map(\.0) == [true, true])
        #expect(got.map(\.1) == [[1, 2, 3], [4]])
        #expect(got.map(\.2) == [0.5, 1.5])
    }
}

final class Received: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [(Bool, [UInt8], Double)] = []
    func add(_ item: (Bool, [UInt8], Double)) { lock.lock(); items.append(item); lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return items.count }
    var all: [(Bool, [UInt8], Double)] { lock.lock(); defer { lock.unlock() }; return items }
}

// Variable-size MIDI through the render-event scheduler: system-exclusive messages
// (scheduleMIDIEventBlock with F0…F7, AVAudioUnitMIDIInstrument.sendMIDISysExEvent) reach a
// client's music device as `.midiSysEx` events whose bytes continue past `data` (Apple's
// AUMIDIEvent contract), MIDI event lists (scheduleMIDIEventListBlock, send(_:)) as
// `.midiEventList` with the same words; a chunk of several MIDI 1.0 messages becomes one event
// each; a full payload pool drops and counts, and its slots come back once delivered.
import Foundation
import Testing
import AVFoundation

/// Records every MIDI event it receives: (sample time, type, bytes or UMP words).
final class ClientMIDIRecorder: AUAudioUnit {
    struct Received: Equatable {
        var time: AUEventSampleTime
        var type: AURenderEventType
        var bytes: [UInt8] = []
        var words: [UInt32] = []
        var packetCount = 0
    }
    final class Log { let lock = NSLock(); var events: [Received] = [] }
    let log = Log()
    private var outputs: AUAudioUnitBusArray!

    override init(componentDescription: AudioComponentDescription, options: AudioComponentInstantiationOptions = []) throws {
        try super.init(componentDescription: componentDescription, options: options)
        outputs = AUAudioUnitBusArray(audioUnit: self, busType: .output,
                                      busses: [try AUAudioUnitBus(format: AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!)])
    }
    override var outputBusses: AUAudioUnitBusArray { outputs }

    override var internalRenderBlock: AUInternalRenderBlock {
        let log = self.log
        return { _, _, frameCount, _, output, events, _ in
            // (a test instrument: recording allocates; real units must not)
            var event = events
            while let e = event {
                var r = Received(time: e.pointee.head.eventSampleTime, type: e.pointee.head.eventType)
                switch r.type {
                case .MIDI, .midiSysEx:
                    let length = Int(e.pointee.MIDI.length)
                    let offset = MemoryLayout<AUMIDIEvent>.offset(of: \AUMIDIEvent.data)!
                    let data = UnsafeRawPointer(e) + offset
                    r.bytes = Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: UInt8.self), count: length))
                case .midiEventList:
                    let offset = MemoryLayout<AUMIDIEventList>.offset(of: \AUMIDIEventList.eventList)!
                    let list = (UnsafeRawPointer(e) + offset).assumingMemoryBound(to: MIDIEventList.self)
                    r.packetCount = Int(list.pointee.numPackets)
                    var packet = UnsafeRawPointer(list) + 8
                    for _ in 0..<r.packetCount {
                        let count = Int(packet.loadUnaligned(fromByteOffset: 8, as: UInt32.self))
                        for w in 0..<count { r.words.append(packet.loadUnaligned(fromByteOffset: 12 + 4 * w, as: UInt32.self)) }
                        packet += 12 + 4 * count
                    }
                default: break
                }
                log.lock.lock(); log.events.append(r); log.lock.unlock()
                event = UnsafePointer(e.pointee.head.next)
            }
            let list = UnsafeMutableAudioBufferListPointer(output)
            for b in 0..<list.count { list[b].mData!.assumingMemoryBound(to: Float.self).update(repeating: 0, count: Int(frameCount)) }
            return noErr
        }
    }
}

@Suite struct AUAudioUnitSysExTests {
    static let description = AudioComponentDescription(componentType: kAudioUnitType_MusicDevice, componentSubType: fourCC("mrec"),
                                                       componentManufacturer: fourCC("Test"),
                                                       componentFlags: AudioComponentFlags.unsearchable.rawValue, componentFlagsMask: 0)

    /// An instrument wrapping the recorder, in an offline engine at 48 kHz.
    static func setUp() async throws -> (AVAudioEngine, AVAudioUnitMIDIInstrument, ClientMIDIRecorder) {
        AUAudioUnit.registerSubclass(ClientMIDIRecorder.self, as: description, name: "Test: MIDI recorder", version: 1)
        let node = try #require(try await AVAudioUnit.instantiate(with: description) as? AVAudioUnitMIDIInstrument)
        let recorder = try #require(node.auAudioUnit as? ClientMIDIRecorder)
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 1)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.offline, format: format, maximumFrameCount: 512)
        engine.attach(node)
        engine.connect(node, to: engine.mainMixerNode, format: format)
        try engine.start()
        return (engine, node, recorder)
    }

    static func render(_ engine: AVAudioEngine, _ frames: Int) throws {
        let buffer = AVAudioPCMBuffer(pcmFormat: engine.manualRenderingFormat, frameCapacity: 512)!
        var done = 0
        while done < frames {
            let n = min(512, frames - done)
            _ = try engine.renderOffline(AVAudioFrameCount(n), to: buffer)
            done += n
        }
    }

    @Test func sysExAndChunksReachTheUnit() async throws {
        let (engine, instrument, recorder) = try await Self.setUp()
        let schedule = try #require(instrument.auAudioUnit.scheduleMIDIEventBlock)
        let gmReset: [UInt8] = [0xF0, 0x7E, 0x7F, 0x09, 0x01, 0xF7]
        let long: [UInt8] = [0xF0, 0x43] + (0..<500).map { UInt8($0 % 128) } + [0xF7]
        gmReset.withUnsafeBufferPointer { schedule(700, 0, $0.count, $0.baseAddress!) }
        long.withUnsafeBufferPointer { schedule(100, 1, $0.count, $0.baseAddress!) }
        // one chunk, two messages (Apple: "one or more valid MIDI 1.0 events")
        [UInt8](arrayLiteral: 0x90, 60, 100, 0xC1, 5).withUnsafeBufferPointer { schedule(300, 0, $0.count, $0.baseAddress!) }
        try Self.render(engine, 1024)
        let events = recorder.log.events
        #expect(events.map(\.time) == [100, 300, 300, 700])
        #expect(events[0] == .init(time: 100, type: .midiSysEx, bytes: long))
        #expect(events[1] == .init(time: 300, type: .MIDI, bytes: [0x90, 60, 100]))
        #expect(events[2] == .init(time: 300, type: .MIDI, bytes: [0xC1, 5]))
        #expect(events[3] == .init(time: 700, type: .midiSysEx, bytes: gmReset))

        // AVAudioUnitMIDIInstrument.sendMIDISysExEvent: at the start of the next cycle
        recorder.log.events = []
        instrument.sendMIDISysExEvent(Data(gmReset))
        try Self.render(engine, 256)
        #expect(recorder.log.events == [.init(time: 1024, type: .midiSysEx, bytes: gmReset)])
    }

    @Test func eventListsReachTheUnit() async throws {
        let (engine, instrument, recorder) = try await Self.setUp()
        let schedule = try #require(instrument.auAudioUnit.scheduleMIDIEventListBlock)
        // two packets: a MIDI 2.0 note-on (type 4, two words) and a MIDI 1.0 control change (type 2)
        let words: [[UInt32]] = [[0x4091_3C00, 0xFFFF_0000], [0x20B1_0740]]
        let bytes = 8 + words.reduce(0) { $0 + 12 + 4 * $1.count }
        let raw = UnsafeMutableRawPointer.allocate(byteCount: max(bytes, MemoryLayout<MIDIEventList>.size), alignment: 8)
        defer { raw.deallocate() }
        raw.storeBytes(of: MIDIProtocolID._2_0.rawValue, toByteOffset: 0, as: Int32.self)
        raw.storeBytes(of: UInt32(words.count), toByteOffset: 4, as: UInt32.self)
        var offset = 8
        for packet in words {
            raw.storeBytes(of: UInt32(0), toByteOffset: offset, as: UInt32.self)       // time stamp (two halves)
            raw.storeBytes(of: UInt32(0), toByteOffset: offset + 4, as: UInt32.self)
            raw.storeBytes(of: UInt32(packet.count), toByteOffset: offset + 8, as: UInt32.self)
            for (i, w) in packet.enumerated() { raw.storeBytes(of: w, toByteOffset: offset + 12 + 4 * i, as: UInt32.self) }
            offset += 12 + 4 * packet.count
        }
        let list = UnsafePointer(raw.assumingMemoryBound(to: MIDIEventList.self))
        #expect(schedule(250, 0, list) == noErr)
        try Self.render(engine, 512)
        #expect(recorder.log.events == [.init(time: 250, type: .midiEventList, words: words.flatMap { $0 }, packetCount: 2)])
        recorder.log.events = []
        instrument.send(list)
        try Self.render(engine, 512)
        #expect(recorder.log.events == [.init(time: 512, type: .midiEventList, words: words.flatMap { $0 }, packetCount: 2)])
    }

    @Test func aFullPoolDropsAndRecovers() async throws {
        let (engine, instrument, recorder) = try await Self.setUp()
        let schedule = try #require(instrument.auAudioUnit.scheduleMIDIEventBlock)
        let message: [UInt8] = [0xF0, 0x01, 0x02, 0xF7]
        // 40 messages while nothing renders: the pool holds 32, the rest are dropped, never blocking
        for i in 0..<40 { message.withUnsafeBufferPointer { schedule(AUEventSampleTime(10 + i), 0, $0.count, $0.baseAddress!) } }
        // a message larger than a slot is dropped too
        let huge = [UInt8](repeating: 0x10, count: 2_000)
        huge.withUnsafeBufferPointer { schedule(50, 0, $0.count, $0.baseAddress!) }
        try Self.render(engine, 512)
        #expect(recorder.log.events.count == 32)
        #expect(recorder.log.events.allSatisfy { $0.type == .midiSysEx && $0.bytes == message })
        // the slots come back once the list that carried them is done with
        recorder.log.events = []
        try Self.render(engine, 512)
        for i in 0..<32 { message.withUnsafeBufferPointer { schedule(AUEventSampleTime(1100 + i), 0, $0.count, $0.baseAddress!) } }
        try Self.render(engine, 512)
        #expect(recorder.log.events.count == 32)
        // a stray data byte is dropped, not delivered as a message
        recorder.log.events = []
        [UInt8](arrayLiteral: 0x40, 0x90, 61, 1).withUnsafeBufferPointer { schedule(AUEventSampleTimeImmediate, 0, $0.count, $0.baseAddress!) }
        try Self.render(engine, 512)
        #expect(recorder.log.events.isEmpty)
    }
}

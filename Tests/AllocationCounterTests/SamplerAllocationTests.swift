// AVAudioUnitSampler renders allocation-free inside the engine: 32 voices sounding (and more
// started, released, stolen and bent inside the counted region), heap calls counted on the
// rendering thread over a thousand real-time manual-rendering cycles.
import Foundation
import Testing
import AVFAudio

@Suite(.serialized) struct SamplerAllocationTests {
    /// A one-zone SoundFont with reverb and chorus sends whose instrument zone carries custom modulators (CC1 → cutoff,
    /// CC74 → Q, channel pressure → vibrato depth, poly pressure → attenuation, and the default
    /// velocity curve replaced), so voices evaluate modulators at note-on and on every controller
    /// change. (The same layout as AVFAudioTests' SoundFontBuilder, which lives in another target.)
    static func modulatedBank() throws -> URL {
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func le32(_ v: UInt32) -> [UInt8] { le16(UInt16(v & 0xFFFF)) + le16(UInt16(v >> 16)) }
        func name(_ s: String) -> [UInt8] { Array((Array(s.utf8) + [UInt8](repeating: 0, count: 20)).prefix(20)) }
        func chunk(_ id: String, _ d: [UInt8]) -> [UInt8] { Array(id.utf8) + le32(UInt32(d.count)) + d }
        func list(_ t: String, _ c: [[UInt8]]) -> [UInt8] { chunk("LIST", Array(t.utf8) + c.flatMap { $0 }) }
        let points = 4_000
        var pcm: [UInt8] = []
        for i in 0..<(points + 46) {
            let v: Int16 = i < points ? Int16(12_000 * sin(2 * Double.pi * Double(i) / 100)) : 0
            pcm += le16(UInt16(bitPattern: v))
        }
        let mods: [(UInt16, UInt16, Int16)] = [(0x0081, 8, -2400), (0x00CA, 9, 200), (0x000D, 6, 100), (0x000A, 48, 300), (0x0502, 48, 480)]
        var imod: [UInt8] = []
        for m in mods {
            imod += le16(m.0); imod += le16(m.1); imod += le16(UInt16(bitPattern: m.2)); imod += [0, 0, 0, 0]
        }
        imod += [UInt8](repeating: 0, count: 10)
        var igen: [UInt8] = le16(8) + le16(9_000)
        igen += le16(16) + le16(300) + le16(15) + le16(400)   // reverb and chorus sends
        igen += le16(54) + le16(1)
        igen += le16(53) + le16(0)
        igen += [0, 0, 0, 0]
        let zeros12 = [UInt8](repeating: 0, count: 12)
        var phdr: [UInt8] = name("P") + le16(0) + le16(0) + le16(0) + zeros12
        phdr += name("EOP") + le16(0) + le16(0) + le16(1) + zeros12
        var shdr: [UInt8] = name("S") + le32(0) + le32(UInt32(points)) + le32(100) + le32(3_900)
        shdr += le32(44_000) + [69, 0] + le16(0) + le16(1)
        shdr += name("EOS") + [UInt8](repeating: 0, count: 26)
        var pdtaChunks: [[UInt8]] = [chunk("phdr", phdr), chunk("pbag", le16(0) + le16(0) + le16(1) + le16(0))]
        pdtaChunks += [chunk("pmod", [UInt8](repeating: 0, count: 10)), chunk("pgen", le16(41) + le16(0) + le32(0))]
        pdtaChunks += [chunk("inst", name("I") + le16(0) + name("EOI") + le16(1))]
        pdtaChunks += [chunk("ibag", le16(0) + le16(0) + le16(5) + le16(UInt16(mods.count))), chunk("imod", imod), chunk("igen", igen)]
        pdtaChunks += [chunk("shdr", shdr)]
        var body: [UInt8] = Array("sfbk".utf8)
        body += list("INFO", [chunk("ifil", le16(2) + le16(4))])
        body += list("sdta", [chunk("smpl", pcm)])
        body += list("pdta", pdtaChunks)
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("alloc-mod-\(UUID().uuidString).sf2")
        try Data(Array("RIFF".utf8) + le32(UInt32(body.count)) + body).write(to: url)
        return url
    }

    @Test func thirtyTwoVoicesAllocateNothing() throws {
        try Self.run(bank: nil)
    }

    @Test func voicesWithCustomModulatorsAndSendsAllocateNothing() throws {
        let url = try Self.modulatedBank()
        defer { try? FileManager.default.removeItem(at: url) }
        try Self.run(bank: url)
    }

    static func run(bank: URL?) throws {
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let engine = AVAudioEngine()
        try engine.enableManualRenderingMode(.realtime, format: format, maximumFrameCount: 512)
        let sampler = AVAudioUnitSampler()
        if let bank { try sampler.loadInstrument(at: bank) }
        engine.attach(sampler)
        engine.connect(sampler, to: engine.mainMixerNode, format: format)
        try engine.start()
        let render = engine.manualRenderingBlock
        let output = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 512)!
        let list = output.mutableAudioBufferList
        var status = noErr
        let schedule = sampler.auAudioUnit.scheduleMIDIEventBlock!
        func send(_ bytes: (UInt8, UInt8, UInt8), at offset: Int) {
            var b = bytes
            withUnsafeBytes(of: &b) { schedule(AUEventSampleTimeImmediate + AUEventSampleTime(offset), 0, 3, $0.baseAddress!.assumingMemoryBound(to: UInt8.self)) }
        }
        for k in 0..<32 { send((0x90 | UInt8(k % 4), UInt8(40 + k), UInt8(60 + k)), at: k * 7) }
        for _ in 0..<20 { _ = render(256, list, &status) }
        var peak: Float = 0
        let counts = countAllocations {
            for cycle in 0..<1000 {
                if cycle % 10 == 0 { send((0x90 | UInt8(cycle % 16), UInt8(72 + cycle % 24), 100), at: cycle % 256) }
                if cycle % 10 == 5 { send((0x80 | UInt8((cycle - 5) % 16), UInt8(72 + (cycle - 5) % 24), 0), at: 3) }
                if cycle % 7 == 0 { send((0xE0, 0, UInt8(cycle % 128)), at: 100) }
                if cycle % 13 == 0 { send((0xB0, 7, UInt8(cycle % 128)), at: 17) }
                if cycle % 3 == 0 { send((0xB0 | UInt8(cycle % 16), 1, UInt8(cycle % 128)), at: 40) }
                if cycle % 5 == 0 { send((0xB0 | UInt8(cycle % 16), 74, UInt8(cycle % 128)), at: 60) }
                if cycle % 11 == 0 { send((0xD0 | UInt8(cycle % 4), UInt8(cycle % 128), 0), at: 80) }
                if cycle % 17 == 0 { send((0xB0 | UInt8(cycle % 16), 91, UInt8(cycle % 128)), at: 20) }
                if cycle % 19 == 0 { send((0xB0 | UInt8(cycle % 16), 93, UInt8(cycle % 128)), at: 30) }
                if cycle % 9 == 0 { send((0xA0 | UInt8(cycle % 4), UInt8(40 + cycle % 32), UInt8(cycle % 128)), at: 90) }
                _ = render(256, list, &status)
                peak = max(peak, abs(output.floatChannelData![0][0]))
            }
        }
        engine.stop()
        #expect(status == noErr)
        #expect(peak > 0.01)   // the voices were sounding
        #expect(counts == .none, "\(counts)")
    }
}

// Memory per node is proportional to use: a player reserves a small command queue (256 slots)
// and nothing per item until items are scheduled (scheduled items form an intrusive list).
// Measured as the heap bytes requested while creating players and attaching and connecting
// them to a mixer (before this change a player reserved about 2 MB: 300 players in a game cost
// 600 MB).
import Testing
import AVFAudio

@Suite(.serialized) struct NodeMemoryTests {
    @Test func aPlayerCostsKilobytesNotMegabytes() throws {
        let engine = AVAudioEngine()
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        var players: [AVAudioPlayerNode] = []
        players.reserveCapacity(110)
        // Warm up (type metadata, the mixer's bus tables).
        for _ in 0..<10 {
            let p = AVAudioPlayerNode()
            engine.attach(p)
            engine.connect(p, to: engine.mainMixerNode, format: format)
            players.append(p)
        }
        let n = 100
        let counts = countAllocations {
            for _ in 0..<n {
                let p = AVAudioPlayerNode()
                engine.attach(p)
                players.append(p)
            }
        }
        let perPlayer = counts.bytes / n
        print("AVAudioPlayerNode: \(perPlayer) bytes per player (\(counts.allocations / n) allocations)")
        #expect(perPlayer < 16 * 1024, "a player costs \(perPlayer) bytes")
        withExtendedLifetime(players) {}
    }
}

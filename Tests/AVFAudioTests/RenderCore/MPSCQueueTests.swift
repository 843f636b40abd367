// The render core's many-producer queue: every value pushed by any thread arrives exactly once,
// in each producer's order, and a full queue refuses without losing what it holds.
import Foundation
import Testing
@testable import AVFAudio

@Suite struct MPSCQueueTests {
    @Test func fourProducersOneConsumerLoseNothingAndKeepEachProducersOrder() {
        let producers = 4, perProducer = 50_000
        let queue = MPSCQueue<Int>(capacity: 64)   // small: producers hit "full" often
        let group = DispatchGroup()
        for p in 0..<producers {
            group.enter()
            Thread {
                for i in 0..<perProducer {
                    while !queue.push(p * 1_000_000 + i) { sched_yield() }
                }
                group.leave()
            }.start()
        }
        var next = [Int](repeating: 0, count: producers)
        var received = 0
        let deadline = Date().addingTimeInterval(60)
        while received < producers * perProducer && Date() < deadline {
            guard let v = queue.pop() else { sched_yield(); continue }
            let p = v / 1_000_000, i = v % 1_000_000
            #expect(i == next[p], "producer \(p): expected \(next[p]), got \(i)")
            next[p] = i + 1
            received += 1
        }
        group.wait()
        #expect(received == producers * perProducer)
        #expect(queue.pop() == nil)
        #expect(queue.isEmpty)
    }

    @Test func fullQueueRefusesAndKeepsWhatItHolds() {
        let queue = MPSCQueue<Int>(capacity: 3)
        #expect(queue.push(1) && queue.push(2) && queue.push(3))
        #expect(!queue.push(4))
        #expect(queue.pop() == 1)
        #expect(queue.push(5))
        #expect(queue.pop() == 2 && queue.pop() == 3 && queue.pop() == 5 && queue.pop() == nil)
    }
}

// AVReadOnlyAudioPCMBuffer and installAudioTap(onBus:bufferSize:format:tapProvider:), used as
// Apple's current documentation shows them.
import Foundation
import Testing
import AVFoundation

@Suite struct AVReadOnlyAudioPCMBufferTests {
    /// Collects values from a Sendable closure.
    final class Box<T>: @unchecked Sendable {
        private let lock = NSLock()
        private var items: [T] = []
        func append(_ x: T) { lock.lock(); items.append(x); lock.unlock() }
        var all: [T] { lock.lock(); defer { lock.unlock() }; return items }
    }

    func floats(_ data: AVReadOnlyAudioPCMBuffer.ChannelData) -> [Float] {
        switch data {
        case .float(let s): return (0..<s.count).map { s[$0] }
        case .int16, .int32: Issue.record("expected Float32 data"); return []
        }
    }

    @Test func copyingTakesASnapshot() {
        let source = Offline.buffer([[1, 2, 3, 4], [5, 6, 7, 8]])
        let readOnly = AVReadOnlyAudioPCMBuffer(copying: source)
        source.floatChannelData![0][0] = 99
        #expect(readOnly.frameLength == 4)
        #expect(readOnly.frameCapacity == 4)
        #expect(readOnly.format == source.format)
        #expect(floats(readOnly.channelData(0)) == [1, 2, 3, 4])
        #expect(floats(readOnly.channelData(1)) == [5, 6, 7, 8])
    }

    /// Interleaved: the span is the whole interleaved buffer from the channel's first sample.
    @Test func interleavedInt16ChannelDataStartsAtTheChannel() {
        let format = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 8_000, channels: 2, interleaved: true)!
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 3)!
        buffer.frameLength = 3
        for (i, v) in [Int16(10), 20, 11, 21, 12, 22].enumerated() { buffer.int16ChannelData![0][i] = v }
        let readOnly = AVReadOnlyAudioPCMBuffer(unsafeRetaining: buffer)
        switch readOnly.channelData(1) {
        case .int16(let s):
            #expect(s.count == 5)
            #expect(s[0] == 20 && s[2] == 21 && s[4] == 22)
        default: Issue.record("expected Int16 data")
        }
    }

    @Test func int32DeinterleavedChannelData() {
        let format = AVAudioFormat(commonFormat: .pcmFormatInt32, sampleRate: 8_000, channels: 2, interleaved: false)!
        let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: 4)!
        buffer.frameLength = 2
        buffer.int32ChannelData![1][0] = -7
        buffer.int32ChannelData![1][1] = 9
        let readOnly = AVReadOnlyAudioPCMBuffer(copying: buffer)
        switch readOnly.channelData(1) {
        case .int32(let s): #expect(s.count == 2 && s[0] == -7 && s[1] == 9)
        default: Issue.record("expected Int32 data")
        }
    }

    @Test func initializingThroughTheAudioBufferList() throws {
        let format = Offline.standard(48_000, 2)
        let readOnly = try AVReadOnlyAudioPCMBuffer(format: format, frameCapacity: 8) { abl in
            let list = UnsafeMutableAudioBufferListPointer(abl)
            #expect(list.count == 2)
            for (c, buffer) in list.enumerated() {
                let p = buffer.mData!.assumingMemoryBound(to: Float.self)
                for i in 0..<5 { p[i] = Float(c * 10 + i) }
            }
            for c in 0..<list.count { list[c].mDataByteSize = 5 * 4 }   // five frames written
        }
        #expect(readOnly.frameCapacity == 8)
        #expect(readOnly.frameLength == 5)
        #expect(floats(readOnly.channelData(1)) == [10, 11, 12, 13, 14])
        let bytes = readOnly.withUnsafeAudioBufferList { UnsafeMutableAudioBufferListPointer(UnsafeMutablePointer(mutating: $0))[0].mDataByteSize }
        #expect(bytes == 20)

        struct Refused: Error {}
        #expect(throws: Refused.self) { _ = try AVReadOnlyAudioPCMBuffer(format: format, frameCapacity: 4) { _ in throw Refused() } }
        do {
            _ = try AVReadOnlyAudioPCMBuffer(format: format, frameCapacity: -1) { _ in }
            Issue.record("a negative capacity should throw")
        } catch let error as NSError {
            #expect(error.domain == "com.apple.coreaudio.avfaudio" && error.code == -50)
        }
    }

    @Test func crossesToAnotherTask() async {
        let readOnly = AVReadOnlyAudioPCMBuffer(copying: Offline.buffer([[0.25, 0.5]]))
        let sum = await Task.detached { () -> Float in
            switch readOnly.channelData(0) {
            case .float(let s): return s[0] + s[1]
            default: return -1
            }
        }.value
        #expect(sum == 0.75)
    }

    // MARK: installAudioTap

    /// The Sendable tap delivers the same consecutive buffers as installTap, as read-only buffers.
    @Test func installAudioTapDeliversReadOnlyBuffers() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Offline.standard())
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(), maximumFrameCount: 512)
        let received = Box<(frames: Int, sampleTime: AVAudioFramePosition, left: [Float], right: [Float])>()
        try engine.mainMixerNode.installAudioTap(onBus: 0, bufferSize: 480, format: nil) { buffer, when in
            let left: [Float], right: [Float]
            switch buffer.channelData(0) { case .float(let s): left = (0..<s.count).map { s[$0] }; default: left = [] }
            switch buffer.channelData(1) { case .float(let s): right = (0..<s.count).map { s[$0] }; default: right = [] }
            received.append((buffer.frameLength, when.sampleTime, left, right))
        }
        try engine.start()
        let signal = [Offline.ramp(4800), Offline.ramp(4800, scale: 0.5)]
        player.scheduleBuffer(Offline.buffer(signal))
        player.play()
        _ = try Offline.render(engine, total: 4800, chunk: 512)
        let got = received.all
        #expect(got.count == 10)
        for (i, b) in got.enumerated() {
            #expect(b.frames == 480)
            #expect(b.sampleTime == AVAudioFramePosition(i * 480))
            #expect(b.left == Array(signal[0][i * 480 ..< (i + 1) * 480]))
            #expect(b.right == Array(signal[1][i * 480 ..< (i + 1) * 480]))
        }
        engine.mainMixerNode.removeTap(onBus: 0)
    }

    /// Where installTap traps, installAudioTap throws (com.apple.coreaudio.avfaudio, -50).
    @Test func installAudioTapThrowsInsteadOfTrapping() throws {
        let engine = AVAudioEngine()
        let mixer = engine.mainMixerNode
        func expectRefused(_ body: () throws -> Void, _ words: String, sourceLocation: SourceLocation = #_sourceLocation) {
            do {
                try body()
                Issue.record("expected an error", sourceLocation: sourceLocation)
            } catch let error as NSError {
                #expect(error.domain == "com.apple.coreaudio.avfaudio", sourceLocation: sourceLocation)
                #expect(error.code == -50, sourceLocation: sourceLocation)
                #expect(error.localizedDescription.contains(words), "\(error.localizedDescription)", sourceLocation: sourceLocation)
            }
        }
        let rate = mixer.outputFormat(forBus: 0).sampleRate
        expectRefused({ try mixer.installAudioTap(onBus: 3, bufferSize: 512, format: nil) { _, _ in } }, "output bus")
        expectRefused({ try mixer.installAudioTap(onBus: 0, bufferSize: 0, format: nil) { _, _ in } }, "bufferSize")
        expectRefused({ try mixer.installAudioTap(onBus: 0, bufferSize: 512, format: Offline.standard(rate == 48_000 ? 44_100 : 48_000)) { _, _ in } },
                      "sample rate")
        try mixer.installAudioTap(onBus: 0, bufferSize: 512, format: nil) { _, _ in }
        expectRefused({ try mixer.installAudioTap(onBus: 0, bufferSize: 512, format: nil) { _, _ in } }, "already installed")
        mixer.removeTap(onBus: 0)
        try mixer.installAudioTap(onBus: 0, bufferSize: 512, format: nil) { _, _ in }
        mixer.removeTap(onBus: 0)
    }
}

extension AVReadOnlyAudioPCMBufferTests {
    /// A read-only buffer plays like the buffer it was made from; the handler runs once.
    @Test func playerSchedulesAReadOnlyBuffer() throws {
        let engine = AVAudioEngine()
        let player = AVAudioPlayerNode()
        engine.attach(player)
        engine.connect(player, to: engine.mainMixerNode, format: Offline.standard())
        try engine.enableManualRenderingMode(.offline, format: Offline.standard(), maximumFrameCount: 512)
        try engine.start()
        let signal = [Offline.ramp(1000), Offline.ramp(1000, scale: 0.5)]
        let done = Box<Int>()
        player.scheduleBuffer(AVReadOnlyAudioPCMBuffer(copying: Offline.buffer(signal)), atTime: AVAudioTime(sampleTime: 100, atRate: 48_000),
                              completionCallbackType: .dataRendered) { done.append(1) }
        player.scheduleBuffer(AVReadOnlyAudioPCMBuffer(copying: Offline.buffer(signal)))   // every default
        player.play()
        let out = try Offline.render(engine, total: 2600, chunk: 512)
        #expect(out[0][0..<100].allSatisfy { $0 == 0 })
        #expect(Array(out[0][100..<1100]) == signal[0])
        #expect(Array(out[1][100..<1100]) == signal[1])
        #expect(Array(out[0][1100..<2100]) == signal[0])
        #expect(out[0][2100...].allSatisfy { $0 == 0 })
        #expect(done.all == [1])
    }
}

// AVAudioEngine.musicSequence is settable and returns what was set, as on Apple platforms.
import Foundation
import Testing
import AVFoundation

@Suite struct AVAudioEngineMusicSequenceTests {
    @Test func musicSequenceIsStoredAndCleared() {
        let engine = AVAudioEngine()
        #expect(engine.musicSequence == nil)
        // A MusicSequence is an opaque handle (OpaquePointer); any non-null handle stands in for one.
        let storage = UnsafeMutableRawPointer.allocate(byteCount: 16, alignment: 16)
        defer { storage.deallocate() }
        let sequence: MusicSequence = OpaquePointer(storage)
        engine.musicSequence = sequence
        #expect(engine.musicSequence == sequence)
        engine.musicSequence = nil
        #expect(engine.musicSequence == nil)
    }
}

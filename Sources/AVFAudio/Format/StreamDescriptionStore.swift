// Interned stream descriptions: why `AVAudioFormat.streamDescription` outlives its format.
//
// Client code often reads a description straight off a temporary format:
//
//     var asbd = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 6)!.streamDescription.pointee
//
// Swift may release the temporary format right after `streamDescription` returns and before
// `.pointee` is read, so a pointer into the format's own memory dangles (Address Sanitizer found
// this idiom reading freed memory in three of the project's own tests, 2026-11-27). On Apple
// platforms the same line usually works because the Objective-C object lives on until its
// autorelease pool drains. Here the description lives in a process-wide store instead: each
// distinct description is stored once and never freed, so the pointer stays valid after the
// format is gone. Programs use few distinct formats; the store keeps the first 4,096 (about
// 160 KB) and past that each format owns its copy again (valid for the format's lifetime, as
// Apple documents), so hostile input that makes formats with ever-new sample rates cannot grow
// memory without bound.
import Foundation

enum StreamDescriptionStore {
    /// How many distinct descriptions are kept for the life of the process.
    static let capacity = 4_096

    /// The description's bits (sample rate by bit pattern: `isValid` rules out NaN).
    private struct Key: Hashable {
        let rate: UInt64
        let formatID, flags, bytesPerPacket, framesPerPacket, bytesPerFrame, channels, bits, reserved: UInt32
        init(_ d: AudioStreamBasicDescription) {
            rate = d.mSampleRate.bitPattern
            formatID = d.mFormatID; flags = d.mFormatFlags; bytesPerPacket = d.mBytesPerPacket
            framesPerPacket = d.mFramesPerPacket; bytesPerFrame = d.mBytesPerFrame
            channels = d.mChannelsPerFrame; bits = d.mBitsPerChannel; reserved = d.mReserved
        }
    }

    private struct Pointer: @unchecked Sendable { let value: UnsafeMutablePointer<AudioStreamBasicDescription> }

    // An NSLock (pthread) rather than Synchronization's Mutex: on Linux that Mutex waits on futexes
    // directly, which Thread Sanitizer cannot see, so it reported the accesses made under it from
    // two threads as a race (CI, 2026-11-28: two AUAudioUnit tests creating formats at once).
    private static let lock = NSLock()
    nonisolated(unsafe) private static var table: [Key: Pointer] = [:]

    /// Storage holding `d`, and whether the caller owns it (must deinitialize and free it).
    static func storage(for d: AudioStreamBasicDescription) -> (UnsafeMutablePointer<AudioStreamBasicDescription>, owned: Bool) {
        let key = Key(d)
        let interned: UnsafeMutablePointer<AudioStreamBasicDescription>? = lock.withLock {
            if let found = table[key] { return found.value }
            guard table.count < capacity else { return nil }
            let p = UnsafeMutablePointer<AudioStreamBasicDescription>.allocate(capacity: 1)
            p.initialize(to: d)
            table[key] = Pointer(value: p)
            return p
        }
        if let interned { return (interned, false) }
        let p = UnsafeMutablePointer<AudioStreamBasicDescription>.allocate(capacity: 1)
        p.initialize(to: d)
        return (p, true)
    }

    /// Descriptions stored so far (for tests).
    static var count: Int { lock.withLock { table.count } }
}

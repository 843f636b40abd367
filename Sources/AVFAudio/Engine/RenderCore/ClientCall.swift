// The render loop's calls into client code, each isolated behind one function the compiler's
// real-time check does not look into.
//
// What the compiler's `@_noLocks` check proves of the render path (RenderPathProof.swift) can
// never include what a client wrote: a source node's render block, a sink's receiver block, the
// manual-rendering input block, an `AUAudioUnit`'s render block (a client subclass's
// `internalRenderBlock`) and the pull-input block it may call. Their code is not ours to prove
// (Apple's engine calls them on the render thread too, and real-time safety is the client's
// contract), so each call goes through one function here, marked
// `@_semantics("no_performance_analysis")` (the check skips it) and `@inline(never)` (so it stays
// a single call, not inlined into the proved code). Nothing else hides behind these functions:
// each is the call and only the call.
import AudioToolbox

enum ClientCall {
    /// An `AVAudioSourceNode`'s render block.
    @_semantics("no_performance_analysis") @inline(never)
    static func source(_ block: AVAudioSourceNodeRenderBlock, _ isSilence: UnsafeMutablePointer<ObjCBool>,
                       _ timestamp: UnsafePointer<AudioTimeStamp>, _ frames: AVAudioFrameCount,
                       _ data: UnsafeMutablePointer<AudioBufferList>) -> OSStatus {
        block(isSilence, timestamp, frames, data)
    }

    /// An `AVAudioSinkNode`'s receiver block.
    @_semantics("no_performance_analysis") @inline(never)
    static func sink(_ block: AVAudioSinkNodeReceiverBlock, _ timestamp: UnsafePointer<AudioTimeStamp>, _ frames: AVAudioFrameCount,
                     _ data: UnsafePointer<AudioBufferList>) -> OSStatus {
        block(timestamp, frames, data)
    }

    /// The manual-rendering input node's input block.
    @_semantics("no_performance_analysis") @inline(never)
    static func input(_ block: AVAudioIONodeInputBlock, _ frames: AVAudioFrameCount) -> UnsafePointer<AudioBufferList>? {
        block(frames)
    }

    /// An audio unit's render block (a client `AUAudioUnit` subclass's `internalRenderBlock`,
    /// behind the unit's own event list set-up), given the pull-input block it may call.
    @_semantics("no_performance_analysis") @inline(never)
    static func audioUnit(_ block: AURenderBlock, _ flags: UnsafeMutablePointer<AudioUnitRenderActionFlags>,
                          _ timestamp: UnsafePointer<AudioTimeStamp>, _ frames: AUAudioFrameCount, _ bus: Int,
                          _ data: UnsafeMutablePointer<AudioBufferList>, _ pullInput: AURenderPullInputBlock?) -> AUAudioUnitStatus {
        block(flags, timestamp, frames, bus, data, pullInput)
    }
}

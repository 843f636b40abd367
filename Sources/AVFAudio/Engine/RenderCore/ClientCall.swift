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
// each reads the block from its owner (passed unmanaged: the plan keeps it alive) and calls it.
// The block is read here, not by the proved caller, because passing a stored closure as an
// argument retains its context; read and called in one place it is not (checked in the SIL).
import AudioToolbox

enum ClientCall {
    /// An `AVAudioSourceNode`'s render block.
    @_semantics("no_performance_analysis") @inline(never)
    static func source(_ owner: Unmanaged<SourceRenderer>, _ isSilence: UnsafeMutablePointer<ObjCBool>,
                       _ timestamp: UnsafePointer<AudioTimeStamp>, _ frames: AVAudioFrameCount,
                       _ data: UnsafeMutablePointer<AudioBufferList>) -> OSStatus {
        owner._withUnsafeGuaranteedRef { $0.block(isSilence, timestamp, frames, data) }
    }

    /// An `AVAudioSinkNode`'s receiver block.
    @_semantics("no_performance_analysis") @inline(never)
    static func sink(_ owner: Unmanaged<SinkRenderer>, _ timestamp: UnsafePointer<AudioTimeStamp>, _ frames: AVAudioFrameCount,
                     _ data: UnsafePointer<AudioBufferList>) -> OSStatus {
        owner._withUnsafeGuaranteedRef { $0.block(timestamp, frames, data) }
    }

    /// The manual-rendering input node's input block (nil result also when the plan has none).
    @_semantics("no_performance_analysis") @inline(never)
    static func input(_ owner: Unmanaged<InputRenderer.State>, _ frames: AVAudioFrameCount) -> UnsafePointer<AudioBufferList>? {
        owner._withUnsafeGuaranteedRef { $0.block?(frames) }
    }

    /// An audio unit's render block (a client `AUAudioUnit` subclass's `internalRenderBlock`,
    /// behind the unit's own event list set-up), given the pull-input block it may call.
    @_semantics("no_performance_analysis") @inline(never)
    static func audioUnit(_ owner: Unmanaged<AUAudioUnitNodeRenderer.State>, _ flags: UnsafeMutablePointer<AudioUnitRenderActionFlags>,
                          _ timestamp: UnsafePointer<AudioTimeStamp>, _ frames: AUAudioFrameCount, _ bus: Int,
                          _ data: UnsafeMutablePointer<AudioBufferList>) -> AUAudioUnitStatus {
        owner._withUnsafeGuaranteedRef { $0.renderBlock(flags, timestamp, frames, bus, data, $0.pullInput) }
    }
}

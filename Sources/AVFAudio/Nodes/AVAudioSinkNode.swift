// AVAudioSinkNode: hands the audio reaching it to a client block, on the render thread.
// Unlike Apple's (input-chain only, real-time only), this one works anywhere in the graph and in
// manual rendering too, so offline clients can consume audio without a tap.

/// A node that receives audio through a block.
open class AVAudioSinkNode: AVAudioNode {
    /// Creates a sink that calls `block` with each cycle's audio (deinterleaved Float32 in the
    /// format of the connection into it).
    public init(receiverBlock block: @escaping AVAudioSinkNodeReceiverBlock) {
        super.init(renderer: SinkRenderer(block: block), inputs: 1, outputs: 0)
    }

    override var isSink: Bool { true }
}

final class SinkRenderer: NodeRenderer {
    let block: AVAudioSinkNodeReceiverBlock
    init(block: @escaping AVAudioSinkNodeReceiverBlock) { self.block = block }

    override func statelessKind(step: RenderStep) -> StepKind { .sink(.passUnretained(self)) }

    override func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>) {
        guard let input = inputs.unmanaged(0) else { return }
        input.resetBufferList(frames: cycle.frames)
        var stamp = AudioTimeStamp.renderStamp(sampleTime: cycle.sampleTime, hostTime: cycle.hostTime)
        _ = ClientCall.sink(.passUnretained(self), &stamp, AVAudioFrameCount(cycle.frames), UnsafePointer(input.bufferList.unsafeMutablePointer))
        input.resetBufferList(frames: cycle.frames)
    }
}

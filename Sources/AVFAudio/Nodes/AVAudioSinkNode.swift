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

    override func render(_ cycle: inout RenderCycle, inputs: UnsafeBufferPointer<RenderBuffer?>, outputs: UnsafeBufferPointer<RenderBuffer>) {
        guard let input = inputs[0] else { return }
        input.resetBufferList(frames: cycle.frames)
        var stamp = AudioTimeStamp()
        stamp.mSampleTime = Double(cycle.sampleTime)
        stamp.mHostTime = cycle.hostTime
        stamp.mRateScalar = 1
        stamp.mFlags = AVAudioTime.renderStampFlags
        _ = ClientCall.sink(block, &stamp, AVAudioFrameCount(cycle.frames), input.bufferList.unsafePointer)
        input.resetBufferList(frames: cycle.frames)
    }
}

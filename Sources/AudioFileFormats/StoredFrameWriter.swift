/// What AVAudioFile's write path needs from a file writer: raw interleaved frames in the writer's
/// `description` go in; the file on disk stays readable after every call.
public protocol StoredFrameWriter: AnyObject {
    var path: String { get }
    /// How `write` expects its frames.
    var description: AudioDataDescription { get }
    /// Frames accepted so far.
    var framesWritten: Int64 { get }
    /// Writes `frames` frames at frame `frame` (0 ... framesWritten).
    func write(frames: Int, from buffer: UnsafeRawPointer, atFrame frame: Int64) throws
    /// Finalises and closes the file; closing twice does nothing.
    func close() throws
}

extension AudioFileWriter: StoredFrameWriter {}
extension FLACFileWriter: StoredFrameWriter {}

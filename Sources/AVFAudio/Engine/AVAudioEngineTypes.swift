// Enums, errors, block types and notification names of AVAudioEngine and its nodes
// (AVAudioEngine.h, AVAudioNode.h, AVAudioIONode.h, AVAudioSourceNode.h, AVAudioSinkNode.h).

/// The engine's manual rendering modes.
public enum AVAudioEngineManualRenderingMode: Int, Sendable {
    /// The engine renders when asked (`renderOffline` or `manualRenderingBlock`), as fast as it
    /// can; nodes may block (e.g. to read a file).
    case offline = 0
    /// The engine renders under real-time constraints from `manualRenderingBlock`; nothing on
    /// the render path blocks.
    case realtime = 1
}

/// What a manual render call reports.
public enum AVAudioEngineManualRenderingStatus: Int, Sendable {
    /// An error occurred; no data was rendered.
    case error = -1
    /// All requested frames were rendered.
    case success = 0
    /// The input node's block returned no data; the input node rendered silence.
    case insufficientDataFromInputNode = 1
    /// The engine could not render now (real-time mode only); try again on a later call.
    case cannotDoInCurrentContext = 2
}

/// Error codes the engine's manual rendering methods report (domain
/// "com.apple.coreaudio.avfaudio"). Apple declares it in AVAudioEngine.h as
/// `typedef NS_ENUM(OSStatus, AVAudioEngineManualRenderingError)` — a plain enum with OSStatus raw
/// values in Swift, not an error struct; the header notes the list is not exhaustive (audio units
/// may report their own `kAudioUnitErr_*` codes, and size checks report -50).
public enum AVAudioEngineManualRenderingError: OSStatus, @unchecked Sendable {
    /// The engine is not in manual rendering mode, or not in the right variant of it.
    case invalidMode = -80800
    /// The engine is initialized (running) when the operation needs it stopped.
    case initialized = -80801
    /// The engine is not running (not started).
    case notRunning = -80802
}

/// Renders `numberOfFrames` into `outBuffer` in manual rendering mode; may be called from a
/// real-time thread.
public typealias AVAudioEngineManualRenderingBlock = (_ numberOfFrames: AVAudioFrameCount,
                                                      _ outBuffer: UnsafeMutablePointer<AudioBufferList>,
                                                      _ outError: UnsafeMutablePointer<OSStatus>?) -> AVAudioEngineManualRenderingStatus

/// Receives a tap's buffers (`bufferSize` frames each) with their time.
public typealias AVAudioNodeTapBlock = (AVAudioPCMBuffer, AVAudioTime) -> Void

/// Called when a scheduled buffer or file segment has been handled.
public typealias AVAudioNodeCompletionHandler = () -> Void

/// Supplies input to the input node in manual rendering mode: return an AudioBufferList holding
/// `inNumberOfFrames` frames in the format given to `setManualRenderingInputPCMFormat`, or nil.
public typealias AVAudioIONodeInputBlock = (_ inNumberOfFrames: AVAudioFrameCount) -> UnsafePointer<AudioBufferList>?

/// Produces audio for an AVAudioSourceNode: fill `outputData` with `frameCount` frames and
/// return `noErr`. Set `isSilence` to true when the output is silent.
public typealias AVAudioSourceNodeRenderBlock = (_ isSilence: UnsafeMutablePointer<ObjCBool>,
                                                 _ timestamp: UnsafePointer<AudioTimeStamp>,
                                                 _ frameCount: AVAudioFrameCount,
                                                 _ outputData: UnsafeMutablePointer<AudioBufferList>) -> OSStatus

/// Receives the audio reaching an AVAudioSinkNode.
public typealias AVAudioSinkNodeReceiverBlock = (_ timestamp: UnsafePointer<AudioTimeStamp>,
                                                 _ frameCount: AVAudioFrameCount,
                                                 _ inputData: UnsafePointer<AudioBufferList>) -> OSStatus

// `AUEventSampleTime` and `AUMIDIOutputEventBlock` are AudioToolbox's (Sources/AudioToolbox).

extension Notification.Name {
    /// Posted when the engine's I/O configuration changes (e.g. the output device's format);
    /// the engine stops itself first.
    public static let AVAudioEngineConfigurationChange = Notification.Name("AVAudioEngineConfigurationChangeNotification")
}

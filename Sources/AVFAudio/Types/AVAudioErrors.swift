// The errors AVFAudio reports, and what they rest on.
//
// Apple's AVFAudio does not document its error domains or codes beyond
// `AVAudioEngineManualRenderingError`; what follows is what real Apple systems have been seen to
// report, collected from public issue threads, Q&A posts and probe programs that print the
// NSError they got. This project throws the same domain and code, keeps Apple's user-info keys
// where Apple has them ("failed call"), and adds a readable `NSLocalizedDescriptionKey` sentence
// (Apple leaves it empty: its errors print as "The operation couldn't be completed.
// (com.apple.coreaudio.avfaudio error 2003334207.)") and `NSFilePathErrorKey` for file errors.
//
// Domain "com.apple.coreaudio.avfaudio" — AVAudioFile and AVAudioEngine
// ----------------------------------------------------------------------
// AVAudioFile and AVAudioEngine pass the OSStatus of the Core Audio call that failed as the
// code, with the call itself under the user-info key "failed call":
//
// * AVAudioFile(forReading:) on a file that is not a readable audio file:
//     Error Domain=com.apple.coreaudio.avfaudio Code=1954115647 "(null)"
//       UserInfo={failed call=ExtAudioFileOpenURL((CFURLRef)fileURL, &_extAudioFile)}
//   (AudioKit/AudioKit#1833, 'typ?' = kAudioFileUnsupportedFileTypeError); the same shape with
//   Code=1685348671 ('dta?', kAudioFileInvalidFileError) in a 2015 iOS log quoted in a public
//   project, and with Code=2003334207 and the newer spelling
//   "ExtAudioFileOpenURL((__bridge CFURLRef)fileURL, &_extAudioFile)" in a 2025 macOS log.
// * A missing file, a path through a missing directory, or a directory: Code=2003334207
//   ('wht?', kAudioFileUnspecifiedError) — finnvoor/yap#15 ("com.apple.coreaudio.avfaudio error
//   2003334207" for a file that does not exist), and public test code that verified a directory
//   path gives the same code. The reason is in Apple's published Core Audio SDK source
//   (AudioFileObject.h, `AudioFileTranslateErrno`): open(2) errors become OSStatus codes as
//   ENFILE/EMFILE → -42 (kAudio_TooManyFilesOpenError); EPERM/EROFS/EACCES/EEXIST → -54
//   (kAudio_FilePermissionError); EMLINK → '!pth' (kAudio_BadFilePathError); ENOENT, ENOTDIR,
//   ELOOP and anything else → 'wht?'. A measured AVAudioPlayer on a missing file on the iOS
//   simulator reports the same 2003334207 (in NSOSStatusErrorDomain, AVAudioPlayer's domain).
// * AVAudioFile(forWriting:) where the file cannot be created (a sandbox denial):
//     Error Domain=com.apple.coreaudio.avfaudio Code=-54 "(null)" UserInfo={failed
//       call=ExtAudioFileCreateWithURL((CFURLRef)fileURL, fileType, &fileASBD, NULL,
//       kAudioFileFlags_EraseFile, &_extAudioFile)}
//   (Mnpn/Azayaka#12; another public log shows the same -54 from "CreateDataFile failed" for an
//   output location that could not be written). A data format the container cannot hold fails
//   in Core Audio's file creation with 'fmt?' (kAudioFileUnsupportedDataFormatError, 1718449215:
//   "SetDataFormat failed … Error 1718449215 creating file" from AudioFileCreateWithURL,
//   microenh/CoreAudioDemoCode#1); we report it from the same ExtAudioFileCreateWithURL call.
// * read(into:) failing inside ExtAudioFileRead:
//     Error Domain=com.apple.coreaudio.avfaudio Code=-50 "(null)" UserInfo={failed
//       call=ExtAudioFileRead(_imp->_extAudioFile, &ioFrames, buffer.mutableAudioBufferList)}
//   (AudioKit/AudioKit#1656).
// * AVAudioEngine.start() failing to initialise the graph:
//     Error Domain=com.apple.coreaudio.avfaudio Code=-10868 "(null)" UserInfo={failed call=err =
//       AUGraphParser::InitializeActiveNodesInInputChain(ThisGraph, *GetInputNode())}
//   (tryolabs/TLSphinx#69); -10875 with "err = AUGraphParser::InitializeActiveNodesInOutputChain(
//   ThisGraph, kOutputChainOptimizedTraversal, *GetOutputNode(), isOutputChainActive)"
//   (AudioKit/AudioKit#1267); "com.apple.coreaudio.avfaudio error -10851" when the output unit
//   cannot be configured (dotnet/macios#17574; -10851 = kAudioUnitErr_InvalidPropertyValue).
// * Manual rendering, measured on the iOS 18.2 simulator by a public probe program (a Swift
//   tutorial chapter that prints every NSError it provokes): renderOffline before start() →
//   com.apple.coreaudio.avfaudio -80802 (AVAudioEngineManualRenderingErrorNotRunning); after
//   disableManualRenderingMode() → -80800 (…InvalidMode); more frames than
//   manualRenderingMaximumFrameCount, or than the buffer's frameCapacity → -50 (kAudio_ParamError).
//
// Domain NSOSStatusErrorDomain — AVAudioConverter (and AVAudioPlayer, AVAudioRecorder)
// ----------------------------------------------------------------------------------
// The same probe measured AVAudioConverter.convert(to:from:) refusing a rate change with
// NSOSStatusErrorDomain -50, the input-block form with -1 for a wrong channel count, and
// 1718449215 ('fmt?') for an output buffer in the wrong format; AVAudioPlayer and AVAudioRecorder
// also report NSOSStatusErrorDomain. AVAudioConverter therefore keeps NSOSStatusErrorDomain.
//
// Left in NSOSStatusErrorDomain, because nothing public says what Apple reports: enabling voice
// processing (unavailable on Linux), the null device's simulated configuration change (not
// Apple API), and AVAudioUnit.loadPreset's malformed-preset error.
//
// Known differences kept on purpose (behaviour, not codes): Apple's read(into:) at the end of a
// file throws an error without a domain or code of its own (Swift sees
// Foundation._GenericObjCError.nilError, measured by the same probe) where this project returns
// a buffer with frameLength 0; Apple raises an exception when the one-shot convert(to:from:) gets
// an output buffer smaller than the input, where this project throws.
import Foundation

/// The error domain of AVAudioFile and AVAudioEngine failures on Apple platforms (not exported by
/// Apple as a constant; it prints as "com.apple.coreaudio.avfaudio").
let avfaudioErrorDomain = "com.apple.coreaudio.avfaudio"

/// The "failed call" user-info key Apple's AVAudioFile and AVAudioEngine errors carry: the text of
/// the Core Audio call that returned the error code.
let avfaudioFailedCallKey = "failed call"

/// The "failed call" strings Apple reports, verbatim from the errors quoted above.
enum AVFAudioFailedCall {
    static let openFile = "ExtAudioFileOpenURL((__bridge CFURLRef)fileURL, &_extAudioFile)"
    static let createFile = "ExtAudioFileCreateWithURL((CFURLRef)fileURL, fileType, &fileASBD, NULL, kAudioFileFlags_EraseFile, &_extAudioFile)"
    static let readFile = "ExtAudioFileRead(_imp->_extAudioFile, &ioFrames, buffer.mutableAudioBufferList)"
    static let initializeOutputChain = "err = AUGraphParser::InitializeActiveNodesInOutputChain(ThisGraph, kOutputChainOptimizedTraversal, *GetOutputNode(), isOutputChainActive)"
}

/// An error in Apple's AVFAudio domain: `code` is the OSStatus, `description` our readable
/// sentence, `failedCall` Apple's "failed call" text when Apple reports one.
func avfaudioError(_ code: OSStatus, _ description: String, failedCall: String? = nil,
                   userInfo extra: [String: Any] = [:]) -> NSError {
    var info: [String: Any] = [NSLocalizedDescriptionKey: description]
    if let failedCall { info[avfaudioFailedCallKey] = failedCall }
    for (key, value) in extra { info[key] = value }
    return NSError(domain: avfaudioErrorDomain, code: Int(code), userInfo: info)
}

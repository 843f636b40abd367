// installAudioTap(onBus:bufferSize:format:tapProvider:): Apple's Sendable tap (macOS 27 / iOS 27).
//
// Declared as Apple's current documentation declares it
// (developer.apple.com/documentation/avfaudio/avaudionode/installaudiotap(onbus:buffersize:format:tapprovider:)):
//
//     func installAudioTap(onBus bus: AVAudioNodeBus, bufferSize: AVAudioFrameCount, format: AVAudioFormat?,
//                          tapProvider: @escaping @Sendable (AVReadOnlyAudioPCMBuffer, AVAudioTime) -> Void) throws
//
// It runs on the same machinery as installTap(onBus:bufferSize:format:block:) (TapRenderer):
// the render thread copies the bus into a ring, and the engine's dispatcher (or renderOffline,
// offline) hands out `bufferSize`-frame buffers with their time. Each delivery is a fresh buffer
// the engine never touches again, so it is wrapped without copying
// (`AVReadOnlyAudioPCMBuffer(unsafeRetaining:)`) and may be sent to any task.
//
// Where installTap traps on a programmer error (a bus the node lacks, a tap already installed, a
// format at another sample rate, a zero buffer size), this API is declared `throws`, so it throws
// instead: an NSError in com.apple.coreaudio.avfaudio with -50 (kAudio_ParamError) and a
// sentence naming the node and bus. Apple does not document which errors it throws; the domain
// is AVAudioEngine's and -50 is what Apple's engine reports for bad sizes (see
// Types/AVAudioErrors.swift), but the code for these cases is this project's choice.

extension AVAudioNode {
    /// Installs a tap on output `bus` that receives read-only, Sendable buffers of `bufferSize`
    /// frames (in `format`, or the bus's format when nil) with their time. Remove it with
    /// `removeTap(onBus:)`. Throws when the bus does not exist, already has a tap, `format` has
    /// another sample rate than the bus, or `bufferSize` is zero.
    public func installAudioTap(onBus bus: AVAudioNodeBus, bufferSize: AVAudioFrameCount, format: AVAudioFormat?,
                                tapProvider: @escaping @Sendable (AVReadOnlyAudioPCMBuffer, AVAudioTime) -> Void) throws {
        func refuse(_ reason: String) -> NSError {
            avfaudioError(kAudio_ParamError, "\(nodeName).installAudioTap(onBus: \(bus)): \(reason)")
        }
        guard bus >= 0 && bus < outputFormats.count else { throw refuse("the node has \(outputFormats.count) output bus(es)") }
        guard taps[bus] == nil else { throw refuse("a tap is already installed on this bus; remove it first") }
        let busFormat = outputFormats[bus]
        if let format, format.sampleRate != busFormat.sampleRate {
            throw refuse("the tap format \(format) must have the bus's sample rate (bus format \(busFormat))")
        }
        guard bufferSize > 0 else { throw refuse("bufferSize must be positive") }
        installTap(onBus: bus, bufferSize: bufferSize, format: format) { buffer, when in
            tapProvider(AVReadOnlyAudioPCMBuffer(unsafeRetaining: buffer), when)
        }
    }
}

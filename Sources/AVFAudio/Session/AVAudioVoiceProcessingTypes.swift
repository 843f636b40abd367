// The voice-processing value types (AVAudioTypes.h, iOS 17 / macOS 14), used with the input
// node's voice processing. Raw values from Apple's header: ducking levels 0/10/20/30, speech
// activity started 0 / ended 1. The engine's input node has no voice-processing unit on Linux
// (`isVoiceProcessingEnabled` stays false), so these are values code can build and compare.
import Foundation

/// How much voice processing ducks other audio.
public struct AVAudioVoiceProcessingOtherAudioDuckingConfiguration: Sendable {
    public enum Level: Int, Sendable {
        case `default` = 0
        case min = 10
        case mid = 20
        case max = 30
    }
    public var enableAdvancedDucking: ObjCBool
    public var duckingLevel: Level

    public init() {
        enableAdvancedDucking = false
        duckingLevel = .default
    }

    public init(enableAdvancedDucking: ObjCBool, duckingLevel: Level) {
        self.enableAdvancedDucking = enableAdvancedDucking
        self.duckingLevel = duckingLevel
    }
}

/// Speech detected (or no longer) while the voice-processing input is muted.
public enum AVAudioVoiceProcessingSpeechActivityEvent: Int, Sendable {
    case started = 0
    case ended = 1
}

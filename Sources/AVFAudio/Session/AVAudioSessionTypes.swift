// The value types of AVAudioSession, with Apple's names and raw values (AVAudioSessionTypes.h:
// category and mode strings, option-set bits, four-character codes for the permission, prompt
// style and error enums). Raw values cross-checked against the header translations published by
// objc2-avf-audio (docs.rs) and Microsoft's .NET iOS bindings (learn.microsoft.com), which are
// generated from Apple's headers.
import Foundation

extension AVAudioSession {
    /// Audio session categories.
    public struct Category: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public static let ambient = Category(rawValue: "AVAudioSessionCategoryAmbient")
        public static let soloAmbient = Category(rawValue: "AVAudioSessionCategorySoloAmbient")
        public static let playback = Category(rawValue: "AVAudioSessionCategoryPlayback")
        public static let record = Category(rawValue: "AVAudioSessionCategoryRecord")
        public static let playAndRecord = Category(rawValue: "AVAudioSessionCategoryPlayAndRecord")
        /// Deprecated by Apple (iOS 10); still accepted.
        public static let audioProcessing = Category(rawValue: "AVAudioSessionCategoryAudioProcessing")
        public static let multiRoute = Category(rawValue: "AVAudioSessionCategoryMultiRoute")
    }

    /// Audio session modes.
    public struct Mode: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        public static let `default` = Mode(rawValue: "AVAudioSessionModeDefault")
        public static let voiceChat = Mode(rawValue: "AVAudioSessionModeVoiceChat")
        public static let gameChat = Mode(rawValue: "AVAudioSessionModeGameChat")
        public static let videoRecording = Mode(rawValue: "AVAudioSessionModeVideoRecording")
        public static let measurement = Mode(rawValue: "AVAudioSessionModeMeasurement")
        public static let moviePlayback = Mode(rawValue: "AVAudioSessionModeMoviePlayback")
        public static let videoChat = Mode(rawValue: "AVAudioSessionModeVideoChat")
        public static let spokenAudio = Mode(rawValue: "AVAudioSessionModeSpokenAudio")
        public static let voicePrompt = Mode(rawValue: "AVAudioSessionModeVoicePrompt")
        /// Short-form video (iOS 26; playback only, per the header). Linux has no output-mute
        /// policy for it to drive: it is kept as set.
        public static let shortFormVideo = Mode(rawValue: "AVAudioSessionModeShortFormVideo")
        /// The built-in device plus a secondary input-and-output route (iOS 26.2); needs the
        /// multiRoute category and allowBluetoothHFP (`setCategory` checks both).
        public static let dualRoute = Mode(rawValue: "AVAudioSessionModeDualRoute")
    }

    /// Port types.
    public struct Port: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }
        // input
        public static let lineIn = Port(rawValue: "LineIn")
        public static let builtInMic = Port(rawValue: "MicrophoneBuiltIn")
        public static let headsetMic = Port(rawValue: "MicrophoneWired")
        public static let continuityMicrophone = Port(rawValue: "MicrophoneContinuity")
        // output
        public static let lineOut = Port(rawValue: "LineOut")
        public static let headphones = Port(rawValue: "Headphones")
        public static let bluetoothA2DP = Port(rawValue: "BluetoothA2DPOutput")
        public static let builtInReceiver = Port(rawValue: "Receiver")
        public static let builtInSpeaker = Port(rawValue: "Speaker")
        public static let HDMI = Port(rawValue: "HDMIOutput")
        public static let airPlay = Port(rawValue: "AirPlay")
        public static let bluetoothLE = Port(rawValue: "BluetoothLEOutput")
        // input and output
        public static let bluetoothHFP = Port(rawValue: "BluetoothHFP")
        public static let usbAudio = Port(rawValue: "USBAudio")
        public static let carAudio = Port(rawValue: "CarAudio")
        public static let virtual = Port(rawValue: "Virtual")
        public static let PCI = Port(rawValue: "PCI")
        public static let fireWire = Port(rawValue: "FireWire")
        public static let displayPort = Port(rawValue: "DisplayPort")
        public static let AVB = Port(rawValue: "AVB")
        public static let thunderbolt = Port(rawValue: "Thunderbolt")
        /// iOS 27: output to a media device vended by a user-installed system extension (Apple's
        /// MediaDevice framework). Apple's header declares the constant without its string, which
        /// no public source gives, so this string is ours: compare ports with the constant, never
        /// with a literal. Linux has no such extensions: no route here ever reports this port.
        public static let mediaDeviceExtension = Port(rawValue: "MediaDeviceExtension")
    }

    /// Where a data source sits on the device.
    public struct Location: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let lower = Location(rawValue: "Lower")
        public static let upper = Location(rawValue: "Upper")
    }

    /// Which way a data source faces.
    public struct Orientation: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let top = Orientation(rawValue: "Top")
        public static let bottom = Orientation(rawValue: "Bottom")
        public static let front = Orientation(rawValue: "Front")
        public static let back = Orientation(rawValue: "Back")
        public static let left = Orientation(rawValue: "Left")
        public static let right = Orientation(rawValue: "Right")
    }

    /// Microphone polar patterns.
    public struct PolarPattern: RawRepresentable, Hashable, Sendable {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public static let stereo = PolarPattern(rawValue: "Stereo")
        public static let omnidirectional = PolarPattern(rawValue: "Omnidirectional")
        public static let cardioid = PolarPattern(rawValue: "Cardioid")
        public static let subcardioid = PolarPattern(rawValue: "Subcardioid")
    }

    /// Category options (bits from AVAudioSessionTypes.h).
    public struct CategoryOptions: OptionSet, Hashable, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
        public static let duckOthers = CategoryOptions(rawValue: 0x2)
        public static let allowBluetooth = CategoryOptions(rawValue: 0x4)
        /// The newer name of `allowBluetooth` (the same bit).
        public static let allowBluetoothHFP = CategoryOptions(rawValue: 0x4)
        public static let defaultToSpeaker = CategoryOptions(rawValue: 0x8)
        public static let interruptSpokenAudioAndMixWithOthers = CategoryOptions(rawValue: 0x11)
        public static let allowBluetoothA2DP = CategoryOptions(rawValue: 0x20)
        public static let allowAirPlay = CategoryOptions(rawValue: 0x40)
        public static let overrideMutedMicrophoneInterruption = CategoryOptions(rawValue: 0x80)
        /// Prefer a Bluetooth device's far-field microphone (iOS 26.2, `1 << 18`); needs
        /// allowBluetoothHFP and an input category (`setCategory` checks). No Linux Bluetooth
        /// route reports far-field capture, so it changes no route.
        public static let farFieldInput = CategoryOptions(rawValue: 1 << 18)
        /// Full-bandwidth Bluetooth input and output when the route supports it (iOS 26,
        /// `1 << 19`); "ignored" when it does not, as the header says — which is every route here.
        public static let bluetoothHighQualityRecording = CategoryOptions(rawValue: 1 << 19)
    }

    /// Route sharing policies.
    public enum RouteSharingPolicy: UInt, Sendable {
        case `default` = 0
        case longFormAudio = 1
        case independent = 2
        case longFormVideo = 3
        /// Deprecated alias of `longFormAudio`.
        public static var longForm: RouteSharingPolicy { .longFormAudio }
    }

    /// Options for `setActive(_:options:)`.
    public struct SetActiveOptions: OptionSet, Hashable, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }

    /// `overrideOutputAudioPort(_:)` values.
    public enum PortOverride: UInt, Sendable {
        case none = 0
        case speaker = 0x7370_6B72 // 'spkr'
    }

    /// Why the route changed (value of `AVAudioSessionRouteChangeReasonKey`).
    public enum RouteChangeReason: UInt, Sendable {
        case unknown = 0
        case newDeviceAvailable = 1
        case oldDeviceUnavailable = 2
        case categoryChange = 3
        case override = 4
        case wakeFromSleep = 6
        case noSuitableRouteForCategory = 7
        case routeConfigurationChange = 8
    }

    /// Whether an interruption began or ended (value of `AVAudioSessionInterruptionTypeKey`).
    public enum InterruptionType: UInt, Sendable {
        case began = 1
        case ended = 0
    }

    /// Options when an interruption ends (value of `AVAudioSessionInterruptionOptionKey`).
    public struct InterruptionOptions: OptionSet, Hashable, Sendable {
        public let rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }
        public static let shouldResume = InterruptionOptions(rawValue: 1)
    }

    /// Why an interruption began (value of `AVAudioSessionInterruptionReasonKey`).
    public enum InterruptionReason: UInt, Sendable {
        case `default` = 0
        /// Deprecated by Apple (no longer sent from iOS 16).
        case appWasSuspended = 1
        case builtInMicMuted = 2
        /// The app's scene went to the background (visionOS). Declared in Apple's
        /// AVAudioSessionTypes.h under `TARGET_OS_VISION` as
        /// `AVAudioSessionInterruptionReasonSceneWasBackgrounded = 3`; Linux has no scenes, so
        /// nothing here sends it. (The header's `…DeviceUnauthenticated = 5` sits under the same
        /// `#if` yet is marked unavailable on visionOS, so no platform has it; it is left out.)
        case sceneWasBackgrounded = 3
        case routeDisconnected = 4
    }

    /// Who deactivated the session (AVAudioSessionTypes.h, iOS 27:
    /// `AVAudioSessionDeactivationSourceApp = 1`, `…System = 2`).
    public enum DeactivationSource: Int, Sendable {
        /// The app asked (`setActive(false)`).
        case app = 1
        /// The system deactivated it.
        case system = 2
    }

    /// Whether the system recommends resuming playback (AVAudioSessionTypes.h, iOS 27:
    /// `AVAudioSessionResumptionRecommendationShouldNotResume = 0`, `…ShouldResume = 1`).
    public enum ResumptionRecommendation: Int, Sendable {
        case shouldNotResume = 0
        case shouldResume = 1
    }

    /// How the session's own audio (synthesized speech) is mixed into another app's microphone
    /// input (AVAudioSessionTypes.h: `AVAudioSessionMicrophoneInjectionModeNone = 0`,
    /// `…SpokenAudio = 1`).
    public enum MicrophoneInjectionMode: Int, Sendable {
        /// Microphone injection is not preferred (the default).
        case none = 0
        /// Inject spoken audio, such as synthesized speech, with the microphone audio.
        case spokenAudio = 1
    }

    /// The perceived size of the sound stage of a spatial experience (visionOS; AVAudioSessionTypes.h
    /// under `TARGET_OS_VISION`: `AVAudioSessionSoundStageSizeAutomatic = 0`, `…Small = 1`,
    /// `…Medium = 2`, `…Large = 3`, `NS_SWIFT_NAME(AVAudioSession.SoundStageSize)`), as the
    /// head-tracked and fixed spatial experiences take it (AVAudioSession+SpatialExperience.swift).
    public enum SoundStageSize: Int, Sendable {
        /// The session chooses its own size.
        case automatic = 0
        /// A smaller, front-focused sound stage.
        case small = 1
        /// A medium-immersive sound stage.
        case medium = 2
        /// A fully immersive sound stage.
        case large = 3
    }

    /// `AVAudioSessionSilenceSecondaryAudioHintTypeKey` values.
    public enum SilenceSecondaryAudioHintType: UInt, Sendable {
        case begin = 1
        case end = 0
    }

    /// `setAggregatedIOPreference(_:)` values.
    public enum IOType: UInt, Sendable {
        /// The default (`AVAudioSessionIOTypeNotSpecified = 0`; this type said `notApplicable`
        /// before, which is not Apple's name).
        case notSpecified = 0
        case aggregated = 1
    }

    /// The prompt style the session suggests (`promptStyle`).
    public enum PromptStyle: UInt, Sendable {
        case none = 0x6E6F_6E65 // 'none'
        case short = 0x7368_7274 // 'shrt'
        case normal = 0x6E72_6D6C // 'nrml'
    }

    /// Stereo input orientation.
    public enum StereoOrientation: Int, Sendable {
        case none = 0
        case portrait = 1
        case portraitUpsideDown = 2
        case landscapeRight = 3
        case landscapeLeft = 4
    }

    /// The record permission (deprecated by Apple in iOS 17 in favour of AVAudioApplication.recordPermission).
    public enum RecordPermission: UInt, Sendable {
        case undetermined = 0x756E_6474 // 'undt'
        case denied = 0x6465_6E79 // 'deny'
        case granted = 0x6772_6E74 // 'grnt'
    }

    /// The spatial rendering mode of the current route.
    public enum RenderingMode: Int, Sendable {
        case notApplicable = 0
        case monoStereo = 1
        case surround = 2
        case spatialAudio = 3
        case dolbyAudio = 4
        case dolbyAtmos = 5
    }

    /// Error codes of the session's errors (NSOSStatusErrorDomain, as Apple reports them).
    public enum ErrorCode: Int, Sendable {
        case none = 0
        case mediaServicesFailed = 0x6D73_7276 // 'msrv'
        case isBusy = 0x2161_6374 // '!act'
        case incompatibleCategory = 0x2163_6174 // '!cat'
        case cannotInterruptOthers = 0x2169_6E74 // '!int'
        case missingEntitlement = 0x656E_743F // 'ent?'
        case siriIsRecording = 0x7369_7269 // 'siri'
        case cannotStartPlaying = 0x2170_6C61 // '!pla'
        case cannotStartRecording = 0x2172_6563 // '!rec'
        case badParam = -50
        case insufficientPriority = 0x2170_7269 // '!pri'
        case resourceNotAvailable = 0x2172_6573 // '!res'
        case unspecified = 0x7768_6174 // 'what'
        case expiredSession = 0x2173_6573 // '!ses'
        case sessionNotActive = 0x696E_6163 // 'inac'
    }

    // MARK: Notifications

    public static let interruptionNotification = NSNotification.Name("AVAudioSessionInterruptionNotification")
    public static let routeChangeNotification = NSNotification.Name("AVAudioSessionRouteChangeNotification")
    public static let mediaServicesWereLostNotification = NSNotification.Name("AVAudioSessionMediaServicesWereLostNotification")
    public static let mediaServicesWereResetNotification = NSNotification.Name("AVAudioSessionMediaServicesWereResetNotification")
    public static let silenceSecondaryAudioHintNotification = NSNotification.Name("AVAudioSessionSilenceSecondaryAudioHintNotification")
    public static let spatialPlaybackCapabilitiesChangedNotification = NSNotification.Name("AVAudioSessionSpatialPlaybackCapabilitiesChangedNotification")
    public static let renderingModeChangeNotification = NSNotification.Name("AVAudioSessionRenderingModeChangeNotification")
    public static let renderingCapabilitiesChangeNotification = NSNotification.Name("AVAudioSessionRenderingCapabilitiesChangeNotification")
    /// Posted when `availableInputs` changed (a capture device appeared or went away), without a
    /// user-info dictionary (AVAudioSessionTypes.h, iOS 26). The string is the constant's name,
    /// as for every other session notification.
    public static let availableInputsChangeNotification = NSNotification.Name("AVAudioSessionAvailableInputsChangeNotification")
    /// Posted when the session's output mute state changes (`setOutputMuted(_:)`, or a mode change
    /// that unmutes); `userInfo[muteStateKey]` is an NSNumber Bool (iOS 26).
    public static let outputMuteStateChangeNotification = NSNotification.Name("AVAudioSessionOutputMuteStateChangeNotification")
    /// The user-info key of `outputMuteStateChangeNotification`: an NSNumber, true when muted
    /// (samples zeroed out). Apple's constant `AVAudioSessionMuteStateKey`, imported as
    /// `AVAudioSession.muteStateKey` (iOS 26).
    public static let muteStateKey = "AVAudioSessionMuteStateKey"
    /// Posted, without a user-info dictionary, when the app's output is muted
    /// (`setOutputMuted(true)`) and the user hints at unmuting ("may be sent", says
    /// AVAudioSession.h; on an iPhone, the volume buttons). Here: while the session is active on
    /// PulseAudio/PipeWire, the output device's volume raised or its mute switch turned off (the
    /// volume keys' and sound settings' counterpart on a Linux desktop;
    /// AVAudioSession+OutputMute.swift). Not posted on ALSA without a server, JACK or the null device.
    public static let userIntentToUnmuteOutputNotification = NSNotification.Name("AVAudioSessionUserIntentToUnmuteOutputNotification")
    /// Posted when the session becomes active (iOS 27), without a user-info dictionary: by
    /// `setActive(true)` on a session that was inactive (also through `activate(options:completionHandler:)`).
    public static let didBecomeActiveNotification = NSNotification.Name("AVAudioSessionDidBecomeActiveNotification")
    /// Posted when the session becomes inactive (iOS 27); `userInfo[deactivationContextKey]` is an
    /// `AVAudioSession.DeactivationContext`: source `.app` after `setActive(false)` or
    /// `deactivate(options:completionHandler:)`, `.system` with an interruption context when the
    /// sound server goes away (AVAudioSession+Devices.swift).
    public static let didBecomeInactiveNotification = NSNotification.Name("AVAudioSessionDidBecomeInactiveNotification")
    /// Posted when the system recommends whether to resume after a system deactivation (iOS 27);
    /// `userInfo[resumptionContextKey]` is an `AVAudioSession.ResumptionContext`. Here: when the
    /// sound server that went away answers again, with `.shouldResume`.
    public static let resumptionRecommendationNotification = NSNotification.Name("AVAudioSessionResumptionRecommendationNotification")
    /// The user-info key of `didBecomeInactiveNotification` (`AVAudioSessionDeactivationContextKey`).
    public static let deactivationContextKey = "AVAudioSessionDeactivationContextKey"
    /// The user-info key of `resumptionRecommendationNotification` (`AVAudioSessionResumptionContextKey`).
    public static let resumptionContextKey = "AVAudioSessionResumptionContextKey"
    public static let microphoneInjectionCapabilitiesChangeNotification = NSNotification.Name("AVAudioSessionMicrophoneInjectionCapabilitiesChangeNotification")
}

// MARK: User-info keys

public let AVAudioSessionInterruptionTypeKey = "AVAudioSessionInterruptionTypeKey"
public let AVAudioSessionInterruptionOptionKey = "AVAudioSessionInterruptionOptionKey"
public let AVAudioSessionInterruptionReasonKey = "AVAudioSessionInterruptionReasonKey"
/// Deprecated by Apple (iOS 14.5).
public let AVAudioSessionInterruptionWasSuspendedKey = "AVAudioSessionInterruptionWasSuspendedKey"
public let AVAudioSessionRouteChangeReasonKey = "AVAudioSessionRouteChangeReasonKey"
public let AVAudioSessionRouteChangePreviousRouteKey = "AVAudioSessionRouteChangePreviousRouteKey"
public let AVAudioSessionSilenceSecondaryAudioHintTypeKey = "AVAudioSessionSilenceSecondaryAudioHintTypeKey"
public let AVAudioSessionSpatialAudioEnabledKey = "AVAudioSessionSpatialAudioEnabledKey"
public let AVAudioSessionRenderingModeNewRenderingModeKey = "AVAudioSessionRenderingModeNewRenderingModeKey"
public let AVAudioSessionMicrophoneInjectionIsAvailableKey = "AVAudioSessionMicrophoneInjectionIsAvailableKey"

/// Activation options (watchOS `activate(options:completionHandler:)`).
public struct AVAudioSessionActivationOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
}

/// Options for `deactivate(options:completionHandler:)` (iOS 27; AVAudioSessionTypes.h:
/// `AVAudioSessionDeactivationOptionNotifyOthersOnDeactivation = 1 << 0`; the zero-valued
/// `…None` is `[]` in Swift, as for every imported option set).
public struct AVAudioSessionDeactivationOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    /// Notify an interrupted app that the interruption has ended and it may resume playback.
    /// Nothing here is interrupted by this session (a sound server mixes every client), so there is
    /// no one to notify; accepted, as `SetActiveOptions.notifyOthersOnDeactivation` is.
    public static let notifyOthersOnDeactivation = AVAudioSessionDeactivationOptions(rawValue: 1 << 0)
}

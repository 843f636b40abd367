// visionOS's spatial-experience API on the session (AVFAudio's Swift overlay, visionOS 1.0):
// the `AVAudioSessionSpatialExperience` protocol with its three experiences — head-tracked
// (a sound-stage size and an anchoring strategy), fixed (a size), bypassed — and
// `setIntendedSpatialExperience(_:)` / `intendedSpatialExperience`.
//
//     try AVAudioSession.sharedInstance().setIntendedSpatialExperience(.headTracked(soundStageSize: .large, anchoringStrategy: .front))
//
// Linux has no head tracking and nothing here renders spatially, so the session keeps what the
// app intends and reads it back (code written for visionOS compiles and runs; the audio plays as
// it does with `.bypassed`). The value before any call is Apple's undocumented default; here it
// is `headTracked(soundStageSize: .automatic, anchoringStrategy: .automatic)`, the experience
// whose every parameter is the system's own choice.
import Foundation

/// A spatial audio experience an app intends for its session (visionOS).
public protocol AVAudioSessionSpatialExperience: Sendable {}

extension AVAudioSession {
    /// How the origin of head-tracked audio is set.
    public enum AnchoringStrategy: Equatable, Sendable {
        /// The system determines the anchoring strategy.
        case automatic
        /// The audio anchors to the listener's concept of front.
        case front
        /// The audio anchors to the scene with this identifier.
        case scene(identifier: String)
    }

    /// Sound whose size comes from its sound stage and whose place comes from its anchoring strategy.
    public struct HeadTrackedSpatialExperience: AVAudioSessionSpatialExperience, Equatable {
        public var soundStageSize: AVAudioSession.SoundStageSize
        public var anchoringStrategy: AVAudioSession.AnchoringStrategy

        init(soundStageSize: AVAudioSession.SoundStageSize, anchoringStrategy: AVAudioSession.AnchoringStrategy) {
            self.soundStageSize = soundStageSize
            self.anchoringStrategy = anchoringStrategy
        }
    }

    /// Sound of a fixed size that does not follow the listener's head.
    public struct FixedSpatialExperience: AVAudioSessionSpatialExperience, Equatable {
        public var soundStageSize: AVAudioSession.SoundStageSize

        init(soundStageSize: AVAudioSession.SoundStageSize) {
            self.soundStageSize = soundStageSize
        }
    }

    /// No spatial processing.
    public struct BypassedSpatialExperience: AVAudioSessionSpatialExperience, Equatable {
        init() {}
    }

    /// Sets the spatial experience the app intends to provide (visionOS). Kept and read back;
    /// never fails here (see the note at the top of this file).
    @nonobjc public func setIntendedSpatialExperience(_ spatialExperience: any AVAudioSessionSpatialExperience) throws {
        lock.lock(); defer { lock.unlock() }
        _intendedSpatialExperience = spatialExperience
    }

    /// The spatial experience the app intends to provide (visionOS).
    @nonobjc public var intendedSpatialExperience: any AVAudioSessionSpatialExperience {
        lock.lock(); defer { lock.unlock() }
        return _intendedSpatialExperience
    }
}

extension AVAudioSessionSpatialExperience where Self == AVAudioSession.HeadTrackedSpatialExperience {
    /// A head-tracked experience with this sound-stage size and anchoring strategy.
    public static func headTracked(soundStageSize: AVAudioSession.SoundStageSize, anchoringStrategy: AVAudioSession.AnchoringStrategy) -> Self {
        AVAudioSession.HeadTrackedSpatialExperience(soundStageSize: soundStageSize, anchoringStrategy: anchoringStrategy)
    }
}

extension AVAudioSessionSpatialExperience where Self == AVAudioSession.FixedSpatialExperience {
    /// A fixed experience with this sound-stage size.
    public static func fixed(soundStageSize: AVAudioSession.SoundStageSize) -> Self {
        AVAudioSession.FixedSpatialExperience(soundStageSize: soundStageSize)
    }
}

extension AVAudioSessionSpatialExperience where Self == AVAudioSession.BypassedSpatialExperience {
    /// No spatial processing.
    public static var bypassed: AVAudioSession.BypassedSpatialExperience { AVAudioSession.BypassedSpatialExperience() }
}

// The iOS 27 activation-lifecycle objects: what `didBecomeInactiveNotification` and
// `resumptionRecommendationNotification` carry in their user info (AVAudioSession.h, "Async
// Activation Types"). Apple declares them as NSObject subclasses that only the system creates
// (`init` is NS_UNAVAILABLE), so here their initializers are internal: the session makes them.
//
// When this session makes which (AVAudioSession.swift, AVAudioSession+Devices.swift):
//   * `setActive(false)` / `deactivate(options:completionHandler:)` on an active session →
//     `DeactivationContext(source: .app, interruptionContext: nil)`;
//   * the sound server going away while active → `DeactivationContext(source: .system,
//     interruptionContext: InterruptionContext(reason: .default))`, next to the (deprecated)
//     interruption notification with the same reason, and the session becomes inactive, as an
//     interrupted session does on Apple's systems (the reason for `.default`: the interruption
//     notification already reports it; no other reason describes a server that vanished);
//   * the server answering again → `ResumptionContext(recommendation: .shouldResume)`, next to the
//     interruption-ended notification with `.shouldResume`.
import Foundation

extension AVAudioSession {
    /// Context about an interruption (iOS 27; `AVAudioSessionInterruptionContext`).
    open class InterruptionContext: NSObject, @unchecked Sendable {
        /// Why the interruption happened.
        public let reason: InterruptionReason

        init(reason: InterruptionReason) {
            self.reason = reason
            super.init()
        }

        open override var description: String { "<AVAudioSession.InterruptionContext reason=\(reason)>" }
    }

    /// Why and how the session became inactive (iOS 27; `AVAudioSessionDeactivationContext`).
    open class DeactivationContext: NSObject, @unchecked Sendable {
        /// Who deactivated the session.
        public let source: DeactivationSource
        /// The interruption that deactivated it; nil when the app deactivated it.
        public let interruptionContext: InterruptionContext?

        init(source: DeactivationSource, interruptionContext: InterruptionContext?) {
            self.source = source
            self.interruptionContext = interruptionContext
            super.init()
        }

        open override var description: String {
            "<AVAudioSession.DeactivationContext source=\(source) interruption=\(interruptionContext.map { "\($0.reason)" } ?? "nil")>"
        }
    }

    /// The system's recommendation once resuming becomes possible (iOS 27; `AVAudioSessionResumptionContext`).
    open class ResumptionContext: NSObject, @unchecked Sendable {
        /// Whether to resume playback.
        public let recommendation: ResumptionRecommendation

        init(recommendation: ResumptionRecommendation) {
            self.recommendation = recommendation
            super.init()
        }

        open override var description: String { "<AVAudioSession.ResumptionContext recommendation=\(recommendation)>" }
    }
}

// The iOS 27 typed notification messages of the activation lifecycle (Foundation's
// `NotificationCenter.MainActorMessage`, SE-0011 of swift-foundation): `DidBecomeActiveMessage`,
// `DidBecomeInactiveMessage` (with a `DeactivationResult`) and `ResumptionRecommendationMessage`,
// observed as Apple documents them:
//
//     let token = NotificationCenter.default.addObserver(of: session, for: .didBecomeInactive) { message in
//         if case .systemInterruption(let context) = message.deactivationResult { … }
//     }
//
// Delivery. On Apple's systems Foundation bridges the two ways of posting: a classic
// `Notification` posted under a message's `name` reaches typed observers through `makeMessage`,
// and a posted message reaches classic observers through `makeNotification`. The Foundation
// of the Linux toolchain (swift-corelibs-foundation over swift-foundation, Swift 6.2) does not
// bridge: measured here, a classic post does not reach a typed observer and a typed post does
// not reach a classic observer. So the session posts both — the classic notification on the
// posting thread, as before, and the message to typed observers on the main actor (a
// `MainActorMessage` is delivered there, which is its contract): synchronously when the session
// posts on the main thread, else through the main queue. Each observer therefore receives each
// event once. (Should a later Foundation on Linux bridge, typed observers would receive it twice;
// `AVAudioSessionMessagesTests` would see that and fail.)
import Foundation

extension AVAudioSession {
    /// How the session became inactive (iOS 27): the app deactivated it, or a system
    /// interruption did (here: the sound server went away; AVAudioSession+Devices.swift).
    public enum DeactivationResult: Sendable {
        /// The app deactivated the session.
        case appDeactivated
        /// A system interruption deactivated the session.
        case systemInterruption(AVAudioSession.InterruptionContext)
    }

    /// Posted to typed observers when the session becomes active (no payload, as
    /// `didBecomeActiveNotification` has no user info).
    public struct DidBecomeActiveMessage: NotificationCenter.MainActorMessage {
        public typealias Subject = AVAudioSession
        public static var name: Notification.Name { AVAudioSession.didBecomeActiveNotification }

        init() {}

        @MainActor public static func makeMessage(_ notification: Notification) -> DidBecomeActiveMessage? {
            notification.name == name ? DidBecomeActiveMessage() : nil
        }

        @MainActor public static func makeNotification(_ message: DidBecomeActiveMessage) -> Notification {
            Notification(name: name)
        }
    }

    /// Posted to typed observers when the session becomes inactive.
    public struct DidBecomeInactiveMessage: NotificationCenter.MainActorMessage {
        public typealias Subject = AVAudioSession
        public static var name: Notification.Name { AVAudioSession.didBecomeInactiveNotification }

        /// Who or what deactivated the session.
        public let deactivationResult: AVAudioSession.DeactivationResult

        init(deactivationResult: AVAudioSession.DeactivationResult) {
            self.deactivationResult = deactivationResult
        }

        /// The message a `DeactivationContext` describes: source `.app` is `.appDeactivated`,
        /// `.system` a `.systemInterruption` with the context's interruption (reason `.default`
        /// when the context carries none).
        init(_ context: DeactivationContext) {
            switch context.source {
            case .app: deactivationResult = .appDeactivated
            case .system: deactivationResult = .systemInterruption(context.interruptionContext ?? InterruptionContext(reason: .default))
            }
        }

        @MainActor public static func makeMessage(_ notification: Notification) -> DidBecomeInactiveMessage? {
            guard let context = notification.userInfo?[AVAudioSession.deactivationContextKey] as? DeactivationContext else { return nil }
            return DidBecomeInactiveMessage(context)
        }

        @MainActor public static func makeNotification(_ message: DidBecomeInactiveMessage) -> Notification {
            let context: DeactivationContext
            switch message.deactivationResult {
            case .appDeactivated: context = DeactivationContext(source: .app, interruptionContext: nil)
            case .systemInterruption(let interruption): context = DeactivationContext(source: .system, interruptionContext: interruption)
            }
            return Notification(name: name, userInfo: [AVAudioSession.deactivationContextKey: context])
        }
    }

    /// Posted to typed observers when the system recommends (or not) resuming after an
    /// interruption (here: when the sound server that went away answers again).
    public struct ResumptionRecommendationMessage: NotificationCenter.MainActorMessage {
        public typealias Subject = AVAudioSession
        public static var name: Notification.Name { AVAudioSession.resumptionRecommendationNotification }

        /// Whether to resume.
        public let recommendation: AVAudioSession.ResumptionRecommendation

        init(recommendation: AVAudioSession.ResumptionRecommendation) {
            self.recommendation = recommendation
        }

        @MainActor public static func makeMessage(_ notification: Notification) -> ResumptionRecommendationMessage? {
            guard let context = notification.userInfo?[AVAudioSession.resumptionContextKey] as? ResumptionContext else { return nil }
            return ResumptionRecommendationMessage(recommendation: context.recommendation)
        }

        @MainActor public static func makeNotification(_ message: ResumptionRecommendationMessage) -> Notification {
            Notification(name: name, userInfo: [AVAudioSession.resumptionContextKey: ResumptionContext(recommendation: message.recommendation)])
        }
    }

    /// Delivers `message` to typed observers on the main actor (see the note at the top).
    func postMessage<Message: NotificationCenter.MainActorMessage>(_ message: Message) where Message.Subject == AVAudioSession {
        nonisolated(unsafe) let session = self
        nonisolated(unsafe) let message = message
        if Thread.isMainThread {
            MainActor.assumeIsolated { NotificationCenter.default.post(message, subject: session) }
        } else {
            DispatchQueue.main.async { MainActor.assumeIsolated { NotificationCenter.default.post(message, subject: session) } }
        }
    }
}

extension NotificationCenter.MessageIdentifier where Self == NotificationCenter.BaseMessageIdentifier<AVAudioSession.DidBecomeActiveMessage> {
    /// The session became active (iOS 27).
    public static var didBecomeActive: Self { .init() }
}

extension NotificationCenter.MessageIdentifier where Self == NotificationCenter.BaseMessageIdentifier<AVAudioSession.DidBecomeInactiveMessage> {
    /// The session became inactive (iOS 27).
    public static var didBecomeInactive: Self { .init() }
}

extension NotificationCenter.MessageIdentifier where Self == NotificationCenter.BaseMessageIdentifier<AVAudioSession.ResumptionRecommendationMessage> {
    /// The system recommends resuming, or not, after an interruption (iOS 27).
    public static var resumptionRecommendation: Self { .init() }
}

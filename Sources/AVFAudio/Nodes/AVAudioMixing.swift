// Mixing parameters a source node carries to the mixers it feeds (AVAudioMixing.h).
//
// A source node's settings apply to every mixer input it feeds — directly, or through effects,
// which "cannot talk to their downstream mixer" (AVAudioMixing.h): a mixer input's mixing source is
// the first node upstream of it that conforms to AVAudioMixing (`AVAudioEngine.mixingSource`). A
// per-connection override (`destination(forMixer:bus:)`) replaces a value for one mixer input until
// the source's property is set again or the path breaks (then it is forgotten), as the WWDC 2015
// "splitting" slides and AVAudioMixing.h describe. The 3D properties are stored for the
// environment node (a later issue); stereo mixers ignore them.

/// The 3D rendering algorithms an environment node can use for a source.
public enum AVAudio3DMixingRenderingAlgorithm: Int, Sendable {
    case equalPowerPanning = 0
    case sphericalHead = 1
    case HRTF = 2
    case soundField = 3
    case stereoPassThrough = 5
    case HRTFHQ = 6
    case auto = 7
}

/// How an environment node treats a source's channels.
public enum AVAudio3DMixingSourceMode: Int, Sendable {
    case spatializeIfMono = 0
    case bypass = 1
    case pointSource = 2
    case ambienceBed = 3
}

/// How a point source inside the listener's head is rendered.
public enum AVAudio3DMixingPointSourceInHeadMode: Int, Sendable {
    case mono = 0
    case bypass = 1
}

/// A point in 3D space, in meters.
public struct AVAudio3DPoint: Sendable, Equatable {
    public var x: Float
    public var y: Float
    public var z: Float
    public init() { x = 0; y = 0; z = 0 }
    public init(x: Float, y: Float, z: Float) { self.x = x; self.y = y; self.z = z }
}

/// Makes a point.
public func AVAudioMake3DPoint(_ x: Float, _ y: Float, _ z: Float) -> AVAudio3DPoint { AVAudio3DPoint(x: x, y: y, z: z) }

/// Stereo panning of a mixer input.
public protocol AVAudioStereoMixing: NSObjectProtocol {
    /// -1 (left) … 1 (right); 0 is centre.
    var pan: Float { get set }
}

/// 3D properties of a mixer input (used by the environment node).
public protocol AVAudio3DMixing: NSObjectProtocol {
    var renderingAlgorithm: AVAudio3DMixingRenderingAlgorithm { get set }
    var sourceMode: AVAudio3DMixingSourceMode { get set }
    var pointSourceInHeadMode: AVAudio3DMixingPointSourceInHeadMode { get set }
    var rate: Float { get set }
    var reverbBlend: Float { get set }
    var obstruction: Float { get set }
    var occlusion: Float { get set }
    var position: AVAudio3DPoint { get set }
}

/// Properties applicable to the input bus of a mixer.
public protocol AVAudioMixing: AVAudio3DMixing, AVAudioStereoMixing {
    /// The per-connection settings for this node's connection into `mixer`'s input `bus`, or nil
    /// when the node is not connected there.
    func destination(forMixer mixer: AVAudioNode, bus: AVAudioNodeBus) -> AVAudioMixingDestination?
    /// 0 … 1 gain into the mixer.
    var volume: Float { get set }
}

/// The stored values of one set of mixing parameters. On a source node, nil means the default;
/// on a destination, nil means "derived from the source node".
final class MixingSettings {
    var volume: Float?
    var pan: Float?
    var renderingAlgorithm: AVAudio3DMixingRenderingAlgorithm?
    var sourceMode: AVAudio3DMixingSourceMode?
    var pointSourceInHeadMode: AVAudio3DMixingPointSourceInHeadMode?
    var rate: Float?
    var reverbBlend: Float?
    var obstruction: Float?
    var occlusion: Float?
    var position: AVAudio3DPoint?

    init(volume: Float? = nil, pan: Float? = nil) {
        self.volume = volume
        self.pan = pan
    }
}

/// The mixing settings of one mixer input fed by a source node — directly, or through effects
/// (AVAudioMixing.h: "effect nodes cannot talk to their downstream mixer", so the input's settings
/// come from the source upstream of them). Each value is derived from the source node until set
/// here; setting the source node's property later overrides it again (AVAudioMixing.h). Vended by
/// `destination(forMixer:bus:)`, forgotten when the path from the source to that mixer input breaks.
open class AVAudioMixingDestination: NSObject, AVAudioMixing {
    /// The mixer input this destination describes.
    public let connectionPoint: AVAudioConnectionPoint
    weak var sourceNode: AVAudioNode?
    let settings = MixingSettings()

    init(source: AVAudioNode, connectionPoint: AVAudioConnectionPoint) {
        self.sourceNode = source
        self.connectionPoint = connectionPoint
        super.init()
    }

    private func changed() { sourceNode?.mixingParametersDidChange() }
    private var source: MixingSettings? { sourceNode?.mixing }

    open var volume: Float {
        get { settings.volume ?? source?.volume ?? 1 }
        set { settings.volume = max(0, newValue); changed() }
    }
    open var pan: Float {
        get { settings.pan ?? source?.pan ?? 0 }
        set { settings.pan = min(1, max(-1, newValue)); changed() }
    }
    open var renderingAlgorithm: AVAudio3DMixingRenderingAlgorithm {
        get { settings.renderingAlgorithm ?? source?.renderingAlgorithm ?? .equalPowerPanning }
        set { settings.renderingAlgorithm = newValue }
    }
    open var sourceMode: AVAudio3DMixingSourceMode {
        get { settings.sourceMode ?? source?.sourceMode ?? .spatializeIfMono }
        set { settings.sourceMode = newValue }
    }
    open var pointSourceInHeadMode: AVAudio3DMixingPointSourceInHeadMode {
        get { settings.pointSourceInHeadMode ?? source?.pointSourceInHeadMode ?? .mono }
        set { settings.pointSourceInHeadMode = newValue }
    }
    open var rate: Float {
        get { settings.rate ?? source?.rate ?? 1 }
        set { settings.rate = min(2, max(0.5, newValue)) }
    }
    open var reverbBlend: Float {
        get { settings.reverbBlend ?? source?.reverbBlend ?? 0 }
        set { settings.reverbBlend = min(1, max(0, newValue)) }
    }
    open var obstruction: Float {
        get { settings.obstruction ?? source?.obstruction ?? 0 }
        set { settings.obstruction = min(0, max(-100, newValue)) }
    }
    open var occlusion: Float {
        get { settings.occlusion ?? source?.occlusion ?? 0 }
        set { settings.occlusion = min(0, max(-100, newValue)) }
    }
    open var position: AVAudio3DPoint {
        get { settings.position ?? source?.position ?? AVAudio3DPoint() }
        set { settings.position = newValue }
    }

    /// Itself when `mixer` and `bus` are its connection point, otherwise nil (AVAudioMixing.h).
    open func destination(forMixer mixer: AVAudioNode, bus: AVAudioNodeBus) -> AVAudioMixingDestination? {
        connectionPoint.node === mixer && connectionPoint.bus == bus ? self : nil
    }
}

// MARK: - The common implementation every AVAudioMixing node shares

extension AVAudioNode {
    /// Effective volume and pan of this node's path into `mixer` input `bus`.
    func effectiveMixing(intoMixer mixer: AVAudioNode, bus: AVAudioNodeBus) -> (volume: Float, pan: Float) {
        let key = MixingDestinationKey(mixer: ObjectIdentifier(mixer), bus: bus)
        let override = mixingDestinations[key]?.settings
        return (override?.volume ?? mixing.volume ?? 1, override?.pan ?? mixing.pan ?? 0)
    }

    /// The per-connection destination object (created on first request) when this node is the
    /// mixing source of `mixer`'s input `bus` (connected directly or through effects).
    func mixingDestination(forMixer mixer: AVAudioNode, bus: AVAudioNodeBus) -> AVAudioMixingDestination? {
        guard let engine = _engine else { return nil }
        engine.lock.lock(); defer { engine.lock.unlock() }
        guard let mixerNode = mixer as? AVAudioMixerNode, engine.mixingSource(of: mixerNode, bus: bus) === self else { return nil }
        let key = MixingDestinationKey(mixer: ObjectIdentifier(mixer), bus: bus)
        if let d = mixingDestinations[key] { return d }
        let d = AVAudioMixingDestination(source: self, connectionPoint: AVAudioConnectionPoint(node: mixer, bus: bus))
        mixingDestinations[key] = d
        return d
    }

    /// Pushes this node's current mixing values into every mixer input it feeds.
    func mixingParametersDidChange() {
        _engine?.updateMixerInputs(fedBy: self)
    }

    /// A source node property was set: it overrides that property on every connection.
    func sourceMixingPropertyDidChange(_ clear: (MixingSettings) -> Void) {
        // Under the engine's lock: graph changes prune `mixingDestinations` on other threads.
        let engine = _engine
        engine?.lock.lock(); defer { engine?.lock.unlock() }
        for destination in mixingDestinations.values { clear(destination.settings) }
        mixingParametersDidChange()
    }
}

struct MixingDestinationKey: Hashable {
    let mixer: ObjectIdentifier
    let bus: AVAudioNodeBus
}

extension AVAudioMixing where Self: AVAudioNode {
    public var volume: Float {
        get { mixing.volume ?? 1 }
        set { mixing.volume = max(0, newValue); sourceMixingPropertyDidChange { $0.volume = nil } }
    }
    public var pan: Float {
        get { mixing.pan ?? 0 }
        set { mixing.pan = min(1, max(-1, newValue)); sourceMixingPropertyDidChange { $0.pan = nil } }
    }
    public var renderingAlgorithm: AVAudio3DMixingRenderingAlgorithm {
        get { mixing.renderingAlgorithm ?? .equalPowerPanning }
        set { mixing.renderingAlgorithm = newValue; sourceMixingPropertyDidChange { $0.renderingAlgorithm = nil } }
    }
    public var sourceMode: AVAudio3DMixingSourceMode {
        get { mixing.sourceMode ?? .spatializeIfMono }
        set { mixing.sourceMode = newValue; sourceMixingPropertyDidChange { $0.sourceMode = nil } }
    }
    public var pointSourceInHeadMode: AVAudio3DMixingPointSourceInHeadMode {
        get { mixing.pointSourceInHeadMode ?? .mono }
        set { mixing.pointSourceInHeadMode = newValue; sourceMixingPropertyDidChange { $0.pointSourceInHeadMode = nil } }
    }
    public var rate: Float {
        get { mixing.rate ?? 1 }
        set { mixing.rate = min(2, max(0.5, newValue)); sourceMixingPropertyDidChange { $0.rate = nil } }
    }
    public var reverbBlend: Float {
        get { mixing.reverbBlend ?? 0 }
        set { mixing.reverbBlend = min(1, max(0, newValue)); sourceMixingPropertyDidChange { $0.reverbBlend = nil } }
    }
    public var obstruction: Float {
        get { mixing.obstruction ?? 0 }
        set { mixing.obstruction = min(0, max(-100, newValue)); sourceMixingPropertyDidChange { $0.obstruction = nil } }
    }
    public var occlusion: Float {
        get { mixing.occlusion ?? 0 }
        set { mixing.occlusion = min(0, max(-100, newValue)); sourceMixingPropertyDidChange { $0.occlusion = nil } }
    }
    public var position: AVAudio3DPoint {
        get { mixing.position ?? AVAudio3DPoint() }
        set { mixing.position = newValue; sourceMixingPropertyDidChange { $0.position = nil } }
    }

    public func destination(forMixer mixer: AVAudioNode, bus: AVAudioNodeBus) -> AVAudioMixingDestination? {
        mixingDestination(forMixer: mixer, bus: bus)
    }
}

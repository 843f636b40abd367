// The description classes an AVAudioSession hands out: routes, ports, channels and data sources.
// As on Apple platforms clients never create them (Apple marks `init` unavailable); the session
// builds them from the device layer (AVAudioSession+Devices.swift). They are immutable snapshots,
// compared by value (a port by its uid), so a route captured before a change can be compared with
// the route after it.
import Foundation

/// A route: the input and output ports in use.
open class AVAudioSessionRouteDescription: NSObject, @unchecked Sendable {
    /// The input ports (empty when nothing records).
    public let inputs: [AVAudioSessionPortDescription]
    /// The output ports.
    public let outputs: [AVAudioSessionPortDescription]

    init(inputs: [AVAudioSessionPortDescription], outputs: [AVAudioSessionPortDescription]) {
        self.inputs = inputs
        self.outputs = outputs
        super.init()
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioSessionRouteDescription else { return false }
        return inputs == other.inputs && outputs == other.outputs
    }
    open override var hash: Int { inputs.map(\.uid).hashValue ^ outputs.map(\.uid).hashValue }
    open override var description: String {
        "<AVAudioSessionRouteDescription: inputs = \(inputs.map(\.description)); outputs = \(outputs.map(\.description))>"
    }
}

/// One port: a device's input or output side.
open class AVAudioSessionPortDescription: NSObject, @unchecked Sendable {
    /// The kind of port (built-in speaker, USB, Bluetooth, ...).
    public let portType: AVAudioSession.Port
    /// A human-readable name (the device's description).
    public let portName: String
    /// A stable identifier: the device selector (`pulse:SINK`, `alsa:hw:0`, `null`), which
    /// `AVAudioPlayer.currentDevice` and `AVAUDIO_BACKEND` also take.
    public let uid: String
    /// Whether the device does voice-call echo cancellation in hardware (never, here).
    public let hasHardwareVoiceCallProcessing: Bool
    /// Whether spatial audio is on for this port (never, here).
    public let isSpatialAudioEnabled: Bool
    /// The port's channels.
    public let channels: [AVAudioSessionChannelDescription]?
    /// The port's data sources (nil: the port has no selectable sources, as for every Linux device).
    public let dataSources: [AVAudioSessionDataSourceDescription]?
    public let selectedDataSource: AVAudioSessionDataSourceDescription?
    public private(set) var preferredDataSource: AVAudioSessionDataSourceDescription?
    /// The capabilities of a Bluetooth microphone port (iOS 26): nil for every port that is not
    /// one, as Apple documents ("nil for all ports for which this capability set doesn't apply");
    /// for a Bluetooth input port (`bluetoothHFP`, `bluetoothLE`) an extension whose capabilities are
    /// unsupported (AVAudioSessionPortExtensionBluetoothMicrophone says why).
    public let bluetoothMicrophoneExtension: AVAudioSessionPortExtensionBluetoothMicrophone?

    init(portType: AVAudioSession.Port, portName: String, uid: String, channelCount: Int, isInput: Bool = false) {
        self.portType = portType
        self.portName = portName
        self.uid = uid
        hasHardwareVoiceCallProcessing = false
        isSpatialAudioEnabled = false
        channels = (0..<channelCount).map {
            AVAudioSessionChannelDescription(channelName: "\(portName) \($0 + 1)", owningPortUID: uid, channelNumber: $0 + 1,
                                             channelLabel: AVAudioSessionChannelDescription.defaultLabel(channel: $0, of: channelCount))
        }
        dataSources = nil
        selectedDataSource = nil
        bluetoothMicrophoneExtension = isInput && (portType == .bluetoothHFP || portType == .bluetoothLE)
            ? AVAudioSessionPortExtensionBluetoothMicrophone() : nil
        super.init()
    }

    /// Selects a data source; throws (paramErr) for one the port does not have — every port here
    /// has none, so only nil is accepted.
    open func setPreferredDataSource(_ dataSource: AVAudioSessionDataSourceDescription?) throws {
        guard dataSource == nil else {
            throw NSError(domain: NSOSStatusErrorDomain, code: AVAudioSession.ErrorCode.badParam.rawValue, userInfo: [
                NSLocalizedDescriptionKey: "the port \(portName) has no data source \(dataSource!.dataSourceName)"])
        }
        preferredDataSource = nil
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioSessionPortDescription else { return false }
        return uid == other.uid && portType == other.portType && portName == other.portName
    }
    open override var hash: Int { uid.hashValue }
    open override var description: String {
        "<AVAudioSessionPortDescription: type = \(portType.rawValue); name = \(portName); UID = \(uid); selectedDataSource = (null)>"
    }
}

/// One channel of a port.
open class AVAudioSessionChannelDescription: NSObject, @unchecked Sendable {
    /// A human-readable name.
    public let channelName: String
    /// The uid of the port that owns the channel.
    public let owningPortUID: String
    /// The channel's index in the port, from 1.
    public let channelNumber: Int
    /// The Core Audio channel label (left, right, mono ...).
    public let channelLabel: AudioChannelLabel

    init(channelName: String, owningPortUID: String, channelNumber: Int, channelLabel: AudioChannelLabel) {
        self.channelName = channelName
        self.owningPortUID = owningPortUID
        self.channelNumber = channelNumber
        self.channelLabel = channelLabel
        super.init()
    }

    /// Mono, left/right, else "discrete n" labels (the device layer reports counts, not positions).
    static func defaultLabel(channel: Int, of count: Int) -> AudioChannelLabel {
        if count == 1 { return kAudioChannelLabel_Mono }
        if count == 2 { return channel == 0 ? kAudioChannelLabel_Left : kAudioChannelLabel_Right }
        return kAudioChannelLabel_Discrete_0 + AudioChannelLabel(channel)
    }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? AVAudioSessionChannelDescription else { return false }
        return owningPortUID == other.owningPortUID && channelNumber == other.channelNumber
    }
    open override var hash: Int { owningPortUID.hashValue ^ channelNumber }
}

/// A data source of a port (a microphone position, a speaker). Linux devices expose none, so the
/// session never creates one; the class exists for code that handles them.
open class AVAudioSessionDataSourceDescription: NSObject, @unchecked Sendable {
    public let dataSourceID: NSNumber
    public let dataSourceName: String
    public let location: AVAudioSession.Location?
    public let orientation: AVAudioSession.Orientation?
    public let supportedPolarPatterns: [AVAudioSession.PolarPattern]?
    public let selectedPolarPattern: AVAudioSession.PolarPattern?
    public private(set) var preferredPolarPattern: AVAudioSession.PolarPattern?

    init(dataSourceID: NSNumber, dataSourceName: String) {
        self.dataSourceID = dataSourceID
        self.dataSourceName = dataSourceName
        location = nil
        orientation = nil
        supportedPolarPatterns = nil
        selectedPolarPattern = nil
        super.init()
    }

    /// Selects a polar pattern; throws (paramErr) for one the source does not support.
    open func setPreferredPolarPattern(_ pattern: AVAudioSession.PolarPattern?) throws {
        if let pattern, !(supportedPolarPatterns ?? []).contains(pattern) {
            throw NSError(domain: NSOSStatusErrorDomain, code: AVAudioSession.ErrorCode.badParam.rawValue, userInfo: [
                NSLocalizedDescriptionKey: "the data source \(dataSourceName) does not support the polar pattern \(pattern.rawValue)"])
        }
        preferredPolarPattern = pattern
    }
}

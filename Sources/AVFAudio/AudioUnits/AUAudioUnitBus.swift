// AUAudioUnitBus and AUAudioUnitBusArray: an audio unit's input and output busses and their formats.

/// One input or output of an audio unit, with its format.
open class AUAudioUnitBus: NSObject {
    private var _format: AVAudioFormat
    weak var owner: AUAudioUnit?
    var _index = 0
    var _busType: AUAudioUnitBusType = .output

    /// A bus with a format (throws `kAudioUnitErr_FormatNotSupported` for a format with no channels).
    public init(format: AVAudioFormat) throws {
        guard format.channelCount > 0, format.sampleRate > 0 else {
            throw AUAudioUnit.error(kAudioUnitErr_FormatNotSupported, "AUAudioUnitBus(format:): \(format) has no channels or no sample rate")
        }
        _format = format
        super.init()
    }

    /// The bus's format.
    open var format: AVAudioFormat { _format }

    /// Changes the format. Throws `kAudioUnitErr_Initialized` while the unit's render resources
    /// are allocated and `kAudioUnitErr_FormatNotSupported` when the unit refuses the format.
    open func setFormat(_ format: AVAudioFormat) throws {
        if format == _format { return }
        if let owner {
            if owner.renderResourcesAllocated {
                throw AUAudioUnit.error(kAudioUnitErr_Initialized, "\(type(of: owner)): cannot change the format of \(_busType == .input ? "input" : "output") bus \(_index) while render resources are allocated")
            }
            if !owner.shouldChange(to: format, for: self) {
                throw AUAudioUnit.error(kAudioUnitErr_FormatNotSupported, "\(type(of: owner)) does not support \(format) on \(_busType == .input ? "input" : "output") bus \(_index)")
            }
        }
        guard format.channelCount > 0 && format.channelCount <= maximumChannelCount else {
            throw AUAudioUnit.error(kAudioUnitErr_FormatNotSupported, "AUAudioUnitBus.setFormat: \(format) has \(format.channelCount) channels (at most \(maximumChannelCount))")
        }
        _format = format
    }

    /// Whether the bus is in use.
    open var isEnabled = true
    /// Whether the host should allocate the bus's buffers.
    open var shouldAllocateBuffer = true
    /// The bus's name.
    open var name: String?
    /// The bus's position in its array.
    open var index: Int { _index }
    /// Input or output.
    open var busType: AUAudioUnitBusType { _busType }
    /// The unit the bus belongs to.
    open var ownerAudioUnit: AUAudioUnit {
        guard let owner else { preconditionFailure("AUAudioUnitBus.ownerAudioUnit: the bus is not in a unit's bus array") }
        return owner
    }
    /// Channel layouts the bus supports (nil: any).
    open var supportedChannelLayoutTags: [NSNumber]? { nil }
    /// Latency the host adds after (outputs) or before (inputs) the unit, in seconds.
    open var contextPresentationLatency: TimeInterval = 0
    /// The most channels the bus takes.
    open var maximumChannelCount: AUAudioChannelCount = .max
}

/// An audio unit's input or output busses.
open class AUAudioUnitBusArray: NSObject, Sequence {
    private var busses: [AUAudioUnitBus]
    private unowned(unsafe) let unit: AUAudioUnit
    private let type: AUAudioUnitBusType

    /// An array of busses owned by `audioUnit`.
    public init(audioUnit: AUAudioUnit, busType: AUAudioUnitBusType, busses busArray: [AUAudioUnitBus]) {
        unit = audioUnit
        type = busType
        busses = busArray
        super.init()
        adopt()
    }

    /// An empty array.
    public convenience init(audioUnit: AUAudioUnit, busType: AUAudioUnitBusType) {
        self.init(audioUnit: audioUnit, busType: busType, busses: [])
    }

    private func adopt() {
        for (i, bus) in busses.enumerated() {
            bus.owner = unit
            bus._index = i
            bus._busType = type
        }
    }

    /// The number of busses.
    open var count: Int { busses.count }

    /// The bus at `index`.
    open subscript(index: Int) -> AUAudioUnitBus {
        precondition(index >= 0 && index < busses.count, "AUAudioUnitBusArray[\(index)]: the array has \(busses.count) bus(es)")
        return busses[index]
    }

    /// Whether `setBusCount` may change the count (false unless a subclass says otherwise).
    open var isCountChangeable: Bool { false }

    /// Changes the number of busses (new ones copy the last bus's format). Throws
    /// `kAudioUnitErr_PropertyNotWritable` when the count is not changeable.
    open func setBusCount(_ count: Int) throws {
        guard isCountChangeable else {
            throw AUAudioUnit.error(kAudioUnitErr_PropertyNotWritable, "\(Swift.type(of: unit)): the number of \(type == .input ? "input" : "output") busses cannot change")
        }
        if count < busses.count { busses.removeLast(busses.count - count) }
        while busses.count < count, let last = busses.last { busses.append(try AUAudioUnitBus(format: last.format)) }
        adopt()
    }

    /// Replaces the busses (for subclasses).
    open func replaceBusses(_ busArray: [AUAudioUnitBus]) {
        busses = busArray
        adopt()
    }

    /// The unit the busses belong to.
    open var ownerAudioUnit: AUAudioUnit { unit }
    /// Input or output.
    open var busType: AUAudioUnitBusType { type }

    public func makeIterator() -> IndexingIterator<[AUAudioUnitBus]> { busses.makeIterator() }
}

// AVAudioUnitComponentManager and AVAudioUnitComponent: the catalogue of the audio units this
// project provides (Apple's built-in effects and time effects, rebuilt here), searchable by
// component description, by a test block or by a predicate.
//
// There is no plug-in registry on Linux: the catalogue is the built-in list below. Its names,
// types, manufacturer and four-character codes are Apple's; the tags are the system tags an
// audio-unit host shows them under.

import Synchronization

// Standard audio unit types, as `AVAudioUnitComponent.typeName` returns them.
public let AVAudioUnitTypeOutput = "Output"
public let AVAudioUnitTypeMusicDevice = "MusicDevice"
public let AVAudioUnitTypeMusicEffect = "MusicEffect"
public let AVAudioUnitTypeFormatConverter = "FormatConverter"
public let AVAudioUnitTypeEffect = "Effect"
public let AVAudioUnitTypeMixer = "Mixer"
public let AVAudioUnitTypePanner = "Panner"
public let AVAudioUnitTypeGenerator = "Generator"
public let AVAudioUnitTypeOfflineEffect = "OfflineEffect"
public let AVAudioUnitTypeMIDIProcessor = "MIDIProcessor"

/// The manufacturer name of Apple's audio units.
public let AVAudioUnitManufacturerNameApple = "Apple"

/// Posted (object: the AVAudioUnitComponent) when a component's user tags change.
public let AVAudioUnitComponentTagsDidChangeNotification = NSNotification.Name("AVAudioUnitComponentTagsDidChangeNotification")

/// Details of one audio unit: names, type, version, tags — without instantiating it.
open class AVAudioUnitComponent: NSObject {
    /// The component's name (e.g. "AUNBandEQ").
    public let name: String
    /// The manufacturer's name (e.g. "Apple").
    public let manufacturerName: String
    /// Type, subtype and manufacturer codes: what `AVAudioUnitEffect(audioComponentDescription:)` takes.
    public let audioComponentDescription: AudioComponentDescription
    /// Version as 0xMMMMmmDD (major, minor, dot release).
    public let version: Int
    private let systemTags: [String]
    private var userTags: [String] = []

    init(name: String, description: AudioComponentDescription, tags: [String], version: Int = 0x0001_0000, manufacturerName: String? = nil) {
        self.name = name
        self.manufacturerName = manufacturerName ?? (description.componentManufacturer == kAudioUnitManufacturer_Apple
            ? AVAudioUnitManufacturerNameApple : fourCharCodeString(description.componentManufacturer))
        audioComponentDescription = description
        self.version = version
        systemTags = tags
        super.init()
    }

    /// The standard type name (`AVAudioUnitTypeEffect`, ...).
    open var typeName: String {
        switch audioComponentDescription.componentType {
        case kAudioUnitType_Output: return AVAudioUnitTypeOutput
        case kAudioUnitType_MusicDevice: return AVAudioUnitTypeMusicDevice
        case kAudioUnitType_MusicEffect: return AVAudioUnitTypeMusicEffect
        case kAudioUnitType_FormatConverter: return AVAudioUnitTypeFormatConverter
        case kAudioUnitType_Effect: return AVAudioUnitTypeEffect
        case kAudioUnitType_Mixer: return AVAudioUnitTypeMixer
        case kAudioUnitType_Panner: return AVAudioUnitTypePanner
        case kAudioUnitType_Generator: return AVAudioUnitTypeGenerator
        case kAudioUnitType_OfflineEffect: return AVAudioUnitTypeOfflineEffect
        case kAudioUnitType_MIDIProcessor: return AVAudioUnitTypeMIDIProcessor
        default: return fourCharCodeString(audioComponentDescription.componentType)
        }
    }

    /// The type name for display.
    open var localizedTypeName: String {
        switch audioComponentDescription.componentType {
        case kAudioUnitType_MusicDevice: return "Music Device"
        case kAudioUnitType_MusicEffect: return "Music Effect"
        case kAudioUnitType_FormatConverter: return "Format Converter"
        case kAudioUnitType_OfflineEffect: return "Offline Effect"
        case kAudioUnitType_MIDIProcessor: return "MIDI Processor"
        default: return typeName
        }
    }

    /// The version as "major.minor.dot".
    open var versionString: String { "\(version >> 16).\((version >> 8) & 0xFF).\(version & 0xFF)" }

    /// The system tags and the user's tags.
    open var allTagNames: [String] { systemTags + userTags.filter { !systemTags.contains($0) } }

    /// Tags the user added (posts `AVAudioUnitComponentTagsDidChangeNotification` when set).
    open var userTagNames: [String] {
        get { userTags }
        set {
            userTags = newValue
            NotificationCenter.default.post(name: AVAudioUnitComponentTagsDidChangeNotification, object: self)
        }
    }

    /// Mach-O CPU types the unit runs on: it is part of this library, so the running one.
    open var availableArchitectures: [NSNumber] {
        #if arch(x86_64)
        return [NSNumber(value: 0x0100_0007)]      // CPU_TYPE_X86_64
        #elseif arch(arm64)
        return [NSNumber(value: 0x0100_000C)]      // CPU_TYPE_ARM64
        #else
        return []
        #endif
    }

    open var isSandboxSafe: Bool { true }
    open var hasMIDIInput: Bool { false }
    open var hasMIDIOutput: Bool { false }
    open var passesAUVal: Bool { true }
    open var hasCustomView: Bool { false }
    open var iconURL: URL? { nil }
    @available(*, deprecated, message: "no component bundles: always nil")
    open var componentURL: URL? { nil }
    open var configurationDictionary: [String: Any] { [:] }

    /// Whether the unit processes `numInputChannels` in to `numOutputChannels` out (−1: any).
    /// The built-in effects process any channel count, the same number out as in.
    open func supportsNumberInputChannels(_ numInputChannels: Int, outputChannels numOutputChannels: Int) -> Bool {
        if numInputChannels == -1 || numOutputChannels == -1 { return numInputChannels != 0 && numOutputChannels != 0 }
        return numInputChannels >= 1 && numInputChannels == numOutputChannels
    }

    open override var description: String {
        "<AVAudioUnitComponent \(manufacturerName): \(name) \(typeName) '\(fourCharCodeString(audioComponentDescription.componentSubType))'>"
    }

    /// Component-description matching as AudioComponentFindNext does it: zero type, subtype or
    /// manufacturer match anything; flags are compared under the mask.
    func matches(_ d: AudioComponentDescription) -> Bool {
        let mine = audioComponentDescription
        return (d.componentType == 0 || d.componentType == mine.componentType)
            && (d.componentSubType == 0 || d.componentSubType == mine.componentSubType)
            && (d.componentManufacturer == 0 || d.componentManufacturer == mine.componentManufacturer)
            && (mine.componentFlags & d.componentFlagsMask) == (d.componentFlags & d.componentFlagsMask)
    }
}

/// Finds the audio units this library provides.
open class AVAudioUnitComponentManager: NSObject {
    /// Posted when the list of components changes (`AUAudioUnit.registerSubclass`).
    public static let registrationsChangedNotification = NSNotification.Name("AVAudioUnitComponentManagerRegistrationsChangedNotification")

    private static let sharedManager = AVAudioUnitComponentManager(components: AVAudioUnitComponentManager.builtIn())
    private let builtIns: [AVAudioUnitComponent]
    /// Components of registered subclasses, made once per registration (user tags stay with them).
    private let registered = Mutex<[AVAudioUnitComponent]>([])

    private init(components: [AVAudioUnitComponent]) {
        builtIns = components
        super.init()
    }

    /// The built-in components and those of `AUAudioUnit.registerSubclass(_:as:name:version:)`
    /// (a registration replaces a built-in component with the same codes).
    private var all: [AVAudioUnitComponent] {
        let units = AUAudioUnit.registeredUnits
        let extra: [AVAudioUnitComponent] = registered.withLock { cache in
            cache.removeAll { c in !units.contains { $0.description.matchesExactly(c.audioComponentDescription) && $0.version == UInt32(c.version) } }
            for u in units where !cache.contains(where: { $0.audioComponentDescription.matchesExactly(u.description) }) {
                let parts = u.name.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                let tags: [String]
                switch u.description.componentType {
                case kAudioUnitType_Effect, kAudioUnitType_MusicEffect: tags = ["Effects"]
                case kAudioUnitType_FormatConverter: tags = ["Time Effect"]
                case kAudioUnitType_MusicDevice: tags = ["Synthesizer"]
                default: tags = []
                }
                cache.append(AVAudioUnitComponent(name: parts.count == 2 ? parts[1] : u.name, description: u.description, tags: tags,
                                                  version: Int(u.version), manufacturerName: parts.count == 2 ? parts[0] : nil))
            }
            return cache
        }
        return builtIns.filter { b in !extra.contains { $0.audioComponentDescription.matchesExactly(b.audioComponentDescription) } } + extra
    }

    /// The shared component manager.
    open class func shared() -> Self { unsafeDowncast(sharedManager, to: self) }

    /// Every tag of every component (system and user), each once, in order of appearance.
    open var tagNames: [String] {
        var seen = Set<String>(), names: [String] = []
        for c in all { for t in c.allTagNames where seen.insert(t).inserted { names.append(t) } }
        return names
    }

    /// The standard system tags (as AudioComponent.h defines them), localized (English here).
    open var standardLocalizedTagNames: [String] {
        ["Acoustic", "Bass", "Beats", "Delay", "Distortion", "Drums", "Dynamics", "Dynamics Processor",
         "Effects", "EQ", "Filter", "Guitar", "Imaging", "MIDI", "Mixer", "Pitch", "Reverb", "Sampler",
         "Synthesizer", "Time Effect", "Vocal"]
    }

    /// The components matching a description (zero fields are wildcards).
    open func components(matching desc: AudioComponentDescription) -> [AVAudioUnitComponent] {
        all.filter { $0.matches(desc) }
    }

    /// The components a predicate accepts (evaluated with the component as its object).
    open func components(matching predicate: NSPredicate) -> [AVAudioUnitComponent] {
        all.filter { predicate.evaluate(with: $0) }
    }

    /// The components `testHandler` accepts; it may set its second argument to stop the search.
    open func components(passingTest testHandler: (AVAudioUnitComponent, UnsafeMutablePointer<ObjCBool>) -> Bool) -> [AVAudioUnitComponent] {
        var result: [AVAudioUnitComponent] = []
        var stop = ObjCBool(false)
        for c in all {
            if testHandler(c, &stop) { result.append(c) }
            if stop.boolValue { break }
        }
        return result
    }

    /// Apple's built-in units this library implements.
    private static func builtIn() -> [AVAudioUnitComponent] {
        func d(_ type: OSType, _ subType: OSType) -> AudioComponentDescription {
            AudioComponentDescription(componentType: type, componentSubType: subType, componentManufacturer: kAudioUnitManufacturer_Apple,
                                      componentFlags: 0, componentFlagsMask: 0)
        }
        return [
            AVAudioUnitComponent(name: "AUNBandEQ", description: d(kAudioUnitType_Effect, kAudioUnitSubType_NBandEQ), tags: ["EQ", "Filter"]),
            AVAudioUnitComponent(name: "AUDelay", description: d(kAudioUnitType_Effect, kAudioUnitSubType_Delay), tags: ["Delay"]),
            AVAudioUnitComponent(name: "AUDistortion", description: d(kAudioUnitType_Effect, kAudioUnitSubType_Distortion), tags: ["Distortion"]),
            AVAudioUnitComponent(name: "AUReverb2", description: d(kAudioUnitType_Effect, kAudioUnitSubType_Reverb2), tags: ["Reverb"]),
            AVAudioUnitComponent(name: "AUNewTimePitch", description: d(kAudioUnitType_FormatConverter, kAudioUnitSubType_NewTimePitch), tags: ["Pitch", "Time Effect"]),
            AVAudioUnitComponent(name: "AUVarispeed", description: d(kAudioUnitType_FormatConverter, kAudioUnitSubType_Varispeed), tags: ["Pitch", "Time Effect"]),
        ]
    }
}

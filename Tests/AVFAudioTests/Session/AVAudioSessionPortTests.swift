// Port types from what devices say about themselves, and ALSA cards watched while the session is
// active:
//   * against a private PulseAudio server: null sinks and a remapped source loaded with the
//     device properties real hardware carries (device.bus, device.form_factor, device.class,
//     bluetooth.protocol), each made the server's default, read back through the device layer
//     and through currentRoute / availableInputs;
//   * the kernel's card description over a fake /proc/asound + /sys/class/sound tree (the cards
//     file in the format the kernel prints it: sound/core/init.c, "%2i [%-15s]: %s - %s");
//   * the rules for properties PulseAudio and PipeWire report that no server here can fake
//     (active ports, PipeWire's Bluetooth profile names);
//   * the session on ALSA posting newDeviceAvailable / oldDeviceUnavailable when the (fake)
//     cards file gains and loses a card.
// Device names here say nothing (sinka, sourcea…), so the port types can only come from the
// properties. Extends the serialized AVAudioSessionTests suite: the session is one object per process.
import Testing
import Foundation
@testable import AVFAudio
@testable import AudioDevices

extension AVAudioSessionTests {
    @Test("PulseAudio device properties become port types: bus usb → usbAudio, form factor headphone → headphones, bluetooth a2dp_sink → bluetoothA2DP, headset_head_unit → bluetoothHFP, a headset source → headsetMic; monitors and the plain null sink stay virtual; availableInputsChangeNotification when a source appears, not when the default changes",
          .enabled(if: DeviceComponents.pulse && DeviceComponents.executable("pactl") != nil, "pulseaudio or pactl is not installed"))
    func pulsePropertiesBecomePortTypes() throws {
        let server = try PrivatePulseServer()
        defer { server.stop() }
        func pactl(_ arguments: [String]) throws {
            let process = try ChildProcess(DeviceComponents.executable("pactl")!, arguments, environment: server.clientEnvironment)
            #expect(waitUntil(10) { !process.isRunning }, "pactl \(arguments) did not finish")
        }
        let sinks = [
            ("sinka", "device.class=sound device.bus=usb device.description=SinkA"),
            ("sinkb", "device.class=sound device.form_factor=headphone device.description=SinkB"),
            ("sinkc", "device.class=sound device.bus=bluetooth bluetooth.protocol=a2dp_sink device.description=SinkC"),
            ("sinkd", "device.class=sound device.bus=bluetooth bluetooth.protocol=headset_head_unit device.description=SinkD"),
        ]
        for (name, properties) in sinks {
            try pactl(["load-module", "module-null-sink", "sink_name=\(name)", "sink_properties='\(properties)'"])
        }
        try pactl(["load-module", "module-remap-source", "master=nullsink.monitor", "source_name=sourcea",
                   "source_properties='device.class=sound device.form_factor=headset device.description=SourceA'"])
        try pactl(["load-module", "module-remap-source", "master=nullsink.monitor", "source_name=sourceb",
                   "source_properties='device.class=sound device.bus=bluetooth bluetooth.protocol=headset_head_unit device.description=SourceB'"])

        // What the device layer reads from the server (proplist at byte 344 of pa_sink_info).
        let devices = AudioDevices.enumerate(pulseServer: server.server).filter { $0.backend == "pulse" }
        func device(_ id: String) -> AudioDeviceInfo? { devices.first { $0.id == id } }
        #expect(device("sinka")?.bus == "usb" && device("sinka")?.deviceClass == "sound")
        #expect(device("sinkb")?.formFactor == "headphone")
        #expect(device("sinkc")?.bus == "bluetooth" && device("sinkc")?.bluetoothProfile == "a2dp_sink")
        #expect(device("sourcea")?.formFactor == "headset" && device("sourcea")?.deviceClass == "sound")
        #expect(device("nullsink")?.deviceClass == "abstract" && device("nullsink.monitor")?.deviceClass == "monitor")
        // Null sinks have no ports: the active-port pointer (byte 392) reads NULL.
        #expect(devices.allSatisfy { $0.activePort == nil }, "\(devices.map { "\($0.id): \($0.activePort ?? "-")" })")

        let session = AVAudioSession.sharedInstance()
        defer { try? session.setActive(false); try? session._setDeviceSelector(nil); try? session.setCategory(.soloAmbient) }
        try session._setDeviceSelector("pulse@\(server.server)")
        try session.setCategory(.playAndRecord)
        try session.setActive(true)
        let inputsChanged = NotificationLog(AVAudioSession.availableInputsChangeNotification)
        try pactl(["set-default-sink", "nullsink"])
        #expect(waitUntil(5) { session.currentRoute.outputs.first?.uid == "pulse:nullsink@\(server.server)" })
        #expect(session.currentRoute.outputs.first?.portType == .virtual, "the plain null sink (class abstract)")
        for (name, expected) in [("sinka", AVAudioSession.Port.usbAudio), ("sinkb", .headphones), ("sinkc", .bluetoothA2DP), ("sinkd", .bluetoothHFP)] {
            try pactl(["set-default-sink", name])
            #expect(waitUntil(5) { session.currentRoute.outputs.first?.uid == "pulse:\(name)@\(server.server)" }, "the route did not follow the default sink \(name)")
            let port = session.currentRoute.outputs.first
            #expect(port?.portType == expected, "\(name): \(port?.portType.rawValue ?? "no output")")
        }
        try pactl(["set-default-source", "sourcea"])
        #expect(waitUntil(5) { session.currentRoute.inputs.first?.uid == "pulse::sourcea@\(server.server)" })
        #expect(session.currentRoute.inputs.first?.portType == .headsetMic)
        let inputs = session.availableInputs ?? []
        #expect(inputs.first { $0.uid == "pulse::sourcea@\(server.server)" }?.portType == .headsetMic)
        #expect(inputs.filter { $0.uid.contains(".monitor") }.count == 5 && inputs.filter { $0.uid.contains(".monitor") }.allSatisfy { $0.portType == .virtual })
        // A Bluetooth microphone (HFP source) carries the iOS 26 Bluetooth microphone extension,
        // with far-field capture and high-quality recording unsupported (no Linux stack offers
        // them); every other port, the HFP sink's output side included, has none.
        let bluetoothMic = inputs.first { $0.uid == "pulse::sourceb@\(server.server)" }
        #expect(bluetoothMic?.portType == .bluetoothHFP)
        let micExtension = bluetoothMic?.bluetoothMicrophoneExtension
        #expect(micExtension != nil, "a Bluetooth input port has the Bluetooth microphone extension")
        #expect(micExtension?.farFieldCapture.isSupported == false && micExtension?.farFieldCapture.isEnabled == false)
        #expect(micExtension?.highQualityRecording.isSupported == false && micExtension?.highQualityRecording.isEnabled == false)
        #expect(inputs.filter { $0.portType != .bluetoothHFP }.allSatisfy { $0.bluetoothMicrophoneExtension == nil })
        #expect(session.currentRoute.outputs.allSatisfy { $0.bluetoothMicrophoneExtension == nil })

        // Switching defaults changed the route, not the inputs; a new sink brings a new monitor input.
        #expect(inputsChanged.items.isEmpty, "availableInputsChangeNotification without a new input: \(inputsChanged.items.count)")
        try pactl(["load-module", "module-null-sink", "sink_name=sinke"])
        #expect(waitUntil(5) { !inputsChanged.items.isEmpty }, "no availableInputsChangeNotification after a source appeared")
        #expect(inputsChanged.items.first?.userInfo == nil && inputsChanged.items.first?.object as? AVAudioSession === session)
        #expect(session.availableInputs?.contains { $0.uid == "pulse::sinke.monitor@\(server.server)" } == true)
    }

    @Test("The session enums added from the current SDK's AVAudioSessionTypes.h carry Apple's raw values")
    func currentSDKRawValues() {
        #expect(AVAudioSession.InterruptionReason.sceneWasBackgrounded.rawValue == 3)
        #expect(AVAudioSession.InterruptionReason(rawValue: 4) == .routeDisconnected)
        #expect(AVAudioSession.DeactivationSource.app.rawValue == 1 && AVAudioSession.DeactivationSource.system.rawValue == 2)
        #expect(AVAudioSession.ResumptionRecommendation.shouldNotResume.rawValue == 0 && AVAudioSession.ResumptionRecommendation.shouldResume.rawValue == 1)
        #expect(AVAudioSession.MicrophoneInjectionMode.none.rawValue == 0 && AVAudioSession.MicrophoneInjectionMode.spokenAudio.rawValue == 1)
        #expect(AVAudioSession.IOType.notSpecified.rawValue == 0 && AVAudioSession.IOType.aggregated.rawValue == 1)
        #expect(AVAudioSession.CategoryOptions.farFieldInput.rawValue == 0x4_0000 && AVAudioSession.CategoryOptions.bluetoothHighQualityRecording.rawValue == 0x8_0000)
        #expect(AVAudioSession.Mode.shortFormVideo.rawValue == "AVAudioSessionModeShortFormVideo" && AVAudioSession.Mode.dualRoute.rawValue == "AVAudioSessionModeDualRoute")
        #expect(AVAudioSession.availableInputsChangeNotification.rawValue == "AVAudioSessionAvailableInputsChangeNotification")
        // iOS 27's mediaDeviceExtension: its string is not public (ours is our own), so check only
        // that it is a port of its own that no Linux route reports.
        let known: [AVAudioSession.Port] = [.lineIn, .builtInMic, .headsetMic, .continuityMicrophone, .lineOut, .headphones,
                                            .bluetoothA2DP, .builtInReceiver, .builtInSpeaker, .HDMI, .airPlay, .bluetoothLE,
                                            .bluetoothHFP, .usbAudio, .carAudio, .virtual, .PCI, .fireWire, .displayPort, .AVB, .thunderbolt]
        #expect(!known.contains(.mediaDeviceExtension))
        let route = AVAudioSession.sharedInstance().currentRoute
        #expect(!(route.outputs + route.inputs).contains { $0.portType == .mediaDeviceExtension })
    }

    @Test("The header's rules for the dualRoute mode and farFieldInput (paramErr otherwise); the microphone-injection preference kept, injection unavailable")
    func currentSDKRules() throws {
        let session = AVAudioSession.sharedInstance()
        defer { try? session.setCategory(.soloAmbient, mode: .default, options: []); try? session.setPreferredMicrophoneInjectionMode(.none) }
        func paramErr(_ body: () throws -> Void) -> Bool {
            do { try body(); return false } catch let error as NSError { return error.domain == NSOSStatusErrorDomain && error.code == -50 }
        }
        try session.setCategory(.multiRoute, mode: .dualRoute, options: [.allowBluetoothHFP])
        #expect(session.mode == .dualRoute)
        #expect(paramErr { try session.setCategory(.multiRoute, mode: .dualRoute, options: []) }, "dualRoute without allowBluetoothHFP")
        #expect(paramErr { try session.setCategory(.playAndRecord, mode: .dualRoute, options: [.allowBluetoothHFP]) }, "dualRoute outside multiRoute")
        try session.setCategory(.multiRoute, mode: .dualRoute, options: [.allowBluetoothHFP, .farFieldInput])
        try session.setCategory(.playAndRecord, mode: .default, options: [.allowBluetoothHFP, .farFieldInput])
        #expect(session.categoryOptions.contains(.farFieldInput))
        #expect(paramErr { try session.setCategory(.playAndRecord, mode: .default, options: [.farFieldInput]) }, "farFieldInput without allowBluetoothHFP")
        #expect(paramErr { try session.setCategory(.multiRoute, mode: .default, options: [.allowBluetoothHFP, .farFieldInput]) }, "farFieldInput in multiRoute without dualRoute")
        try session.setCategory(.playAndRecord, mode: .default, options: [.bluetoothHighQualityRecording])
        try session.setCategory(.playback, mode: .shortFormVideo, options: [])
        #expect(session.mode == .shortFormVideo)

        #expect(session.preferredMicrophoneInjectionMode == .none && !session.isMicrophoneInjectionAvailable)
        try session.setPreferredMicrophoneInjectionMode(.spokenAudio)
        #expect(session.preferredMicrophoneInjectionMode == .spokenAudio)
    }

    @Test("The kernel's card description over a fake /proc and /sys tree: cards parsed, USB cards by usbid, PCI by the sysfs subsystem link, HDMI and analog PCMs by their names; ports follow")
    func alsaCardTree() throws {
        let root = try FakeALSATree()
        defer { root.remove() }
        let tree = root.tree
        #expect(tree.cards() == [ALSACard(number: 0, id: "PCH", driver: "HDA-Intel", name: "HDA Intel PCH"),
                                 ALSACard(number: 1, id: "Device", driver: "USB-Audio", name: "USB Audio Device")])
        #expect(ALSACardTree.parseCards("--- no soundcards ---\n").isEmpty)
        #expect(tree.bus(card: 0) == "pci" && tree.bus(card: 1) == "usb")
        func described(_ id: String, output: Int = 2, input: Int = 0) -> AudioDeviceInfo {
            var info = AudioDeviceInfo(backend: "alsa", id: id, name: id, outputChannels: output, inputChannels: input, sampleRates: [],
                                       nominalSampleRate: 0, isDefaultOutput: false, isDefaultInput: false)
            tree.describe(&info, cards: tree.cards())
            return info
        }
        let hdmi = described("hw:0,3")
        #expect(hdmi.bus == "pci" && hdmi.activePort == "hdmi 0")
        #expect(AVAudioSession.portType(hdmi, asInput: false) == .HDMI)
        let analog = described("plughw:CARD=PCH,DEV=0")
        #expect(analog.activePort == "alc892 analog" && AVAudioSession.portType(analog, asInput: false) == .builtInSpeaker)
        let mic = described("hw:CARD=PCH,DEV=0", output: 0, input: 2)
        #expect(mic.activePort == "alc892 analog" && AVAudioSession.portType(mic, asInput: true) == .builtInMic)
        #expect(AVAudioSession.portType(described("hw:1"), asInput: false) == .usbAudio)
        #expect(AVAudioSession.portType(described("plughw:Device,0"), asInput: false) == .usbAudio)
        #expect(AVAudioSession.portType(described("hdmi:CARD=PCH,DEV=0"), asInput: false) == .HDMI)
        #expect(AVAudioSession.portType(described("iec958:CARD=PCH"), asInput: false) == .lineOut)
        let plain = described("default")
        #expect(!plain.reportsProperties && AVAudioSession.portType(plain, asInput: false) == .builtInSpeaker)
        #expect(!described("hw:7,0").reportsProperties, "a card the kernel does not list")
    }

    @Test("Port rules for what PulseAudio and PipeWire report that no server here can fake: active ports (headphones, headset mic, HDMI, S/PDIF, line), PipeWire's Bluetooth profile names, car and tv form factors; names only when nothing is reported")
    func portRules() {
        func info(_ id: String = "dev", bus: String? = nil, formFactor: String? = nil, deviceClass: String? = "sound", api: String? = nil,
                  port: String? = nil, profile: String? = nil) -> AudioDeviceInfo {
            var info = AudioDeviceInfo(backend: "pulse", id: id, name: id, outputChannels: 2, inputChannels: 2, sampleRates: [],
                                       nominalSampleRate: 48_000, isDefaultOutput: false, isDefaultInput: false)
            info.bus = bus; info.formFactor = formFactor; info.deviceClass = deviceClass; info.api = api
            info.activePort = port; info.bluetoothProfile = profile
            return info
        }
        let out = { (i: AudioDeviceInfo) in AVAudioSession.portType(i, asInput: false) }
        let inp = { (i: AudioDeviceInfo) in AVAudioSession.portType(i, asInput: true) }
        #expect(out(info(bus: "pci", formFactor: "internal", port: "analog-output-headphones")) == .headphones)
        #expect(out(info(bus: "pci", formFactor: "internal", port: "analog-output-speaker")) == .builtInSpeaker)
        #expect(inp(info(bus: "pci", formFactor: "internal", port: "analog-input-headset-mic")) == .headsetMic)
        #expect(inp(info(bus: "pci", formFactor: "internal", port: "analog-input-internal-mic")) == .builtInMic)
        #expect(out(info(bus: "pci", port: "hdmi-output-1")) == .HDMI)
        #expect(out(info(bus: "pci", port: "iec958-stereo-output")) == .lineOut)
        #expect(out(info(bus: "pci", port: "analog-output-lineout")) == .lineOut && inp(info(bus: "pci", port: "analog-input-linein")) == .lineIn)
        #expect(out(info(formFactor: "tv")) == .HDMI && out(info(formFactor: "car")) == .carAudio)
        #expect(out(info(bus: "bluetooth", api: "bluez5", profile: "a2dp_sink")) == .bluetoothA2DP)
        #expect(inp(info(bus: "bluetooth", api: "bluez5", profile: "handsfree_head_unit")) == .bluetoothHFP)
        #expect(out(info(api: "bluez5", profile: "bap_sink")) == .bluetoothLE)
        #expect(inp(info(bus: "bluetooth")) == .bluetoothHFP && out(info(bus: "bluetooth")) == .bluetoothA2DP)
        #expect(out(info(bus: "usb", formFactor: "headset")) == .usbAudio, "a USB headset is usbAudio")
        #expect(out(info(formFactor: "headset")) == .headphones && inp(info(formFactor: "headset")) == .headsetMic)
        #expect(out(info(deviceClass: "monitor")) == .virtual && out(info(deviceClass: "abstract")) == .virtual)
        #expect(out(info("alsa_output.usb-foo", bus: "pci")) == .builtInSpeaker, "properties win over names")
        #expect(out(info("alsa_output.usb-foo", deviceClass: nil)) == .usbAudio, "names when nothing is reported")
        #expect(out(info("bluez_sink.00_11.a2dp_sink", deviceClass: nil)) == .bluetoothA2DP)
    }

    @Test("On ALSA the session watches the cards file: a card appearing posts newDeviceAvailable, one leaving oldDeviceUnavailable, each with the previous route")
    func alsaCardsWatched() throws {
        let root = try FakeALSATree()
        defer { root.remove() }
        let saved = ALSACardTree.current.withLock { $0 }
        ALSACardTree.current.withLock { $0 = root.tree }
        defer { ALSACardTree.current.withLock { $0 = saved } }
        // The selection must stay put while other suites run (a player test may switch it).
        SharedSessionTestLock.lock.lock()
        defer { SharedSessionTestLock.lock.unlock() }
        let session = AVAudioSession.sharedInstance()
        defer { try? session.setActive(false); try? session._setDeviceSelector(nil); try? session.setCategory(.soloAmbient) }
        try session._setDeviceSelector("alsa")
        try session.setCategory(.playback)
        try session.setActive(true)
        let routes = NotificationLog(AVAudioSession.routeChangeNotification)
        func reason(_ note: Notification) -> AVAudioSession.RouteChangeReason? {
            (note.userInfo?[AVAudioSessionRouteChangeReasonKey] as? NSNumber).flatMap { AVAudioSession.RouteChangeReason(rawValue: $0.uintValue) }
        }
        usleep(700_000)
        #expect(routes.items.isEmpty, "no change, no notification: \(routes.items.map { reason($0).map { "\($0)" } ?? "?" })")
        try root.writeCards(withThird: true)
        #expect(waitUntil(3) { routes.items.contains { reason($0) == .newDeviceAvailable } }, "no newDeviceAvailable after a card appeared")
        let added = routes.items.first { reason($0) == .newDeviceAvailable }
        #expect(added?.userInfo?[AVAudioSessionRouteChangePreviousRouteKey] is AVAudioSessionRouteDescription)
        #expect(added?.object as? AVAudioSession === session)
        try root.writeCards(withThird: false)
        #expect(waitUntil(3) { routes.items.contains { reason($0) == .oldDeviceUnavailable } }, "no oldDeviceUnavailable after a card left")
        #expect(routes.items.last?.userInfo?[AVAudioSessionRouteChangePreviousRouteKey] is AVAudioSessionRouteDescription)
        #expect(routes.items.count == 2, "\(routes.items.map { reason($0).map { "\($0)" } ?? "?" })")
        try session.setActive(false)
        let count = routes.items.count
        try root.writeCards(withThird: true)
        usleep(1_200_000)
        #expect(routes.items.count == count, "an inactive session is not watched")
    }
}

/// A fake /proc/asound and /sys/class/sound: card 0 an HDA-Intel on PCI (PCM 0 analog, PCM 3
/// HDMI), card 1 a USB-Audio device (usbid present), optionally card 2 (another USB device).
struct FakeALSATree {
    let directory: URL
    var tree: ALSACardTree { ALSACardTree(proc: directory.appendingPathComponent("proc").path, sys: directory.appendingPathComponent("sys").path) }

    init() throws {
        directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("avaudio-alsa-\(getpid())-\(UUID().uuidString.prefix(8))")
        let fm = FileManager.default
        func file(_ path: String, _ text: String) throws {
            let url = directory.appendingPathComponent(path)
            try fm.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try text.write(to: url, atomically: true, encoding: .utf8)
        }
        try file("proc/card0/pcm0p/info", "card: 0\ndevice: 0\nsubdevice: 0\nstream: PLAYBACK\nid: ALC892 Analog\nname: ALC892 Analog\nsubname: subdevice #0\n")
        try file("proc/card0/pcm0c/info", "card: 0\ndevice: 0\nsubdevice: 0\nstream: CAPTURE\nid: ALC892 Analog\nname: ALC892 Analog\nsubname: subdevice #0\n")
        try file("proc/card0/pcm3p/info", "card: 0\ndevice: 3\nsubdevice: 0\nstream: PLAYBACK\nid: HDMI 0\nname: HDMI 0\nsubname: subdevice #0\n")
        try file("proc/card1/usbid", "0d8c:0014\n")
        try fm.createDirectory(at: directory.appendingPathComponent("sys/card0/device"), withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: directory.appendingPathComponent("sys/card0/device/subsystem").path, withDestinationPath: "../../../../bus/pci")
        try writeCards(withThird: false)
    }

    func writeCards(withThird third: Bool) throws {
        var text = """
         0 [PCH            ]: HDA-Intel - HDA Intel PCH
                              HDA Intel PCH at 0xf7f10000 irq 32
         1 [Device         ]: USB-Audio - USB Audio Device
                              C-Media Electronics Inc. USB Audio Device at usb-0000:00:14.0-1, full speed

        """
        if third {
            text += """
             2 [Headset        ]: USB-Audio - USB Headset
                                  Logitech USB Headset at usb-0000:00:14.0-2, full speed

            """
        }
        try text.write(to: directory.appendingPathComponent("proc/cards"), atomically: true, encoding: .utf8)
    }

    func remove() { try? FileManager.default.removeItem(at: directory) }
}

// What the kernel says about ALSA's sound cards, read from procfs and sysfs (no libasound call):
// which cards exist, which bus each hangs on, and what the kernel calls a card's PCM devices.
//
//   /proc/asound/cards              one entry per card, two lines each:
//                                     " 0 [PCH            ]: HDA-Intel - HDA Intel PCH"
//                                     "                      HDA Intel PCH at 0xf7f10000 irq 32"
//                                   ("--- no soundcards ---" when there are none)
//   /proc/asound/cardN/usbid        present only for USB cards (snd-usb-audio writes it)
//   /sys/class/sound/cardN/device/subsystem   a link to the bus (…/bus/pci, …/bus/usb)
//   /proc/asound/cardN/pcmDp/info   (pcmDc for capture) "name: HDMI 0", "name: ALC892 Analog"
//
// The session watches the cards file for cards arriving and leaving (procfs sends no inotify
// events, so it is read again every half second; see AVAudioSession+Devices.swift). The roots
// are a value (`ALSACardTree`) so tests can point them at a fake tree (`ALSACardTree.current`).
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A sound card as /proc/asound/cards lists it.
public struct ALSACard: Sendable, Equatable, Hashable {
    /// The card number (`hw:N`).
    public var number: Int
    /// The card's id (`hw:CARD=ID`), e.g. `PCH`, `Device`.
    public var id: String
    /// The kernel driver's name for it: `HDA-Intel`, `USB-Audio`, `bcm2835_hdmi`…
    public var driver: String
    /// The card's short name.
    public var name: String
}

/// Where the card descriptions are read from (the real roots unless a test swaps them).
struct ALSACardTree: Sendable, Equatable {
    var proc = "/proc/asound"
    var sys = "/sys/class/sound"

    /// The tree enumeration and the session's watcher read (tests point it at a fake tree).
    static let current = Mutex(ALSACardTree())

    /// The cards file's text (nil when there is none: no ALSA in the kernel, or no procfs).
    func cardsText() -> String? { Self.read("\(proc)/cards") }

    /// The cards listed in the cards file (empty when none).
    func cards() -> [ALSACard] {
        guard let text = cardsText() else { return [] }
        return Self.parseCards(text)
    }

    /// Parses /proc/asound/cards (see the top of this file); lines that are not a card's first
    /// line are skipped.
    static func parseCards(_ text: String) -> [ALSACard] {
        var cards: [ALSACard] = []
        for line in text.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            let digits = trimmed.prefix { $0.isASCII && $0.isNumber }
            guard let number = Int(digits), let open = trimmed.firstIndex(of: "["),
                  let close = trimmed.firstIndex(of: "]"), open < close else { continue }
            let id = String(trimmed[trimmed.index(after: open)..<close]).trimmingWhitespace
            var rest = Substring(trimmed[trimmed.index(after: close)...])
            if rest.hasPrefix(":") { rest = rest.dropFirst() }
            let text = String(rest).trimmingWhitespace
            let driver: String, name: String
            let characters = Array(text)
            if let dash = (0..<max(0, characters.count - 2)).first(where: { characters[$0] == " " && characters[$0 + 1] == "-" && characters[$0 + 2] == " " }) {
                driver = String(characters[..<dash])
                name = String(characters[(dash + 3)...])
            } else {
                driver = text
                name = text
            }
            cards.append(ALSACard(number: number, id: id, driver: driver, name: name))
        }
        return cards
    }

    /// The bus card `number` hangs on: `usb` when the kernel gives it a USB id, else the last
    /// component of its sysfs device's subsystem link (`pci`, `usb`, `platform`…), else `usb`
    /// for the USB-Audio driver; nil when nothing says.
    func bus(card number: Int, driver: String? = nil) -> String? {
        if access("\(proc)/card\(number)/usbid", F_OK) == 0 { return "usb" }
        if let target = Self.readLink("\(sys)/card\(number)/device/subsystem"),
           let last = target.split(separator: "/").last { return String(last).lowercased() }
        if driver?.lowercased() == "usb-audio" { return "usb" }
        return nil
    }

    /// The kernel's name for PCM device `device` of card `number` (`name:` in pcmDp/info, or
    /// pcmDc for capture).
    func pcmName(card number: Int, device: Int, playback: Bool) -> String? {
        guard let text = Self.read("\(proc)/card\(number)/pcm\(device)\(playback ? "p" : "c")/info") else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("name:") {
            let value = String(line.dropFirst(5)).trimmingWhitespace
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// Fills `info`'s bus and active port from the card an ALSA PCM name addresses (`hw:0,3`,
    /// `plughw:CARD=PCH,DEV=3`, `hdmi:CARD=PCH,DEV=0`, `sysdefault:CARD=1`…). Names without a
    /// card (`default`, `pulse`, `null`) are left alone.
    func describe(_ info: inout AudioDeviceInfo, cards known: [ALSACard]) {
        guard let (plugin, card, device) = Self.address(ofPCM: info.id) else { return }
        guard let card, let entry = known.first(where: { String($0.number) == card || $0.id == card }) else { return }
        info.bus = bus(card: entry.number, driver: entry.driver)
        switch plugin {
        case "hw", "plughw":
            let number = device.flatMap { Int($0) } ?? 0
            info.activePort = (pcmName(card: entry.number, device: number, playback: info.outputChannels > 0 || info.inputChannels == 0)
                ?? pcmName(card: entry.number, device: number, playback: false))?.lowercased()
        case "hdmi", "iec958", "spdif":
            info.activePort = plugin
        default:
            break
        }
    }

    /// The plugin, card and device a PCM name with arguments addresses (`hw:0,3`,
    /// `plughw:CARD=PCH,DEV=3`, `sysdefault:CARD=PCH`: ALSA's `CARD`/`DEV` arguments, by name or
    /// in that order); nil for a name without arguments (`default`, `pulse`).
    static func address(ofPCM name: String) -> (plugin: String, card: String?, device: String?)? {
        guard let colon = name.firstIndex(of: ":") else { return nil }
        var card: String?, device: String?
        for (k, part) in name[name.index(after: colon)...].split(separator: ",").enumerated() {
            if let eq = part.firstIndex(of: "=") {
                let key = part[..<eq].uppercased(), value = String(part[part.index(after: eq)...]).trimmingCharacters("\"'")
                if key == "CARD" { card = value } else if key == "DEV" { device = value }
            } else if k == 0 { card = String(part).trimmingCharacters("\"'") }
            else if k == 1 { device = String(part) }
        }
        return (name[..<colon].lowercased(), card, device)
    }

    // MARK: Files

    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, 4096) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
            if bytes.count > 1 << 20 { break }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func readLink(_ path: String) -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink(path, &buffer, 4095)
        guard n > 0 else { return nil }
        return String(decoding: buffer[0..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

extension AudioDevices {
    /// The sound cards the kernel lists (/proc/asound/cards), empty when none (or no ALSA).
    public static func alsaCards() -> [ALSACard] {
        ALSACardTree.current.withLock { $0 }.cards()
    }
}

extension String {
    func trimmingCharacters(_ set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s.removeFirst() }
        while let l = s.last, set.contains(l) { s.removeLast() }
        return String(s)
    }
}

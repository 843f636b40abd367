// Custom SoundFont modulators in the form the voices evaluate them (SoundFont 2.04 §8.2–8.3,
// evaluated as FluidSynth 2.3's fluid_mod_get_value does): the source values, their 16 curves,
// and the per-voice sums added to the zone's generators.
//
// DESIGN NOTE
// -----------
// A region's modulator list (SoundBanks resolves it, §9.5) starts with the ten defaults. The
// engine applies the defaults itself (SamplerSynth.swift: per channel, shared by all voices);
// an entry equal to its default is left to that path, so a bank without modulators of its own
// renders exactly as before. An entry identical to a default but with another amount turns that
// default off for the zone (bit i of `PlayZone.disabledDefaults`) and is evaluated here like
// any other. One default is never custom: velocity → filter cutoff (FluidSynth 2.3 returns 0
// for every modulator identical to it, whatever its amount; measured in SamplerVoice).
//
// A voice evaluates its zone's list at note-on into `SamplerSynth.modulatorSums` (one Float per
// generator): every destination counts at note-on (envelope times, LFO rates, tuning, …);
// afterwards, when a channel's controllers, bend or pressure change (the channel's generation
// counter moves), the voice re-evaluates at its next control block and updates the
// destinations that can change while a note sounds: attenuation, pan, pitch (coarse/fine tune),
// filter cutoff and Q, the LFO and envelope depths, the reverb and chorus sends. Records are stored so that a record feeding
// another (a link) comes before it; a link's input is the sum of the outputs feeding it, used
// as the primary source's value as it is (the spec gives no mapping for it).
import SoundBanks

/// One modulator, ready to evaluate.
public struct PlayModulator {
    /// Source and amount source: index (CC number or general-controller index) and FluidSynth's
    /// flags (bit 0 negative, bit 1 bipolar, bits 2–3 curve, bit 4 MIDI CC).
    public var source: UInt8 = 0, sourceFlags: UInt8 = 0, amountSource: UInt8 = 0, amountFlags: UInt8 = 0
    /// Destination generator (0 …< 60), or −1 − k: the link input of record k of the same zone.
    public var destination: Int16 = 0
    public var amount: Float = 0
    /// §8.3 transform 2: the output's absolute value.
    public var absolute = false
    /// The primary source is a link (its value is the link input).
    public var linked = false
    public init() {}

    static let ccFlag: UInt8 = 16

    /// FluidSynth's flags for a SoundFont source operator.
    static func flags(_ op: UInt16) -> UInt8 {
        UInt8((op >> 8) & 3) | UInt8(((op >> 10) & 3) << 2) | (op & 0x80 != 0 ? ccFlag : 0)
    }
}

/// Builds a zone's custom list from a region's resolved list: (records, disabled defaults,
/// whether a record drives the filter). Records reordered so a link's sources come first.
func customModulators(_ list: ArraySlice<SF2Modulator>) -> ([PlayModulator], UInt16, Bool) {
    let resolved = Array(list)
    var disabled: UInt16 = 0
    var chosen: [Int] = []
    for (i, m) in resolved.enumerated() {
        if i < SF2Modulator.defaults.count && m.isIdentical(to: SF2Modulator.defaults[i]) {
            // velocity → cutoff: never custom (see the design note)
            if i == 1 { continue }
            if m.amount == SF2Modulator.defaults[i].amount { continue }
            disabled |= 1 << UInt16(i)
        }
        if m.linkTarget == nil && !SF2Modulator.modulatable(Int(m.destination)) { continue }
        chosen.append(i)
    }
    // order: a record after every record linking into it (the lists are acyclic: SoundBanks checked them)
    var order: [Int] = []
    var placed = Set<Int>()
    var remaining = chosen
    while !remaining.isEmpty {
        var progress = false
        remaining.removeAll { i in
            let feeders = chosen.filter { resolved[$0].linkTarget == i }
            if feeders.allSatisfy({ placed.contains($0) }) { order.append(i); placed.insert(i); progress = true; return true }
            return false
        }
        if !progress { break }   // (cannot happen for a checked list; whatever is left is dropped)
    }
    var position = [Int: Int]()
    for (k, i) in order.enumerated() { position[i] = k }
    var out: [PlayModulator] = []
    var filter = false
    for i in order {
        let m = resolved[i]
        var p = PlayModulator()
        p.source = UInt8(m.source & 0x7F); p.sourceFlags = PlayModulator.flags(m.source)
        p.amountSource = UInt8(m.amountSource & 0x7F); p.amountFlags = PlayModulator.flags(m.amountSource)
        p.amount = Float(m.amount)
        p.absolute = m.transform == 2
        p.linked = m.sourceIsLink
        if let t = m.linkTarget {
            guard let k = position[t] else { continue }
            p.destination = Int16(-1 - k)
        } else {
            p.destination = Int16(m.destination)
            if (8...11).contains(Int(m.destination)) { filter = true }
        }
        out.append(p)
    }
    return (out, disabled, filter)
}

// SoundFont 2.04 modulators (§8.2–8.4, §9.5): checking one zone's records, and building the
// modulator list a voice plays with.
//
// DESIGN NOTE
// -----------
// * One zone's records are checked as FluidSynth 2.3 checks them (our reference renderer), and
//   as §8.2 says where FluidSynth has nothing to say: a primary source that is "no controller",
//   a general-controller index the spec does not define, a MIDI CC the spec reserves (0, 6, 32,
//   38, 98–101, 120–127), a destination outside the generators or naming a generator no
//   modulator may drive (the terminal and range generators, unused numbers) — the record is
//   dropped. A curve type above 3 or a transform other than linear (0) or absolute value (2)
//   leaves the record in place with amount 0 (it can still replace a default by identity), as
//   FluidSynth does for the curve. A later record identical to an earlier one of the same zone
//   is dropped (§9.5.1: only the first counts).
// * Links (§8.2.2: destination bit 15, the target's primary source "link", index 127): a link
//   must name another record of the same zone whose source is a link; records forming a cycle,
//   linking to a dropped record, or whose link source no record feeds, are dropped (the spec
//   forbids closed loops; nothing feeds an unfed link, so it would only ever output 0). Links
//   are renumbered into the final list. FluidSynth 2.3 does not play links (it drops them); we
//   follow the spec, so a linked chain is tested against hand-computed values, not FluidSynth.
// * The voice's list (§9.5): the ten defaults; the instrument's local zone's records, then its
//   global zone's records that no local record is identical to, each replacing an identical
//   entry or appended ("identical modulator" rule); then the preset's (local, then global not
//   overridden) added: an identical entry's amount grows by the preset's, else appended. Linked
//   records never replace or merge (identity for a chain member is not defined by the spec).
//   At most 64 entries, FluidSynth's per-voice limit.

extension SF2Modulator {
    /// The general-controller indices §8.2.1 defines as sources (0 no controller, 2 velocity,
    /// 3 key, 10 poly pressure, 13 channel pressure, 14 pitch wheel, 16 wheel sensitivity, 127 link).
    static func validGeneralSource(_ index: Int) -> Bool { [0, 2, 3, 10, 13, 14, 16, 127].contains(index) }
    /// MIDI CCs a modulator may not use (§8.2.1; FluidSynth's `fluid_mod_check_cc_source`).
    static func reservedCC(_ index: Int) -> Bool { index == 0 || index == 6 || index == 32 || index == 38 || (98...101).contains(index) || index >= 120 }
    /// Generators a modulator may drive: every generator 0 … 59 except the unused numbers, the
    /// terminal generators (instrument, sampleID), the ranges and `endOper`.
    public static func modulatable(_ g: Int) -> Bool {
        g >= 0 && g < SF2Generator.count && ![14, 18, 19, 20, 41, 42, 43, 44, 49, 53, 55, 59].contains(g)
    }

    static func sourceValid(_ op: UInt16, primary: Bool) -> Bool {
        let i = index(op)
        if isCC(op) { return !reservedCC(i) }
        if !validGeneralSource(i) { return false }
        if primary && i == 0 { return false }        // "no controller" as primary source: the output is always 0
        if !primary && i == 127 { return false }     // a link feeds only a primary source
        return true
    }

    /// One zone's records, checked (see the design note); link destinations renumbered into the result.
    public static func checkedZoneList(_ rawRecords: [SF2Modulator]) -> [SF2Modulator] {
        // (a hostile zone may list thousands; the checks below are quadratic, and no voice plays more than 64)
        let raw = Array(rawRecords.prefix(maximumPerZone))
        var keep = [Bool](repeating: true, count: raw.count)
        var mods = raw
        for (i, m) in raw.enumerated() {
            if !sourceValid(m.source, primary: true) || !sourceValid(m.amountSource, primary: false) { keep[i] = false; continue }
            if let t = m.linkTarget {
                if t >= raw.count || t == i || !raw[t].sourceIsLink || isCC(raw[t].source) { keep[i] = false; continue }
            } else if !modulatable(Int(m.destination)) { keep[i] = false; continue }
            if curve(m.source) > 3 || curve(m.amountSource) > 3 || (m.transform != 0 && m.transform != 2) { mods[i].amount = 0 }
            // (identical to an earlier kept record of this zone: the first counts)
            for j in 0..<i where keep[j] && raw[j].isIdentical(to: m) && m.linkTarget == nil && !m.sourceIsLink { keep[i] = false; break }
        }
        // Links: drop cycles, links into dropped records, and link sources nothing feeds, until stable.
        var changed = true
        while changed {
            changed = false
            for i in mods.indices where keep[i] {
                let m = mods[i]
                if let t = m.linkTarget {
                    if !keep[t] { keep[i] = false; changed = true; continue }
                    // follow the chain; a chain longer than the list is a cycle. A record further
                    // down may link past the list (dropped above, but still in `mods`): the walk
                    // stops there, and the passes that follow drop the chain from its end back
                    // (the sf2 target's finding of 2026-12-08: the walk indexed past the list).
                    var node = t, steps = 0
                    while let next = mods[node].linkTarget, next < mods.count, steps <= mods.count { node = next; steps += 1 }
                    if steps > mods.count { keep[i] = false; changed = true; continue }
                }
                if m.sourceIsLink && !isCC(m.source) {
                    let fed = mods.indices.contains { keep[$0] && mods[$0].linkTarget == i }
                    if !fed { keep[i] = false; changed = true }
                }
            }
        }
        var newIndex = [Int](repeating: -1, count: mods.count)
        var out: [SF2Modulator] = []
        for i in mods.indices where keep[i] { newIndex[i] = out.count; out.append(mods[i]) }
        for k in out.indices { if let t = out[k].linkTarget { out[k].destination = 0x8000 | UInt16(newIndex[t]) } }
        return out
    }

    /// A zone's records over its global zone's (§9.5.1): the local records, then the global
    /// records no local record is identical to.
    public static func zoneList(global: [SF2Modulator], local: [SF2Modulator]) -> [SF2Modulator] {
        var out = local
        var mapping = [Int](repeating: -1, count: global.count)
        for (i, g) in global.enumerated() {
            let chained = g.linkTarget != nil || g.sourceIsLink
            if !chained && local.contains(where: { $0.isIdentical(to: g) && $0.linkTarget == nil && !$0.sourceIsLink }) { continue }
            mapping[i] = out.count
            out.append(g)
        }
        for (i, g) in global.enumerated() where mapping[i] >= 0 {
            if let t = g.linkTarget {
                // (a link target is a link-source record, never dropped by identity)
                out[mapping[i]].destination = 0x8000 | UInt16(mapping[t])
            }
        }
        return out
    }

    /// Records read per zone (more are ignored).
    public static let maximumPerZone = 128
    /// Largest voice list (FluidSynth's FLUID_NUM_MOD).
    public static let maximumPerVoice = 64

    /// The voice list: the defaults, the instrument's list replacing identical entries, the
    /// preset's list adding to identical entries (§9.5).
    public static func voiceList(instrument: [SF2Modulator], preset: [SF2Modulator]) -> [SF2Modulator] {
        var out = defaults
        func merge(_ list: [SF2Modulator], adding: Bool) {
            var mapping = [Int](repeating: -1, count: list.count)
            for (i, m) in list.enumerated() {
                let chained = m.linkTarget != nil || m.sourceIsLink
                if !chained, let j = out.firstIndex(where: { $0.isIdentical(to: m) && $0.linkTarget == nil && !$0.sourceIsLink }) {
                    if adding {
                        out[j].amount = Int16(clamping: Int(out[j].amount) + Int(m.amount))
                    } else {
                        out[j].amount = m.amount
                    }
                    mapping[i] = j
                    continue
                }
                guard out.count < maximumPerVoice else { continue }
                mapping[i] = out.count
                out.append(m)
            }
            // renumber links; a chain cut by the size limit loses its feeding records
            for (i, m) in list.enumerated() where mapping[i] >= 0 {
                guard let t = m.linkTarget else { continue }
                if mapping[t] >= 0 { out[mapping[i]].destination = 0x8000 | UInt16(mapping[t]) } else { out[mapping[i]].amount = 0; out[mapping[i]].destination = 14 }
            }
        }
        merge(instrument, adding: false)
        merge(preset, adding: true)
        return out
    }
}

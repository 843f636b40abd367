// Reading a SoundFont 2 file (RIFF 'sfbk'): the chunk walk, the INFO, sdta and pdta lists, and the
// checks that keep a hostile file from making the reader trap or allocate without bound. Every
// count is derived from a chunk's size, which is checked against the bytes present, so the
// largest allocation is proportional to the file (the regions are capped separately:
// `SoundFont.maximumRegions`). Errors name the chunk and its byte offset.
//
// Zone rules (SoundFont 2.04 §7.3–7.9, §9.4), as FluidSynth also applies them:
// * a zone's generators end at its terminal generator (`instrument` in a preset zone, `sampleID`
//   in an instrument zone); generators after it are ignored;
// * the first zone of a preset or instrument without a terminal generator is its global zone;
//   other zones without one are ignored;
// * a local zone's generator replaces the global zone's value; preset values are added to the
//   instrument's (except key and velocity ranges, which intersect, and the generators a preset
//   may not set, which are ignored).

extension SoundFont {
    /// Parses a whole file's bytes.
    public static func parse(_ bytes: UnsafeRawBufferPointer) throws -> SoundFont {
        var reader = SF2Reader(bytes: bytes, readSamples: nil)
        return try reader.read()
    }

    /// Parses a whole file's bytes, taking the 16-bit sample data from `readSamples` instead of
    /// `bytes`: it fills its buffer with the file's bytes at the given offset and returns whether
    /// it could (false: the file ended early, an error naming the `smpl` chunk). The caller that
    /// maps a file reads the sample data with a positional read straight into the pool, so the
    /// largest part of a bank never passes through the mapping (no page faults on it) and the pool
    /// is a private copy (a bank file replaced or truncated afterwards changes nothing).
    public static func parse(_ bytes: UnsafeRawBufferPointer,
                             readSamples: (_ fileOffset: Int, _ into: UnsafeMutableRawBufferPointer) -> Bool) throws -> SoundFont {
        try withoutActuallyEscaping(readSamples) { reader in
            var r = SF2Reader(bytes: bytes, readSamples: reader)
            return try r.read()
        }
    }

    /// Parses a whole file's bytes.
    public static func parse(_ bytes: [UInt8]) throws -> SoundFont {
        try bytes.withUnsafeBytes { try parse($0) }
    }
}

private struct Chunk {
    var id: String
    var offset: Int   // of the chunk header
    var data: Range<Int>
}

private struct SF2Reader: LittleEndianFields {
    let bytes: UnsafeRawBufferPointer
    let readSamples: ((Int, UnsafeMutableRawBufferPointer) -> Bool)?

    init(bytes: UnsafeRawBufferPointer, readSamples: ((Int, UnsafeMutableRawBufferPointer) -> Bool)?) {
        self.bytes = bytes
        self.readSamples = readSamples
    }

    /// A fixed-size, zero-terminated name.
    func name(_ o: Int, _ length: Int) -> String {
        var chars: [UInt8] = []
        for i in 0..<length {
            let b = bytes[o + i]
            if b == 0 { break }
            chars.append((32...126).contains(b) ? b : 63)
        }
        return String(decoding: chars, as: UTF8.self).trimmingSpaces()
    }

    func fail(_ chunk: String, _ offset: Int, _ reason: String) -> SoundBankError {
        SoundBankError(chunk: chunk, offset: offset, reason: reason)
    }

    /// The chunks inside `range` (an odd-sized chunk is followed by a pad byte).
    func chunks(in range: Range<Int>, parent: String) throws -> [Chunk] {
        var result: [Chunk] = []
        var o = range.lowerBound
        while o + 8 <= range.upperBound {
            let id = fourCC(o)
            let size = Int(u32(o + 4))
            guard size <= range.upperBound - (o + 8) else {
                throw fail(id, o, "its size (\(size) bytes) runs past the end of its '\(parent)' list (\(range.upperBound - o - 8) bytes left)")
            }
            result.append(Chunk(id: id, offset: o, data: (o + 8)..<(o + 8 + size)))
            o += 8 + size
            // RIFF pads an odd-sized chunk with a byte; MuseScore's SF3 writer does not (its
            // `smpl` of Ogg streams is often odd-sized, and the lists holding it too), and
            // FluidSynth reads those banks. So the pad is skipped unless the byte where it would
            // be starts a chunk header (four printable ASCII bytes and a size that fits) and the
            // byte after does not.
            if size & 1 == 1 && !(looksLikeChunk(o, before: range.upperBound) && !looksLikeChunk(o + 1, before: range.upperBound)) { o += 1 }
        }
        return result
    }

    /// Whether a chunk header fits at `o` (before `end`): four printable ASCII bytes and a size
    /// within what is left.
    func looksLikeChunk(_ o: Int, before end: Int) -> Bool {
        guard o + 8 <= end else { return false }
        for i in 0..<4 where !(0x20...0x7E).contains(bytes[o + i]) { return false }
        return Int(u32(o + 4)) <= end - (o + 8)
    }

    mutating func read() throws -> SoundFont {
        guard bytes.count >= 12, fourCC(0) == "RIFF" else { throw fail("RIFF", 0, "not a RIFF file") }
        guard fourCC(8) == "sfbk" else { throw fail("RIFF", 0, "the RIFF form is '\(fourCC(8))', not 'sfbk' (not a SoundFont 2 bank)") }
        let riffSize = Int(u32(4))
        let end = min(bytes.count, 8 + riffSize)
        guard riffSize >= 4 else { throw fail("RIFF", 0, "its size (\(riffSize)) is too small") }
        let top = try chunks(in: 12..<end, parent: "sfbk")
        func list(_ type: String) throws -> Chunk {
            guard let c = top.first(where: { $0.id == "LIST" && $0.data.count >= 4 && fourCC($0.data.lowerBound) == type }) else {
                throw fail(type, 12, "the '\(type)' list is missing")
            }
            return c
        }
        let font = SoundFont()
        let info = try list("INFO")
        for c in try chunks(in: (info.data.lowerBound + 4)..<info.data.upperBound, parent: "INFO") {
            if c.id == "ifil", c.data.count >= 4 { font.version = (Int(u16(c.data.lowerBound)), Int(u16(c.data.lowerBound + 2))) }
            if c.id == "INAM" { font.name = name(c.data.lowerBound, min(c.data.count, 256)) }
        }
        let sdta = try list("sdta")
        let sdtaChunks = try chunks(in: (sdta.data.lowerBound + 4)..<sdta.data.upperBound, parent: "sdta")
        let smpl = sdtaChunks.first { $0.id == "smpl" }
        let sm24 = sdtaChunks.first { $0.id == "sm24" }
        var pointCount = (smpl?.data.count ?? 0) / 2
        // Samples: 16-bit little-endian; sm24 (ifil 2.04) adds a low byte per point when its size matches.
        let use24 = sm24.map { $0.data.count >= pointCount && font.version.major >= 2 && (font.version.major > 2 || font.version.minor >= 4) } ?? false
        font.has24BitSamples = use24
        if use24, let smpl, let sm24 {
            // 24-bit points: converted to Float straight into the pool the instrument plays from.
            let (pool, mapped) = PoolMemory.allocate(Float.self, count: pointCount + SoundFont.guardFrames)
            (pool.baseAddress! + pointCount).initialize(repeating: 0, count: SoundFont.guardFrames)
            font.pool = .float32(pool)
            font.poolIsMapped = mapped
            let out = pool.baseAddress!
            let pcm = bytes.baseAddress! + smpl.data.lowerBound
            let low = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self) + sm24.data.lowerBound
            let scale = Float(1) / 8_388_608
            for i in 0..<pointCount {
                let v = Int32(Int16(littleEndian: pcm.loadUnaligned(fromByteOffset: 2 * i, as: Int16.self))) << 8 | Int32(low[i])
                out[i] = Float(v) * scale
            }
        } else {
            // 16-bit points: the file's bytes are the pool (little-endian Int16), read or copied
            // once into their final place.
            // An odd-sized chunk (SF3: Ogg streams, byte-sized) keeps its last byte too.
            let byteCount = smpl?.data.count ?? 0
            let held = (byteCount + 1) / 2
            let (pool, mapped) = PoolMemory.allocate(Int16.self, count: held + SoundFont.guardFrames)
            (pool.baseAddress! + pointCount).initialize(repeating: 0, count: held - pointCount + SoundFont.guardFrames)
            font.pool = .int16(pool)
            font.poolIsMapped = mapped
            let raw = UnsafeMutableRawBufferPointer(start: pool.baseAddress!, count: byteCount)
            if let smpl, pointCount > 0 {
                if let readSamples {
                    guard readSamples(smpl.data.lowerBound, raw) else {
                        throw fail("smpl", smpl.offset, "its \(byteCount) bytes of sample data could not be read (the file ended early)")
                    }
                } else {
                    raw.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[smpl.data.lowerBound ..< smpl.data.lowerBound + byteCount]))
                }
                #if _endian(big)
                for i in 0..<pointCount { pool[i] = Int16(littleEndian: pool[i]) }
                #endif
            } else {
                raw.initializeMemory(as: UInt8.self, repeating: 0)
            }
        }

        let pdta = try list("pdta")
        let pdtaChunks = try chunks(in: (pdta.data.lowerBound + 4)..<pdta.data.upperBound, parent: "pdta")
        func records(_ id: String, size: Int, minimum: Int) throws -> (Chunk, Int) {
            guard let c = pdtaChunks.first(where: { $0.id == id }) else { throw fail(id, pdta.offset, "the '\(id)' chunk is missing from 'pdta'") }
            guard c.data.count % size == 0 else {
                throw fail(id, c.offset, "its size (\(c.data.count) bytes) is not a multiple of its \(size)-byte records")
            }
            let n = c.data.count / size
            guard n >= minimum else { throw fail(id, c.offset, "it holds \(n) records; at least \(minimum) are required (the last is the terminal record)") }
            return (c, n)
        }
        let (phdr, presetCount) = try records("phdr", size: 38, minimum: 2 - 1)
        let (pbag, pbagCount) = try records("pbag", size: 4, minimum: 1)
        let (pmod, pmodCount) = try records("pmod", size: 10, minimum: 0)
        let (pgen, pgenCount) = try records("pgen", size: 4, minimum: 0)
        let (inst, instCount) = try records("inst", size: 22, minimum: 1)
        let (ibag, ibagCount) = try records("ibag", size: 4, minimum: 1)
        let (imod, imodCount) = try records("imod", size: 10, minimum: 0)
        let (igen, igenCount) = try records("igen", size: 4, minimum: 0)
        let (shdr, shdrCount) = try records("shdr", size: 46, minimum: 1)

        // Sample headers (the last is the terminal "EOS" record).
        var headers: [SF2Sample] = []
        headers.reserveCapacity(shdrCount - 1)
        for i in 0..<(shdrCount - 1) {
            let o = shdr.data.lowerBound + 46 * i
            headers.append(SF2Sample(name: name(o, 20), start: Int(u32(o + 20)), end: Int(u32(o + 24)),
                                     loopStart: Int(u32(o + 28)), loopEnd: Int(u32(o + 32)),
                                     sampleRate: Double(u32(o + 36)), originalPitch: Int(u8(o + 40)),
                                     pitchCorrection: Int(Int8(bitPattern: u8(o + 41))), sampleType: u16(o + 44),
                                     link: Int(u16(o + 42))))
        }
        // SF3: compressed samples decoded into a new pool (SoundFont+SF3.swift).
        if !use24, headers.contains(where: SoundFont.isCompressed) {
            let result = font.decodeCompressedSamples(&headers, byteCount: smpl?.data.count ?? 0)
            pointCount = result.pointCount
            font.warnings += result.warnings
        }
        font.sampleHeaders = headers

        // Bags: each record's generator index must not decrease and must stay inside the generator list.
        func checkBags(_ bag: Chunk, _ count: Int, generators: Int, genID: String) throws {
            var previous = 0
            for i in 0..<count {
                let o = bag.data.lowerBound + 4 * i
                let g = Int(u16(o))
                guard g >= previous, g <= generators else {
                    throw fail(bag.id, o, "bag \(i) starts at generator \(g), outside \(previous) … \(generators) of '\(genID)'")
                }
                previous = g
            }
        }
        try checkBags(pbag, pbagCount, generators: pgenCount, genID: "pgen")
        try checkBags(ibag, ibagCount, generators: igenCount, genID: "igen")
        /// A bag's modulator records (`pmod`/`imod` from this bag's index to the next's), checked
        /// (SoundFont+Modulators.swift). Indices out of order or past the list give no records:
        /// FluidSynth reads such a bank too, and the modulators are the part it can do without.
        func modulators(_ bag: Chunk, _ b: Int, _ mod: Chunk, _ modCount: Int) -> [SF2Modulator] {
            let bo = bag.data.lowerBound + 4 * b
            let m0 = Int(u16(bo + 2)), m1 = min(Int(u16(bo + 6)), modCount)
            guard m0 < m1 else { return [] }
            var raw: [SF2Modulator] = []
            raw.reserveCapacity(m1 - m0)
            for i in m0..<m1 {
                let o = mod.data.lowerBound + 10 * i
                raw.append(SF2Modulator(source: u16(o), destination: u16(o + 2), amount: i16(o + 4), amountSource: u16(o + 6), transform: u16(o + 8)))
            }
            return SF2Modulator.checkedZoneList(raw)
        }

        /// One zone's generators: (values set, key range, vel range, terminal index or nil).
        struct Zone {
            var set = [Int32?](repeating: nil, count: SF2Generator.count)
            var keys: ClosedRange<Int> = 0...127
            var vels: ClosedRange<Int> = 0...127
            var terminal: Int?
            var modulators: [SF2Modulator] = []
        }
        func zone(_ gen: Chunk, from: Int, to: Int, terminalID: Int) -> Zone {
            var z = Zone()
            var i = from
            while i < to {
                let o = gen.data.lowerBound + 4 * i
                let op = Int(u16(o))
                if op == SF2Generator.keyRange {
                    let lo = Int(u8(o + 2)), hi = Int(u8(o + 3))
                    z.keys = min(lo, 127)...max(min(hi, 127), min(lo, 127))
                } else if op == SF2Generator.velRange {
                    let lo = Int(u8(o + 2)), hi = Int(u8(o + 3))
                    z.vels = min(lo, 127)...max(min(hi, 127), min(lo, 127))
                } else if op == terminalID {
                    z.terminal = Int(u16(o + 2))
                    break
                } else if op < SF2Generator.count {
                    z.set[op] = Int32(i16(o + 2))
                }
                i += 1
            }
            return z
        }
        /// The zones of record `index` of a header list (bag range from this header to the next).
        func zones(headerChunk: Chunk, headerSize: Int, bagOffset: Int, index: Int, bag: Chunk, bagCount: Int,
                   gen: Chunk, genCount: Int, terminalID: Int, mod: Chunk, modCount: Int) throws -> (global: Zone?, locals: [Zone]) {
            let o = headerChunk.data.lowerBound + headerSize * index
            let first = Int(u16(o + bagOffset)), next = Int(u16(o + headerSize + bagOffset))
            guard first <= next, next <= bagCount - 1 else {
                throw fail(headerChunk.id, o, "record \(index) uses bags \(first) ..< \(next), outside the \(bagCount - 1) zones of '\(bag.id)'")
            }
            var global: Zone?
            var locals: [Zone] = []
            for b in first..<next {
                let bo = bag.data.lowerBound + 4 * b
                let g0 = Int(u16(bo)), g1 = Int(u16(bo + 4))
                var z = zone(gen, from: g0, to: min(g1, genCount), terminalID: terminalID)
                z.modulators = modulators(bag, b, mod, modCount)
                if z.terminal == nil {
                    if b == first { global = z }
                } else {
                    locals.append(z)
                }
            }
            return (global, locals)
        }

        // Instruments, resolved once: absolute values per zone (global then local).
        struct ResolvedZone { var values: [Int32]; var keys: ClosedRange<Int>; var vels: ClosedRange<Int>; var sample: Int; var modulators: [SF2Modulator] }
        var instruments: [[ResolvedZone]] = []
        instruments.reserveCapacity(instCount - 1)
        for i in 0..<(instCount - 1) {
            let (global, locals) = try zones(headerChunk: inst, headerSize: 22, bagOffset: 20, index: i, bag: ibag, bagCount: ibagCount,
                                             gen: igen, genCount: igenCount, terminalID: SF2Generator.sampleID,
                                             mod: imod, modCount: imodCount)
            var resolved: [ResolvedZone] = []
            for z in locals {
                guard let s = z.terminal, s < headers.count else { continue }
                let h = headers[s]
                // ROM samples (bit 15) are not in the file; compressed ones (SF3, bit 4) were
                // decoded above, and those left have an empty range.
                if h.sampleType & 0x8000 != 0 || h.sampleType & 0x10 != 0 { continue }
                guard h.start < h.end, h.end <= pointCount, h.sampleRate > 0 else { continue }
                var values = SF2Generator.defaults
                var keys = 0...127, vels = 0...127
                if let global {
                    for g in 0..<SF2Generator.count { if let v = global.set[g] { values[g] = v } }
                    keys = global.keys; vels = global.vels
                }
                for g in 0..<SF2Generator.count { if let v = z.set[g] { values[g] = v } }
                if z.keys != 0...127 || global == nil { keys = z.keys }
                if z.vels != 0...127 || global == nil { vels = z.vels }
                let mods = SF2Modulator.zoneList(global: global?.modulators ?? [], local: z.modulators)
                resolved.append(ResolvedZone(values: values, keys: keys, vels: vels, sample: s, modulators: mods))
            }
            instruments.append(resolved)
        }

        // Presets: every preset zone × the zones of its instrument that overlap it.
        var presets: [SF2Preset] = []
        var regions: [SF2Region] = []
        var generators: [Int32] = []
        var modulatorLists: [SF2Modulator] = []
        /// Regions with equal lists share one stored copy (most banks have none of their own).
        var listCache: [[SF2Modulator]: Range<Int>] = [:]
        for p in 0..<(presetCount - 1) {
            let o = phdr.data.lowerBound + 38 * p
            let (global, locals) = try zones(headerChunk: phdr, headerSize: 38, bagOffset: 24, index: p, bag: pbag, bagCount: pbagCount,
                                             gen: pgen, genCount: pgenCount, terminalID: SF2Generator.instrument,
                                             mod: pmod, modCount: pmodCount)
            let first = regions.count
            for z in locals {
                guard let instrument = z.terminal, instrument < instruments.count else { continue }
                var add = [Int32](repeating: 0, count: SF2Generator.count)
                var keys = 0...127, vels = 0...127
                if let global {
                    for g in 0..<SF2Generator.count { if let v = global.set[g] { add[g] = v } }
                    keys = global.keys; vels = global.vels
                }
                for g in 0..<SF2Generator.count { if let v = z.set[g] { add[g] = v } }
                if z.keys != 0...127 || global == nil { keys = z.keys }
                if z.vels != 0...127 || global == nil { vels = z.vels }
                let presetMods = SF2Modulator.zoneList(global: global?.modulators ?? [], local: z.modulators)
                for iz in instruments[instrument] {
                    let k = max(keys.lowerBound, iz.keys.lowerBound)...max(min(keys.upperBound, iz.keys.upperBound), max(keys.lowerBound, iz.keys.lowerBound))
                    let v = max(vels.lowerBound, iz.vels.lowerBound)...max(min(vels.upperBound, iz.vels.upperBound), max(vels.lowerBound, iz.vels.lowerBound))
                    guard keys.overlaps(iz.keys), vels.overlaps(iz.vels) else { continue }
                    guard regions.count < SoundFont.maximumRegions else {
                        throw fail("pbag", pbag.offset, "the presets' zones cross into more than \(SoundFont.maximumRegions) regions")
                    }
                    let base = generators.count
                    for g in 0..<SF2Generator.count {
                        generators.append(SF2Generator.allowedInPreset(g) ? iz.values[g] &+ add[g] : iz.values[g])
                    }
                    let list = SF2Modulator.voiceList(instrument: iz.modulators, preset: presetMods)
                    let range: Range<Int>
                    if let cached = listCache[list] { range = cached } else {
                        range = modulatorLists.count..<(modulatorLists.count + list.count)
                        modulatorLists += list
                        listCache[list] = range
                    }
                    regions.append(SF2Region(keyLow: UInt8(k.lowerBound), keyHigh: UInt8(k.upperBound),
                                             velLow: UInt8(v.lowerBound), velHigh: UInt8(v.upperBound),
                                             sampleIndex: iz.sample, generatorBase: base, modulators: range))
                }
            }
            presets.append(SF2Preset(name: name(o, 20), bank: Int(u16(o + 22)), program: Int(u16(o + 20)),
                                     firstRegion: first, regionCount: regions.count - first))
        }
        font.presets = presets
        font.regions = regions
        font.generators = generators
        font.modulators = modulatorLists
        return font
    }
}

private extension String {
    func trimmingSpaces() -> String {
        var s = Substring(self)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}

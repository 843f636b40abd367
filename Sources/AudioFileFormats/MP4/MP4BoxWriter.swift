// ISO base media boxes written (ISO/IEC 14496-12): the byte-level helpers and the `moov` of one
// audio track, rebuilt whole from the packet list each time MP4PacketFileWriter needs it.
//
// The movie is the smallest one every reader expects (the box order is the one §6.2.3
// recommends and ffmpeg's and Apple's writers use):
//
//     moov ─ mvhd
//          └ trak ─ tkhd
//                 └ mdia ─ mdhd, hdlr 'soun'
//                        └ minf ─ smhd, dinf/dref/'url ' (data in this file)
//                               └ stbl ─ stsd (one sample entry), stts, stsc, stsz, stco | co64
//
// Timescales: both the movie's and the media's are the sample rate (a whole number of Hz, which
// the writer requires), so every duration is a frame count and the length is exact — no edit
// list is needed for lossless codecs, which have no priming; the last packet's shorter duration
// is its own `stts` entry. (Apple's M4A files from afconvert use the sample rate as both
// timescales too; ffmpeg uses 1000 for the movie's, which only rounds `mvhd`'s duration.)
// Durations past 2^32 − 1 ticks switch `mvhd`, `tkhd` and `mdhd` to version 1 (64-bit fields).
//
// Chunks: packets are grouped `packetsPerChunk` to a chunk (the last chunk may hold fewer), so
// `stsc` has at most two entries and the chunk-offset table grows by one entry per chunk. Offsets
// are 32-bit (`stco`) until one passes 2^32 − 1, then the whole table is 64-bit (`co64`).

/// Big-endian box assembly. `box` writes a box's header with its size filled in after its body.
struct MP4BoxBuilder {
    var w = ByteWriter(bigEndian: true, capacity: 1024)
    var bytes: [UInt8] { w.bytes }

    /// Appends a box of `type` whose body `body` writes; its 32-bit size is patched afterwards.
    mutating func box(_ type: String, _ body: (inout MP4BoxBuilder) -> Void) {
        let start = w.bytes.count
        w.u32(0)
        w.fourCC(type)
        body(&self)
        let size = UInt32(w.bytes.count - start)
        for i in 0..<4 { w.bytes[start + i] = UInt8(truncatingIfNeeded: size >> UInt32(24 - 8 * i)) }
    }

    /// A full box (§4.2.2): version and flags before the body.
    mutating func fullBox(_ type: String, version: UInt8 = 0, flags: UInt32 = 0, _ body: (inout MP4BoxBuilder) -> Void) {
        box(type) { b in
            b.w.u32(UInt32(version) << 24 | (flags & 0xFF_FFFF))
            body(&b)
        }
    }

    mutating func u16(_ v: Int) { w.uint(UInt64(truncatingIfNeeded: v), 2) }
    mutating func u32(_ v: UInt32) { w.u32(v) }
    mutating func u64(_ v: UInt64) { w.u64(v) }
    mutating func fourCC(_ s: String) { w.fourCC(s) }
    mutating func zeros(_ n: Int) { w.zeros(n) }
    mutating func append(_ bytes: [UInt8]) { w.append(bytes) }

    /// A table of big-endian integers in one copy (the `moov` is rebuilt after every write, so
    /// its per-packet tables are copied whole rather than written entry by entry).
    mutating func appendBigEndian<T: FixedWidthInteger>(_ values: [T]) {
        values.map { $0.bigEndian }.withUnsafeBytes { w.bytes.append(contentsOf: $0) }
    }

    /// The unity matrix of `mvhd` and `tkhd` (§8.2.2: { 0x00010000,0,0, 0,0x00010000,0, 0,0,0x40000000 }).
    mutating func unityMatrix() {
        for v: UInt32 in [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] { w.u32(v) }
    }
}

/// What `moov` describes: the stream and its packets.
struct MP4TrackDescription {
    /// The sample entry's type ('alac', 'fLaC') and the boxes inside it after the audio fields
    /// (the codec configuration box, and for ALAC a 'chan' box when the cookie carries one).
    var sampleEntryType: String
    var sampleEntryChildren: [UInt8]
    var sampleRate: UInt32
    var channelCount: Int
    var bitsPerSample: Int
}

enum MP4MovieBuilder {
    /// The `ftyp` box: M4A files say 'M4A ' (Apple's brand for audio-only MPEG-4, also what
    /// afconvert and ffmpeg's ipod muxer write) and list 'M4A ', 'mp42', 'isom'; plain .mp4 says
    /// 'isom' and lists 'isom', 'mp42'.
    static func fileType(m4a: Bool) -> [UInt8] {
        var b = MP4BoxBuilder()
        b.box("ftyp") { b in
            if m4a {
                b.fourCC("M4A "); b.u32(0)
                for brand in ["M4A ", "mp42", "isom"] { b.fourCC(brand) }
            } else {
                b.fourCC("isom"); b.u32(0x200)
                for brand in ["isom", "mp42"] { b.fourCC(brand) }
            }
        }
        return b.bytes
    }

    /// An 8-byte-or-longer `free` box of `size` bytes (header only: its body is whatever lies there).
    static func freeHeader(size: Int) -> [UInt8] {
        var w = ByteWriter(bigEndian: true)
        w.u32(UInt32(size)); w.fourCC("free")
        return w.bytes
    }

    /// The whole `moov` for `packetSizes`/`packetFrames` (parallel arrays) whose data starts at
    /// file offset `dataStart`, contiguous, `packetsPerChunk` to a chunk.
    static func movie(_ track: MP4TrackDescription, packetSizes: [UInt32], packetFrames: [UInt32],
                      dataStart: Int64, packetsPerChunk: Int) -> [UInt8] {
        let duration = packetFrames.reduce(UInt64(0)) { $0 + UInt64($1) }
        let long = duration > UInt64(UInt32.max)
        let version: UInt8 = long ? 1 : 0
        func times(_ b: inout MP4BoxBuilder) {                 // creation and modification time: 0 (unknown)
            if long { b.u64(0); b.u64(0) } else { b.u32(0); b.u32(0) }
        }
        func durationField(_ b: inout MP4BoxBuilder) { if long { b.u64(duration) } else { b.u32(UInt32(duration)) } }

        var b = MP4BoxBuilder()
        b.box("moov") { b in
            b.fullBox("mvhd", version: version) { b in
                times(&b)
                b.u32(track.sampleRate)
                durationField(&b)
                b.u32(0x0001_0000)                              // rate 1.0
                b.u16(0x0100)                                   // volume 1.0
                b.zeros(10)
                b.unityMatrix()
                b.zeros(24)                                     // pre_defined
                b.u32(2)                                        // next_track_ID
            }
            b.box("trak") { b in
                // Flags 7: enabled, in movie, in preview (what every audio writer sets).
                b.fullBox("tkhd", version: version, flags: 7) { b in
                    times(&b)
                    b.u32(1)                                    // track_ID
                    b.u32(0)
                    durationField(&b)
                    b.zeros(8)
                    b.u16(0)                                    // layer
                    b.u16(1)                                    // alternate_group (ffmpeg's and Apple's for audio)
                    b.u16(0x0100)                               // volume 1.0
                    b.u16(0)
                    b.unityMatrix()
                    b.u32(0); b.u32(0)                          // width, height
                }
                b.box("mdia") { b in
                    b.fullBox("mdhd", version: version) { b in
                        times(&b)
                        b.u32(track.sampleRate)
                        durationField(&b)
                        b.u16(0x55C4)                           // language 'und' (ISO 639-2/T, 5-bit packed)
                        b.u16(0)
                    }
                    b.fullBox("hdlr") { b in
                        b.u32(0)
                        b.fourCC("soun")
                        b.zeros(12)
                        b.append(Array("SoundHandler".utf8) + [0])
                    }
                    b.box("minf") { b in
                        b.fullBox("smhd") { b in b.u16(0); b.u16(0) }   // balance, reserved
                        b.box("dinf") { b in
                            b.fullBox("dref") { b in
                                b.u32(1)
                                b.fullBox("url ", flags: 1) { _ in }    // flag 1: the data is in this file
                            }
                        }
                        sampleTable(&b, track, packetSizes: packetSizes, packetFrames: packetFrames,
                                    dataStart: dataStart, packetsPerChunk: packetsPerChunk)
                    }
                }
            }
        }
        return b.bytes
    }

    private static func sampleTable(_ b: inout MP4BoxBuilder, _ track: MP4TrackDescription, packetSizes: [UInt32], packetFrames: [UInt32],
                                    dataStart: Int64, packetsPerChunk: Int) {
        b.box("stbl") { b in
            b.fullBox("stsd") { b in
                b.u32(1)
                b.box(track.sampleEntryType) { b in
                    b.zeros(6); b.u16(1)                        // reserved, data_reference_index
                    b.zeros(8)                                  // version 0, revision, vendor
                    b.u16(track.channelCount)
                    b.u16(track.bitsPerSample)
                    b.u16(0); b.u16(0)                          // pre_defined, reserved
                    // 16.16 fixed point; a rate above 65,535 Hz does not fit and is 0, as ffmpeg
                    // writes it (the codec configuration carries the real rate).
                    b.u32(track.sampleRate <= 0xFFFF ? track.sampleRate << 16 : 0)
                    b.append(track.sampleEntryChildren)
                }
            }
            // stts: runs of equal durations.
            var runs: [(count: UInt32, delta: UInt32)] = []
            for f in packetFrames {
                if let last = runs.last, last.delta == f { runs[runs.count - 1].count += 1 } else { runs.append((1, f)) }
            }
            b.fullBox("stts") { b in
                b.u32(UInt32(runs.count))
                for r in runs { b.u32(r.count); b.u32(r.delta) }
            }
            let chunks = (packetSizes.count + packetsPerChunk - 1) / packetsPerChunk
            let lastChunkPackets = packetSizes.count - (chunks - 1) * packetsPerChunk
            b.fullBox("stsc") { b in
                var entries: [(first: Int, count: Int)] = []
                if chunks > 1 { entries.append((1, packetsPerChunk)) }
                if chunks > 0 && (chunks == 1 || lastChunkPackets != packetsPerChunk) { entries.append((chunks, lastChunkPackets)) }
                b.u32(UInt32(entries.count))
                for e in entries { b.u32(UInt32(e.first)); b.u32(UInt32(e.count)); b.u32(1) }
            }
            b.fullBox("stsz") { b in
                b.u32(0)                                        // sample_size 0: a size per packet follows
                b.u32(UInt32(packetSizes.count))
                b.appendBigEndian(packetSizes)
            }
            var offsets: [UInt64] = []
            offsets.reserveCapacity(chunks)
            var offset = UInt64(dataStart)
            for (i, size) in packetSizes.enumerated() {
                if i % packetsPerChunk == 0 { offsets.append(offset) }
                offset += UInt64(size)
            }
            if let last = offsets.last, last > UInt64(UInt32.max) {
                b.fullBox("co64") { b in
                    b.u32(UInt32(offsets.count))
                    b.appendBigEndian(offsets)
                }
            } else {
                b.fullBox("stco") { b in
                    b.u32(UInt32(offsets.count))
                    b.appendBigEndian(offsets.map { UInt32(truncatingIfNeeded: $0) })
                }
            }
        }
    }

    /// The ALAC sample entry's children from an ALAC magic cookie in any of its forms (the bare
    /// 24-byte ALACSpecificConfig, or Apple's CAF form: 'frma', 'alac' atom holding version,
    /// flags and the config, a 'chan' atom for some layouts, a terminator): the `alac` full box
    /// with the config, then the `chan` box when the cookie has one (as Apple's M4A files carry
    /// it and MP4SampleEntry reads it). Nil when no config is found.
    static func alacEntryChildren(cookie: [UInt8]) -> [UInt8]? {
        var config: [UInt8]?
        var chan: [UInt8]?
        if cookie.count == 24 {
            config = cookie
        } else {
            var at = 0
            while cookie.count - at >= 8 {
                let size = Int(cookie[at]) << 24 | Int(cookie[at + 1]) << 16 | Int(cookie[at + 2]) << 8 | Int(cookie[at + 3])
                let type = String(decoding: cookie[at + 4..<at + 8], as: UTF8.self)
                guard size >= 8, at + size <= cookie.count else { break }
                if type == "alac", size >= 36 { config = Array(cookie[at + 12..<at + 36]) }
                if type == "chan" { chan = Array(cookie[at..<at + size]) }
                at += size
            }
        }
        guard let config else { return nil }
        var b = MP4BoxBuilder()
        b.fullBox("alac") { b in b.append(config) }
        return b.bytes + (chan ?? [])
    }

    /// The FLAC sample entry's child: the `dfLa` full box (version 0) holding the stream's
    /// metadata blocks, STREAMINFO first and marked last — the "Encapsulation of FLAC in ISO Base
    /// Media File Format" mapping, which ffmpeg reads and writes.
    static func flacEntryChildren(streamInfo: [UInt8]) -> [UInt8] {
        var b = MP4BoxBuilder()
        b.fullBox("dfLa") { b in
            b.append([0x80, 0, 0, UInt8(streamInfo.count)])     // last-metadata-block flag, type 0 (STREAMINFO), length
            b.append(streamInfo)
        }
        return b.bytes
    }
}

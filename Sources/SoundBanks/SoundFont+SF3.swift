// SF3: SoundFonts whose samples are Ogg Vorbis (MuseScore's format, read by FluidSynth 2 and
// MuseScore; Debian ships musescore-general-soundfont and fluidr3mono-gm-soundfont in it). A
// sample header with sample type bit 4 (0x10) holds, in place of 16-bit points, a complete Ogg
// Vorbis stream in the `smpl` chunk: its start and end are byte offsets of that stream (end
// exclusive: each stream's end is the next one's start, the last one's the chunk's size, as
// MuseScore's sfconvert writes them), and its loop points count decoded frames from the sample's
// first (relative, where an SF2 header's are absolute). Verified on MuseScore_General_Lite.sf3
// (ifil 3.1, 1,254 samples): every stream begins with "OggS" at its start, and the loops end
// eight frames before the decoded end, the margin SoundFont 2.04 §7.10 asks for.
//
// Loading decodes every compressed sample once, at parse time, into a new 16-bit pool — the
// form the voices already read (SamplePool.swift), and the one FluidSynth decodes SF3 into
// (libvorbisfile's 16-bit output: value × 32768 rounded to nearest and clamped) — with
// `SoundFont.guardFrames` zeros after each sample for the interpolation, and rewrites the headers
// to absolute positions in it. Uncompressed samples in the same bank are copied across
// unchanged. A stream that does not decode leaves its sample out (its zones are skipped, as a
// ROM sample's are) and adds a warning; the bank still loads.
//
// Hostile input: a stream's decoded frames are capped by its bytes (`maximumSF3FramesPerByte`,
// a warning when a stream reaches it) and the bank's by `maximumSF3Frames`, so the pool stays
// proportional to the file.
import AudioCodecs
import Dispatch

extension SoundFont {
    /// At most this many decoded frames per SF3 bank (2 GiB of Int16 points).
    static let maximumSF3Frames = 1 << 30
    /// At most this many decoded frames per byte of a sample's stream. A Vorbis packet outputs
    /// up to 4,096 frames from two bytes of page, but music compresses nowhere near that
    /// (MuseScore_General_Lite: about 2 frames per byte; even digital silence costs libvorbis
    /// a few bytes per 1,024 frames), and the pool must hold every frame at once, so a stream
    /// is not allowed to claim more than 128 frames per byte.
    static let maximumSF3FramesPerByte = 128

    /// Whether `header` is a compressed (SF3, Ogg Vorbis) sample.
    static func isCompressed(_ header: SF2Sample) -> Bool { header.sampleType & 0x10 != 0 && header.sampleType & 0x8000 == 0 }

    /// Decodes the compressed samples of `headers` from the current 16-bit pool (which holds the
    /// `smpl` chunk's `byteCount` bytes as read), replaces the pool with the decoded points, and
    /// rewrites `headers` for it. Returns the new point count (guard frames excluded) and
    /// warnings for samples that could not be decoded.
    func decodeCompressedSamples(_ headers: inout [SF2Sample], byteCount: Int) -> (pointCount: Int, warnings: [String]) {
        guard case .int16(let old) = pool, let base = old.baseAddress else { return (0, ["the bank's compressed samples sit in a 24-bit pool and cannot be read"]) }
        let raw = UnsafeRawBufferPointer(start: UnsafeRawPointer(base), count: min(byteCount, 2 * old.count))
        // The streams are independent: decoded on every core at once (MuseScore_General_Lite's
        // 1,254 streams, 107 million points: 7.9 s on one core of this project's VM), each
        // into its own slot; the bank's frame budget is then applied in header order, so what
        // loads — and every warning — is the same as decoding them one after another.
        let count = headers.count
        let results = UnsafeMutableBufferPointer<(points: [Int16]?, warning: String?)>.allocate(capacity: count)
        results.initialize(repeating: (nil, nil))
        defer { results.deinitialize(); results.deallocate() }
        let perThread = 8
        headers.withUnsafeBufferPointer { hs in
            DispatchQueue.concurrentPerform(iterations: (count + perThread - 1) / perThread) { batch in
                for k in (batch * perThread)..<min(count, (batch + 1) * perThread) {
                    let h = hs[k]
                    guard Self.isCompressed(h) else { continue }
                    guard h.start < h.end, h.end <= raw.count else {
                        results[k].warning = "sample '\(h.name)': its Ogg Vorbis stream (bytes \(h.start) ..< \(h.end)) lies outside the \(raw.count)-byte smpl chunk"
                        continue
                    }
                    let bytes = UnsafeRawBufferPointer(rebasing: raw[h.start..<h.end])
                    do {
                        let cap = max(0, min(Self.maximumSF3Frames, (h.end - h.start) * Self.maximumSF3FramesPerByte))
                        let (channels, _) = try VorbisOggMemoryStream.decode(bytes, maximumFrames: cap)
                        let mono = channels.first ?? []
                        if mono.count == cap {
                            results[k].warning = "sample '\(h.name)': its Ogg Vorbis stream decodes to more than \(cap) frames (\(Self.maximumSF3FramesPerByte) per byte of stream) and is cut there"
                        }
                        var points = [Int16](repeating: 0, count: mono.count)
                        for i in mono.indices { points[i] = Int16(max(-32_768, min(32_767, (mono[i] * 32_768).rounded()))) }
                        results[k].points = points
                    } catch {
                        results[k].warning = "sample '\(h.name)': its Ogg Vorbis stream does not decode (\(error))"
                    }
                }
            }
        }
        var decoded: [[Int16]?] = []
        decoded.reserveCapacity(count)
        var total = 0
        var warnings: [String] = []
        for (k, h) in headers.enumerated() {
            if Self.isCompressed(h) {
                if let warning = results[k].warning { warnings.append(warning) }
                guard var points = results[k].points else { decoded.append(nil); continue }
                let budget = max(0, Self.maximumSF3Frames - total)
                if points.count > budget {
                    points.removeLast(points.count - budget)
                    warnings.append("sample '\(h.name)': the bank's samples decode to more than \(Self.maximumSF3Frames) frames; this one is cut at \(budget)")
                }
                decoded.append(points)
                total += points.count + Self.guardFrames
            } else if h.sampleType & 0x8000 == 0, h.start < h.end, h.end <= old.count {
                decoded.append(Array(UnsafeBufferPointer(rebasing: old[h.start..<h.end])))
                total += h.end - h.start + Self.guardFrames
            } else {
                decoded.append(nil)
            }
        }
        let (pool, mapped) = PoolMemory.allocate(Int16.self, count: total + Self.guardFrames)
        pool.initialize(repeating: 0)
        var at = 0
        for k in headers.indices {
            guard let points = decoded[k] else {
                // Left out: an empty range, so its zones are skipped.
                headers[k].start = 0; headers[k].end = 0
                continue
            }
            let compressed = Self.isCompressed(headers[k])
            let loopStart = compressed ? headers[k].loopStart : headers[k].loopStart - headers[k].start
            let loopEnd = compressed ? headers[k].loopEnd : headers[k].loopEnd - headers[k].start
            points.withUnsafeBufferPointer { p in
                if let s = p.baseAddress { (pool.baseAddress! + at).update(from: s, count: p.count) }
            }
            headers[k].start = at
            headers[k].end = at + points.count
            headers[k].loopStart = at + loopStart
            headers[k].loopEnd = at + loopEnd
            headers[k].sampleType &= ~0x10
            at += points.count + Self.guardFrames
        }
        PoolMemory.free(self.pool, mapped: poolIsMapped)
        self.pool = .int16(pool)
        poolIsMapped = mapped
        return (total, warnings)
    }
}

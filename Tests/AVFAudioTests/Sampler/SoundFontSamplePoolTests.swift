// A SoundFont's 16-bit sample data kept as Int16 (SamplePool.swift) and read by the voices'
// 16-bit interpolation kernels (CSamplerKernels' cubic16): the pool holds the file's points
// unconverted, a 24-bit bank still gets a Float pool, a sample read that comes up short is an
// error naming the `smpl` chunk, and — the point of the change — what the sampler plays is bit
// for bit what it played from a Float pool. The reference for that last check is the Float path
// itself: the same points given as a 24-bit bank whose `sm24` low bytes are all zero, which the
// parser converts to Float (v·256 / 2^23 = v / 2^15, the very Float of the 16-bit point).
import Foundation
import Testing
import AVFoundation
import SoundBanks
import CSamplerKernels

@Suite struct SoundFontSamplePoolTests {
    /// A noisy, looped sample (full-scale extremes included), so interpolation sees every kind of point.
    static func points(_ count: Int) -> [Int16] {
        var state: UInt32 = 12_345
        return (0..<count).map { i in
            state = state &* 1_664_525 &+ 1_013_904_223
            if i % 101 == 0 { return Int16.min }
            if i % 103 == 0 { return Int16.max }
            return Int16(truncatingIfNeeded: state >> 16)
        }
    }

    @Test func sixteenBitBanksKeepTheFilesPoints() throws {
        let pts = Self.points(1_000)
        let font = try SoundFont.parse(SoundFontBuilder(samples: pts).bytes())
        guard case .int16(let pool) = font.pool else { Issue.record("a 16-bit bank should get an Int16 pool"); return }
        #expect(Array(pool[0..<1_000]) == pts)
        // the 46 zero points the builder writes after the sample, then the guard frames
        #expect(pool.count == 1_000 + 46 + SoundFont.guardFrames)
        #expect(pool[1_000...].allSatisfy { $0 == 0 })
        #expect(font.pool[5] == Float(pts[5]) / 32_768)
    }

    @Test func twentyFourBitBanksGetAFloatPool() throws {
        var b = SoundFontBuilder(samples: [1, -2, 3])
        b.version = (2, 4)
        b.sm24 = [0x80, 0, 0xFF]
        let font = try SoundFont.parse(b.bytes())
        guard case .float32(let pool) = font.pool else { Issue.record("a 24-bit bank should get a Float pool"); return }
        #expect(Array(pool[0..<3]) == [Float(1 * 256 + 0x80) / 8_388_608, Float(-2 * 256) / 8_388_608, Float(3 * 256 + 0xFF) / 8_388_608])
    }

    @Test func positionalReadsFillThePoolAndShortReadsAreErrors() throws {
        let pts = Self.points(500)
        let bytes = SoundFontBuilder(samples: pts).bytes()
        var asked: (Int, Int)?
        let font = try bytes.withUnsafeBytes { file in
            try SoundFont.parse(file) { offset, destination in
                asked = (offset, destination.count)
                destination.copyMemory(from: UnsafeRawBufferPointer(rebasing: file[offset ..< offset + destination.count]))
                return true
            }
        }
        guard case .int16(let pool) = font.pool else { Issue.record("expected an Int16 pool"); return }
        #expect(Array(pool[0..<500]) == pts)
        #expect(asked?.1 == 2 * (500 + 46))
        do {
            _ = try bytes.withUnsafeBytes { file in try SoundFont.parse(file) { _, _ in false } }
            Issue.record("a short sample read should fail")
        } catch let e as SoundBankError {
            #expect(e.chunk == "smpl")
            #expect(e.description.contains("could not be read"))
        }
    }

    /// Renders `points` as a looped sample through AVAudioUnitSampler: a chord of keys off the
    /// root (fractional phase increments), velocities, a pitch bend, and the release past the loop.
    static func render(_ points: [Int16], as24Bit: Bool) throws -> [Float] {
        var b = SoundFontBuilder(samples: points)
        b.sampleRate = 44_100
        b.loop = (300, 3_700)
        b.instrumentGenerators = [(Gen.sampleModes, 3), (Gen.releaseVolEnv, Gen.timecents(0.05))]
        if as24Bit { b.version = (2, 4); b.sm24 = [UInt8](repeating: 0, count: points.count) }
        let url = try b.write()
        defer { try? FileManager.default.removeItem(at: url) }
        let sampler = AVAudioUnitSampler()
        try sampler.loadInstrument(at: url)
        let events: [(Int, [UInt8])] = [(0, [0x90, 69, 127]), (7, [0x90, 40, 90]), (100, [0x90, 93, 64]), (333, [0x90, 76, 30]),
                                        (5_000, [0xE0, 0x11, 0x50]), (20_000, [0x80, 69, 0]), (20_000, [0x80, 40, 0]),
                                        (20_000, [0x80, 93, 0]), (20_000, [0x80, 76, 0])]
        let out = try renderSampler(sampler, events: events, frames: 30_000, chunk: 479)
        return out.left + out.right
    }

    @Test func int16PoolRendersBitIdenticalToTheFloatPool() throws {
        let pts = Self.points(4_000)
        let viaInt16 = try Self.render(pts, as24Bit: false), viaFloat = try Self.render(pts, as24Bit: true)
        #expect(viaInt16.contains { $0 != 0 })
        #expect(viaInt16 == viaFloat)
    }

    /// Both kernel variants (AVX2 where the CPU has it, and the portable one): cubic16 over Int16
    /// points gives exactly cubic over the same points as Floats, at random phases and steps.
    @Test func cubic16MatchesCubicOnConvertedPoints() {
        let pts = Self.points(70_000)
        let floats = pts.map { Float($0) / 32_768 }
        var state: UInt64 = 99
        func next() -> UInt64 { state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407; return state >> 11 }
        var out16 = [Float](repeating: 0, count: 4_096), out32 = [Float](repeating: 0, count: 4_096)
        var mismatches = 0
        for kernels in [csk_kernels(), csk_kernels_portable()] {
            for _ in 0..<500 {
                let incr = next() % (8 << 32) + 1
                let phase = (1 + next() % 1_000) << 32 | next() % (1 << 32)
                let n = Int(1 + next() % 4_000)
                guard Int((phase + UInt64(n) * incr) >> 32) + 3 < pts.count else { continue }
                let a = pts.withUnsafeBufferPointer { p in out16.withUnsafeMutableBufferPointer { kernels.pointee.cubic16(p.baseAddress!, $0.baseAddress!, n, phase, incr) } }
                let b = floats.withUnsafeBufferPointer { p in out32.withUnsafeMutableBufferPointer { kernels.pointee.cubic(p.baseAddress!, $0.baseAddress!, n, phase, incr) } }
                #expect(a == b)
                if out16[0..<n] != out32[0..<n] { mismatches += 1 }
            }
        }
        #expect(mismatches == 0)
    }

    /// The kernel's transparent-huge-page policy (`always`, `madvise` or `never`), nil when unknown.
    static func hugePagePolicy() -> String? {
        guard let text = try? String(contentsOfFile: "/sys/kernel/mm/transparent_hugepage/enabled", encoding: .utf8),
              let open = text.firstIndex(of: "["), let close = text.firstIndex(of: "]") else { return nil }
        return String(text[text.index(after: open)..<close])
    }

    /// Kilobytes of the mapping that contains `address` backed by huge pages (/proc/self/smaps).
    static func anonHugeKilobytes(at address: UInt) -> Int? {
        // Read to the end: String(contentsOfFile:) stops after the first read of a /proc file.
        guard let handle = FileHandle(forReadingAtPath: "/proc/self/smaps") else { return nil }
        defer { try? handle.close() }
        let smaps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        var inside = false
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if let range = fields.first, range.contains("-"), !range.hasSuffix(":") {
                let bounds = range.split(separator: "-").compactMap { UInt($0, radix: 16) }
                inside = bounds.count == 2 && bounds[0] <= address && address < bounds[1]
            } else if inside, fields.first == "AnonHugePages:", fields.count >= 2 {
                return Int(fields[1])
            }
        }
        return nil
    }

    @Test("A pool of 4 MiB or more is a mapping with huge pages asked for: the points are the file's, read through pread, and where the kernel's policy allows huge pages the pool's memory is backed by them")
    func largePoolsAreHugePageMappings() throws {
        let count = 3_000_000   // 6 MB of 16-bit points
        let pts = Self.points(count)
        let bytes = SoundFontBuilder(samples: pts).bytes()
        var reads = 0
        let font = try bytes.withUnsafeBytes { raw in
            try SoundFont.parse(raw) { offset, into in
                reads += 1
                into.copyMemory(from: UnsafeRawBufferPointer(rebasing: raw[offset ..< offset + into.count]))
                return true
            }
        }
        #expect(reads == 1)
        guard case .int16(let pool) = font.pool else { Issue.record("a 16-bit bank should get an Int16 pool"); return }
        #expect(pool.count * 2 >= PoolMemory.mappedThreshold)
        #expect(pool[0..<count].elementsEqual(pts))
        #expect(pool[count...].allSatisfy { $0 == 0 })
        let policy = Self.hugePagePolicy()
        let huge = Self.anonHugeKilobytes(at: UInt(bitPattern: pool.baseAddress!))
        if policy == "always" || policy == "madvise" {
            // Every whole 2 MiB page inside the 6 MB pool is a huge page (at least one: 2048 kB).
            #expect((huge ?? 0) >= 2_048, "policy \(policy!): \(huge.map { "\($0) kB" } ?? "no smaps entry") of huge pages under the pool")
        }
        // Small pools come from the allocator and are freed by it (no crash on free either way).
        let (small, mapped) = PoolMemory.allocate(Int16.self, count: 1_000)
        small.initialize(repeating: 7)
        #expect(small.allSatisfy { $0 == 7 })
        PoolMemory.free(small, mapped: mapped)
    }
}

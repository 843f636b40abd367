// The Vorbis I audio packet decoder (Vorbis I specification, sections 1.3.2 and 4.3): one
// packet in, the samples it completes out, as Float32 planar channels.
//
// Design. Each audio packet codes one block of n = 64 … 8192 samples (short or long, by its
// mode). Decoding a packet: its floors (a spectral envelope per channel), its residues (the
// fine structure, per submap), the inverse channel coupling (square polar: magnitude and angle
// back to two channels), the floor × residue product, an inverse MDCT to n windowed samples,
// and an overlap-add of the block's left half with the previous block's right half. A packet
// therefore outputs the samples between the previous block's centre and its own:
// prevN/4 + n/4 of them, none for the first packet after `reset()` (section 4.3.8). That is
// the pre-roll a seek needs: decode from one packet before the one wanted.
//
// Windows (section 4.3.1): a long block next to a short one uses a short slope centred on its
// quarter point, flat (1) inside and zero outside; the slope is the power-complementary
// sin(π/2 · sin²(·)) curve, tabulated once per block size.
//
// The IMDCT is AudioKernels' MDCT `inverse`, unscaled: Vorbis's decoder transform is the
// unscaled sum (libvorbis's encoder carries the 4/N perfect-reconstruction factor), which the
// comparison with ffmpeg's and libvorbis's decoders confirms (AudioCodecsTests, VorbisTests).
//
// Memory: everything is allocated in `init` for the long block size; `decode` allocates
// nothing. Threads: one decoder per stream, used from one thread at a time.
import AudioKernels

public final class VorbisDecoder {
    public let identification: VorbisIdentification
    let setup: VorbisSetup
    public var channelCount: Int { identification.channelCount }
    public var sampleRate: Int { identification.sampleRate }
    /// The most frames one packet can output: half the long block.
    public var maximumFramesPerPacket: Int { identification.longBlock / 2 }

    private let shortN: Int, longN: Int
    private let mdctShort: MDCT<Float>, mdctLong: MDCT<Float>
    /// sin(π/2 sin²((i + ½)/len · π/2)), len = n/2, for the short and long block.
    private let slopeShort: UnsafeMutablePointer<Float>, slopeLong: UnsafeMutablePointer<Float>
    /// Per channel: floor curve, residue/spectrum (n/2), previous block's right half (n/2),
    /// output (n/2).
    private let curves: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let spectra: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let previous: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let outputs: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let block: UnsafeMutablePointer<Float>
    private let used: UnsafeMutablePointer<Bool>
    private let doNotDecode: UnsafeMutablePointer<Bool>
    private let submapVectors: UnsafeMutablePointer<UnsafeMutablePointer<Float>>
    private let classes: UnsafeMutablePointer<Int>
    private let classCount: Int
    private let interleaved: UnsafeMutablePointer<Float>
    private let ys: UnsafeMutablePointer<Int>
    private let step2: UnsafeMutablePointer<Bool>
    private let lsp: UnsafeMutablePointer<Float>
    private var previousN = 0
    private var hasPrevious = false

    /// The decoded channels of the last `decode` (valid until the next call), each
    /// `maximumFramesPerPacket` long.
    public var channelData: UnsafePointer<UnsafeMutablePointer<Float>> { UnsafePointer(outputs) }

    /// A decoder from the identification and setup header packets (the comment header holds no
    /// decoding state).
    public init(identification idPacket: UnsafeRawBufferPointer, setup setupPacket: UnsafeRawBufferPointer) throws {
        let id = try VorbisIdentification(idPacket)
        identification = id
        setup = try VorbisSetup(setupPacket, channels: id.channelCount)
        shortN = id.shortBlock; longN = id.longBlock
        let channels = id.channelCount
        mdctShort = MDCT<Float>(count: shortN)
        mdctLong = MDCT<Float>(count: longN)
        func slope(_ n: Int) -> UnsafeMutablePointer<Float> {
            let len = n / 2
            let p = UnsafeMutablePointer<Float>.allocate(capacity: len)
            for i in 0..<len {
                let s = sin((Double(i) + 0.5) / Double(len) * Double.pi / 2)
                p[i] = Float(sin(Double.pi / 2 * s * s))
            }
            return p
        }
        slopeShort = slope(shortN)
        slopeLong = slope(longN)
        let half = longN / 2
        func planes() -> UnsafeMutablePointer<UnsafeMutablePointer<Float>> {
            let p = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: channels)
            for c in 0..<channels {
                p[c] = .allocate(capacity: half)
                p[c].initialize(repeating: 0, count: half)
            }
            return p
        }
        curves = planes(); spectra = planes(); previous = planes(); outputs = planes()
        block = .allocate(capacity: longN)
        block.initialize(repeating: 0, count: longN)
        used = .allocate(capacity: channels)
        used.initialize(repeating: false, count: channels)
        doNotDecode = .allocate(capacity: channels)
        doNotDecode.initialize(repeating: false, count: channels)
        submapVectors = .allocate(capacity: channels)
        submapVectors.initialize(repeating: block, count: channels)
        var most = 1
        for r in setup.residues { most = max(most, r.classScratchCount(n: half, channels: channels, codebooks: setup.codebooks)) }
        classCount = most
        classes = .allocate(capacity: most)
        classes.initialize(repeating: 0, count: most)
        interleaved = .allocate(capacity: half * channels)
        interleaved.initialize(repeating: 0, count: half * channels)
        ys = .allocate(capacity: 65)
        ys.initialize(repeating: 0, count: 65)
        step2 = .allocate(capacity: 65)
        step2.initialize(repeating: false, count: 65)
        let widest = setup.codebooks.reduce(1) { max($0, $1.dimensions) }
        lsp = .allocate(capacity: 256 + widest)
        lsp.initialize(repeating: 0, count: 256 + widest)
    }

    deinit {
        for c in 0..<channelCount {
            curves[c].deallocate(); spectra[c].deallocate(); previous[c].deallocate(); outputs[c].deallocate()
        }
        curves.deallocate(); spectra.deallocate(); previous.deallocate(); outputs.deallocate()
        slopeShort.deallocate(); slopeLong.deallocate()
        block.deallocate(); used.deallocate(); doNotDecode.deallocate(); submapVectors.deallocate()
        classes.deallocate(); interleaved.deallocate(); ys.deallocate(); step2.deallocate(); lsp.deallocate()
    }

    /// Forgets the previous block (after a seek): the next packet outputs nothing.
    public func reset() {
        hasPrevious = false
        previousN = 0
    }

    /// The frames packet `packet` outputs after the packet before it (whose block size is
    /// `previousLong`), without decoding it: prevN/4 + n/4, or 0 for a packet that is not
    /// audio. The Ogg mapping counts frames with this.
    public static func frameCount(long: Bool, previousLong: Bool, _ id: VorbisIdentification) -> Int {
        (previousLong ? id.longBlock : id.shortBlock) / 4 + (long ? id.longBlock : id.shortBlock) / 4
    }

    /// Whether `packet` is a long block; nil when it is not an audio packet this stream's modes
    /// can decode (it outputs nothing). Reads only the packet's first bits.
    public func isLongBlock(_ packet: UnsafeRawBufferPointer) -> Bool? { setup.isLongBlock(packet) }

    /// Decodes one audio packet; returns the frames now in `channelData`. A packet that is not
    /// an audio packet (type bit set) or names no mode outputs nothing and leaves the state as
    /// it was (section 4.3.1: such packets are ignored). Never traps on damaged data: the spec's
    /// end-of-packet rules apply.
    public func decode(_ packet: UnsafeRawBufferPointer) -> Int {
        var r = VorbisBitReader(packet)
        guard packet.count > 0, r.read(1) == 0 else { return 0 }
        let modeNumber = r.int(setup.modeBits)
        guard modeNumber < setup.modes.count, !r.pastEnd else { return 0 }
        let mode = setup.modes[modeNumber]
        let n = mode.longBlock ? longN : shortN
        var previousLong = false, nextLong = false
        if mode.longBlock {
            previousLong = r.flag()
            nextLong = r.flag()
        }
        let mapping = setup.mappings[mode.mapping]
        let channels = channelCount
        let half = n / 2

        setup.codebooks.withUnsafeBufferPointer { books in
            // Floors.
            for c in 0..<channels {
                let submap = mapping.mux[c]
                switch setup.floors[mapping.submapFloor[submap]] {
                case .one(let f): used[c] = f.decode(&r, codebooks: books, n: half, curve: curves[c], ys: ys, step2: step2)
                case .zero(let f): used[c] = f.decode(&r, codebooks: books, n: half, curve: curves[c], coefficients: lsp)
                }
            }
            // A coupled pair is decoded when either channel is (section 4.3.3).
            for step in mapping.coupling where used[step.magnitude] || used[step.angle] {
                used[step.magnitude] = true
                used[step.angle] = true
            }
            // Residues, per submap.
            for c in 0..<channels { spectra[c].update(repeating: 0, count: half) }
            for s in 0..<mapping.submapResidue.count {
                var k = 0
                for c in 0..<channels where mapping.mux[c] == s {
                    submapVectors[k] = spectra[c]
                    doNotDecode[k] = !used[c]
                    k += 1
                }
                guard k > 0 else { continue }
                let residue = setup.residues[mapping.submapResidue[s]]
                residue.decode(&r, codebooks: books, n: half, vectors: submapVectors, doNotDecode: doNotDecode, channels: k,
                               classes: classes, interleaved: interleaved)
            }
        }
        // Inverse coupling, last step first (section 4.3.5).
        var step = mapping.coupling.count - 1
        while step >= 0 {
            let mag = spectra[mapping.coupling[step].magnitude], ang = spectra[mapping.coupling[step].angle]
            for i in 0..<half {
                let m = mag[i], a = ang[i]
                if m > 0 {
                    if a > 0 { ang[i] = m - a } else { ang[i] = m; mag[i] = m + a }
                } else {
                    if a > 0 { ang[i] = m + a } else { ang[i] = m; mag[i] = m - a }
                }
            }
            step -= 1
        }
        // Floor × residue, IMDCT, window, overlap-add.
        let leftN = mode.longBlock && !previousLong ? shortN : n
        let rightN = mode.longBlock && !nextLong ? shortN : n
        let leftStart = n / 4 - leftN / 4, leftEnd = leftStart + leftN / 2
        let rightStart = 3 * n / 4 - rightN / 4, rightEnd = rightStart + rightN / 2
        let leftSlope = leftN == longN ? slopeLong : slopeShort
        let rightSlope = rightN == longN ? slopeLong : slopeShort
        let outCount = hasPrevious ? previousN / 4 + n / 4 : 0
        let offset = n / 4 - previousN / 4
        let mdct = n == longN ? mdctLong : mdctShort
        for c in 0..<channels {
            let spectrum = spectra[c]
            if used[c] {
                let curve = curves[c]
                for i in 0..<half { spectrum[i] *= curve[i] }
            } else {
                spectrum.update(repeating: 0, count: half)
            }
            mdct.inverseFloat(spectrum, block)
            // Window.
            for i in 0..<leftStart { block[i] = 0 }
            for i in leftStart..<leftEnd { block[i] *= leftSlope[i - leftStart] }
            let rightLen = rightN / 2
            for i in rightStart..<rightEnd { block[i] *= rightSlope[rightLen - 1 - (i - rightStart)] }
            for i in rightEnd..<n { block[i] = 0 }
            // Overlap-add: out[j] = previous right half [j] + this block [j + offset].
            if hasPrevious {
                let out = outputs[c], prev = previous[c]
                let prevHalf = previousN / 2
                for j in 0..<outCount {
                    var s: Float = j < prevHalf ? prev[j] : 0
                    let i = j + offset
                    if i >= 0 && i < half { s += block[i] }
                    out[j] = s
                }
            }
            // Keep this block's right half for the next packet.
            previous[c].update(from: block + half, count: half)
        }
        previousN = n
        hasPrevious = true
        return outCount
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#else
import Darwin
#endif

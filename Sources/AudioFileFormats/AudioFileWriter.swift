import AudioKernels
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes interleaved audio bytes (already in the file's encoding and byte order) to a WAV, RF64,
/// BW64, AIFF, AIFF-C, CAF or AU file.
///
/// Nothing is lost: after every `write` the header on disk describes every frame written so far
/// (the samples first, then the small header with one `pwrite`), so a process killed at any moment
/// leaves a valid file holding every frame whose `write` returned. CAF's data size too is kept
/// current rather than left at -1 ("to the end of the file", which CAF allows but libsndfile and
/// sox refuse): a file its writer never closed reads everywhere.
///
/// A WAV file starts with a 28-byte 'JUNK' chunk (as EBU Tech 3306 recommends) and turns into
/// RF64 in place when its size passes 4 GiB: 'RIFF' becomes 'RF64', 'JUNK' becomes 'ds64', and
/// the 32-bit sizes become 0xFFFFFFFF.
public final class AudioFileWriter {
    public let path: String
    /// The container being written; `.wav` turns into `.rf64` once the data passes 4 GiB.
    public private(set) var container: AudioContainerType
    public let description: AudioDataDescription
    /// Frames written so far (all of them described by the header on disk).
    public private(set) var framesWritten: Int64 = 0
    /// Byte offset of the first frame.
    public let dataOffset: Int64

    /// The largest value a 32-bit size field may take before WAV turns into RF64, AIFF refuses to
    /// grow ('off?') and AU marks its size unknown. 0xFFFFFFFF; tests lower it to exercise the
    /// switch without writing 4 GiB.
    @_spi(Testing) public var sizeLimit32: UInt64 = 0xFFFF_FFFF

    private var file: RawFile
    private let bytesPerFrame: Int
    private var dataBytes: UInt64 = 0
    private let plan: HeaderPlan
    private var is64: Bool
    private var closed = false

    /// Creates (or replaces) the file at `path` with a header describing zero frames.
    /// Throws 'fmt?' when the container cannot hold `description`'s format (the message says
    /// which container can), and -43 / 'prm?' when the file cannot be created.
    public init(path: String, container: AudioContainerType, description: AudioDataDescription) throws {
        let plan = try HeaderPlan(container: container, description: description, path: path)
        let is64 = container == .rf64 || container == .bw64
        // Created with its header in place (see RawFile.create): killed at any moment, the writer
        // leaves a file that opens.
        let file = try RawFile.create(path: path, header: plan.header(dataBytes: 0, frames: 0, is64: is64, final: false))
        self.path = path
        self.container = container
        self.description = description
        self.plan = plan
        self.file = file
        self.bytesPerFrame = description.bytesPerFrame
        self.is64 = container == .rf64 || container == .bw64
        self.dataOffset = Int64(plan.headerSize)
    }

    deinit {
        if !closed { try? close() }
    }

    /// Appends `frames` frames of interleaved bytes from `buffer` (frames × bytesPerFrame bytes),
    /// then updates the header on disk. If the disk fills up part-way, the whole frames that
    /// reached the file are kept and described, and the error is thrown.
    public func write(frames: Int, from buffer: UnsafeRawPointer) throws {
        guard !closed else {
            throw AudioFileFormatError(code: Code.notOpen, message: "cannot write to \(quoted(path)): the file has been closed")
        }
        guard frames >= 0 else {
            throw AudioFileFormatError(code: Code.position, message: "cannot write \(frames) frames to \(quoted(path)): the count is negative")
        }
        guard frames > 0 else { return }
        let (byteCount, overflow1) = frames.multipliedReportingOverflow(by: bytesPerFrame)
        let (newDataBytes, overflow2) = dataBytes.addingReportingOverflow(UInt64(max(0, byteCount)))
        guard !overflow1, !overflow2, newDataBytes <= UInt64(Int64.max) - UInt64(plan.headerSize) - 1 else {
            throw AudioFileFormatError(code: Code.doesNotAllow64BitDataSize,
                                       message: "cannot write \(frames) more frames to \(quoted(path)): the file would exceed the largest possible size")
        }
        try checkGrowth(to: newDataBytes, adding: frames)

        let start = dataOffset + Int64(dataBytes)
        let result = file.write(buffer, count: byteCount, at: start)
        if result.errno != 0 {
            // Keep (and describe) the whole frames that did reach the disk.
            let whole = result.written / bytesPerFrame
            dataBytes += UInt64(whole * bytesPerFrame)
            framesWritten += Int64(whole)
            try? writeHeader(final: false)
            throw file.writeError(result.errno)
        }
        dataBytes = newDataBytes
        framesWritten += Int64(frames)
        try writeHeader(final: false)
    }

    /// Writes `frames` frames at frame `frame` (0 ... framesWritten): frames already in the file are
    /// overwritten, and any that pass the end are appended (updating the header as `write` does).
    public func write(frames: Int, from buffer: UnsafeRawPointer, atFrame frame: Int64) throws {
        guard !closed else {
            throw AudioFileFormatError(code: Code.notOpen, message: "cannot write to \(quoted(path)): the file has been closed")
        }
        guard frame >= 0, frame <= framesWritten, frames >= 0 else {
            throw AudioFileFormatError(code: Code.position, message:
                "cannot write \(frames) frames at frame \(frame) of \(quoted(path)): the position must lie within the \(framesWritten) frames written")
        }
        let overlap = Int(min(Int64(frames), framesWritten - frame))
        if overlap > 0 {
            let result = file.write(buffer, count: overlap * bytesPerFrame, at: dataOffset + frame * Int64(bytesPerFrame))
            if result.errno != 0 { throw file.writeError(result.errno) }
        }
        if frames > overlap {
            try write(frames: frames - overlap, from: buffer + overlap * bytesPerFrame)
        }
    }

    /// Flushes the file's data and header to the storage device (fsync). `write` alone already
    /// survives the process being killed; this also survives a power cut.
    public func synchronize() throws {
        guard !closed else { return }
        if fsync(file.fd) != 0 { throw systemError(errno, "cannot flush", path: path) }
    }

    /// Writes the final header (with the pad byte of an odd-sized WAV/AIFF data chunk) and closes
    /// the file. Closing twice does nothing.
    public func close() throws {
        guard !closed else { return }
        closed = true
        var failure: Error?
        do {
            if plan.padsOddData && dataBytes & 1 == 1 {
                try file.write([0], at: dataOffset + Int64(dataBytes))
            }
            try writeHeader(final: true)
        } catch {
            failure = error
        }
        if posixClose(file.fd) != 0 && failure == nil {
            failure = systemError(errno, "cannot close", path: path)
        }
        file.fd = -1
        if let failure { throw failure }
    }

    /// Applies the 32-bit size limits before `newDataBytes` are written: WAV switches to RF64,
    /// AIFF refuses.
    private func checkGrowth(to newDataBytes: UInt64, adding frames: Int) throws {
        guard !is64 else { return }
        let padded = newDataBytes + (newDataBytes & 1)
        let outerSize = UInt64(plan.headerSize) - 8 + padded
        switch plan.kind {
        case .wav:
            if outerSize > sizeLimit32 || padded > sizeLimit32 {
                is64 = true
                container = .rf64
            }
        case .aiff:
            if outerSize > sizeLimit32 {
                throw AudioFileFormatError(code: Code.doesNotAllow64BitDataSize,
                                           message: "cannot write \(frames) more frames to \(quoted(path)): \(container) files cannot exceed 4 GiB; use CAF or WAV (which turns into RF64) for longer recordings")
            }
        case .caf, .au:
            break
        }
    }

    private func writeHeader(final: Bool) throws {
        var auUnknown = false
        if plan.kind == .au { auUnknown = dataBytes > min(sizeLimit32, UInt64(auUnknownSize) - 1) }
        let header = plan.header(dataBytes: dataBytes, frames: UInt64(framesWritten), is64: is64 || auUnknown,
                                 final: final)
        try file.write(header, at: 0)
    }
}

// MARK: - Header layouts

/// Everything about a file's header that is fixed at creation; `header(...)` renders it for a
/// given amount of data. The header's size never changes (WAV's JUNK and ds64 are the same size).
struct HeaderPlan {
    enum Kind { case wav, aiff, caf, au }
    let kind: Kind
    let container: AudioContainerType
    let description: AudioDataDescription
    let headerSize: Int
    let padsOddData: Bool
    // WAV
    private var wavFormatTag: UInt16 = 0
    private var wavExtensible = false
    private var wavHasFact = false
    // AIFF-C
    private var aifcType = ""
    private var aifcName = ""

    init(container: AudioContainerType, description d: AudioDataDescription, path: String) throws {
        self.container = container
        self.description = d
        func refuse(_ text: String) -> AudioFileFormatError {
            AudioFileFormatError(code: Code.unsupportedDataFormat, message: "cannot write \(quoted(path)): \(text)")
        }
        // Values every container shares.
        guard d.channelCount >= 1 && d.channelCount <= AudioDataDescription.maximumChannelCount else {
            throw refuse("\(d.channelCount) channels; between 1 and \(AudioDataDescription.maximumChannelCount) are supported")
        }
        guard d.sampleRate > 0 && d.sampleRate.isFinite && d.sampleRate <= AudioDataDescription.maximumSampleRate else {
            throw refuse("a sample rate of \(d.sampleRate) Hz; it must be above 0 and at most 10 MHz")
        }
        let containerBits = d.encoding.bytesPerSample * 8
        let isInteger = d.encoding.isLinearPCM && !d.encoding.isFloat
        if isInteger {
            guard d.validBitsPerSample >= 1 && d.validBitsPerSample <= containerBits else {
                throw refuse("\(d.validBitsPerSample) valid bits do not fit \(d.encoding) samples (1 to \(containerBits))")
            }
        }
        let validBits = isInteger ? d.validBitsPerSample : containerBits
        let multiByte = d.encoding.bytesPerSample > 1
        let name = "\(d.encoding)"

        switch container {
        case .wav, .rf64, .bw64:
            kind = .wav
            padsOddData = true
            guard d.sampleRate == d.sampleRate.rounded() else {
                throw refuse("\(container) stores whole-number sample rates; \(d.sampleRate) Hz needs CAF or AIFF")
            }
            if multiByte && d.bigEndian {
                throw refuse("\(container) stores little-endian samples; big-endian \(name) needs AIFF, AIFF-C or CAF")
            }
            switch d.encoding {
            case .unsigned8, .signed16, .signed24, .signed32: wavFormatTag = waveFormatPCM
            case .float32, .float64: wavFormatTag = waveFormatIEEEFloat
            case .ulaw: wavFormatTag = waveFormatMuLaw
            case .alaw: wavFormatTag = waveFormatALaw
            case .signed8:
                throw refuse("\(container) stores 8-bit samples as unsigned; convert signed 8-bit to unsigned 8-bit (or use AIFF or CAF)")
            }
            // As Apple's writer: WAVE_FORMAT_EXTENSIBLE for more than 2 channels, and whenever
            // something only it can say (valid bits below the container, a channel mask).
            wavExtensible = d.channelCount > 2 || validBits != containerBits || d.channelMask != nil
            wavHasFact = wavFormatTag != waveFormatPCM
            let fmtSize = wavExtensible ? 40 : (wavFormatTag == waveFormatPCM ? 16 : 18)
            headerSize = 12 + 36 + 8 + fmtSize + (wavHasFact ? 12 : 0) + 8
        case .aiff, .aifc:
            kind = .aiff
            padsOddData = true
            // AIFF's COMM sample size implies the container: ceil(bits / 8) bytes.
            if isInteger && (validBits + 7) / 8 != d.encoding.bytesPerSample {
                throw refuse("\(container) cannot describe \(validBits)-bit samples in \(d.encoding.bytesPerSample)-byte containers (its sample size implies \((validBits + 7) / 8)-byte containers); use WAV or CAF, or write \(d.encoding.bytesPerSample * 8) valid bits")
            }
            if container == .aiff {
                switch d.encoding {
                case .signed8, .signed16, .signed24, .signed32:
                    if multiByte && !d.bigEndian {
                        throw refuse("AIFF stores big-endian samples; little-endian \(name) needs AIFF-C ('sowt') or CAF")
                    }
                case .unsigned8:
                    throw refuse("AIFF stores 8-bit samples as signed; convert unsigned 8-bit to signed 8-bit")
                case .float32, .float64, .ulaw, .alaw:
                    throw refuse("AIFF cannot hold \(name) samples; use AIFF-C (.aifc) or CAF")
                }
                headerSize = 12 + 8 + 18 + 16
            } else {
                switch d.encoding {
                case .signed8: (aifcType, aifcName) = ("NONE", "not compressed")
                case .signed16, .signed24, .signed32:
                    (aifcType, aifcName) = d.bigEndian ? ("NONE", "not compressed") : ("sowt", "")
                case .float32, .float64:
                    guard d.bigEndian else {
                        throw refuse("AIFF-C stores big-endian floats; little-endian \(name) needs CAF or WAV")
                    }
                    (aifcType, aifcName) = d.encoding == .float32 ? ("fl32", "32-bit floating point") : ("fl64", "64-bit floating point")
                case .ulaw: (aifcType, aifcName) = ("ulaw", "")
                case .alaw: (aifcType, aifcName) = ("alaw", "")
                case .unsigned8:
                    throw refuse("AIFF-C stores 8-bit samples as signed; convert unsigned 8-bit to signed 8-bit")
                }
                let pstring = 1 + aifcName.utf8.count
                headerSize = 12 + 12 + 8 + 22 + pstring + (pstring & 1) + 16
            }
        case .caf:
            kind = .caf
            padsOddData = false
            if d.encoding == .unsigned8 {
                throw refuse("CAF stores 8-bit linear samples as signed; convert unsigned 8-bit to signed 8-bit")
            }
            var size = 8 + 12 + 32
            if let layout = d.channelLayoutData {
                guard layout.count >= 12 && layout.count <= cafMaximumChannelLayoutBytes else {
                    throw refuse("a channel layout of \(layout.count) bytes; a CAF 'chan' chunk holds 12 to \(cafMaximumChannelLayoutBytes)")
                }
                size += 12 + layout.count
            }
            headerSize = size + 12 + 4
        case .au:
            kind = .au
            padsOddData = false
            guard d.sampleRate == d.sampleRate.rounded() else {
                throw refuse("AU stores whole-number sample rates; \(d.sampleRate) Hz needs CAF or AIFF")
            }
            guard auEncodingCode(d.encoding) != nil else {
                throw refuse("AU stores 8-bit samples as signed; convert unsigned 8-bit to signed 8-bit")
            }
            if multiByte && !d.bigEndian {
                throw refuse("AU stores big-endian samples; little-endian \(name) needs WAV, AIFF-C or CAF")
            }
            headerSize = 32
        }
    }

    /// Renders the header for `dataBytes` bytes of audio in `frames` frames. `is64`: RF64/BW64
    /// layout for WAV, "unknown size" for AU. `final`: the pad byte counted for odd-sized WAV/AIFF
    /// data.
    func header(dataBytes: UInt64, frames: UInt64, is64: Bool, final: Bool) -> [UInt8] {
        let d = description
        let pad: UInt64 = final && padsOddData ? dataBytes & 1 : 0
        let bps = d.encoding.bytesPerSample
        switch kind {
        case .wav:
            var w = ByteWriter(bigEndian: false, capacity: headerSize)
            let riffSize = UInt64(headerSize) - 8 + dataBytes + pad
            if is64 {
                w.fourCC(container == .bw64 ? "BW64" : "RF64")
                w.u32(0xFFFF_FFFF)
            } else {
                w.fourCC("RIFF")
                w.u32(UInt32(truncatingIfNeeded: riffSize))
            }
            w.fourCC("WAVE")
            if is64 {
                w.fourCC("ds64"); w.u32(28)
                w.u64(riffSize); w.u64(dataBytes); w.u64(frames); w.u32(0)
            } else {
                w.fourCC("JUNK"); w.u32(28); w.zeros(28)
            }
            let containerBits = bps * 8
            let blockAlign = d.bytesPerFrame
            w.fourCC("fmt ")
            w.u32(wavExtensible ? 40 : (wavFormatTag == waveFormatPCM ? 16 : 18))
            w.u16(wavExtensible ? waveFormatExtensible : wavFormatTag)
            w.u16(UInt16(d.channelCount))
            w.u32(UInt32(d.sampleRate))
            w.u32(UInt32(clamping: UInt64(d.sampleRate) * UInt64(blockAlign)))
            w.u16(UInt16(clamping: blockAlign))
            w.u16(UInt16(containerBits))
            if wavExtensible {
                w.u16(22)
                w.u16(UInt16(d.encoding.isFloat || !d.encoding.isLinearPCM ? containerBits : d.validBitsPerSample))
                w.u32(d.channelMask ?? 0)
                w.u32(UInt32(wavFormatTag)); w.u16(0); w.u16(0x0010)
                w.append(waveSubformatGUIDTail)
            } else if wavFormatTag != waveFormatPCM {
                w.u16(0)
            }
            if wavHasFact {
                w.fourCC("fact"); w.u32(4)
                w.u32(is64 ? 0xFFFF_FFFF : UInt32(clamping: frames))
            }
            w.fourCC("data")
            w.u32(is64 ? 0xFFFF_FFFF : UInt32(truncatingIfNeeded: dataBytes))
            return w.bytes
        case .aiff:
            var w = ByteWriter(bigEndian: true, capacity: headerSize)
            let isAIFC = container == .aifc
            w.fourCC("FORM")
            w.u32(UInt32(truncatingIfNeeded: UInt64(headerSize) - 8 + dataBytes + pad))
            w.fourCC(isAIFC ? "AIFC" : "AIFF")
            if isAIFC {
                w.fourCC("FVER"); w.u32(4); w.u32(0xA280_5140)
            }
            w.fourCC("COMM")
            let pstringBytes = Array(aifcName.utf8)
            let pstringSize = 1 + pstringBytes.count + ((1 + pstringBytes.count) & 1)
            w.u32(isAIFC ? UInt32(22 + pstringSize) : 18)
            w.u16(UInt16(d.channelCount))
            w.u32(UInt32(truncatingIfNeeded: frames))
            let sampleSize = d.encoding.isFloat || !d.encoding.isLinearPCM ? bps * 8 : d.validBitsPerSample
            w.u16(UInt16(sampleSize))
            w.append(encodeExtended80(d.sampleRate))
            if isAIFC {
                w.fourCC(aifcType)
                w.append([UInt8(pstringBytes.count)] + pstringBytes)
                if (1 + pstringBytes.count) & 1 == 1 { w.zeros(1) }
            }
            w.fourCC("SSND")
            w.u32(UInt32(truncatingIfNeeded: 8 + dataBytes))
            w.u32(0); w.u32(0)
            return w.bytes
        case .caf:
            var w = ByteWriter(bigEndian: true, capacity: headerSize)
            w.fourCC("caff"); w.u16(1); w.u16(0)
            w.fourCC("desc"); w.u64(32)
            w.u64(d.sampleRate.bitPattern)
            var flags: UInt32 = 0
            switch d.encoding {
            case .ulaw: w.fourCC("ulaw")
            case .alaw: w.fourCC("alaw")
            default:
                w.fourCC("lpcm")
                if d.encoding.isFloat { flags |= cafFlagIsFloat }
                if !d.bigEndian { flags |= cafFlagIsLittleEndian }
            }
            w.u32(flags)
            w.u32(UInt32(d.bytesPerFrame))
            w.u32(1)
            w.u32(UInt32(d.channelCount))
            w.u32(UInt32(d.encoding.isFloat || !d.encoding.isLinearPCM ? bps * 8 : d.validBitsPerSample))
            if let layout = d.channelLayoutData {
                w.fourCC("chan"); w.u64(UInt64(layout.count)); w.append(layout)
            }
            w.fourCC("data")
            w.u64(4 + dataBytes) // the edit count and the samples, current after every write
            w.u32(0) // edit count
            return w.bytes
        case .au:
            var w = ByteWriter(bigEndian: true, capacity: headerSize)
            w.fourCC(".snd")
            w.u32(UInt32(headerSize))
            w.u32(is64 ? auUnknownSize : UInt32(truncatingIfNeeded: dataBytes))
            w.u32(auEncodingCode(d.encoding) ?? 0)
            w.u32(UInt32(d.sampleRate))
            w.u32(UInt32(d.channelCount))
            w.zeros(headerSize - 24)
            return w.bytes
        }
    }
}

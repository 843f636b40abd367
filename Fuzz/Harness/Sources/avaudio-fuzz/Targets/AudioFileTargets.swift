// AVAudioFile(forReading:) on each uncompressed container.
//
// The readers take a path, so each input is written to a file in a per-process directory on
// /dev/shm (tmpfs: no disk I/O) named with the container's extension. The four targets run the
// same code; they differ in their seed corpora and in the chunk mutator (WAV and AIFF walk 32-bit
// chunks, CAF 64-bit ones, AU has a flat header and gets byte mutations only).
//
// What each input checks, beyond "no crash, no hang, no leak, no huge allocation":
// - opening either succeeds or throws an NSError in AVFAudio's domain with a sentence;
// - the length is never more frames than the file has bytes (frames are at least one byte), so a
//   header's frame count is never trusted beyond the bytes present;
// - reading in chunks delivers exactly `length` frames, each read full except the last;
// - a seek then a read delivers what remains from there.
// The processing format (four common formats, interleaved or not) is chosen from the input's size.
import AVFoundation
#if canImport(Glibc)
import Glibc
#endif

extension FuzzTarget {
    static let wav = FuzzTarget(name: "wav", structure: .riff) { readAudioFile($0, fileExtension: "wav", asInstrument: true) }
    static let aiff = FuzzTarget(name: "aiff", structure: .iff) { readAudioFile($0, fileExtension: "aif", asInstrument: true) }
    static let caf = FuzzTarget(name: "caf", structure: .caf) { readAudioFile($0, fileExtension: "caf", asInstrument: true) }
    /// CAF of Apple Lossless packets: the packet table ('pakt'), the magic cookie ('kuki') and
    /// the ALAC decoder. A packet decodes to at most the cookie's frame length (≤ 65,536) and a
    /// table entry takes at least a byte, so a length may reach 65,536 frames per byte; reads
    /// stop after a million frames, and a damaged packet may make a read throw.
    static let alac = FuzzTarget(name: "alac", structure: .caf) {
        readAudioFile($0, fileExtension: "caf", framesPerByte: 65_536, readLimit: 1 << 20, damagedFramesThrow: true)
    }
    static let au = FuzzTarget(name: "au", structure: nil) { readAudioFile($0, fileExtension: "au") }
    /// Native FLAC: a frame of constant subframes holds 65,536 samples in about ten bytes, so a
    /// length may reach 8,192 frames per byte; reads stop after a million frames (a legitimately
    /// long stream is not a hang), then the seek checks run.
    static let flac = FuzzTarget(name: "flac", structure: nil) {
        readAudioFile($0, fileExtension: "flac", framesPerByte: 8_192, readLimit: 1 << 20, damagedFramesThrow: true)
    }
}

/// Writes `bytes` to the process's scratch file with `fileExtension` and returns its URL.
func scratchFile(_ bytes: [UInt8], fileExtension: String) -> URL {
    let directory = "/dev/shm/avaudio-fuzz-\(getpid())"
    if access(directory, F_OK) != 0 {
        mkdir(directory, 0o700)
        // The directory goes when the process exits normally; after a crash, Scripts/fuzz.sh cleans up.
        atexit { system("rm -rf /dev/shm/avaudio-fuzz-\(getpid())") }
    }
    let path = "\(directory)/input.\(fileExtension)"
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { fuzzFailure("cannot create the scratch file \(path)") }
    var written = 0
    bytes.withUnsafeBytes { raw in
        while written < raw.count {
            let n = Glibc.write(fd, raw.baseAddress! + written, raw.count - written)
            guard n > 0 else { break }
            written += n
        }
    }
    close(fd)
    guard written == bytes.count else { fuzzFailure("cannot write the scratch file \(path)") }
    return URL(fileURLWithPath: path)
}

/// The check every thrown error must pass: Apple's domain for AVAudioFile, and a sentence.
func expectReadableError(_ error: Error, _ what: String) {
    let ns = error as NSError
    guard ns.domain == "com.apple.coreaudio.avfaudio" || ns.domain == NSOSStatusErrorDomain else {
        fuzzFailure("\(what) threw an error in domain \(ns.domain): \(ns)")
    }
    guard !ns.localizedDescription.isEmpty else { fuzzFailure("\(what) threw an error without a description: \(ns)") }
}

/// `damagedFramesThrow`: a compressed stream's frame is only known to be damaged when it is
/// decoded, so a read may throw a readable AVFAudio error there (FLAC: by design, the frames after
/// it stay readable); PCM readers must never throw once open. `asInstrument`: the file is also
/// loaded into a sampler (`AVAudioUnitSampler.loadAudioFiles(at:)`), which reads its instrument
/// chunk (WAV `smpl`, AIFF `INST`/`MARK`, CAF `inst`) to place it on the keyboard.
func readAudioFile(_ bytes: [UInt8], fileExtension: String, framesPerByte: Int64 = 1, readLimit: Int64 = .max,
                   damagedFramesThrow: Bool = false, asInstrument: Bool = false) {
    let url = scratchFile(bytes, fileExtension: fileExtension)
    let formats: [AVAudioCommonFormat] = [.pcmFormatFloat32, .pcmFormatFloat64, .pcmFormatInt16, .pcmFormatInt32]
    let common = formats[bytes.count & 3]
    let interleaved = bytes.count & 4 != 0
    let file: AVAudioFile
    do {
        file = try AVAudioFile(forReading: url, commonFormat: common, interleaved: interleaved)
    } catch {
        expectReadableError(error, "AVAudioFile(forReading:)")
        return
    }
    let length = file.length
    guard length >= 0, length <= Int64(bytes.count) * framesPerByte else {
        fuzzFailure("a \(bytes.count)-byte file claims \(length) frames: the header was trusted beyond the bytes present")
    }
    let format = file.processingFormat
    guard format.commonFormat == common, format.isInterleaved == interleaved || format.channelCount == 1,
          format.sampleRate == file.fileFormat.sampleRate, format.channelCount == file.fileFormat.channelCount else {
        fuzzFailure("processing format \(format) does not follow the request (\(common), interleaved \(interleaved)) and file format \(file.fileFormat)")
    }
    _ = file.fileFormat.settings
    _ = file.description
    // At most 64 Ki samples per buffer: the harness's own allocation stays small whatever the
    // channel count, so any large allocation is the library's.
    let channels = Int64(format.channelCount)
    let capacity = AVAudioFrameCount(max(1, min(length, 1000, 65_536 / channels)))
    guard let buffer = AVAudioPCMBuffer(pcmFormat: format, frameCapacity: capacity) else {
        fuzzFailure("no \(capacity)-frame buffer in \(format)")
    }
    var total: Int64 = 0
    do {
        while total < readLimit {
            try file.read(into: buffer)
            let n = Int64(buffer.frameLength)
            if n == 0 { break }
            total += n
            guard total <= length else { fuzzFailure("read \(total) frames from a file of length \(length)") }
            guard n == Int64(capacity) || total == length else {
                fuzzFailure("a read returned \(n) of \(capacity) frames at frame \(total - n), before the end (\(length))")
            }
        }
    } catch {
        // (a CAF of compressed packets is read by decoding them: a damaged one throws on read)
        if damagedFramesThrow || file.fileFormat.streamDescription.pointee.mFormatID != kAudioFormatLinearPCM { expectReadableError(error, "read(into:)"); file.close(); return }
        // The file is on tmpfs and unchanged: a read error here means the reader and the length disagree.
        fuzzFailure("reading frame \(total) of \(length) threw \(error)")
    }
    guard total == length || total >= readLimit else { fuzzFailure("read \(total) frames from a file of length \(length)") }
    guard file.framePosition == total else { fuzzFailure("framePosition \(file.framePosition) after reading \(length) frames") }

    // Seek to a third of the way in (and past the end: clamped), then read what is left.
    let middle = length / 3
    file.framePosition = middle
    do {
        try file.read(into: buffer)
    } catch {
        // (a CAF of compressed packets is read by decoding them: a damaged one throws on read)
        if damagedFramesThrow || file.fileFormat.streamDescription.pointee.mFormatID != kAudioFormatLinearPCM { expectReadableError(error, "read(into:) after a seek"); file.close(); return }
        fuzzFailure("reading at frame \(middle) of \(length) threw \(error)")
    }
    let expected = min(Int64(capacity), length - middle)
    guard Int64(buffer.frameLength) == expected else {
        fuzzFailure("after seeking to \(middle) of \(length), a read returned \(buffer.frameLength) frames, not \(expected)")
    }
    file.framePosition = length + 1_000
    guard file.framePosition == length else { fuzzFailure("seeking past the end left framePosition at \(file.framePosition)") }
    file.close()
    if asInstrument {
        do {
            try AVAudioUnitSampler().loadAudioFiles(at: [url])
        } catch {
            expectReadableError(error, "AVAudioUnitSampler.loadAudioFiles(at:)")
        }
    }
}

// `avaudio _crash-writer`: the child process of the crash-kill trials (Scripts/crashkill.py and
// CrashKillTests). Not shown in `avaudio --help`.
//
//     avaudio _crash-writer write OUT --container wav --bits 16 [--chunk 4096] [--frames N]
//         (--container m4a writes Apple Lossless, m4a-flac FLAC, into an M4A file; flac native
//         FLAC; caf-alac Apple Lossless in CAF; oga-flac FLAC in Ogg)
//         writes a deterministic stereo signal with AVAudioFile, `--chunk` frames per
//         `write(from:)`, and prints "R" once the file is created, then "W <total frames>" (flushed)
//         after each write returns; it
//         runs until killed (or N frames).
//     avaudio _crash-writer verify FILE --frames F [--bits 16]
//         opens FILE with AVAudioFile(forReading:), checks it holds at least F frames and that
//         they are the signal (within the format's quantisation), prints "OK <frames>" or a reason.
import AVFoundation
import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

struct CrashWriter: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "_crash-writer",
        abstract: "Child process of the crash-kill trials (writes until killed; verifies what is left).",
        shouldDisplay: false
    )

    @Argument(help: "write or verify") var mode: String
    @Argument(help: "The file to write or verify.") var path: String
    @Option(help: "wav, aiff, aifc, caf, au, m4a (Apple Lossless) or m4a-flac (FLAC in MP4), flac, caf-alac (Apple Lossless in CAF) or oga-flac (FLAC in Ogg) (write).") var container = "wav"
    @Option(help: "16, 24 or 32 (float) bits per sample.") var bits = 16
    @Option(help: "Frames per write(from:).") var chunk = 4096
    @Option(help: "write: stop after this many frames (0: until killed); verify: frames that must be there.") var frames = 0

    /// The containers of compressed packets (4,096 frames each).
    static let packetContainers: Set<String> = ["m4a", "m4a-flac", "flac", "caf-alac", "oga-flac"]

    /// The signal: exact in every format's range (a ramp in 1/1000 steps, scaled to −6 dBFS).
    static func sample(_ frame: Int, _ channel: Int) -> Float {
        Float((frame * 7 + channel * 13) % 2000 - 1000) / 2000
    }

    mutating func run() throws {
        switch mode {
        case "write": try write()
        case "verify": try verify()
        default: throw ValidationError("mode must be write or verify")
        }
    }

    func write() throws {
        // A file size limit (`ulimit -f`) then fails write(2) with EFBIG instead of killing us.
        signal(SIGXFSZ, SIG_IGN)
        let fileType: Any
        switch container {
        case "wav": fileType = kAudioFileWAVEType
        case "aiff": fileType = kAudioFileAIFFType
        case "aifc": fileType = kAudioFileAIFCType
        case "caf": fileType = kAudioFileCAFType
        case "au": fileType = kAudioFileNextType
        case "m4a", "m4a-flac": fileType = kAudioFileM4AType
        case "flac": fileType = kAudioFileFLACType
        case "caf-alac": fileType = kAudioFileCAFType
        case "oga-flac": fileType = 0   // (no Apple constant for Ogg: the URL's extension chooses it)
        default: throw ValidationError("unknown container \(container)")
        }
        var settings: [String: Any] = [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 2,
                                       AVLinearPCMBitDepthKey: bits, AVLinearPCMIsFloatKey: bits == 32,
                                       AVLinearPCMIsBigEndianKey: container == "aiff" || container == "aifc" || container == "au",
                                       AVAudioFileTypeKey: fileType]
        if container == "aiff" { settings[AVLinearPCMIsFloatKey] = false }
        if CrashWriter.packetContainers.contains(container) {
            // Packets of 4,096 frames: a kill keeps every packet the last write completed.
            settings[AVFormatIDKey] = container == "m4a" || container == "caf-alac" ? kAudioFormatAppleLossless : kAudioFormatFLAC
            settings[AVEncoderBitDepthHintKey] = bits
            if container == "oga-flac" { settings[AVAudioFileTypeKey] = nil }
        }
        let file = try AVAudioFile(forWriting: URL(fileURLWithPath: path), settings: settings, commonFormat: .pcmFormatFloat32, interleaved: false)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: AVAudioFrameCount(chunk))!
        print("R")   // the file exists, with its header
        fflush(stdout)
        var total = 0
        while frames == 0 || total < frames {
            let n = frames == 0 ? chunk : min(chunk, frames - total)
            for c in 0..<2 {
                let p = buffer.floatChannelData![c]
                for i in 0..<n { p[i] = CrashWriter.sample(total + i, c) }
            }
            buffer.frameLength = AVAudioFrameCount(n)
            try file.write(from: buffer)
            total += n
            print("W \(total)")
            fflush(stdout)
        }
        file.close()
    }

    func verify() throws {
        let file: AVAudioFile
        do { file = try AVAudioFile(forReading: URL(fileURLWithPath: path)) } catch {
            print("FAIL cannot open: \(error.localizedDescription)")
            throw ExitCode(1)
        }
        guard file.length >= AVAudioFramePosition(frames) else {
            print("FAIL \(file.length) frames, at least \(frames) were written before the kill")
            throw ExitCode(1)
        }
        let tolerance: Float = bits == 32 ? 0 : (bits == 24 ? 1.0 / 8_388_608 : 1.0 / 32_768)
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 65_536)!
        var position = 0
        while position < frames {
            try file.read(into: buffer, frameCount: AVAudioFrameCount(min(65_536, frames - position)))
            let n = Int(buffer.frameLength)
            guard n > 0 else { break }
            for c in 0..<2 {
                let p = buffer.floatChannelData![c]
                for i in 0..<n where abs(p[i] - CrashWriter.sample(position + i, c)) > tolerance {
                    print("FAIL frame \(position + i) channel \(c): \(p[i]), expected \(CrashWriter.sample(position + i, c))")
                    throw ExitCode(1)
                }
            }
            position += n
        }
        print("OK \(file.length)")
    }
}

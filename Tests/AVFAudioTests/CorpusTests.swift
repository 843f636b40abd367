import Testing
import AVFoundation

/// End-to-end checks of AVAudioFile on files nobody here wrote: CPython's test audio, SciPy's WAV
/// edge cases, and files libsndfile writes. Each readable file must give the same sample rate,
/// channel count, length and Float samples as libsndfile (Python `soundfile`), an independent
/// reader; each file libsndfile rejects must give a clean NSError here, never a trap.
///
/// Needs python3 with soundfile (installed by .ci/run); skipped, visibly, without it.
@Suite(.enabled(if: Corpus.available, "needs python3 with numpy and soundfile"))
struct CorpusTests {
    @Test func everyCorpusFileMatchesLibsndfile() throws {
        let files = Corpus.files
        #expect(files.count >= 20, "corpus too small: \(files)")
        var compared = 0
        for path in files {
            let reference = Corpus.reference(for: path)
            let url = URL(fileURLWithPath: path)
            let file: AVAudioFile
            do {
                file = try AVAudioFile(forReading: url)
            } catch let error as NSError {
                // A file we cannot read must be one libsndfile also rejects or cannot represent
                // (e.g. 36-bit integers), and the error must name it.
                #expect(error.domain == "com.apple.coreaudio.avfaudio")
                #expect(error.localizedDescription.contains(url.lastPathComponent), "\(error.localizedDescription)")
                // We reject a header that contradicts itself (block alignment that does not fit
                // the channels and bit depth), where libsndfile guesses; that is the one allowed
                // difference.
                let selfContradictory = error.localizedDescription.contains("block alignment")
                if reference != nil, !selfContradictory {
                    Issue.record("\(path): libsndfile reads it but AVAudioFile threw \(error.localizedDescription)")
                }
                continue
            }
            guard let reference else { continue }   // readable here, not by libsndfile (e.g. RF64 variants it lacks)
            #expect(file.fileFormat.sampleRate == reference.rate, "\(path)")
            #expect(Int(file.fileFormat.channelCount) == reference.channels, "\(path)")
            #expect(file.length == Int64(reference.frames), "\(path)")
            let buffer = try #require(AVAudioPCMBuffer(pcmFormat: AVAudioFormat(commonFormat: .pcmFormatFloat64, sampleRate: file.fileFormat.sampleRate,
                                                                              channels: file.fileFormat.channelCount, interleaved: true,
                                                                              )!, frameCapacity: AVAudioFrameCount(max(1, reference.frames))))
            let f64 = try AVAudioFile(forReading: url, commonFormat: .pcmFormatFloat64, interleaved: true)
            try f64.read(into: buffer)
            #expect(Int(buffer.frameLength) == reference.frames, "\(path)")
            let samples = UnsafeMutableAudioBufferListPointer(buffer.mutableAudioBufferList)[0].mData!.assumingMemoryBound(to: Double.self)
            var worst = 0.0
            for i in 0..<min(reference.samples.count, Int(buffer.frameLength) * reference.channels) {
                worst = max(worst, abs(samples[i] - reference.samples[i]))
            }
            // Same scaling as libsndfile (2^-(bits-1)); G.711 tables agree exactly.
            #expect(worst <= 1e-9, "\(path): max difference \(worst) from libsndfile")
            compared += 1
        }
        #expect(compared >= 15)
    }

    /// CPython's sndhdr stubs: tiny files in formats we do not read (8SVX, HCOM, VOC, ...) or
    /// headers with almost no data. Each either opens or throws a clear error; none traps.
    @Test func sndhdrStubsNeverTrap() throws {
        for path in Corpus.sndhdrFiles {
            let url = URL(fileURLWithPath: path)
            do {
                let file = try AVAudioFile(forReading: url)
                let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 4096)!
                try file.read(into: buffer)
            } catch let error as NSError {
                #expect(error.domain == "com.apple.coreaudio.avfaudio")
                #expect(!error.localizedDescription.isEmpty)
            }
        }
    }
}

enum Corpus {
    struct Reference {
        var rate: Double
        var channels: Int
        var frames: Int
        var samples: [Double]
    }

    static func python(_ script: String, _ args: [String] = []) -> Data? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", script] + args
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? data : nil
    }

    static let available: Bool = python("import numpy, soundfile") != nil

    static let directory: URL = {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("avfaudio-corpus-\(getpid())")
        try? FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        return dir
    }()

    /// CPython audiodata, SciPy's WAVs, and files libsndfile writes in formats we read.
    static let files: [String] = {
        let script = """
        import glob, os, sys, numpy as np, soundfile as sf, scipy
        out = sys.argv[1]
        files = sorted(set(glob.glob('/root/.pyenv/versions/*/lib/python3*/test/audiodata/*')
                         + glob.glob(os.path.join(sys.prefix, 'lib/python3*/test/audiodata/*'))))
        seen = {}
        for f in files:
            seen.setdefault(os.path.basename(f), f)
        files = list(seen.values()) + sorted(glob.glob(os.path.join(os.path.dirname(scipy.__file__), 'io/tests/data/*.wav')))
        t = np.arange(2000) / 44100.0
        x = np.stack([0.6 * np.sin(2 * np.pi * 440 * t), 0.3 * np.sin(2 * np.pi * 1234 * t)], axis=1)
        for fmt, sub, ext in [('WAV', 'PCM_U8', 'wav'), ('WAV', 'PCM_16', 'wav'), ('WAV', 'PCM_24', 'wav'), ('WAV', 'PCM_32', 'wav'),
                              ('WAV', 'FLOAT', 'wav'), ('WAV', 'DOUBLE', 'wav'), ('WAV', 'ULAW', 'wav'), ('WAV', 'ALAW', 'wav'),
                              ('AIFF', 'PCM_S8', 'aiff'), ('AIFF', 'PCM_16', 'aiff'), ('AIFF', 'PCM_24', 'aiff'), ('AIFF', 'FLOAT', 'aifc'),
                              ('CAF', 'PCM_16', 'caf'), ('CAF', 'PCM_24', 'caf'), ('CAF', 'FLOAT', 'caf'), ('CAF', 'DOUBLE', 'caf'),
                              ('CAF', 'ULAW', 'caf'), ('CAF', 'ALAW', 'caf'), ('AU', 'PCM_16', 'au'), ('AU', 'FLOAT', 'au'),
                              ('RF64', 'PCM_16', 'rf64')]:
            p = os.path.join(out, 'sf-%s-%s.%s' % (fmt, sub, ext))
            try:
                sf.write(p, x, 44100, format=fmt, subtype=sub)
                files.append(p)
            except Exception:
                pass
        print('\\n'.join(files))
        """
        guard available, let data = python(script, [directory.path]) else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }()

    static let sndhdrFiles: [String] = {
        guard let data = python("import glob; print('\\n'.join(sorted(glob.glob('/root/.pyenv/versions/*/lib/python3*/test/sndhdrdata/*'))))") else { return [] }
        return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
    }()

    /// libsndfile's reading (float64, interleaved), or nil when libsndfile cannot read the file.
    static func reference(for path: String) -> Reference? {
        let script = """
        import sys, struct, soundfile as sf
        try:
            x, sr = sf.read(sys.argv[1], dtype='float64', always_2d=True)
        except Exception:
            sys.exit(3)
        sys.stdout.buffer.write(struct.pack('<dqq', sr, x.shape[1], x.shape[0]))
        sys.stdout.buffer.write(x.astype('<f8').tobytes())
        """
        guard let data = python(script, [path]), data.count >= 24 else { return nil }
        return data.withUnsafeBytes { raw in
            let rate = raw.loadUnaligned(fromByteOffset: 0, as: Double.self)
            let channels = Int(raw.loadUnaligned(fromByteOffset: 8, as: Int64.self))
            let frames = Int(raw.loadUnaligned(fromByteOffset: 16, as: Int64.self))
            let count = (data.count - 24) / 8
            let samples = (0..<count).map { raw.loadUnaligned(fromByteOffset: 24 + 8 * $0, as: Double.self) }
            return Reference(rate: rate, channels: channels, frames: frames, samples: samples)
        }
    }
}

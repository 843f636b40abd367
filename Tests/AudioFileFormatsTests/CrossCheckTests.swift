import Foundation
import Testing
@_spi(Testing) @testable import AudioFileFormats
import AudioKernels

// Cross-checks against independent readers and writers: CPython's wave/aifc/sunau and their test
// files, scipy.io.wavfile and its test files, libsndfile (through the soundfile package) and sox.
// Each test is skipped, with the reason shown, when its tool is not installed.

private let stdlibScript = """
import sys, json, base64, warnings
warnings.simplefilter('ignore')
import wave
try:
    import aifc, sunau
except ImportError:
    aifc = sunau = None
out = []
for path in sys.argv[1:]:
    ext = path.rsplit('.', 1)[-1]
    mod = {'wav': wave, 'aiff': aifc, 'aifc': aifc, 'au': sunau}.get(ext)
    if mod is None:
        out.append({'path': path, 'error': 'no module'}); continue
    try:
        f = mod.open(path, 'rb')
        n = f.getnframes()
        data = f.readframes(n)
        ct = f.getcomptype()
        ct = ct.decode() if isinstance(ct, bytes) else ct
        out.append({'path': path, 'rate': f.getframerate(), 'channels': f.getnchannels(), 'frames': n,
                    'sampwidth': f.getsampwidth(), 'comptype': ct, 'data': base64.b64encode(data).decode()})
    except Exception as e:
        out.append({'path': path, 'error': repr(e)})
print(json.dumps(out))
"""

private let scipyScript = """
import sys, json, warnings
warnings.simplefilter('ignore')
import scipy.io.wavfile as wf
def vals(a):
    # Floats as exact hex strings (JSON decimal parsing may round the last bit).
    return [float(x).hex() for x in a.reshape(-1).tolist()] if a.dtype.kind == 'f' else a.reshape(-1).tolist()
out = []
for path in sys.argv[1:]:
    try:
        rate, data = wf.read(path)
        ch = 1 if data.ndim == 1 else data.shape[1]
        out.append({'path': path, 'rate': int(rate), 'channels': ch, 'frames': data.shape[0],
                    'dtype': str(data.dtype), 'values': vals(data)})
    except Exception as e:
        out.append({'path': path, 'error': repr(e)})
print(json.dumps(out))
"""

/// Reads (path, dtype) pairs with libsndfile.
private let soundfileReadScript = """
import sys, json, warnings
warnings.simplefilter('ignore')
import soundfile as sf
def vals(a):
    return [float(x).hex() for x in a.reshape(-1).tolist()] if a.dtype.kind == 'f' else a.reshape(-1).tolist()
out = []
args = sys.argv[1:]
for path, dtype in zip(args[0::2], args[1::2]):
    try:
        data, rate = sf.read(path, dtype=dtype, always_2d=True)
        info = sf.info(path)
        out.append({'path': path, 'rate': rate, 'channels': data.shape[1], 'frames': data.shape[0],
                    'format': info.format, 'subtype': info.subtype, 'values': vals(data)})
    except Exception as e:
        out.append({'path': path, 'error': repr(e)})
print(json.dumps(out))
"""

/// Writes files with libsndfile into argv[1] and reports what libsndfile reads back.
private let soundfileWriteScript = """
import sys, os, json, math, warnings
warnings.simplefilter('ignore')
import numpy as np, soundfile as sf
def vals(a):
    return [float(x).hex() for x in a.reshape(-1).tolist()] if a.dtype.kind == 'f' else a.reshape(-1).tolist()
out_dir = sys.argv[1]
specs = []
for st in ['PCM_U8', 'PCM_16', 'PCM_24', 'PCM_32', 'FLOAT', 'DOUBLE', 'ULAW', 'ALAW']:
    for ch in (1, 2, 6):
        specs.append(('wav', 'WAV', st, 'FILE', ch))
for st in ['PCM_16', 'PCM_24', 'FLOAT']:
    specs.append(('wav', 'WAVEX', st, 'FILE', 2))
for st in ['PCM_16', 'FLOAT']:
    specs.append(('rf64', 'RF64', st, 'FILE', 2))
for st in ['PCM_S8', 'PCM_16', 'PCM_24', 'PCM_32', 'FLOAT', 'DOUBLE', 'ULAW', 'ALAW']:
    for ch in (1, 2):
        specs.append(('aiff', 'AIFF', st, 'FILE', ch))
specs.append(('aiff', 'AIFF', 'PCM_16', 'LITTLE', 2))
specs.append(('aiff', 'AIFF', 'PCM_24', 'LITTLE', 1))
for st in ['PCM_S8', 'PCM_16', 'PCM_24', 'PCM_32', 'FLOAT', 'DOUBLE', 'ULAW', 'ALAW']:
    for endian in ('BIG', 'LITTLE'):
        specs.append(('caf', 'CAF', st, endian, 2))
specs.append(('caf', 'CAF', 'PCM_16', 'LITTLE', 6))
for st in ['PCM_S8', 'PCM_16', 'PCM_24', 'PCM_32', 'FLOAT', 'DOUBLE', 'ULAW', 'ALAW']:
    specs.append(('au', 'AU', st, 'FILE', 2))
specs.append(('au', 'AU', 'PCM_16', 'LITTLE', 1))
out = []
for i, (ext, fmt, st, endian, ch) in enumerate(specs):
    rate = [8000, 44100, 48000][i % 3]
    n = 37
    t = np.arange(n)
    data = np.stack([0.8 * np.sin(2 * math.pi * (k + 1) * 441 * t / rate + k) for k in range(ch)], axis=1)
    path = os.path.join(out_dir, f'sf{i}-{fmt}-{st}-{endian}-{ch}.{ext}')
    try:
        sf.write(path, data, rate, format=fmt, subtype=st, endian=endian)
    except Exception as e:
        out.append({'path': path, 'error': 'write: ' + repr(e)}); continue
    dtype = 'float64' if st in ('FLOAT', 'DOUBLE') else 'int32'
    back, r = sf.read(path, dtype=dtype, always_2d=True)
    out.append({'path': path, 'rate': r, 'channels': back.shape[1], 'frames': back.shape[0], 'format': fmt,
                'subtype': st, 'endian': endian, 'values': vals(back)})
print(json.dumps(out))
"""

/// Converts a file to raw signed 32-bit little-endian samples with sox.
private func soxRawInt32(_ path: String) throws -> [Int32]? {
    let r = try Tools.run(["sox", "-V1", path, "-t", "raw", "-e", "signed-integer", "-b", "32", "-L", "-"])
    guard r.status == 0 else { return nil }
    return r.output.withUnsafeBytes { buf in
        stride(from: 0, to: buf.count - 3, by: 4).map { i in
            Int32(bitPattern: UInt32(buf[i]) | UInt32(buf[i + 1]) << 8 | UInt32(buf[i + 2]) << 16 | UInt32(buf[i + 3]) << 24)
        }
    }
}

/// Well-formed sample bytes for `desc` (finite floats in [-1, 1), any integer bit pattern with the
/// bits below `validBitsPerSample` cleared).
func sampleBytes(_ desc: AudioDataDescription, frames: Int, _ random: inout TestRandom) -> [UInt8] {
    let bps = desc.encoding.bytesPerSample
    var out: [UInt8] = []
    out.reserveCapacity(frames * desc.bytesPerFrame)
    for _ in 0..<(frames * desc.channelCount) {
        var value: UInt64
        switch desc.encoding {
        case .float32: value = UInt64(Float(Double(random.int(-1 << 20..<1 << 20)) / Double(1 << 20)).bitPattern)
        case .float64: value = (Double(random.int(-1 << 30..<1 << 30)) / Double(1 << 30)).bitPattern
        default:
            value = random.next()
            let unused = bps * 8 - desc.validBitsPerSample
            if unused > 0 && desc.encoding.isLinearPCM { value &= ~((1 << UInt64(unused)) - 1) }
        }
        for k in 0..<bps {
            let shift = desc.bigEndian ? (bps - 1 - k) * 8 : k * 8
            out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
        }
    }
    return out
}

@Suite("Cross-checks with CPython, scipy, libsndfile and sox")
struct CrossCheckTests {
    // MARK: CPython's test files

    @Test("CPython's Lib/test/audiodata files read as wave/aifc/sunau read them",
          .enabled(if: Tools.cpythonAudioData != nil, "python3 or its Lib/test/audiodata files are not installed"))
    func cpythonFiles() throws {
        let dir = Tools.cpythonAudioData!
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { !$0.hasPrefix(".") }.sorted()
        #expect(names.count >= 5)
        let paths = names.map { dir + "/" + $0 }
        let results = try Tools.pythonJSON(stdlibScript, paths) as! [[String: Any]]
        var compared = 0
        for entry in results {
            let path = entry["path"] as! String
            let reader = try AudioFileReader(path: path)
            #expect(reader.warnings.isEmpty, "\(path): \(reader.warnings)")
            if let error = entry["error"] {
                // Python cannot read it (e.g. WAVE_FORMAT_EXTENSIBLE before 3.12); we still can.
                print("python could not read \(path): \(error); checked only that it opens here")
                continue
            }
            let what = (path as NSString).lastPathComponent
            #expect(reader.description.sampleRate == (entry["rate"] as! NSNumber).doubleValue, "\(what)")
            #expect(reader.description.channelCount == entry["channels"] as! Int, "\(what)")
            #expect(reader.frameCount == Int64(entry["frames"] as! Int), "\(what)")
            let theirs = [UInt8](Data(base64Encoded: entry["data"] as! String)!)
            let mine = try readAll(reader)
            switch reader.description.encoding {
            case .ulaw, .alaw:
                // Python hands out G.711 decoded to native-endian 16-bit.
                let decoded = decodeSamples(mine, reader.description, leftJustify32: false)
                let pythonSamples: [Sample] = stride(from: 0, to: theirs.count - 1, by: 2).map {
                    .int(Int64(Int16(bitPattern: UInt16(theirs[$0]) | UInt16(theirs[$0 + 1]) << 8)))
                }
                #expect(decoded == pythonSamples, "\(what)")
            default:
                #expect(mine == theirs, "\(what): raw sample bytes differ")
                #expect(reader.description.encoding.bytesPerSample == entry["sampwidth"] as! Int, "\(what)")
            }
            compared += 1
        }
        #expect(compared >= 5)
    }

    // MARK: scipy's test files

    @Test("scipy's WAV test files: rate, channels, frames and every sample value as scipy.io.wavfile reads them",
          .enabled(if: Tools.scipyTestData != nil, "scipy or its io/tests/data files are not installed"))
    func scipyFiles() throws {
        let dir = Tools.scipyTestData!
        let names = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".wav") }.sorted()
        let results = try Tools.pythonJSON(scipyScript, names.map { dir + "/" + $0 }) as! [[String: Any]]
        var compared = 0
        for entry in results {
            let path = entry["path"] as! String
            let name = (path as NSString).lastPathComponent
            let opened = Result { try AudioFileReader(path: path) }
            // Files we deliberately refuse, whatever scipy does with them.
            if ["-5S-36bit.wav", "-5S-45bit.wav", "-5S-53bit.wav", "-5S-64bit.wav"].contains(where: { name.hasSuffix($0) }) {
                // scipy reads these as int64; there is no SampleEncoding for integers wider than 32 bits.
                #expect(throws: AudioFileFormatError.self, "\(name)") { try opened.get() }
                if case .failure(let e as AudioFileFormatError) = opened {
                    #expect(e.code == AudioFileFormatError.Code.unsupportedDataFormat, "\(name)")
                    #expect(e.message.contains("wider than 32 bits"))
                }
                continue
            }
            if let error = entry["error"] {
                switch name {
                case _ where name.contains("ulaw"):
                    // scipy has no µ-law; we do: 9 frames of known bytes.
                    let r = try opened.get()
                    #expect(r.description.encoding == .ulaw && r.frameCount == 9 && r.description.sampleRate == 8000)
                    #expect(try readAll(r) == [0xFF, 0x8B, 0x83, 0x8B, 0xFF, 0x0B, 0x03, 0x0B, 0xFF])
                case _ where name.contains("early-eof-no-data"), _ where name.contains("incomplete-chunk"),
                     _ where name.contains("inconsistent"):
                    #expect(throws: AudioFileFormatError.self, "\(name)") { try opened.get() }
                    if case .failure(let e as AudioFileFormatError) = opened {
                        #expect(e.code == AudioFileFormatError.Code.invalidFile, "\(name): \(e)")
                    }
                default:
                    Issue.record("scipy failed on \(name) (\(error)); no expectation recorded for it here")
                }
                continue
            }
            let reader = try opened.get()
            #expect(reader.description.sampleRate == Double(entry["rate"] as! Int), "\(name)")
            #expect(reader.description.channelCount == entry["channels"] as! Int, "\(name)")
            #expect(reader.frameCount == Int64(entry["frames"] as! Int), "\(name)")
            if name.contains("early-eof") {
                #expect(reader.warnings.first?.contains("claims") == true, "\(name): \(reader.warnings)")
            } else {
                #expect(reader.warnings.isEmpty, "\(name): \(reader.warnings)")
            }
            let mine = decodeSamples(try readAll(reader), reader.description, leftJustify32: false)
            compareSamples(mine, entry["values"] as! [Any], name)
            compared += 1
        }
        #expect(compared >= 12)
        // Spot checks of what the names promise.
        let r20 = try AudioFileReader(path: dir + "/test-1234Hz-le-1ch-10S-20bit-extra.wav")
        #expect(r20.description.encoding == .signed24 && r20.description.validBitsPerSample == 20)
        let r12 = try AudioFileReader(path: dir + "/test-8000Hz-le-4ch-9S-12bit.wav")
        #expect(r12.description.encoding == .signed16 && r12.description.validBitsPerSample == 12)
        let r5 = try AudioFileReader(path: dir + "/test-8000Hz-le-5ch-9S-5bit.wav")
        #expect(r5.description.encoding == .unsigned8 && r5.description.validBitsPerSample == 5)
        let rf = try AudioFileReader(path: dir + "/test-44100Hz-le-1ch-4bytes-rf64.wav")
        #expect(rf.container == .rf64)
        let be = try AudioFileReader(path: dir + "/test-44100Hz-2ch-32bit-float-be.wav")
        #expect(be.description.bigEndian && be.description.encoding == .float32)
    }

    // MARK: libsndfile

    @Test("files libsndfile writes (WAV, WAVEX, RF64, AIFF, AIFF-C, CAF both endians, AU) read identically here",
          .enabled(if: Tools.soundfile, "the python3 soundfile package (libsndfile) is not installed"))
    func libsndfileWrites() throws {
        let dir = TempDir()
        let results = try Tools.pythonJSON(soundfileWriteScript, [dir.url.path]) as! [[String: Any]]
        #expect(results.count > 50)
        var compared = 0
        for entry in results {
            let path = entry["path"] as! String
            let name = (path as NSString).lastPathComponent
            if let error = entry["error"] {
                print("libsndfile could not write \(name): \(error)")
                continue
            }
            let reader = try AudioFileReader(path: path)
            #expect(reader.description.sampleRate == (entry["rate"] as! NSNumber).doubleValue, "\(name)")
            #expect(reader.description.channelCount == entry["channels"] as! Int, "\(name)")
            #expect(reader.frameCount == Int64(entry["frames"] as! Int), "\(name)")
            #expect(reader.warnings.isEmpty, "\(name): \(reader.warnings)")
            let mine = decodeSamples(try readAll(reader), reader.description, leftJustify32: true)
            compareSamples(mine, entry["values"] as! [Any], name)
            compared += 1
        }
        #expect(compared > 50)
    }

    /// Writes a file per accepted (container, encoding, byte order, channels) combination.
    func writeMatrix(_ dir: TempDir, containers: [AudioContainerType], channels: [Int] = [1, 2, 6],
                     include: (AudioContainerType, AudioDataDescription) -> Bool = { _, _ in true })
        throws -> [(path: String, desc: AudioDataDescription, bytes: [UInt8])] {
        var random = TestRandom(seed: 99)
        var files: [(String, AudioDataDescription, [UInt8])] = []
        for container in containers {
            for encoding in allEncodings {
                for bigEndian in [false, true] where containerAccepts(container, encoding, bigEndian: bigEndian) {
                    if encoding.bytesPerSample == 1 && bigEndian { continue } // byte order is moot
                    for ch in channels {
                        let rate = [8000.0, 44100, 96000][files.count % 3]
                        let desc = AudioDataDescription(sampleRate: rate, channelCount: ch, encoding: encoding, bigEndian: bigEndian)
                        guard include(container, desc) else { continue }
                        let path = dir.path("mine\(files.count)-\(encoding.bytesPerSample)\(bigEndian ? "be" : "le")-\(ch).\(container.preferredFileExtension)")
                        let frames = 25
                        let bytes = sampleBytes(desc, frames: frames, &random)
                        let w = try AudioFileWriter(path: path, container: container, description: desc)
                        try bytes.withUnsafeBytes { try w.write(frames: 11, from: $0.baseAddress!) }
                        try bytes.withUnsafeBytes { try w.write(frames: 14, from: $0.baseAddress! + 11 * desc.bytesPerFrame) }
                        try w.close()
                        files.append((path, desc, bytes))
                    }
                }
            }
        }
        return files
    }

    @Test("files written here read identically with libsndfile (WAV, RF64 switch, AIFF, AIFF-C, CAF, AU)",
          .enabled(if: Tools.soundfile, "the python3 soundfile package (libsndfile) is not installed"))
    func libsndfileReadsMine() throws {
        let dir = TempDir()
        var files = try writeMatrix(dir, containers: [.wav, .rf64, .aiff, .aifc, .caf, .au])
        // A WAV that switched to RF64 half-way.
        let switched = dir.path("switched.wav")
        let desc = AudioDataDescription(sampleRate: 48000, channelCount: 2, encoding: .signed24)
        var random = TestRandom(seed: 5)
        let bytes = sampleBytes(desc, frames: 300, &random)
        let w = try AudioFileWriter(path: switched, container: .wav, description: desc)
        w.sizeLimit32 = 1000
        for i in 0..<3 { try bytes.withUnsafeBytes { try w.write(frames: 100, from: $0.baseAddress! + i * 600) } }
        #expect(w.container == .rf64)
        try w.close()
        files.append((switched, desc, bytes))

        var args: [String] = []
        for f in files { args += [f.path, f.desc.encoding.isFloat ? "float64" : "int32"] }
        let results = try Tools.pythonJSON(soundfileReadScript, args) as! [[String: Any]]
        #expect(results.count == files.count)
        for (file, entry) in zip(files, results) {
            let name = (file.path as NSString).lastPathComponent + " (\(file.desc))"
            if let error = entry["error"] {
                Issue.record("libsndfile cannot read \(name): \(error)")
                continue
            }
            #expect((entry["rate"] as! NSNumber).doubleValue == file.desc.sampleRate, "\(name)")
            #expect(entry["channels"] as! Int == file.desc.channelCount, "\(name)")
            #expect(entry["frames"] as! Int == file.bytes.count / file.desc.bytesPerFrame, "\(name)")
            compareSamples(decodeSamples(file.bytes, file.desc, leftJustify32: true), entry["values"] as! [Any], name)
        }
    }

    @Test("WAV and RF64 files written here read identically with scipy.io.wavfile",
          .enabled(if: Tools.scipy, "scipy is not installed"))
    func scipyReadsMine() throws {
        let dir = TempDir()
        // scipy reads PCM and IEEE float (not G.711).
        let files = try writeMatrix(dir, containers: [.wav, .rf64]) { _, d in d.encoding.isLinearPCM }
        let results = try Tools.pythonJSON(scipyScript, files.map(\.path)) as! [[String: Any]]
        for (file, entry) in zip(files, results) {
            let name = (file.path as NSString).lastPathComponent + " (\(file.desc))"
            if let error = entry["error"] {
                Issue.record("scipy cannot read \(name): \(error)")
                continue
            }
            #expect(entry["rate"] as! Int == Int(file.desc.sampleRate), "\(name)")
            #expect(entry["channels"] as! Int == file.desc.channelCount, "\(name)")
            #expect(entry["frames"] as! Int == file.bytes.count / file.desc.bytesPerFrame, "\(name)")
            compareSamples(decodeSamples(file.bytes, file.desc, leftJustify32: false), entry["values"] as! [Any], name)
        }
    }

    @Test("files written here read identically with CPython's wave, aifc and sunau",
          .enabled(if: Tools.python && Tools.succeeds(["python3", "-W", "ignore", "-c", "import aifc, sunau"]),
                   "python3 with the aifc and sunau modules (removed in 3.13) is not installed"))
    func cpythonReadsMine() throws {
        let dir = TempDir()
        // What the modules support: wave → plain PCM (≤ 2 channels: no WAVE_FORMAT_EXTENSIBLE in 3.11);
        // aifc → NONE/sowt/ulaw/alaw; sunau → µ-law, A-law, 8–32-bit integers.
        let files = try writeMatrix(dir, containers: [.wav, .aiff, .aifc, .au], channels: [1, 2]) { c, d in
            switch c {
            case .wav: return !d.encoding.isFloat && d.encoding.isLinearPCM
            case .aifc: return !d.encoding.isFloat && (d.bigEndian || d.encoding.bytesPerSample <= 2) // aifc: 16-bit sowt only
            case .au: return !d.encoding.isFloat && d.encoding != .alaw // sunau hands A-law out undecoded
            default: return true
            }
        }
        let results = try Tools.pythonJSON(stdlibScript, files.map(\.path)) as! [[String: Any]]
        for (file, entry) in zip(files, results) {
            let name = (file.path as NSString).lastPathComponent + " (\(file.desc))"
            if let error = entry["error"] {
                Issue.record("CPython cannot read \(name): \(error)")
                continue
            }
            #expect(entry["rate"] as! Int == Int(file.desc.sampleRate), "\(name)")
            #expect(entry["channels"] as! Int == file.desc.channelCount, "\(name)")
            #expect(entry["frames"] as! Int == file.bytes.count / file.desc.bytesPerFrame, "\(name)")
            let theirs = [UInt8](Data(base64Encoded: entry["data"] as! String)!)
            switch file.desc.encoding {
            case .ulaw, .alaw:
                let decoded = decodeSamples(file.bytes, file.desc, leftJustify32: false)
                let pythonSamples: [Sample] = stride(from: 0, to: theirs.count - 1, by: 2).map {
                    .int(Int64(Int16(bitPattern: UInt16(theirs[$0]) | UInt16(theirs[$0 + 1]) << 8)))
                }
                #expect(decoded == pythonSamples, "\(name)")
            default:
                if file.desc.bigEndian == false && file.desc.encoding.bytesPerSample > 1 && file.path.hasSuffix(".aifc") {
                    // aifc hands 'sowt' data out byte-swapped to big-endian.
                    let bps = file.desc.encoding.bytesPerSample
                    var swapped = file.bytes
                    for i in stride(from: 0, to: swapped.count, by: bps) { swapped[i..<i + bps].reverse() }
                    #expect(theirs == swapped, "\(name)")
                } else {
                    #expect(theirs == file.bytes, "\(name)")
                }
            }
        }
    }

    // MARK: sox

    @Test("sox-made files (WAV, AIFF, AIFF-C, CAF, AU) read here as sox decodes them, and sox reads ours",
          .enabled(if: Tools.sox, "sox is not installed"))
    func sox() throws {
        let dir = TempDir()
        var checked = 0
        for (ext, bits, channels) in [("caf", 16, 2), ("wav", 16, 2), ("wav", 24, 6), ("aiff", 24, 1), ("aifc", 16, 2),
                                      ("au", 16, 1), ("au", 32, 2), ("wav", 8, 1), ("caf", 32, 1)] {
            let path = dir.path("sox\(checked).\(ext)")
            let made = try Tools.run(["sox", "-V1", "-n", "-r", "44100", "-c", "\(channels)", "-b", "\(bits)", path,
                                      "synth", "0.05", "sine", "440"])
            guard made.status == 0 else {
                print("sox could not make \(ext) \(bits)-bit: \(made.errorText)")
                continue
            }
            let reader = try AudioFileReader(path: path)
            #expect(reader.description.channelCount == channels, "\(path)")
            #expect(reader.description.sampleRate == 44100)
            #expect(reader.warnings.isEmpty, "\(reader.warnings)")
            let mine = decodeSamples(try readAll(reader), reader.description, leftJustify32: true)
            let theirs = try #require(try soxRawInt32(path))
            #expect(mine == theirs.map { .int(Int64($0)) }, "\(path) \(reader.description)")
            checked += 1
        }
        #expect(checked >= 5)

        // Integer files written here, decoded by sox.
        let files = try writeMatrix(dir, containers: [.wav, .aiff, .aifc, .caf, .au], channels: [1, 2]) { _, d in
            d.encoding.isLinearPCM && !d.encoding.isFloat
        }
        for file in files {
            guard let theirs = try soxRawInt32(file.path) else {
                Issue.record("sox cannot read \(file.path) (\(file.desc))")
                continue
            }
            #expect(decodeSamples(file.bytes, file.desc, leftJustify32: true) == theirs.map { .int(Int64($0)) },
                    "\(file.path) \(file.desc)")
        }
    }
}

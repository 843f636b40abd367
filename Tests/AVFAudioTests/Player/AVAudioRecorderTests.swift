// AVAudioRecorder through the public API on the null input device (silence, clocked like
// hardware; no server needed): creation errors, settings and format, exact durations (with rate
// conversion from the device's 48 kHz), record(atTime:), pause and resume, deleteRecording, the
// delegate once on the main queue. Recording real audio is in PlayerDeviceTests.
import Testing
import Foundation
import AVFoundation

@Suite(.serialized)
struct AVAudioRecorderTests {
    @Test("What needs an encoder this project lacks throws a clear NSError: .mp3 ('typ?'), AAC in .m4a/.caf and an .m4a naming no format (AAC, its default: 'fmt?' naming AAC), PCM in .m4a, FLAC in .caf; .wav/.aif/.caf/.flac and lossless .m4a are accepted")
    func unsupportedContainers() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            _ = try AVAudioRecorder(url: dir.appendingPathComponent("x.mp3"), settings: [AVFormatIDKey: kAudioFormatMPEGLayer3])
            Issue.record(".mp3 should throw")
        } catch let error as NSError {
            #expect(error.domain == NSOSStatusErrorDomain)
            #expect(error.code == Int(kAudioFileUnsupportedFileTypeError))
            #expect(error.localizedDescription.contains(".mp3") && error.localizedDescription.contains("not supported yet"), "\(error.localizedDescription)")
        }
        let refusedData: [(String, [String: Any], String)] = [
            ("m4a", [AVFormatIDKey: kAudioFormatMPEG4AAC, AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2], "AAC"),
            ("m4a", [AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 1], "AAC"),
            ("caf", [AVFormatIDKey: kAudioFormatMPEG4AAC], "AAC"),
            ("mp4", [AVFormatIDKey: kAudioFormatLinearPCM, AVLinearPCMBitDepthKey: 16], "lpcm"),
            ("caf", [AVFormatIDKey: kAudioFormatFLAC], "'flac'"),
        ]
        for (ext, settings, named) in refusedData {
            let url = dir.appendingPathComponent("x.\(ext)")
            do {
                _ = try AVAudioRecorder(url: url, settings: settings)
                Issue.record(".\(ext) with \(settings) should throw")
            } catch let error as NSError {
                #expect(error.domain == NSOSStatusErrorDomain && error.code == Int(kAudioFileUnsupportedDataFormatError), "\(error)")
                #expect(error.localizedDescription.contains(named) && error.localizedDescription.contains(url.path), "\(error.localizedDescription)")
                if named == "AAC" { #expect(error.localizedDescription.contains("not supported yet"), "\(error.localizedDescription)") }
            }
            #expect(!FileManager.default.fileExists(atPath: url.path), "a refused recorder creates nothing")
        }
        for (ext, codec) in [("m4a", kAudioFormatAppleLossless), ("mp4", kAudioFormatFLAC), ("caf", kAudioFormatAppleLossless)] {
            let recorder = try AVAudioRecorder(url: dir.appendingPathComponent("y.\(ext)"), settings: [
                AVFormatIDKey: codec, AVSampleRateKey: 32_000, AVNumberOfChannelsKey: 2, AVEncoderBitDepthHintKey: 24])
            #expect(recorder.format.streamDescription.pointee.mFormatID == codec, ".\(ext)")
            #expect(recorder.format.sampleRate == 32_000 && recorder.format.channelCount == 2, ".\(ext)")
        }
        for ext in ["wav", "aif", "caf"] {
            let recorder = try AVAudioRecorder(url: dir.appendingPathComponent("x.\(ext)"), settings: [AVSampleRateKey: 22_050, AVNumberOfChannelsKey: 1])
            #expect(recorder.format.sampleRate == 22_050 && recorder.format.channelCount == 1)
            #expect((recorder.settings[AVLinearPCMBitDepthKey] as? NSNumber)?.intValue == 16, "the default bit depth is 16")
            #expect(!recorder.isRecording && recorder.currentTime == 0)
        }
    }

    @Test("A .flac recorder writes native FLAC (FLAC by default; other data in a .flac file is refused): exact duration through rate conversion, read back by AVAudioFile and by ffmpeg")
    func recordsFLAC() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            _ = try AVAudioRecorder(url: dir.appendingPathComponent("x.flac"), settings: [AVFormatIDKey: kAudioFormatMPEG4AAC])
            Issue.record("AAC data in a .flac file should throw")
        } catch let error as NSError {
            #expect(error.domain == NSOSStatusErrorDomain && error.code == Int(kAudioFileUnsupportedDataFormatError))
            #expect(error.localizedDescription.contains("FLAC data"), "\(error.localizedDescription)")
        }
        let url = dir.appendingPathComponent("take.flac")
        let recorder = try AVAudioRecorder(url: url, settings: [AVSampleRateKey: 44_100, AVNumberOfChannelsKey: 2, AVEncoderBitDepthHintKey: 24])
        #expect(recorder.format.streamDescription.pointee.mFormatID == kAudioFormatFLAC)
        recorder._deviceSelector = "null"
        let delegate = RecordingDelegate()
        recorder.delegate = delegate
        #expect(recorder.record(forDuration: 0.5))
        #expect(waitUntil(5) { !delegate.calls.isEmpty }, "record(forDuration:) did not finish")
        #expect(delegate.calls.first?.flag == true)
        #expect(recorder.format.streamDescription.pointee.mFormatID == kAudioFormatFLAC && recorder.format.sampleRate == 44_100 && recorder.format.channelCount == 2)
        let file = try AVAudioFile(forReading: url)
        #expect(file.fileFormat.streamDescription.pointee.mFormatID == kAudioFormatFLAC)
        #expect(file.length == 22_050, "0.5 s at 44.1 kHz: \(file.length) frames")
        // ffmpeg, the external decoder, reads the same number of frames (24-bit stereo: 6 bytes each).
        guard let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            print("SKIP ffmpeg check of the FLAC recording: ffmpeg is not installed")
            return
        }
        let raw = dir.appendingPathComponent("take.raw")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: ffmpeg)
        process.arguments = ["-v", "error", "-i", url.path, "-f", "s24le", "-y", raw.path]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let bytes = (try? Data(contentsOf: raw).count) ?? 0
        #expect(bytes == 22_050 * 6, "ffmpeg decoded \(bytes / 6) frames")
    }

    @Test("record(forDuration:) writes exactly the duration's frames (48 kHz device → 44.1 kHz file), stops by itself and tells the delegate once on the main queue; deleteRecording removes the file")
    func recordForDuration() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("take.caf")
        let format = AVAudioFormat(commonFormat: .pcmFormatInt16, sampleRate: 44_100, channels: 2, interleaved: true)!
        let recorder = try AVAudioRecorder(url: url, format: format)
        recorder._deviceSelector = "null"
        let delegate = RecordingDelegate()
        recorder.delegate = delegate
        #expect(recorder.prepareToRecord())
        #expect(FileManager.default.fileExists(atPath: url.path), "prepareToRecord creates the file")
        let start = Date()
        #expect(recorder.record(forDuration: 0.5))
        #expect(recorder.isRecording)
        #expect(!recorder.deleteRecording(), "a recording in progress cannot be deleted")
        #expect(waitUntil(5) { !delegate.calls.isEmpty }, "record(forDuration:) did not finish")
        let elapsed = delegate.calls.first.map { $0.time.timeIntervalSince(start) } ?? 0
        #expect(elapsed > 0.45 && elapsed < 2, "finished after \(elapsed) s")
        usleep(100_000)
        #expect(delegate.calls.count == 1 && delegate.calls.first?.flag == true && delegate.calls.first?.onMainThread == true)
        #expect(!recorder.isRecording && recorder.currentTime == 0)
        let file = try AVAudioFile(forReading: url)
        #expect(file.length == 22_050, "0.5 s at 44.1 kHz: \(file.length) frames")
        #expect(file.fileFormat.sampleRate == 44_100 && file.fileFormat.channelCount == 2 && file.fileFormat.commonFormat == .pcmFormatInt16)
        #expect(recorder.deleteRecording())
        #expect(!FileManager.default.fileExists(atPath: url.path))
    }

    @Test("pause() keeps the file open and the time still; record() appends; stop() closes and tells the delegate")
    func pauseAndResume() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("take.wav")
        let recorder = try AVAudioRecorder(url: url, settings: [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1])
        recorder._deviceSelector = "null"
        let delegate = RecordingDelegate()
        recorder.delegate = delegate
        #expect(recorder.record())
        usleep(400_000)
        recorder.pause()
        #expect(!recorder.isRecording)
        let paused = recorder.currentTime
        #expect(paused > 0.2 && paused < 0.6, "\(paused) s after 0.4 s")
        usleep(300_000)
        #expect(recorder.currentTime == paused)
        #expect(recorder.record())
        usleep(300_000)
        let resumed = recorder.currentTime
        #expect(resumed > paused + 0.15)
        recorder.stop()
        let file = try AVAudioFile(forReading: url)
        let seconds = Double(file.length) / 48_000
        #expect(abs(seconds - resumed) < 0.15, "file holds \(seconds) s, the recorder counted \(resumed) s")
        #expect(waitUntil(5) { delegate.calls.count == 1 })
        #expect(delegate.calls.first?.name == "didFinishRecording" && delegate.calls.first?.flag == true)
    }

    @Test("record(atTime:forDuration:) starts at the device time and records exactly the duration")
    func recordAtTime() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = dir.appendingPathComponent("take.aif")
        let recorder = try AVAudioRecorder(url: url, settings: [AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1, AVLinearPCMBitDepthKey: 24])
        recorder._deviceSelector = "null"
        let delegate = RecordingDelegate()
        recorder.delegate = delegate
        let start = Date()
        #expect(recorder.record(atTime: recorder.deviceCurrentTime + 0.5, forDuration: 0.25))
        usleep(300_000)
        #expect(recorder.currentTime == 0, "recording began before its start time")
        #expect(waitUntil(5) { !delegate.calls.isEmpty })
        let elapsed = delegate.calls.first.map { $0.time.timeIntervalSince(start) } ?? 0
        #expect(elapsed > 0.7 && elapsed < 2, "finished after \(elapsed) s (start 0.5 s + 0.25 s)")
        let file = try AVAudioFile(forReading: url)
        #expect(file.length == 12_000)
    }
}

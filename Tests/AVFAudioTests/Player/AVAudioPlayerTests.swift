// AVAudioPlayer through the public API on the null output device (timer-clocked like hardware,
// no server needed): creation and its errors, the properties describing the file, play/finish
// timing, loops, seeking, pause/stop semantics, the delegate (once, on the main queue), metering
// against analytic levels. What reaches a real sink (pan, volume, fades, rate) is checked against
// a private PulseAudio server in PlayerDeviceTests.
import Testing
import Foundation
import AVFoundation

@Suite(.serialized)
struct AVAudioPlayerTests {
    @Test("A missing or unreadable file throws an NSError in NSOSStatusErrorDomain naming the problem")
    func creationErrors() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        do {
            _ = try AVAudioPlayer(contentsOf: dir.appendingPathComponent("missing.wav"))
            Issue.record("a missing file should throw")
        } catch let error as NSError {
            #expect(error.domain == NSOSStatusErrorDomain)
            #expect(error.localizedDescription.contains("missing.wav"), "\(error.localizedDescription)")
        }
        do {
            _ = try AVAudioPlayer(data: Data("this is not audio".utf8))
            Issue.record("garbage data should throw")
        } catch let error as NSError {
            #expect(error.domain == NSOSStatusErrorDomain)
            #expect(error.localizedDescription.contains("audio data"), "\(error.localizedDescription)")
        }
    }

    @Test("The file's properties: duration, channels, format, settings, url and data")
    func properties() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = try PlayerTestFiles.sine(dir.appendingPathComponent("tone.wav"), seconds: 0.75, rate: 44_100, channels: 2,
                                           settings: [AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false])
        let player = try AVAudioPlayer(contentsOf: url)
        #expect(abs(player.duration - 0.75) < 1e-9)
        #expect(player.numberOfChannels == 2)
        #expect(player.format.sampleRate == 44_100)
        #expect(player.format.commonFormat == .pcmFormatInt16)
        #expect((player.settings[AVSampleRateKey] as? NSNumber)?.doubleValue == 44_100)
        #expect(player.url == url)
        #expect(player.data == nil)
        #expect(!player.isPlaying)
        #expect(player.currentTime == 0)
        #expect(player.volume == 1 && player.pan == 0 && player.rate == 1 && !player.enableRate && player.numberOfLoops == 0)

        let fromData = try AVAudioPlayer(data: try Data(contentsOf: url), fileTypeHint: "com.microsoft.waveform-audio")
        #expect(fromData.url == nil)
        #expect(fromData.data?.count == (try Data(contentsOf: url)).count)
        #expect(abs(fromData.duration - 0.75) < 1e-9)
        // Apple's clamps: rate 0.5…2, pan −1…1.
        player.rate = 5
        #expect(player.rate == 2)
        player.pan = -3
        #expect(player.pan == -1)
    }

    @Test("play() runs for the file's duration, then the delegate hears once, on the main queue, successfully; currentTime returns to 0")
    func playsToTheEnd() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let player = try AVAudioPlayer(contentsOf: try PlayerTestFiles.sine(dir.appendingPathComponent("a.wav"), seconds: 0.4))
        player.currentDevice = "null"
        let delegate = RecordingDelegate()
        player.delegate = delegate
        #expect(player.prepareToPlay())
        let start = Date()
        #expect(player.play())
        #expect(player.isPlaying)
        usleep(200_000)
        let midway = player.currentTime
        #expect(midway > 0.1 && midway < 0.35, "currentTime \(midway) s after 0.2 s")
        #expect(waitUntil(5) { !delegate.calls.isEmpty }, "the delegate was not told within 5 s")
        let elapsed = delegate.calls.first.map { $0.time.timeIntervalSince(start) } ?? 0
        #expect(elapsed > 0.35 && elapsed < 1.5, "finished after \(elapsed) s for a 0.4 s file")
        usleep(200_000)
        let calls = delegate.calls
        #expect(calls.count == 1, "\(calls.map(\.name))")
        #expect(calls.first?.name == "didFinishPlaying" && calls.first?.flag == true)
        #expect(calls.first?.onMainThread == true)
        #expect(!player.isPlaying)
        #expect(player.currentTime == 0)
    }

    @Test("A file truncated while it plays: playback stops; the delegate hears audioPlayerDecodeErrorDidOccur with a readable NSError, then audioPlayerDidFinishPlaying unsuccessfully, on the main queue")
    func decodeErrorWhenTruncatedWhilePlaying() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 6 s: the player has the first second decoded when play() returns and the prefetcher
        // stays about two seconds ahead, so cutting the file to 0.5 s at once leaves seconds
        // that can no longer be read.
        let url = try PlayerTestFiles.sine(dir.appendingPathComponent("cut.wav"), seconds: 6)
        let player = try AVAudioPlayer(contentsOf: url)
        player.currentDevice = "null"
        let delegate = RecordingDelegate()
        player.delegate = delegate
        #expect(player.play())
        #expect(truncate(url.path, off_t(44 + 48_000 * 4 / 2)) == 0)
        #expect(waitUntil(8) { delegate.calls.count >= 2 })
        let calls = delegate.calls
        #expect(calls.map { $0.name } == ["decodeError", "didFinishPlaying"])
        #expect(calls.allSatisfy { $0.onMainThread })
        #expect(calls.last?.flag == false)
        let error = delegate.errors.first.flatMap { $0 } as NSError?
        #expect(error?.domain == "com.apple.coreaudio.avfaudio")
        #expect(error?.code == Int(kAudioFileEndOfFileError))
        #expect(error?.localizedDescription.contains("truncated") == true, "\(String(describing: error?.localizedDescription))")
        #expect(!player.isPlaying)
        #expect(player.currentTime == 0)
        usleep(100_000)   // nothing more arrives
        #expect(delegate.calls.count == 2)
    }

    @Test("numberOfLoops = 2 plays three times; -1 loops until stop()")
    func loops() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let url = try PlayerTestFiles.sine(dir.appendingPathComponent("a.wav"), seconds: 0.2)
        let player = try AVAudioPlayer(contentsOf: url)
        player.currentDevice = "null"
        let delegate = RecordingDelegate()
        player.delegate = delegate
        player.numberOfLoops = 2
        let start = Date()
        #expect(player.play())
        #expect(waitUntil(5) { !delegate.calls.isEmpty })
        let elapsed = delegate.calls.first.map { $0.time.timeIntervalSince(start) } ?? 0
        #expect(elapsed > 0.55 && elapsed < 2, "three passes of 0.2 s took \(elapsed) s")

        let forever = try AVAudioPlayer(contentsOf: url)
        forever.currentDevice = "null"
        let foreverDelegate = RecordingDelegate()
        forever.delegate = foreverDelegate
        forever.numberOfLoops = -1
        #expect(forever.play())
        usleep(900_000)
        #expect(forever.isPlaying, "a player looping forever stopped by itself")
        #expect(forever.currentTime >= 0 && forever.currentTime < 0.2)
        forever.stop()
        usleep(100_000)
        #expect(foreverDelegate.calls.isEmpty, "stop() must not tell the delegate")
    }

    @Test("Seeking while playing and while stopped; pause keeps the position; stop keeps it too (as Apple documents)")
    func seekPauseStop() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let player = try AVAudioPlayer(contentsOf: try PlayerTestFiles.sine(dir.appendingPathComponent("a.wav"), seconds: 3))
        player.currentDevice = "null"
        player.currentTime = 1.5
        #expect(abs(player.currentTime - 1.5) < 1e-6)
        #expect(player.play())
        usleep(300_000)
        let t1 = player.currentTime
        #expect(t1 > 1.6 && t1 < 2.0, "after seeking to 1.5 s and playing 0.3 s: \(t1)")
        player.currentTime = 0.25
        usleep(200_000)
        let t2 = player.currentTime
        #expect(t2 > 0.3 && t2 < 0.65, "seek while playing to 0.25 s, then 0.2 s: \(t2)")
        player.pause()
        #expect(!player.isPlaying)
        let paused = player.currentTime
        usleep(200_000)
        #expect(player.currentTime == paused, "the position moved while paused")
        #expect(player.play())
        usleep(200_000)
        #expect(player.currentTime > paused + 0.1)
        player.stop()
        let stopped = player.currentTime
        #expect(stopped > paused + 0.1, "stop() must not reset currentTime (it reads \(stopped))")
        #expect(!player.isPlaying)
    }

    @Test("deviceCurrentTime is the host clock in seconds; play(atTime:) starts at that time")
    func playAtTime() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let player = try AVAudioPlayer(contentsOf: try PlayerTestFiles.sine(dir.appendingPathComponent("a.wav"), seconds: 2))
        player.currentDevice = "null"
        let now = player.deviceCurrentTime
        #expect(abs(now - Double(DispatchTime.now().uptimeNanoseconds) * 1e-9) < 0.01)
        #expect(player.play(atTime: now + 0.5))
        #expect(player.isPlaying)
        usleep(250_000)
        #expect(player.currentTime == 0, "playback began before its start time (\(player.currentTime) s)")
        usleep(550_000)
        let t = player.currentTime
        #expect(t > 0.1 && t < 0.45, "0.8 s after asking for a start 0.5 s ahead: \(t) s")
        player.stop()
    }

    @Test("Metering: −160 dBFS until enabled; a steady 0.5 sine reads −9.03 dBFS average and −6.02 dBFS peak; volume 0.5 lowers both by 6.02 dB")
    func metering() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let player = try AVAudioPlayer(contentsOf: try PlayerTestFiles.sine(dir.appendingPathComponent("a.wav"), seconds: 10, channels: 2, amplitude: 0.5))
        player.currentDevice = "null"
        player.updateMeters()
        #expect(player.averagePower(forChannel: 0) == -160 && player.peakPower(forChannel: 0) == -160)
        player.isMeteringEnabled = true
        #expect(player.play())
        usleep(1_800_000)   // six time constants of the 300 ms average: within 0.03 dB of steady
        player.updateMeters()
        let average = player.averagePower(forChannel: 0), peak = player.peakPower(forChannel: 1)
        #expect(abs(average - (-9.031)) < 0.1, "average \(average) dBFS")
        #expect(abs(peak - (-6.021)) < 0.05, "peak \(peak) dBFS")
        player.volume = 0.5
        usleep(1_800_000)
        player.updateMeters()
        let quieter = player.averagePower(forChannel: 0)
        #expect(abs(quieter - (-15.05)) < 0.1, "average at volume 0.5: \(quieter) dBFS")
        player.stop()
        // Peak fall-back after the signal stops: silence is fed no more, so the values hold.
        #expect(player.averagePower(forChannel: 5) == -160, "a channel the file lacks reads −160")
    }

    @Test("A FLAC file (encoded by ffmpeg) plays: its duration, channels and level through the meter, then the delegate",
          .enabled(if: DeviceComponents.executable("ffmpeg") != nil, "ffmpeg is not installed"))
    func playsFLAC() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = try PlayerTestFiles.sine(dir.appendingPathComponent("tone.wav"), seconds: 2.5, rate: 44_100, channels: 2, amplitude: 0.5,
                                           settings: [AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false])
        let flac = dir.appendingPathComponent("tone.flac")
        let ffmpeg = try ChildProcess(DeviceComponents.executable("ffmpeg")!, ["-loglevel", "error", "-y", "-i", wav.path, "-c:a", "flac", flac.path],
                                      environment: ProcessInfo.processInfo.environment)
        #expect(waitUntil(30) { !ffmpeg.isRunning })
        let player = try AVAudioPlayer(contentsOf: flac)
        #expect(player.format.streamDescription.pointee.mFormatID == kAudioFormatFLAC, "the file format is FLAC, as on Apple platforms")
        #expect(abs(player.duration - 2.5) < 1e-6 && player.numberOfChannels == 2)
        // 16-bit samples of a 0.5 sine: −9.03 dBFS average, −6.02 dBFS peak (within the quantisation).
        Self.expectPlaysHalfScaleSine(player, averageTolerance: 0.1, peakTolerance: 0.05)
    }

    /// Plays `player` (a 2.5 s stereo sine at 0.5) on the null device with metering, and checks
    /// the levels — −9.03 dBFS average, −6.02 dBFS peak — and that the delegate hears once,
    /// successfully. The meters are read eleven times, 100 ms apart, from 1.2 s on (four time
    /// constants of the 300 ms average), and the median taken: on a loaded machine (CI's two
    /// cores running the whole suite) the null device's thread can be starved and render a late
    /// period as silence, which pulls every reading within 300 ms of it down; the median is the
    /// settled level.
    static func expectPlaysHalfScaleSine(_ player: AVAudioPlayer, averageTolerance: Float, peakTolerance: Float) {
        player.currentDevice = "null"
        player.isMeteringEnabled = true
        let delegate = RecordingDelegate()
        player.delegate = delegate
        #expect(player.play())
        usleep(1_200_000)
        var averages: [Float] = [], peaks: [Float] = []
        for k in 0..<11 {
            player.updateMeters()
            averages.append(player.averagePower(forChannel: k % 2))
            peaks.append(player.peakPower(forChannel: 1 - k % 2))
            usleep(100_000)
        }
        let average = averages.sorted()[5], peak = peaks.sorted()[5]
        #expect(abs(average - (-9.031)) < averageTolerance, "median \(average) of \(averages)")
        #expect(abs(peak - (-6.021)) < peakTolerance, "median \(peak) of \(peaks)")
        #expect(waitUntil(5) { !delegate.calls.isEmpty })
        #expect(delegate.calls.map(\.name) == ["didFinishPlaying"] && delegate.calls.first?.flag == true)
    }

    @Test("An Ogg Vorbis file (encoded by oggenc) plays, from its URL and from its bytes: its duration, channels and level through the meter, then the delegate",
          .enabled(if: DeviceComponents.executable("oggenc") != nil, "oggenc (Debian vorbis-tools) is not installed"))
    func playsOggVorbis() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = try PlayerTestFiles.sine(dir.appendingPathComponent("tone.wav"), seconds: 2.5, rate: 44_100, channels: 2, amplitude: 0.5,
                                           settings: [AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false])
        let ogg = dir.appendingPathComponent("tone.ogg")
        let oggenc = try ChildProcess(DeviceComponents.executable("oggenc")!, ["-Q", "-q", "6", "-o", ogg.path, wav.path],
                                      environment: ProcessInfo.processInfo.environment)
        #expect(waitUntil(30) { !oggenc.isRunning })
        // Vorbis streams end at their last granule position: the source's 110,250 frames exactly.
        let fromBytes = try AVAudioPlayer(data: Data(contentsOf: ogg))
        #expect(abs(fromBytes.duration - 2.5) < 1e-6 && fromBytes.numberOfChannels == 2, "\(fromBytes.duration)")
        let player = try AVAudioPlayer(contentsOf: ogg)
        #expect(abs(player.duration - 2.5) < 1e-6 && player.numberOfChannels == 2, "\(player.duration)")
        // The lossy coding moves a pure tone's level by a few hundredths of a dB.
        Self.expectPlaysHalfScaleSine(player, averageTolerance: 0.15, peakTolerance: 0.15)
    }

    @Test("A FLAC file with a damaged frame: audioPlayerDecodeErrorDidOccur, then audioPlayerDidFinishPlaying unsuccessfully",
          .enabled(if: DeviceComponents.executable("ffmpeg") != nil, "ffmpeg is not installed"))
    func decodeErrorOnDamagedFLAC() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let wav = try PlayerTestFiles.sine(dir.appendingPathComponent("tone.wav"), seconds: 2.5, rate: 44_100, channels: 2, amplitude: 0.5,
                                           settings: [AVLinearPCMBitDepthKey: 16, AVLinearPCMIsFloatKey: false])
        let flac = dir.appendingPathComponent("tone.flac")
        let ffmpeg = try ChildProcess(DeviceComponents.executable("ffmpeg")!, ["-loglevel", "error", "-y", "-i", wav.path, "-c:a", "flac", flac.path],
                                      environment: ProcessInfo.processInfo.environment)
        #expect(waitUntil(30) { !ffmpeg.isRunning })
        // Damage 20 bytes in the middle of the stream (a frame's payload or header: either way
        // that frame cannot be decoded; FLACFileReaderTests covers both).
        var bytes = try [UInt8](Data(contentsOf: flac))
        for k in 0..<20 { bytes[bytes.count / 2 + k] ^= 0xA5 }
        try Data(bytes).write(to: flac)
        let player = try AVAudioPlayer(contentsOf: flac)
        player.currentDevice = "null"
        let delegate = RecordingDelegate()
        player.delegate = delegate
        #expect(player.play())
        #expect(waitUntil(8) { delegate.calls.count >= 2 })
        #expect(delegate.calls.map { $0.name } == ["decodeError", "didFinishPlaying"])
        #expect(delegate.calls.last?.flag == false)
        let error = delegate.errors.first.flatMap { $0 } as NSError?
        #expect(error?.domain == "com.apple.coreaudio.avfaudio", "\(String(describing: error))")
        #expect(!player.isPlaying)
    }

    @Test("Meter ballistics: after a tone stops, the peak falls 20 dB per 1.7 s and the average decays with its 300 ms time constant")
    func meterBallistics() throws {
        let dir = try PlayerTestFiles.directory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // 1 s of a 0.5 sine, then 2 s of silence.
        let url = dir.appendingPathComponent("burst.wav")
        let file = try AVAudioFile(forWriting: url, settings: [AVFormatIDKey: kAudioFormatLinearPCM, AVSampleRateKey: 48_000, AVNumberOfChannelsKey: 1,
                                                                AVLinearPCMBitDepthKey: 32, AVLinearPCMIsFloatKey: true])
        let buffer = AVAudioPCMBuffer(pcmFormat: file.processingFormat, frameCapacity: 144_000)!
        buffer.frameLength = 144_000
        for i in 0..<48_000 { buffer.floatChannelData![0][i] = 0.5 * Float(sin(2 * Double.pi * 1_000 * Double(i) / 48_000)) }
        try file.write(from: buffer)
        file.close()
        let player = try AVAudioPlayer(contentsOf: url)
        player.currentDevice = "null"
        player.isMeteringEnabled = true
        #expect(player.play())
        #expect(waitUntil(5) { player.currentTime > 1.8 })
        usleep(100_000)
        player.updateMeters()
        let position = player.currentTime
        let peak = Double(player.peakPower(forChannel: 0)), average = Double(player.averagePower(forChannel: 0))
        player.stop()
        // The meter runs behind the position by the tap's blocks (512 frames) and the dispatcher
        // hand-off: allow ±60 ms of audio time, ±0.7 dB of peak and ±0.9 dB of average.
        let silence = position - 1
        let expectedPeak = -6.021 - 20 / 1.7 * silence
        // Mean square of a sine settled for 1 s (within 0.16 %), then exp(−t/τ):
        let expectedAverage = -9.031 + 10 * log10(exp(-silence / 0.3))
        #expect(abs(peak - expectedPeak) < 0.7, "peak \(peak) dBFS \(silence) s into the silence; expected \(expectedPeak)")
        #expect(abs(average - expectedAverage) < 0.9, "average \(average) dBFS \(silence) s into the silence; expected \(expectedAverage)")
    }
}

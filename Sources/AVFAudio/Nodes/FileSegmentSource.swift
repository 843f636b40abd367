// Streams a segment of an audio file, converted to a player's output format, into a ring that
// the render thread reads. The file is decoded through `FileDecodeStream`, the path
// `AVAudioFile.read` takes (a stream of the source's own: AVAudioFile objects are not thread-safe).
//
// Who fills the ring: on scheduling, the control side fills the first second. After that, in
// offline rendering the render thread (the caller of renderOffline, allowed to block) tops the
// ring up itself; in real time a prefetch thread keeps every active source about two seconds
// ahead, so the render thread never touches the file. A real-time underrun renders silence for
// the missing frames and is counted, never waited for.
import Synchronization
import AudioKernels
import AudioFileFormats

final class FileSegmentSource {
    /// Frames the segment produces at the output rate.
    let outputLength: Int
    private let channels: Int
    private let stream: FileDecodeStream
    private let decodeBuffer: AVAudioPCMBuffer
    private let fileChannels: Int
    private let mixed: PlanarFloatBuffer
    private let matrix: ChannelMatrix
    private let converter: SampleRateConverter?
    private let start: Int64
    private let inputFrames: Int
    private var inputRead = 0
    private var flushed = false

    // Ring: `capacity` frames per channel; `written`/`read` count frames since the start.
    private let capacity: Int
    private let ring: UnsafeMutablePointer<Float>
    private let written = Atomic<Int>(0)
    private let readCount = Atomic<Int>(0)
    /// Set by the render thread on first use: 1 offline (render fills), 2 real time (prefetcher fills).
    let mode = Atomic<Int>(0)
    let underruns = Atomic<Int>(0)
    private let fillLock = NSLock()
    private let chunk = 4096
    /// Told (once per source, from the thread that fills the ring: the scheduling caller, the
    /// prefetch thread, or the offline render's caller; never a real-time render cycle) when the
    /// file cannot deliver a frame it had when the segment was scheduled: a read error (a damaged
    /// FLAC frame) or a file truncated meanwhile. The missing frames play as silence. Set before
    /// the source is scheduled. AVAudioPlayer turns it into `audioPlayerDecodeErrorDidOccur`.
    private let decodeErrorHandler: ((NSError) -> Void)?
    private var decodeErrorReported = false
    private let path: String

    init(file: AVAudioFile, start: Int64, frames: Int, outputFormat: AVAudioFormat,
         channelMap: [Int]? = nil, decodeErrorHandler: ((NSError) -> Void)? = nil) throws {
        self.decodeErrorHandler = decodeErrorHandler
        path = file.url.path
        // Deinterleaved Float32 at the file's rate and channel count: the ring's input.
        stream = try FileDecodeStream(path: file.url.path) { description in
            AVAudioFormat(commonFormat: .pcmFormatFloat32, sampleRate: description.sampleRate,
                          channels: AVAudioChannelCount(description.channelCount), interleaved: false)!
        }
        let description = stream.description
        let fileChannels = description.channelCount
        self.fileChannels = fileChannels
        channels = Int(outputFormat.channelCount)
        let decodeFormat = stream.processingFormat
        decodeBuffer = AVAudioPCMBuffer(pcmFormat: decodeFormat, frameCapacity: AVAudioFrameCount(chunk))!
        mixed = PlanarFloatBuffer(channels: channels, capacity: chunk)
        let fileFormat = file.processingFormat
        // (`channelMap`: output channel k plays file channel channelMap[k], negative = silent;
        // AVAudioPlayer's channelAssignments)
        matrix = ChannelMixPlan.matrix(from: fileFormat, to: outputFormat, downmix: false, channelMap: channelMap)
        self.start = start
        inputFrames = frames
        if description.sampleRate != outputFormat.sampleRate {
            // Rate conversion runs on the file's channels, before channel mapping, so a mono file
            // upmixed to stereo gives identical channels (and costs one channel of filtering).
            let src = SampleRateConverter(inputRate: description.sampleRate, outputRate: outputFormat.sampleRate, channels: fileChannels, quality: .high)
            converter = src
            outputLength = src.outputFrames(forInputFrames: frames)
        } else {
            converter = nil
            outputLength = frames
        }
        capacity = max(2 * chunk, Int(outputFormat.sampleRate * 2)) + 2 * chunk
        ring = .allocate(capacity: capacity * max(1, channels))
        ring.initialize(repeating: 0, count: capacity * max(1, channels))
        fill(upTo: Int(outputFormat.sampleRate))
        FilePrefetcher.shared.register(self)
    }

    deinit {
        ring.deallocate()
        stream.close()
    }

    var finishedProducing: Bool { written.load(ordering: .acquiring) >= outputLength }

    /// Produces converted frames until `target` frames are buffered ahead of the reader (or the
    /// segment ends). Called by the control side, the prefetch thread, or the offline render.
    func fill(upTo target: Int) {
        fillLock.lock(); defer { fillLock.unlock() }
        while written.load(ordering: .relaxed) - readCount.load(ordering: .acquiring) < target,
              written.load(ordering: .relaxed) < outputLength {
            let space = capacity - (written.load(ordering: .relaxed) - readCount.load(ordering: .acquiring))
            guard space >= chunk * 2 else { return }
            produceChunk()
        }
    }

    /// Decodes, mixes and converts about one chunk into the ring.
    private func produceChunk() {
        var produced = 0
        let remaining = outputLength - written.load(ordering: .relaxed)
        if inputRead < inputFrames {
            let n = min(chunk, inputFrames - inputRead)
            var got = 0
            var failure: Error?
            do { got = try stream.read(frames: n, at: start + Int64(inputRead), into: decodeBuffer, offset: 0) } catch { failure = error }
            if got < n {
                // A read error or a short file (truncated since scheduling): pad with silence.
                for c in 0..<Int(decodeBuffer.format.channelCount) { (decodeBuffer.floatChannelData![c] + got).update(repeating: 0, count: n - got) }
                reportDecodeError(failure, at: start + Int64(inputRead + got))
            }
            inputRead += n
            if let converter {
                produced = convert(converter, frames: n, limit: remaining)
            } else {
                matrix.apply(frames: n, input: UnsafePointer(decodeBuffer.floatChannelData!), output: mixed.readPointers)
                produced = write(from: mixed.readPointers, frames: min(n, remaining))
            }
        } else if let converter, !flushed {
            produced = flushConverter(converter, limit: remaining)
        }
        if produced == 0 && inputRead >= inputFrames {
            // Nothing more can come: declare the rest silence so the player never stalls.
            let missing = outputLength - written.load(ordering: .relaxed)
            if missing > 0 { writeSilence(min(missing, capacity / 2)) }
        }
    }

    /// Tells `decodeErrorHandler` (once) why frames from `frame` on are missing (fillLock held;
    /// the handler only hands the error on asynchronously).
    private func reportDecodeError(_ failure: Error?, at frame: Int64) {
        guard let decodeErrorHandler, !decodeErrorReported else { return }
        decodeErrorReported = true
        let error: NSError
        switch failure {
        case let failure as AudioFileFormatError:
            error = AVAudioFile.nsError(failure, path: path, failedCall: AVFAudioFailedCall.readFile)
        case let failure?:
            error = failure as NSError
        case nil:
            error = AVAudioFile.nsError(code: kAudioFileEndOfFileError,
                                        "\"\(path)\" ended at frame \(frame) while it was being played: it was truncated after it was scheduled (the missing frames play as silence)",
                                        path: path, failedCall: AVFAudioFailedCall.readFile)
        }
        decodeErrorHandler(error)
    }

    private func convert(_ converter: SampleRateConverter, frames: Int, limit: Int) -> Int {
        var consumed = 0, produced = 0
        let inputs = UnsafeBufferPointer(start: UnsafeRawPointer(decodeBuffer.floatChannelData!).assumingMemoryBound(to: UnsafePointer<Float>.self),
                                         count: fileChannels)
        let scratch = scratchBuffer
        let outputs = UnsafeBufferPointer(start: scratch.pointers, count: fileChannels)
        while consumed < frames {
            let r = converter.process(input: inputs, offset: consumed, inputFrames: frames - consumed, output: outputs, offset: 0,
                                      outputCapacity: scratch.capacity)
            consumed += r.consumed
            if r.produced > 0 { produced += mixAndWrite(scratch, frames: min(r.produced, limit - produced)) }
            if r.consumed == 0 && r.produced == 0 { break }
        }
        return produced
    }

    private func flushConverter(_ converter: SampleRateConverter, limit: Int) -> Int {
        let scratch = scratchBuffer
        let k = converter.flush(output: UnsafeBufferPointer(start: scratch.pointers, count: fileChannels), outputCapacity: scratch.capacity)
        if k == 0 { flushed = true; return 0 }
        return mixAndWrite(scratch, frames: min(k, limit))
    }

    /// Maps converted file channels to output channels, through `mixed`, a chunk at a time.
    private func mixAndWrite(_ source: PlanarFloatBuffer, frames: Int) -> Int {
        var done = 0
        while done < frames {
            let n = min(chunk, frames - done)
            for c in 0..<fileChannels { offsetPointers[c] = source.pointers[c] + done }
            matrix.apply(frames: n, input: UnsafePointer(offsetPointers), output: mixed.readPointers)
            done += write(from: mixed.readPointers, frames: n)
        }
        return done
    }

    private lazy var scratchBuffer = PlanarFloatBuffer(channels: fileChannels, capacity: chunk * 4)
    private lazy var offsetPointers = UnsafeMutablePointer<UnsafeMutablePointer<Float>>.allocate(capacity: max(1, fileChannels))

    private func write(from source: UnsafePointer<UnsafeMutablePointer<Float>>, frames: Int) -> Int {
        guard frames > 0 else { return 0 }
        let w = written.load(ordering: .relaxed)
        let startIndex = w % capacity
        let first = min(frames, capacity - startIndex)
        for c in 0..<channels {
            let dst = ring + c * capacity
            (dst + startIndex).update(from: source[c], count: first)
            if frames > first { dst.update(from: source[c] + first, count: frames - first) }
        }
        written.store(w + frames, ordering: .releasing)
        return frames
    }

    private func writeSilence(_ frames: Int) {
        let w = written.load(ordering: .relaxed)
        for i in 0..<frames {
            let index = (w + i) % capacity
            for c in 0..<channels { ring[c * capacity + index] = 0 }
        }
        written.store(w + frames, ordering: .releasing)
    }

    /// Render thread: copies `frames` frames (output positions `position`...) into `output`.
    func read(into output: RenderBuffer, at offset: Int, frames: Int, fromPosition position: Int, offline: Bool) {
        if mode.load(ordering: .relaxed) == 0 { mode.store(offline ? 1 : 2, ordering: .releasing) }
        if offline && written.load(ordering: .acquiring) < position + frames {
            fill(upTo: frames + chunk * 2)
        }
        let available = written.load(ordering: .acquiring) - position
        let n = max(0, min(frames, available))
        let startIndex = position % capacity
        let first = min(n, capacity - startIndex)
        for c in 0..<min(channels, output.channelCount) {
            let src = ring + c * capacity
            (output.channels[c] + offset).update(from: src + startIndex, count: first)
            if n > first { (output.channels[c] + offset + first).update(from: src, count: n - first) }
            if n < frames { (output.channels[c] + offset + n).update(repeating: 0, count: frames - n) }
        }
        if n < frames { underruns.add(frames - n, ordering: .relaxed) }
        readCount.store(position + frames, ordering: .releasing)
    }
}

/// One thread keeping every real-time file source filled two seconds ahead.
final class FilePrefetcher: @unchecked Sendable {
    static let shared = FilePrefetcher()
    private let lock = NSLock()
    private var sources: [WeakSource] = []
    private var thread: Thread?

    private struct WeakSource { weak var source: FileSegmentSource? }

    func register(_ source: FileSegmentSource) {
        lock.lock(); defer { lock.unlock() }
        sources.append(WeakSource(source: source))
        if thread == nil {
            let t = Thread { [self] in run() }
            t.name = "OpenAVFAudio file prefetch"
            thread = t
            t.start()
        }
    }

    private func run() {
        while true {
            lock.lock()
            sources.removeAll { $0.source == nil || $0.source!.finishedProducing }
            let active = sources.compactMap(\.source)
            lock.unlock()
            for source in active where source.mode.load(ordering: .acquiring) == 2 {
                source.fill(upTo: 96_000)
            }
            usleep(5000)
        }
    }
}

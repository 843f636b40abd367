// Fast convolution with a long FIR (reverb impulse responses, HRTFs): uniformly partitioned
// overlap-save with a frequency-domain delay line.
//
// Design. The filter h (L taps) is cut into P = ceil(L / B) partitions of B taps; each is
// zero-padded to 2B and transformed once, on the control side (H_p, B + 1 bins). The input is
// gathered into blocks of B samples. When block k is complete, the last 2B input samples
// x[(k-1)B ..< (k+1)B] are transformed (X_k) and stored in a ring of the last P spectra; then
// Y = sum_p X_(k-p) H_p, and the last B samples of its inverse transform are exactly
// y[kB ..< (k+1)B] of the linear convolution (overlap-save: the first B are circular wrap-around
// and are discarded). Cost per output sample: two real FFTs of 2B per B samples plus P complex
// products per bin, instead of L multiply-adds.
//
// Latency and determinism: an output sample is the convolution output B samples earlier
// (y[t - B]: a block's result is known only when the block is complete), whatever the caller's
// chunk sizes, so the output is bit-identical however the input is split into calls.
//
// Real-time safety: all buffers are allocated in `init`; `process` and `reset` allocate nothing
// and lock nothing. One instance per channel and per thread.

public final class BlockConvolver<T: FFTScalar> {
    /// Partition (block) size B, a power of two >= 1; also the latency in samples.
    public let blockSize: Int
    /// Number of filter taps.
    public let filterLength: Int
    /// Number of partitions P.
    public let partitionCount: Int
    private let fft: RealFFT<T>
    /// `fft` reached without reference counting on the render path.
    private let fftRef: Unmanaged<RealFFT<T>>
    private let bins: Int
    /// Partition spectra, P x bins each (re, im), scaled by 1/(2B) so the inverse needs no scaling.
    private let hRe: UnsafeMutablePointer<T>, hIm: UnsafeMutablePointer<T>
    /// Ring of the last P input spectra, P x bins each; `head` is the newest.
    private let xRe: UnsafeMutablePointer<T>, xIm: UnsafeMutablePointer<T>
    private var head = 0
    /// Spectrum accumulator (bins each).
    private let yRe: UnsafeMutablePointer<T>, yIm: UnsafeMutablePointer<T>
    /// The last 2B input samples (the current block is being filled from index B).
    private let frame: UnsafeMutablePointer<T>
    /// The last completed block's output (B samples).
    private let outBlock: UnsafeMutablePointer<T>
    /// Inverse transform output (2B).
    private let time: UnsafeMutablePointer<T>
    /// Samples of the current block received so far.
    private var fill = 0

    /// A convolver with `filter` and partitions of `blockSize` samples (a power of two >= 1).
    /// Control side only.
    public init(filter: [T], blockSize b: Int) {
        precondition(b >= 1 && b & (b - 1) == 0, "BlockConvolver: block size \(b) must be a power of two >= 1")
        precondition(filter.count >= 1, "BlockConvolver: the filter must have at least one tap")
        blockSize = b
        filterLength = filter.count
        partitionCount = (filter.count + b - 1) / b
        fft = RealFFT(count: 2 * b)
        fftRef = Unmanaged.passUnretained(fft)
        bins = b + 1
        let total = partitionCount * bins
        hRe = .allocate(capacity: total); hIm = .allocate(capacity: total)
        xRe = .allocate(capacity: total); xIm = .allocate(capacity: total)
        xRe.initialize(repeating: 0, count: total); xIm.initialize(repeating: 0, count: total)
        yRe = .allocate(capacity: bins); yIm = .allocate(capacity: bins)
        yRe.initialize(repeating: 0, count: bins); yIm.initialize(repeating: 0, count: bins)
        frame = .allocate(capacity: 2 * b); frame.initialize(repeating: 0, count: 2 * b)
        outBlock = .allocate(capacity: b); outBlock.initialize(repeating: 0, count: b)
        time = .allocate(capacity: 2 * b); time.initialize(repeating: 0, count: 2 * b)
        let scale = 1 / T(2 * b)
        for p in 0..<partitionCount {
            for i in 0..<(2 * b) {
                let tap = p * b + i
                time[i] = i < b && tap < filter.count ? filter[tap] * scale : 0
            }
            fft.forward(time, re: hRe + p * bins, im: hIm + p * bins)
        }
        FFTMath.zero(time, 2 * b)
    }

    deinit {
        hRe.deallocate(); hIm.deallocate(); xRe.deallocate(); xIm.deallocate()
        yRe.deallocate(); yIm.deallocate(); frame.deallocate(); outBlock.deallocate(); time.deallocate()
    }

    /// Clears the history (as if only zeros had been fed). Real-time safe.
    public func reset() {
        let total = partitionCount * bins
        FFTMath.zero(xRe, total); FFTMath.zero(xIm, total)
        FFTMath.zero(frame, 2 * blockSize)
        FFTMath.zero(outBlock, blockSize)
        fill = 0
        head = 0
    }

    /// Convolves `count` input samples, writing `count` output samples (the convolution
    /// delayed by `blockSize`). `output` may be `input`. Real-time safe.
    public func process(_ input: UnsafePointer<T>, _ output: UnsafeMutablePointer<T>, count: Int) {
        let b = blockSize
        var done = 0
        while done < count {
            let n = min(b - fill, count - done)
            // read the outputs before the input may overwrite them (output == input)
            for i in 0..<n {
                let x = input[done + i]
                output[done + i] = outBlock[fill + i]
                frame[b + fill + i] = x
            }
            fill += n
            done += n
            if fill == b {
                computeBlock()
                fill = 0
            }
        }
    }

    private func computeBlock() {
        let b = blockSize, bins = self.bins, p = partitionCount
        head = head + 1 == p ? 0 : head + 1
        let newestRe = xRe + head * bins, newestIm = xIm + head * bins
        let frame = self.frame, time = self.time
        fftRef._withUnsafeGuaranteedRef { $0.forward(frame, re: newestRe, im: newestIm) }
        FFTMath.zero(yRe, bins)
        FFTMath.zero(yIm, bins)
        var slot = head
        for q in 0..<p {
            let ar = xRe + slot * bins, ai = xIm + slot * bins
            let hr = hRe + q * bins, hi = hIm + q * bins
            for k in 0..<bins {
                let xr = ar[k], xi = ai[k], fr = hr[k], fi = hi[k]
                yRe[k] += xr * fr - xi * fi
                yIm[k] += xr * fi + xi * fr
            }
            slot = slot == 0 ? p - 1 : slot - 1
        }
        let yRe = self.yRe, yIm = self.yIm
        fftRef._withUnsafeGuaranteedRef { $0.inverse(re: yRe, im: yIm, output: time) }
        FFTMath.copy(outBlock, time + b, b)
        // slide: the current block becomes the previous one
        FFTMath.copy(frame, frame + b, b)
    }
}

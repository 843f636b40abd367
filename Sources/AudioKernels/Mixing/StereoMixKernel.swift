// The mixer's summing loop: many inputs, each with a left and a right gain, added into a stereo
// pair of accumulators. The loop itself lives in CMixKernels (C, AVX2 + FMA when the CPU has them,
// with software prefetching — see that header for why); this is its Swift face.
internal import CMixKernels

/// One input of a stereo mix. `left == right` for a mono input spread to both sides.
///
/// Laid out exactly as `CMKStereoInput` (two pointers, two Floats: 24 bytes).
@frozen
public struct StereoMixInput {
    public var left: UnsafePointer<Float>
    public var right: UnsafePointer<Float>
    public var gainLeft: Float
    public var gainRight: Float

    @inlinable
    public init(left: UnsafePointer<Float>, right: UnsafePointer<Float>, gainLeft: Float, gainRight: Float) {
        self.left = left
        self.right = right
        self.gainLeft = gainLeft
        self.gainRight = gainRight
    }
}

/// Sums gain-weighted inputs into two accumulators.
///
/// ```swift
/// let kernel = StereoMixKernel()
/// kernel.mix(into: left, right, inputs: pending, count: n, frames: 512)  // left[i] += Σ gL·x[i] …
/// ```
///
/// Inputs are summed four at a time as ((a + b) + (c + d)) in the order given, so results depend
/// on the inputs and their order, never on `frames`. Complexity: O(count × frames); memory
/// bandwidth bound for many inputs. Real-time safe: no allocation, lock or system call.
public struct StereoMixKernel {
    private let kernels: UnsafePointer<CMKKernels>

    /// The best variant for this CPU (`OPENAVFAUDIO_MIX_PORTABLE=1` forces the portable one).
    public init() { kernels = cmk_kernels() }

    /// The portable variant, whatever the CPU (for tests).
    public static var portable: StereoMixKernel { StereoMixKernel(kernels: cmk_kernels_portable()) }

    private init(kernels: UnsafePointer<CMKKernels>) { self.kernels = kernels }

    /// True when the AVX2 + FMA variant is in use.
    public var usesSIMD: Bool { kernels.pointee.isSimd != 0 }

    /// `left[i] += Σ inputs[k].gainLeft · inputs[k].left[i]` and the same for `right`, i < frames.
    ///
    /// Vouched real-time safe by hand (the compiler's `@_noLocks` check cannot see into C): the
    /// C loop only loads, multiplies, adds, stores and prefetches.
    @_semantics("no_performance_analysis") @inline(never)
    public func mix(into left: UnsafeMutablePointer<Float>, _ right: UnsafeMutablePointer<Float>,
                    inputs: UnsafePointer<StereoMixInput>, count: Int, frames: Int) {
        guard count > 0, frames > 0 else { return }
        inputs.withMemoryRebound(to: CMKStereoInput.self, capacity: count) { c in
            kernels.pointee.mixStereo(left, right, c, count, frames)
        }
    }
}

// Compile-time proof (optimised builds; see RealTimeSafety.swift) that a render-side caller of
// the kernel stays free of allocation and locks.
#if !DEBUG && !AVAUDIO_TESTABLE_RELEASE
enum StereoMixKernelRealTimeSafety {
    @_noLocks
    static func mix(_ kernel: StereoMixKernel, _ l: UnsafeMutablePointer<Float>, _ r: UnsafeMutablePointer<Float>,
                    _ inputs: UnsafePointer<StereoMixInput>, _ n: Int) {
        kernel.mix(into: l, r, inputs: inputs, count: n, frames: n)
    }
}
#endif

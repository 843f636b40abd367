// From runtime format descriptions to compile-time storage types: the only place the formats are
// switched on. Each switch runs once per call, never per sample.
//
// Swift has no generic closures, so "call this generic function with the type for that format"
// is spelled as a visitor: `withStorage` switches on the format and calls `visit` with the matching
// type. A conversion visits twice – source, then destination – and the second visit calls the
// kernel with both types known. The stages below are separate types so that each public entry
// point instantiates only the pairs it can reach (decode: 14 file formats × 4 processing types).

/// Something to do with a storage type.
protocol StorageVisitor {
    mutating func visit<S: SampleStorage>(_ storage: S.Type)
}

extension SampleEncoding {
    /// Calls `visitor.visit` with the storage type of this encoding in the given byte order.
    @inline(__always)
    func withStorage<V: StorageVisitor>(bigEndian: Bool, _ visitor: inout V) {
        switch self {
        case .unsigned8: visitor.visit(UInt8Storage.self)
        case .signed8: visitor.visit(Int8Storage.self)
        case .signed16:
            if bigEndian { visitor.visit(Int16Storage<BigEndian>.self) } else { visitor.visit(Int16Storage<LittleEndian>.self) }
        case .signed24:
            if bigEndian { visitor.visit(Int24Storage<BigEndian>.self) } else { visitor.visit(Int24Storage<LittleEndian>.self) }
        case .signed32:
            if bigEndian { visitor.visit(Int32Storage<BigEndian>.self) } else { visitor.visit(Int32Storage<LittleEndian>.self) }
        case .float32:
            if bigEndian { visitor.visit(Float32Storage<BigEndian>.self) } else { visitor.visit(Float32Storage<LittleEndian>.self) }
        case .float64:
            if bigEndian { visitor.visit(Float64Storage<BigEndian>.self) } else { visitor.visit(Float64Storage<LittleEndian>.self) }
        case .ulaw: visitor.visit(ULawStorage.self)
        case .alaw: visitor.visit(ALawStorage.self)
        }
    }
}

extension ProcessingSampleType {
    /// Calls `visitor.visit` with the storage type of this processing type (native byte order).
    @inline(__always)
    func withStorage<V: StorageVisitor>(_ visitor: inout V) {
        switch self {
        case .float32: visitor.visit(Float32Storage<NativeEndian>.self)
        case .float64: visitor.visit(Float64Storage<NativeEndian>.self)
        case .int16: visitor.visit(Int16Storage<NativeEndian>.self)
        case .int32: visitor.visit(Int32Storage<NativeEndian>.self)
        }
    }
}

/// What to convert: both sides and the length.
struct TransferJob {
    let source: ChannelAddressing
    let destination: ChannelAddressing
    let frames: Int
}

/// Second stage: the source type `S` is known; visiting the destination type runs the kernel.
struct RunTransfer<S: SampleStorage, M: DitherMode, F: FileSide>: StorageVisitor {
    let job: TransferJob
    var dither: TPDFDither

    @inline(__always)
    mutating func visit<D: SampleStorage>(_: D.Type) {
        transfer(S.self, D.self, M.self, F.self, from: job.source, to: job.destination, frames: job.frames,
                 dither: &dither)
    }
}

/// First stage of a conversion whose destination is a processing type: decoding (`F` is
/// `FileIsSource`) and processing → processing (`NoFile`).
struct ToProcessingType<F: FileSide>: StorageVisitor {
    let job: TransferJob
    let destinationType: ProcessingSampleType
    /// The caller's generator when dithering: copied in, and out again after the conversion.
    var dither: TPDFDither?

    @inline(__always)
    mutating func visit<S: SampleStorage>(_: S.Type) {
        if let state = dither {
            var next = RunTransfer<S, Dithered, F>(job: job, dither: state)
            destinationType.withStorage(&next)
            dither = next.dither
        } else {
            // The generator is not used on this path; any value will do.
            var next = RunTransfer<S, Undithered, F>(job: job, dither: TPDFDither(lanes: .one))
            destinationType.withStorage(&next)
        }
    }
}

/// First stage of an encode: the source is a processing type, the destination a file encoding.
struct ToFileEncoding: StorageVisitor {
    let job: TransferJob
    let encoding: SampleEncoding
    let bigEndian: Bool
    var dither: TPDFDither?

    @inline(__always)
    mutating func visit<S: SampleStorage>(_: S.Type) {
        if let state = dither {
            var next = RunTransfer<S, Dithered, FileIsDestination>(job: job, dither: state)
            encoding.withStorage(bigEndian: bigEndian, &next)
            dither = next.dither
        } else {
            var next = RunTransfer<S, Undithered, FileIsDestination>(job: job, dither: TPDFDither(lanes: .one))
            encoding.withStorage(bigEndian: bigEndian, &next)
        }
    }
}

// Reading the little-endian fields of a RIFF file held in memory: the SoundFont and DLS readers
// share these. Callers check bounds before reading (each reader validates a chunk's extent first).

protocol LittleEndianFields {
    var bytes: UnsafeRawBufferPointer { get }
}

extension LittleEndianFields {
    func u8(_ o: Int) -> UInt8 { bytes[o] }
    func u16(_ o: Int) -> UInt16 { UInt16(bytes[o]) | UInt16(bytes[o + 1]) << 8 }
    func i16(_ o: Int) -> Int16 { Int16(bitPattern: u16(o)) }
    func u32(_ o: Int) -> UInt32 { UInt32(u16(o)) | UInt32(u16(o + 2)) << 16 }
    func i32(_ o: Int) -> Int32 { Int32(bitPattern: u32(o)) }
    /// A chunk ID as text, bytes outside printable ASCII shown as "?".
    func fourCC(_ o: Int) -> String {
        String(decoding: (0..<4).map { c -> UInt8 in let b = bytes[o + c]; return (32...126).contains(b) ? b : 63 }, as: UTF8.self)
    }
}

/// Reads typed values from fuzz input bytes; past the end it yields zeros, so every input decodes.
struct ByteReader {
    let bytes: [UInt8]
    var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position >= bytes.count }

    mutating func u8() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }
    mutating func uint(_ width: Int) -> UInt64 {
        var value: UInt64 = 0
        for _ in 0..<width { value = value << 8 | UInt64(u8()) }
        return value
    }
    mutating func u16() -> UInt16 { UInt16(uint(2)) }
    mutating func u32() -> UInt32 { UInt32(uint(4)) }
    mutating func u64() -> UInt64 { uint(8) }
    mutating func bool() -> Bool { u8() & 1 != 0 }
    /// One of `choices`, picked by the next byte.
    mutating func pick<T>(_ choices: [T]) -> T { choices[Int(u8()) % choices.count] }
    mutating func bytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in u8() } }
}

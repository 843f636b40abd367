// The Core Audio types that AVFAudio's API names, with Apple's Swift spellings.
//
// The structs themselves (AudioBuffer, AudioBufferList, AudioStreamBasicDescription,
// AudioTimeStamp, AudioChannelLayout, ...) are declared in C (`CCoreAudioTypes`) so their memory
// layout is Apple's; this module re-exports them and adds the constants and Swift conveniences
// that Apple's CoreAudioTypes overlay provides.
@_exported import CCoreAudioTypes

/// `noErr`: the OSStatus of success.
public let noErr: OSStatus = 0

/// Builds a four-character code (`'lpcm'`) as Apple's constants are defined.
@inlinable
package func fourCharCode(_ string: StaticString) -> UInt32 {
    precondition(string.utf8CodeUnitCount == 4, "a four-character code has four ASCII characters")
    let p = string.utf8Start
    return UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
}

/// Formats a four-character code the way Apple's tools print them: `'lpcm'`, or the number when
/// it is not printable ASCII.
package func fourCharCodeString(_ code: UInt32) -> String {
    let bytes = [UInt8(code >> 24 & 0xFF), UInt8(code >> 16 & 0xFF), UInt8(code >> 8 & 0xFF), UInt8(code & 0xFF)]
    if bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {
        return "'" + String(decoding: bytes, as: UTF8.self) + "'"
    }
    return String(Int32(bitPattern: code))
}

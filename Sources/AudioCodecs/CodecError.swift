// Errors of the codecs: what was wrong with the bytes, in a sentence a person understands.

/// A codec could not decode (or encode) what it was given. `message` says what and where.
public struct CodecError: Error, CustomStringConvertible, Equatable {
    public enum Kind: Equatable {
        /// The bytes are not this codec's format (wrong marker, reserved values).
        case notThisFormat
        /// The bytes break the format's rules (a value out of range, a bad checksum).
        case corrupt
        /// The bytes end before the structure they started.
        case truncated
        /// Valid, but a feature this decoder does not implement.
        case unsupported
    }
    public let kind: Kind
    public let message: String
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
    public var description: String { message }
}

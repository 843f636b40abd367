// MD5 (written from RFC 1321 for FLAC's STREAMINFO signature) against the RFC's own test suite
// (Appendix A.5) and against Python's hashlib on 100 kB fed in uneven pieces.
import Foundation
import Testing
import AudioCodecs

@Suite struct MD5Tests {
    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    @Test func rfc1321TestSuite() {
        let cases: [(String, String)] = [
            ("", "d41d8cd98f00b204e9800998ecf8427e"),
            ("a", "0cc175b9c0f1b6a831c399e269772661"),
            ("abc", "900150983cd24fb0d6963f7d28e17f72"),
            ("message digest", "f96b697d7cb7938d525a2f31aaf161d0"),
            ("abcdefghijklmnopqrstuvwxyz", "c3fcd3d76192e4007dfb496cca67e13b"),
            ("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789", "d174ab98d277d9f5a5611c2c9f419d9f"),
            ("12345678901234567890123456789012345678901234567890123456789012345678901234567890", "57edf4a22be3c955ac49da2e2107b67a"),
        ]
        for (text, digest) in cases {
            var md5 = MD5()
            md5.update(Array(text.utf8))
            #expect(Self.hex(md5.finish()) == digest, "MD5(\"\(text)\")")
        }
    }

    @Test func matchesHashlibOnUnevenPieces() throws {
        var bytes = [UInt8](repeating: 0, count: 100_003)
        var state: UInt32 = 12345
        for i in bytes.indices {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes[i] = UInt8(truncatingIfNeeded: state >> 24)
        }
        var md5 = MD5()
        var at = 0, piece = 1
        while at < bytes.count {
            let n = min(piece, bytes.count - at)
            bytes[at..<(at + n)].withUnsafeBytes { md5.update($0.baseAddress!, count: n) }
            at += n
            piece = piece * 3 % 1000 + 1
        }
        let ours = Self.hex(md5.finish())
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = ["python3", "-c", "import hashlib,sys; print(hashlib.md5(sys.stdin.buffer.read()).hexdigest())"]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        do { try p.run() } catch { print("SKIP MD5 against hashlib: python3 is not installed"); return }
        input.fileHandleForWriting.write(Data(bytes))
        try input.fileHandleForWriting.close()
        let reply = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(reply.trimmingCharacters(in: .whitespacesAndNewlines) == ours)
    }
}

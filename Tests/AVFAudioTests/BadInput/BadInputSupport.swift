// Shared by the bad-input suites: the thrown-error check, scratch directories, and the text an
// exit test wrote to standard error.
import Testing
import Foundation
import AVFoundation

enum BadInput {
    /// Runs `body`, which must throw an NSError in `domain` with `code` whose sentence contains
    /// `text` (and, with `readable`, is not Foundation's generic "The operation couldn't…").
    static func expectError(domain: String, code: Int, _ text: String, readable: Bool = false,
                            sourceLocation: SourceLocation, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("no error thrown", sourceLocation: sourceLocation)
        } catch let error as NSError {
            #expect(error.domain == domain, "\(error)", sourceLocation: sourceLocation)
            #expect(error.code == code, "code \(error.code): \(error.localizedDescription)", sourceLocation: sourceLocation)
            let sentence = error.localizedDescription
            #expect(sentence.contains(text), "\(sentence)", sourceLocation: sourceLocation)
            if readable {
                #expect(!sentence.contains("The operation couldn"), "a readable sentence: \(sentence)", sourceLocation: sourceLocation)
            }
        }
    }

    /// A fresh directory for one test, named after the suite (`prefix`) and the test.
    static func scratch(_ prefix: String, _ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("badinput-\(prefix)-\(getpid())-\(name.filter(\.isLetter))-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// What an exit test's child process wrote to standard error (the trap message).
    static func message(_ result: ExitTest.Result?) -> String {
        String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
    }
}

// A bounded slice of the crash-kill trials (Scripts/crashkill.py runs hundreds per format): a
// child `avaudio` writing each container and sample format with AVAudioFile is killed with SIGKILL
// at a random moment, and what it leaves must open with AVAudioFile and with libsndfile and hold
// every frame of the last completed write(from:). Skips visibly without python3/numpy/soundfile.
import Foundation
import Testing

@Suite(.enabled(if: AvaudioTool.url != nil, "the avaudio executable was not found (build it with `swift build --product avaudio`)"))
struct CrashKillTests {
    @Test func killedWritersLeaveReadableFiles() throws {
        guard AVAudioFileFLACTests.hasPython else {
            print("skipped: python3 with numpy and soundfile is not installed (the trials check files with libsndfile)")
            return
        }
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Scripts/crashkill.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--trials", "4", "--max-ms", "250", "--chunk", "2048",
                             "--avaudio", AvaudioTool.url!.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let watchdog = DispatchWorkItem { process.terminate() }
        DispatchQueue.global().asyncAfter(deadline: .now() + 300, execute: watchdog)
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        watchdog.cancel()
        #expect(process.terminationStatus == 0, "\(output)")
        #expect(output.split(separator: "\n").count == 21, "one line per format: \(output)")
    }

    /// A writer that reaches a file size limit (`ulimit -f`, the stand-in for a full disk) gets a
    /// clear error, and the file keeps every frame that reached it, described by its header.
    @Test func aFileSizeLimitIsAClearErrorAndLosesNothing() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sizelimit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        // (compressed containers: 4,096-frame packets; what must survive is every packet finished
        // before the failing write)
        let extensions = ["m4a": "m4a", "flac": "flac", "caf-alac": "caf", "oga-flac": "oga"]
        for (container, bits) in [("wav", 16), ("caf", 24), ("aiff", 16), ("au", 32), ("flac", 16), ("caf-alac", 24), ("m4a", 16), ("oga-flac", 16)] {
            let path = directory.appendingPathComponent("limited.\(extensions[container] ?? container)").path
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            // 400 blocks of 512 bytes: about 200 KB
            process.arguments = ["-c", "ulimit -f 400; exec \"$0\" _crash-writer write \"$1\" --container \"$2\" --bits \"$3\" --chunk 1000",
                                 AvaudioTool.url!.path, path, container, String(bits)]
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            try process.run()
            let written = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus != 0, "\(container): the writer should have failed at the limit")
            #expect(message.contains("File too large") || message.contains("too large"), "\(container): \(message)")
            var last = written.split(separator: "\n").last.flatMap { Int($0.dropFirst(2)) } ?? 0
            #expect(last > 10_000, "\(container): \(last) frames before the limit")
            if extensions[container] != nil { last = last / 4096 * 4096 }
            let verify = try AvaudioTool.run(["_crash-writer", "verify", path, "--frames", String(last), "--bits", String(bits)])
            #expect(verify.stdout.hasPrefix("OK"), "\(container): \(verify.stdout)")
        }
    }
}

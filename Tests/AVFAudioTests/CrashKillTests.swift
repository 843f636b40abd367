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
        #expect(output.split(separator: "\n").count == 13, "one line per format: \(output)")
    }
}

// The JACK backend against PipeWire's JACK (pipewire-jack): desktops that run PipeWire serve JACK
// clients through their own libjack.so.0, which `pw-jack` puts first on the library path. libjack
// is chosen once per process (dlopen), so the JACK device tests run again in a child process of
// this test binary, with PipeWire's libjack first on its library path and a private `pipewire`
// daemon (its own XDG_RUNTIME_DIR: it never meets a user's PipeWire) as their server
// (PrivateJACKServer, `AVAUDIO_TEST_JACK=pipewire`): playback to another client with no dropped or
// repeated frame, duplex input from another client, the server's rate and period, and a render
// block that stops the engine from the process thread.
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct PipeWireJACKTests {
    static let childTests = ["playbackReachesAnotherClient", "inputFromAnotherClient", "deviceReportsServerFormat", "stopFromProcessThread"]

    @Test("The JACK device tests pass against PipeWire's JACK (a private pipewire daemon, pipewire-jack's libjack)",
          .enabled(if: DeviceComponents.pipeWireJACK, "pipewire or pipewire-jack's libjack.so.0 (Debian pipewire-bin, pipewire-jack) is not installed"),
          .timeLimit(.minutes(3)))
    func jackTestsPassOnPipeWire() throws {
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("avaudio-pipewire-\(getpid())-\(UUID().uuidString.prefix(6))")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(at: runtime) }
        var environment = ProcessInfo.processInfo.environment
        environment["AVAUDIO_TEST_JACK"] = "pipewire"
        environment["XDG_RUNTIME_DIR"] = runtime.path
        environment["PIPEWIRE_RUNTIME_DIR"] = runtime.path
        environment["LD_LIBRARY_PATH"] = DeviceComponents.pipeWireJACKDirectory! + (environment["LD_LIBRARY_PATH"].map { ":" + $0 } ?? "")
        environment.removeValue(forKey: "DBUS_SESSION_BUS_ADDRESS")
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let log = runtime.appendingPathComponent("child.log").path
        var arguments = ["--testing-library", "swift-testing"]
        for name in Self.childTests { arguments += ["--filter", "JACKDeviceTests/\(name)"] }
        let child = try ChildProcess(binary, arguments, environment: environment, stdout: log, stderrToo: true)
        let status = child.wait(seconds: 170)
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        let summary = output.split(separator: "\n").filter { $0.contains("Test run with") || $0.contains("JACK playback") || $0.contains("✘") }
        print("PipeWire JACK child: " + summary.joined(separator: "\n"))
        #expect(status == 0, "the child's tests failed (status \(status.map(String.init) ?? "killed")):\n\(output.suffix(3_000))")
        #expect(output.contains("Test run with \(Self.childTests.count) tests"), "\(output.suffix(1_500))")
        #expect(!output.contains("skipped"), "a JACK test skipped in the child: \(output.suffix(1_500))")
    }
}

// The JACK process thread renders allocation-free: heap calls counted on JACK's process thread
// itself over 200 periods — the engine's render cycle (a source node into the output node), the
// backend's process callback (port buffers handed to the engine directly) and libjack's own cycle
// code between callbacks — against a private `jackd -d dummy` server (its own server name; only
// the process started here is stopped). Counting starts inside one callback of the source node's
// block and ends inside a later one, on the same thread.
import Testing
import Foundation
import AVFAudio
import AudioDevices
import AllocationCounter
#if canImport(Glibc)
import Glibc
#endif

@Suite struct JACKProcessThreadAllocationTests {
    static var jackd: String? {
        ["/usr/bin/jackd", "/usr/local/bin/jackd"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }
    static var jackInstalled: Bool {
        guard jackd != nil, let handle = dlopen("libjack.so.0", RTLD_NOW | RTLD_LOCAL) else { return false }
        dlclose(handle)
        return true
    }

    @Test(.enabled(if: jackInstalled, "jackd or libjack.so.0 (Debian jackd2, libjack-jackd2-0) is not installed"))
    func jackProcessThreadAllocatesNothing() throws {
        // (the AVFAudioTests' JACK tests take the same lock: libjack keeps one server's state per process)
        let lockFD = open("/tmp/avaudio-jack-tests.lock", O_CREAT | O_RDWR, 0o666)
        if lockFD >= 0 { while flock(lockFD, LOCK_EX) != 0 && errno == EINTR {} }
        defer { if lockFD >= 0 { flock(lockFD, LOCK_UN); close(lockFD) } }
        let name = "avaudio-alloc-\(getpid())"
        var pid: pid_t = 0
        let arguments: [String] = [Self.jackd!, "-n", name, "-r", "-d", "dummy", "-r", "48000", "-p", "256"]
        let environment: [String] = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" } + ["JACK_NO_AUDIO_RESERVATION=1"]
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let spawned = posix_spawn(&pid, Self.jackd!, &actions, nil, argv, envp)
        posix_spawn_file_actions_destroy(&actions)
        argv.forEach { free($0) }
        envp.forEach { free($0) }
        try #require(spawned == 0, "could not start jackd")
        defer {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            for _ in 0..<50 where waitpid(pid, &status, WNOHANG) == 0 { usleep(100_000) }
            if kill(pid, 0) == 0 { kill(pid, SIGKILL); waitpid(pid, &status, 0) }
        }
        var up = false
        for _ in 0..<100 where !up {
            up = AudioDevices.jackServerRuns(server: name)
            if !up { usleep(100_000) }
        }
        try #require(up, "the private JACK server did not start")

        final class Probe: @unchecked Sendable {
            var calls = 0
            var counts = oav_alloc_counts()
            let done = DispatchSemaphore(value: 0)
        }
        let probe = Probe()
        let engine = AVAudioEngine()
        try engine._setAudioDevice("jack:avaudio-alloc@\(name)")
        let format = AVAudioFormat(standardFormatWithSampleRate: 48_000, channels: 2)!
        let source = AVAudioSourceNode(format: format) { _, _, frameCount, list in
            let buffers = UnsafeMutableAudioBufferListPointer(list)
            for b in 0..<buffers.count { memset(buffers[b].mData!, 0, Int(frameCount) * 4) }
            probe.calls += 1
            if probe.calls == 100 { oav_alloc_counting_begin() }
            if probe.calls == 300 {
                oav_alloc_counting_end(&probe.counts)
                probe.done.signal()
            }
            return noErr
        }
        engine.attach(source)
        engine.connect(source, to: engine.outputNode, format: format)
        try engine.start()
        let finished = probe.done.wait(timeout: .now() + 30) == .success
        engine.stop()
        try #require(finished, "the JACK process thread did not run 300 periods")
        try #require(oav_alloc_counter_is_interposed() == 1, "the allocation counter is not interposed in this binary")
        #expect(probe.counts.allocations == 0, "the JACK process thread allocated \(probe.counts.allocations) times (\(probe.counts.bytes) bytes) in 200 periods")
        #expect(probe.counts.frees == 0, "the JACK process thread freed \(probe.counts.frees) times")
    }
}

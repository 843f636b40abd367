// The private ALSA configuration the device tests use (AVFAudioTests and AllocationCounterTests,
// which run in one test process): alsa-lib keeps one global configuration tree, read from
// ALSA_CONFIG_PATH and read again whenever that file changes, so every suite must install the
// same text — two texts written by turns would each drop the other's definitions while the
// other's tests run. No sound card: `file` PCMs over the `null` PCM, capture PCMs replaying a
// sine, and a PCM whose control device is an external plugin the jack tests build.
import Foundation

public enum ALSATestConfiguration {
    /// Writes the configuration (once per content) under the temporary directory, points
    /// ALSA_CONFIG_PATH at it and returns its directory.
    public static func install() -> URL {
        let directory = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("avaudio-alsa-\(getpid())")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var text = "pcm.null { type null }\n"
        for name in ["64", "128", "256", "8192", "alloc"] {
            text += "pcm.avaudio_file_\(name) { type file slave.pcm \"null\" file \"\(directory.path)/out-\(name).raw\" format \"raw\" }\n"
        }
        // Two-PCM duplex: capture PCMs that play a known sine (the `file` plugin's `infile`, read
        // as raw interleaved Float32 stereo) at 48 and 44.1 kHz, and playback PCMs for them.
        for name in ["duplex", "duplex44", "duplexalloc"] {
            text += "pcm.avaudio_file_\(name) { type file slave.pcm \"null\" file \"\(directory.path)/out-\(name).raw\" format \"raw\" }\n"
        }
        for rate in [48_000, 44_100] {
            text += "pcm.avaudio_sine_in_\(rate) { type file slave.pcm \"null\" file \"\(directory.path)/echo-\(rate).raw\" infile \"\(directory.path)/sine-\(rate).raw\" format \"raw\" }\n"
            ALSATestSine.write(to: directory.appendingPathComponent("sine-\(rate).raw"), sampleRate: Double(rate))
        }
        // A PCM with a control device of the same name whose jacks and volume the jack tests
        // change: an external control plugin they build (AVFAudioTests' ALSATestJackPlugin.swift),
        // reading jacks/jacks.state.
        text += "pcm.avaudio_jacks { type null hint { show on description \"OpenAVFAudio jack test\" } }\n"
        text += "ctl.avaudio_jacks { type avaudio_jacks state \"\(directory.path)/jacks/jacks.state\" }\n"
        text += "ctl_type.avaudio_jacks { lib \"\(jackPluginPath(in: directory).path)\" }\n"
        let conf = directory.appendingPathComponent("asound.conf")
        if (try? String(contentsOf: conf, encoding: .utf8)) != text { try? text.write(to: conf, atomically: true, encoding: .utf8) }
        setenv("ALSA_CONFIG_PATH", conf.path, 1)
        return directory
    }

    /// Where the jack tests build their control plugin.
    public static func jackPluginPath(in directory: URL) -> URL {
        directory.appendingPathComponent("libasound_module_ctl_avaudio_jacks.so")
    }
}

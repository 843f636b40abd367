// The part of the JACK client API the JACK backend calls, declared from JACK's public API
// documentation (https://jackaudio.org/api/ : jack.h, types.h) and resolved from libjack.so.0
// (jackd2's libjack, or PipeWire's pipewire-jack, which serves the same ABI) with dlsym. No header
// is included and nothing links against libjack.
//
// Opaque objects (jack_client_t, jack_port_t) are OpaquePointer. jack_nframes_t is uint32_t;
// jack_options_t and jack_status_t are C enums (int); port flags are `unsigned long`.
// jack_latency_range_t is { jack_nframes_t min; jack_nframes_t max }.
//
// jack_client_open is variadic (`...` carries the server name when JackServerName is set). It is
// declared here with that one extra `const char *` parameter: on the Linux ABIs this package
// builds for (x86-64 System V, AArch64 AAPCS64) a variadic pointer argument travels in the next
// integer register exactly as a named one does, and the callee reads it only when the option is
// set. (x86-64's %al vector-register count is only an upper bound the callee's prologue uses to
// save registers; any value is safe.)
#if canImport(Glibc)
import Glibc
#endif
import Synchronization

package enum JACK {
    // jack_options_t
    static let noStartServer: Int32 = 0x01
    static let serverName: Int32 = 0x04
    // jack_status_t
    static let failure: Int32 = 0x01
    static let nameNotUnique: Int32 = 0x04
    static let serverFailed: Int32 = 0x10
    static let serverError: Int32 = 0x20
    static let versionError: Int32 = 0x400
    // JackPortFlags
    package static let portIsInput: UInt = 0x01
    package static let portIsOutput: UInt = 0x02
    package static let portIsPhysical: UInt = 0x04
    // jack_latency_callback_mode_t
    static let captureLatency: Int32 = 0
    static let playbackLatency: Int32 = 1
    /// JACK_DEFAULT_AUDIO_TYPE.
    package static let audioType = "32 bit float mono audio"

    package typealias ClientOpen = @convention(c) (UnsafePointer<CChar>, Int32, UnsafeMutablePointer<Int32>?, UnsafePointer<CChar>?) -> OpaquePointer?
    package typealias ClientCall = @convention(c) (OpaquePointer) -> Int32
    package typealias ClientNumber = @convention(c) (OpaquePointer) -> UInt32
    package typealias ClientName = @convention(c) (OpaquePointer) -> UnsafePointer<CChar>?
    package typealias PortRegister = @convention(c) (OpaquePointer, UnsafePointer<CChar>, UnsafePointer<CChar>, UInt, UInt) -> OpaquePointer?
    package typealias PortName = @convention(c) (OpaquePointer) -> UnsafePointer<CChar>?
    package typealias PortGetBuffer = @convention(c) (OpaquePointer, UInt32) -> UnsafeMutableRawPointer?
    package typealias PortLatencyRange = @convention(c) (OpaquePointer, Int32, UnsafeMutablePointer<UInt32>) -> Void
    /// JackProcessCallback, JackBufferSizeCallback, JackSampleRateCallback: int (*)(jack_nframes_t, void *).
    package typealias FramesCallback = @convention(c) (UInt32, UnsafeMutableRawPointer?) -> Int32
    package typealias SetFramesCallback = @convention(c) (OpaquePointer, FramesCallback?, UnsafeMutableRawPointer?) -> Int32
    /// JackXRunCallback: int (*)(void *).
    package typealias XrunCallback = @convention(c) (UnsafeMutableRawPointer?) -> Int32
    package typealias SetXrunCallback = @convention(c) (OpaquePointer, XrunCallback?, UnsafeMutableRawPointer?) -> Int32
    /// JackLatencyCallback: void (*)(jack_latency_callback_mode_t, void *).
    package typealias LatencyCallback = @convention(c) (Int32, UnsafeMutableRawPointer?) -> Void
    package typealias SetLatencyCallback = @convention(c) (OpaquePointer, LatencyCallback?, UnsafeMutableRawPointer?) -> Int32
    /// JackInfoShutdownCallback: void (*)(jack_status_t, const char *reason, void *).
    package typealias InfoShutdownCallback = @convention(c) (Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer?) -> Void
    package typealias OnInfoShutdown = @convention(c) (OpaquePointer, InfoShutdownCallback?, UnsafeMutableRawPointer?) -> Void
    package typealias Connect = @convention(c) (OpaquePointer, UnsafePointer<CChar>, UnsafePointer<CChar>) -> Int32
    package typealias GetPorts = @convention(c) (OpaquePointer, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UInt) -> UnsafeMutablePointer<UnsafePointer<CChar>?>?
    package typealias Free = @convention(c) (UnsafeMutableRawPointer?) -> Void
    package typealias MessageFunction = @convention(c) (UnsafePointer<CChar>?) -> Void
    package typealias SetMessageFunction = @convention(c) (MessageFunction?) -> Void

    package struct Library {
        package let clientOpen: ClientOpen
        package let clientClose: ClientCall
        package let activate: ClientCall
        package let deactivate: ClientCall
        package let isRealtime: ClientCall
        package let clientName: ClientName
        package let sampleRate: ClientNumber
        package let bufferSize: ClientNumber
        package let portRegister: PortRegister
        package let portName: PortName
        package let portGetBuffer: PortGetBuffer
        package let portGetLatencyRange: PortLatencyRange
        package let setProcessCallback: SetFramesCallback
        package let setBufferSizeCallback: SetFramesCallback
        package let setSampleRateCallback: SetFramesCallback
        package let setXrunCallback: SetXrunCallback
        package let setLatencyCallback: SetLatencyCallback
        package let onInfoShutdown: OnInfoShutdown
        package let connect: Connect
        package let getPorts: GetPorts
        package let free: Free
        let setErrorFunction: SetMessageFunction
        let setInfoFunction: SetMessageFunction

        init(_ lib: DynamicLibrary) throws {
            clientOpen = try lib.function("jack_client_open")
            clientClose = try lib.function("jack_client_close")
            activate = try lib.function("jack_activate")
            deactivate = try lib.function("jack_deactivate")
            isRealtime = try lib.function("jack_is_realtime")
            clientName = try lib.function("jack_get_client_name")
            sampleRate = try lib.function("jack_get_sample_rate")
            bufferSize = try lib.function("jack_get_buffer_size")
            portRegister = try lib.function("jack_port_register")
            portName = try lib.function("jack_port_name")
            portGetBuffer = try lib.function("jack_port_get_buffer")
            portGetLatencyRange = try lib.function("jack_port_get_latency_range")
            setProcessCallback = try lib.function("jack_set_process_callback")
            setBufferSizeCallback = try lib.function("jack_set_buffer_size_callback")
            setSampleRateCallback = try lib.function("jack_set_sample_rate_callback")
            setXrunCallback = try lib.function("jack_set_xrun_callback")
            setLatencyCallback = try lib.function("jack_set_latency_callback")
            onInfoShutdown = try lib.function("jack_on_info_shutdown")
            connect = try lib.function("jack_connect")
            getPorts = try lib.function("jack_get_ports")
            free = try lib.function("jack_free")
            setErrorFunction = try lib.function("jack_set_error_function")
            setInfoFunction = try lib.function("jack_set_info_function")
            // libjack prints every failed connection attempt ("Cannot connect to server socket")
            // to stderr; the backend reports failures itself, as an error with a sentence.
            setErrorFunction { _ in }
            setInfoFunction { _ in }
        }

        /// Opens a client without starting a server: the server `server` names (nil: libjack's
        /// default, `$JACK_DEFAULT_SERVER` or "default"). Throws `.notFound` when none runs.
        package func open(clientName: String, server: String?) throws -> OpaquePointer {
            // (libjack would hang or fail connecting to a second server from this process)
            if let other = JACK.openClients.withLock({ $0.keys.first { $0 != JACK.resolvedServer(server) } }) {
                throw AudioDeviceError(.failed, "JACK: this process already has clients on the JACK server “\(other)”; libjack reaches one server per process, so close those (stop and release their engines) before using server “\(JACK.resolvedServer(server))”")
            }
            var status: Int32 = 0
            let options = JACK.noStartServer | (server != nil ? JACK.serverName : 0)
            let client = clientName.withCString { name in withOptionalCString(server) { clientOpen(name, options, &status, $0) } }
            guard let client else {
                let which = server.map { "named “\($0)”" } ?? "(default server)"
                if status & (JACK.serverFailed | JACK.serverError) != 0 || status == JACK.failure {
                    throw AudioDeviceError(.notFound, "no JACK server is running \(which); start one with `jackd -d alsa` (or `jackd -d dummy`) or choose another backend (AVAUDIO_BACKEND=pulse, alsa or null)", code: status)
                }
                if status & JACK.versionError != 0 {
                    throw AudioDeviceError(.failed, "the JACK server \(which) speaks another protocol version than libjack.so.0; install matching jackd2 and libjack-jackd2-0", code: status)
                }
                throw AudioDeviceError(.failed, "JACK: jack_client_open(“\(clientName)”) failed (jack_status_t 0x\(String(status, radix: 16)))", code: status)
            }
            JACK.openClients.withLock { $0[JACK.resolvedServer(server), default: 0] += 1 }
            return client
        }

        /// Closes a client opened with `open(clientName:server:)`.
        package func close(_ client: OpaquePointer, server: String?) {
            _ = clientClose(client)
            JACK.openClients.withLock {
                let key = JACK.resolvedServer(server)
                $0[key, default: 1] -= 1
                if $0[key] == 0 { $0[key] = nil }
            }
        }

        /// The full names of the ports matching `flags` (audio ports only).
        package func ports(_ client: OpaquePointer, flags: UInt) -> [String] {
            guard let list = JACK.audioType.withCString({ getPorts(client, nil, $0, flags) }) else { return [] }
            var names: [String] = []
            var i = 0
            while let name = list[i] { names.append(String(cString: name)); i += 1 }
            free(UnsafeMutableRawPointer(list))
            return names
        }
    }

    /// Clients this process has open, by server. jackd2's libjack keeps one server connection's
    /// shared state per process (two servers at once make one of them fail), so probing another
    /// server while clients are open (enumeration, `AudioDevices.jackServerRuns`) is skipped.
    static let openClients = Mutex<[String: Int]>([:])

    static func resolvedServer(_ server: String?) -> String {
        server ?? getenv("JACK_DEFAULT_SERVER").map { String(cString: $0) } ?? "default"
    }

    /// Whether probing `server` cannot disturb clients this process has open on another server.
    package static func mayProbe(server: String?) -> Bool {
        let key = resolvedServer(server)
        return openClients.withLock { $0.keys.allSatisfy { $0 == key } }
    }

    private static let loaded: Result<Library, AudioDeviceError> = {
        do { return .success(try Library(DynamicLibrary(soname: "libjack.so.0", package: "libjack-jackd2-0"))) }
        catch let error as AudioDeviceError { return .failure(error) }
        catch { return .failure(AudioDeviceError(.libraryMissing, "\(error)")) }
    }()

    /// libjack, or an error naming the package to install.
    package static func library() throws -> Library { try loaded.get() }
}

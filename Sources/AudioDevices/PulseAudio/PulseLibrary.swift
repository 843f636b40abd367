// The part of libpulse's asynchronous API the PulseAudio backend calls, declared from the
// PulseAudio client API documentation (https://freedesktop.org/software/pulseaudio/doxygen/ :
// thread-mainloop.h, context.h, stream.h, introspect.h, def.h, sample.h) and resolved from
// libpulse.so.0 with dlsym. No header is included and nothing links against libpulse. PipeWire
// desktops serve the same API through pipewire-pulse.
//
// Opaque objects (pa_threaded_mainloop, pa_mainloop_api, pa_context, pa_stream, pa_operation)
// are OpaquePointer. Structs passed by pointer are laid out by hand below, with the documented
// C field order: pa_sample_spec { int32 format; uint32 rate; uint8 channels } (12 bytes),
// pa_buffer_attr { uint32 maxlength, tlength, prebuf, minreq, fragsize }.
#if canImport(Glibc)
import Glibc
#endif

enum Pulse {
    // pa_sample_format_t
    static let sampleFloat32LE: Int32 = 5
    // pa_context_flags_t
    static let contextNoAutospawn: Int32 = 1
    // pa_context_state_t
    static let contextReady: Int32 = 4
    static let contextFailed: Int32 = 5
    static let contextTerminated: Int32 = 6
    // pa_stream_state_t
    static let streamReady: Int32 = 2
    static let streamFailed: Int32 = 3
    static let streamTerminated: Int32 = 4
    // pa_stream_flags_t
    static let streamInterpolateTiming: Int32 = 0x0002
    static let streamAutoTimingUpdate: Int32 = 0x0008
    static let streamAdjustLatency: Int32 = 0x2000
    // pa_seek_mode_t
    static let seekRelative: Int32 = 0
    // pa_operation_state_t
    static let operationRunning: Int32 = 0

    /// pa_sample_spec.
    struct SampleSpec {
        var format: Int32
        var rate: UInt32
        var channels: UInt8
    }
    /// pa_buffer_attr.
    struct BufferAttributes {
        var maxlength: UInt32
        var tlength: UInt32
        var prebuf: UInt32
        var minreq: UInt32
        var fragsize: UInt32
    }

    typealias MainloopNew = @convention(c) () -> OpaquePointer?
    typealias MainloopCall = @convention(c) (OpaquePointer) -> Void
    typealias MainloopStart = @convention(c) (OpaquePointer) -> Int32
    typealias MainloopSignal = @convention(c) (OpaquePointer, Int32) -> Void
    typealias MainloopGetAPI = @convention(c) (OpaquePointer) -> OpaquePointer?
    typealias ContextNew = @convention(c) (OpaquePointer, UnsafePointer<CChar>) -> OpaquePointer?
    typealias NotifyCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void
    typealias SetNotify = @convention(c) (OpaquePointer, NotifyCallback?, UnsafeMutableRawPointer?) -> Void
    typealias ContextConnect = @convention(c) (OpaquePointer, UnsafePointer<CChar>?, Int32, OpaquePointer?) -> Int32
    typealias GetState = @convention(c) (OpaquePointer) -> Int32
    typealias Unref = @convention(c) (OpaquePointer) -> Void
    typealias InfoCallback = @convention(c) (OpaquePointer?, UnsafeRawPointer?, Int32, UnsafeMutableRawPointer?) -> Void
    typealias GetInfoList = @convention(c) (OpaquePointer, InfoCallback?, UnsafeMutableRawPointer?) -> OpaquePointer?
    typealias ServerInfoCallback = @convention(c) (OpaquePointer?, UnsafeRawPointer?, UnsafeMutableRawPointer?) -> Void
    typealias GetServerInfo = @convention(c) (OpaquePointer, ServerInfoCallback?, UnsafeMutableRawPointer?) -> OpaquePointer?
    typealias StreamNew = @convention(c) (OpaquePointer, UnsafePointer<CChar>, UnsafeRawPointer, UnsafeRawPointer?) -> OpaquePointer?
    typealias RequestCallback = @convention(c) (OpaquePointer?, Int, UnsafeMutableRawPointer?) -> Void
    typealias SetRequest = @convention(c) (OpaquePointer, RequestCallback?, UnsafeMutableRawPointer?) -> Void
    typealias ConnectPlayback = @convention(c) (OpaquePointer, UnsafePointer<CChar>?, UnsafeRawPointer?, Int32, UnsafeRawPointer?, OpaquePointer?) -> Int32
    typealias ConnectRecord = @convention(c) (OpaquePointer, UnsafePointer<CChar>?, UnsafeRawPointer?, Int32) -> Int32
    typealias StreamWrite = @convention(c) (OpaquePointer, UnsafeRawPointer, Int, UnsafeRawPointer?, Int64, Int32) -> Int32
    typealias StreamPeek = @convention(c) (OpaquePointer, UnsafeMutablePointer<UnsafeRawPointer?>, UnsafeMutablePointer<Int>) -> Int32
    typealias StreamCall = @convention(c) (OpaquePointer) -> Int32
    typealias StreamLatency = @convention(c) (OpaquePointer, UnsafeMutablePointer<UInt64>, UnsafeMutablePointer<Int32>) -> Int32
    typealias StreamBufferAttr = @convention(c) (OpaquePointer) -> UnsafeRawPointer?
    typealias StrError = @convention(c) (Int32) -> UnsafePointer<CChar>?
    typealias ProplistGets = @convention(c) (OpaquePointer?, UnsafePointer<CChar>) -> UnsafePointer<CChar>?

    struct Library {
        let mainloopNew: MainloopNew
        let mainloopFree: MainloopCall
        let mainloopStart: MainloopStart
        let mainloopStop: MainloopCall
        let mainloopLock: MainloopCall
        let mainloopUnlock: MainloopCall
        let mainloopWait: MainloopCall
        let mainloopSignal: MainloopSignal
        let mainloopGetAPI: MainloopGetAPI
        let mainloopInThread: StreamCall
        let contextNew: ContextNew
        let contextSetStateCallback: SetNotify
        let contextConnect: ContextConnect
        let contextGetState: GetState
        let contextErrno: GetState
        let contextDisconnect: Unref
        let contextUnref: Unref
        let contextGetSinkInfoList: GetInfoList
        let contextGetSourceInfoList: GetInfoList
        let contextGetSinkInputInfoList: GetInfoList
        let proplistGets: ProplistGets
        let contextGetServerInfo: GetServerInfo
        let operationGetState: GetState
        let operationUnref: Unref
        let streamNew: StreamNew
        let streamSetStateCallback: SetNotify
        let streamSetWriteCallback: SetRequest
        let streamSetReadCallback: SetRequest
        let streamSetUnderflowCallback: SetNotify
        let streamSetOverflowCallback: SetNotify
        let streamSetMovedCallback: SetNotify
        let streamConnectPlayback: ConnectPlayback
        let streamConnectRecord: ConnectRecord
        let streamGetState: GetState
        let streamWrite: StreamWrite
        let streamPeek: StreamPeek
        let streamDrop: StreamCall
        let streamGetLatency: StreamLatency
        let streamGetBufferAttr: StreamBufferAttr
        let streamDisconnect: StreamCall
        let streamUnref: Unref
        let strerror: StrError

        init(_ lib: DynamicLibrary) throws {
            mainloopNew = try lib.function("pa_threaded_mainloop_new")
            mainloopFree = try lib.function("pa_threaded_mainloop_free")
            mainloopStart = try lib.function("pa_threaded_mainloop_start")
            mainloopStop = try lib.function("pa_threaded_mainloop_stop")
            mainloopLock = try lib.function("pa_threaded_mainloop_lock")
            mainloopUnlock = try lib.function("pa_threaded_mainloop_unlock")
            mainloopWait = try lib.function("pa_threaded_mainloop_wait")
            mainloopSignal = try lib.function("pa_threaded_mainloop_signal")
            mainloopGetAPI = try lib.function("pa_threaded_mainloop_get_api")
            mainloopInThread = try lib.function("pa_threaded_mainloop_in_thread")
            contextNew = try lib.function("pa_context_new")
            contextSetStateCallback = try lib.function("pa_context_set_state_callback")
            contextConnect = try lib.function("pa_context_connect")
            contextGetState = try lib.function("pa_context_get_state")
            contextErrno = try lib.function("pa_context_errno")
            contextDisconnect = try lib.function("pa_context_disconnect")
            contextUnref = try lib.function("pa_context_unref")
            contextGetSinkInfoList = try lib.function("pa_context_get_sink_info_list")
            contextGetSourceInfoList = try lib.function("pa_context_get_source_info_list")
            contextGetSinkInputInfoList = try lib.function("pa_context_get_sink_input_info_list")
            proplistGets = try lib.function("pa_proplist_gets")
            contextGetServerInfo = try lib.function("pa_context_get_server_info")
            operationGetState = try lib.function("pa_operation_get_state")
            operationUnref = try lib.function("pa_operation_unref")
            streamNew = try lib.function("pa_stream_new")
            streamSetStateCallback = try lib.function("pa_stream_set_state_callback")
            streamSetWriteCallback = try lib.function("pa_stream_set_write_callback")
            streamSetReadCallback = try lib.function("pa_stream_set_read_callback")
            streamSetUnderflowCallback = try lib.function("pa_stream_set_underflow_callback")
            streamSetOverflowCallback = try lib.function("pa_stream_set_overflow_callback")
            streamSetMovedCallback = try lib.function("pa_stream_set_moved_callback")
            streamConnectPlayback = try lib.function("pa_stream_connect_playback")
            streamConnectRecord = try lib.function("pa_stream_connect_record")
            streamGetState = try lib.function("pa_stream_get_state")
            streamWrite = try lib.function("pa_stream_write")
            streamPeek = try lib.function("pa_stream_peek")
            streamDrop = try lib.function("pa_stream_drop")
            streamGetLatency = try lib.function("pa_stream_get_latency")
            streamGetBufferAttr = try lib.function("pa_stream_get_buffer_attr")
            streamDisconnect = try lib.function("pa_stream_disconnect")
            streamUnref = try lib.function("pa_stream_unref")
            strerror = try lib.function("pa_strerror")
        }

        func message(_ code: Int32) -> String { strerror(code).map { String(cString: $0) } ?? "error \(code)" }
    }

    private static let loaded: Result<Library, AudioDeviceError> = {
        do { return .success(try Library(DynamicLibrary(soname: "libpulse.so.0", package: "libpulse0"))) }
        catch let error as AudioDeviceError { return .failure(error) }
        catch { return .failure(AudioDeviceError(.libraryMissing, "\(error)")) }
    }()

    /// libpulse, or an error naming the package to install.
    static func library() throws -> Library { try loaded.get() }

    // Reading the introspection structs (documented field order; pointers 8 bytes, the
    // pa_sample_spec 4-byte aligned):
    //   pa_sink_info / pa_source_info: char *name @0; uint32 index @8; char *description @16;
    //     pa_sample_spec sample_spec @24 (format @24, rate @28, channels @32).
    //   pa_server_info: char *user_name @0, *host_name @8, *server_version @16, *server_name @24;
    //     pa_sample_spec @32 (rate @36, channels @40); char *default_sink_name @48, *default_source_name @56.
    //   pa_sink_input_info: uint32 index @0; char *name @8; uint32 owner_module @16, client @20,
    //     sink @24; pa_sample_spec @28 (12 bytes); pa_channel_map @40 (uint8 channels, then 32
    //     int32 positions from @44); pa_cvolume @172 (uint8 channels, 32 uint32 values from @176);
    //     pa_usec_t buffer_usec @304, sink_usec @312; char *resample_method @320, *driver @328;
    //     int mute @336; pa_proplist *proplist @344; int corked @352; int has_volume @356.
    static let sinkInputProplistOffset = 344
    static let sinkInputCorkedOffset = 352

    //   pa_sink_info and pa_source_info share their layout up to the port fields (introspect.h):
    //     … int mute @304; uint32 monitor @308; char *monitor name @312; pa_usec_t latency @320;
    //     char *driver @328; flags @336; pa_proplist *proplist @344; pa_usec_t configured_latency
    //     @352; pa_volume_t base_volume @360; state @364; uint32 n_volume_steps @368, card @372,
    //     n_ports @376; port_info **ports @384; port_info *active_port @392. A pa_sink_port_info /
    //     pa_source_port_info starts with `const char *name; const char *description;`.
    static let deviceProplistOffset = 344
    static let deviceMuteOffset = 304
    static let deviceActivePortOffset = 392

    /// Fills `info`'s device properties from a pa_sink_info / pa_source_info: the proplist's
    /// device.bus, device.form_factor, device.class, device.api, the Bluetooth profile
    /// (bluetooth.protocol, or PipeWire's api.bluez5.profile), and the active port's name.
    static func readProperties(_ device: UnsafeRawPointer, pulse: Library, into info: inout AudioDeviceInfo) {
        let proplist = device.load(fromByteOffset: deviceProplistOffset, as: OpaquePointer?.self)
        func property(_ key: String) -> String? {
            guard let proplist, let value = pulse.proplistGets(proplist, key) else { return nil }
            let text = String(cString: value)
            return text.isEmpty ? nil : text.lowercased()
        }
        info.bus = property("device.bus")
        info.formFactor = property("device.form_factor")
        info.deviceClass = property("device.class")
        info.api = property("device.api")
        info.bluetoothProfile = (property("bluetooth.protocol") ?? property("api.bluez5.profile"))
            .map { String($0.map { $0 == "-" ? "_" : $0 }) }
        if let port = device.load(fromByteOffset: deviceActivePortOffset, as: UnsafeRawPointer?.self) {
            info.activePort = string(port, at: 0)?.lowercased()
        }
    }

    static func string(_ base: UnsafeRawPointer, at offset: Int) -> String? {
        base.load(fromByteOffset: offset, as: UnsafePointer<CChar>?.self).map { String(cString: $0) }
    }
}

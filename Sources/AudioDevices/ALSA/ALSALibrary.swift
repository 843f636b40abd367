// The part of alsa-lib's PCM API the ALSA backend calls, declared from the alsa-lib reference
// documentation (https://www.alsa-project.org/alsa-doc/alsa-lib/ : pcm.h, pcm_hw_params,
// pcm_sw_params, control.h for card enumeration, "Device Name Hints") and resolved from
// libasound.so.2 with dlsym. No header is included and nothing links against alsa-lib.
//
// Opaque types (snd_pcm_t, snd_pcm_hw_params_t, snd_pcm_sw_params_t) are OpaquePointer;
// snd_pcm_uframes_t is `unsigned long` (UInt), snd_pcm_sframes_t `long` (Int).
#if canImport(Glibc)
import Glibc
#endif

enum ALSA {
    // enum snd_pcm_stream_t
    static let streamPlayback: Int32 = 0
    static let streamCapture: Int32 = 1
    // enum snd_pcm_access_t: SND_PCM_ACCESS_RW_INTERLEAVED
    static let accessRWInterleaved: Int32 = 3
    // enum snd_pcm_format_t
    static let formatS16LE: Int32 = 2
    static let formatS32LE: Int32 = 10
    static let formatFloatLE: Int32 = 14

    typealias Open = @convention(c) (UnsafeMutablePointer<OpaquePointer?>, UnsafePointer<CChar>, Int32, Int32) -> Int32
    typealias Close = @convention(c) (OpaquePointer) -> Int32
    typealias PCMCall = @convention(c) (OpaquePointer) -> Int32
    typealias ParamsAlloc = @convention(c) (UnsafeMutablePointer<OpaquePointer?>) -> Int32
    typealias ParamsFree = @convention(c) (OpaquePointer) -> Void
    typealias HWParamsAny = @convention(c) (OpaquePointer, OpaquePointer) -> Int32
    typealias HWParamsSetInt = @convention(c) (OpaquePointer, OpaquePointer, Int32) -> Int32
    typealias HWParamsSetUInt = @convention(c) (OpaquePointer, OpaquePointer, UInt32) -> Int32
    typealias HWParamsSetRateNear = @convention(c) (OpaquePointer, OpaquePointer, UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<Int32>?) -> Int32
    typealias HWParamsSetPeriodNear = @convention(c) (OpaquePointer, OpaquePointer, UnsafeMutablePointer<UInt>, UnsafeMutablePointer<Int32>?) -> Int32
    typealias HWParamsSetBufferNear = @convention(c) (OpaquePointer, OpaquePointer, UnsafeMutablePointer<UInt>) -> Int32
    typealias HWParamsGetFrames = @convention(c) (OpaquePointer, UnsafeMutablePointer<UInt>, UnsafeMutablePointer<Int32>?) -> Int32
    typealias HWParamsGetBuffer = @convention(c) (OpaquePointer, UnsafeMutablePointer<UInt>) -> Int32
    typealias HWParamsGetUInt = @convention(c) (OpaquePointer, UnsafeMutablePointer<UInt32>) -> Int32
    typealias HWParamsGetRateBound = @convention(c) (OpaquePointer, UnsafeMutablePointer<UInt32>, UnsafeMutablePointer<Int32>?) -> Int32
    typealias HWParamsTestRate = @convention(c) (OpaquePointer, OpaquePointer, UInt32, Int32) -> Int32
    typealias Install = @convention(c) (OpaquePointer, OpaquePointer) -> Int32
    typealias SWParamsSetFrames = @convention(c) (OpaquePointer, OpaquePointer, UInt) -> Int32
    typealias WriteI = @convention(c) (OpaquePointer, UnsafeRawPointer, UInt) -> Int
    typealias ReadI = @convention(c) (OpaquePointer, UnsafeMutableRawPointer, UInt) -> Int
    typealias Recover = @convention(c) (OpaquePointer, Int32, Int32) -> Int32
    typealias Delay = @convention(c) (OpaquePointer, UnsafeMutablePointer<Int>) -> Int32
    typealias Link = @convention(c) (OpaquePointer, OpaquePointer) -> Int32
    typealias StrError = @convention(c) (Int32) -> UnsafePointer<CChar>?
    typealias CardNext = @convention(c) (UnsafeMutablePointer<Int32>) -> Int32
    typealias NameHint = @convention(c) (Int32, UnsafePointer<CChar>, UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutableRawPointer?>?>) -> Int32
    typealias NameGetHint = @convention(c) (UnsafeRawPointer, UnsafePointer<CChar>) -> UnsafeMutablePointer<CChar>?
    typealias NameFreeHint = @convention(c) (UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> Int32

    /// The functions, resolved once per process.
    struct Library {
        let open: Open
        let close: Close
        let prepare: PCMCall
        let start: PCMCall
        let drop: PCMCall
        let drain: PCMCall
        let hwParamsMalloc: ParamsAlloc
        let hwParamsFree: ParamsFree
        let hwParamsAny: HWParamsAny
        let hwParamsSetAccess: HWParamsSetInt
        let hwParamsSetFormat: HWParamsSetInt
        let hwParamsTestFormat: HWParamsSetInt
        let hwParamsSetChannels: HWParamsSetUInt
        let hwParamsSetRateResample: HWParamsSetUInt
        let hwParamsSetRateNear: HWParamsSetRateNear
        let hwParamsSetPeriodSizeNear: HWParamsSetPeriodNear
        let hwParamsSetBufferSizeNear: HWParamsSetBufferNear
        let hwParamsGetPeriodSize: HWParamsGetFrames
        let hwParamsGetBufferSize: HWParamsGetBuffer
        let hwParamsGetChannelsMax: HWParamsGetUInt
        let hwParamsGetRateMin: HWParamsGetRateBound
        let hwParamsGetRateMax: HWParamsGetRateBound
        let hwParamsTestRate: HWParamsTestRate
        let hwParams: Install
        let swParamsMalloc: ParamsAlloc
        let swParamsFree: ParamsFree
        let swParamsCurrent: Install
        let swParamsSetStartThreshold: SWParamsSetFrames
        let swParamsSetAvailMin: SWParamsSetFrames
        let swParams: Install
        let writei: WriteI
        let readi: ReadI
        let recover: Recover
        let delay: Delay
        let link: Link
        let unlink: PCMCall
        let strerror: StrError
        let cardNext: CardNext
        let nameHint: NameHint
        let nameGetHint: NameGetHint
        let nameFreeHint: NameFreeHint

        init(_ lib: DynamicLibrary) throws {
            open = try lib.function("snd_pcm_open")
            close = try lib.function("snd_pcm_close")
            prepare = try lib.function("snd_pcm_prepare")
            start = try lib.function("snd_pcm_start")
            drop = try lib.function("snd_pcm_drop")
            drain = try lib.function("snd_pcm_drain")
            hwParamsMalloc = try lib.function("snd_pcm_hw_params_malloc")
            hwParamsFree = try lib.function("snd_pcm_hw_params_free")
            hwParamsAny = try lib.function("snd_pcm_hw_params_any")
            hwParamsSetAccess = try lib.function("snd_pcm_hw_params_set_access")
            hwParamsSetFormat = try lib.function("snd_pcm_hw_params_set_format")
            hwParamsTestFormat = try lib.function("snd_pcm_hw_params_test_format")
            hwParamsSetChannels = try lib.function("snd_pcm_hw_params_set_channels")
            hwParamsSetRateResample = try lib.function("snd_pcm_hw_params_set_rate_resample")
            hwParamsSetRateNear = try lib.function("snd_pcm_hw_params_set_rate_near")
            hwParamsSetPeriodSizeNear = try lib.function("snd_pcm_hw_params_set_period_size_near")
            hwParamsSetBufferSizeNear = try lib.function("snd_pcm_hw_params_set_buffer_size_near")
            hwParamsGetPeriodSize = try lib.function("snd_pcm_hw_params_get_period_size")
            hwParamsGetBufferSize = try lib.function("snd_pcm_hw_params_get_buffer_size")
            hwParamsGetChannelsMax = try lib.function("snd_pcm_hw_params_get_channels_max")
            hwParamsGetRateMin = try lib.function("snd_pcm_hw_params_get_rate_min")
            hwParamsGetRateMax = try lib.function("snd_pcm_hw_params_get_rate_max")
            hwParamsTestRate = try lib.function("snd_pcm_hw_params_test_rate")
            hwParams = try lib.function("snd_pcm_hw_params")
            swParamsMalloc = try lib.function("snd_pcm_sw_params_malloc")
            swParamsFree = try lib.function("snd_pcm_sw_params_free")
            swParamsCurrent = try lib.function("snd_pcm_sw_params_current")
            swParamsSetStartThreshold = try lib.function("snd_pcm_sw_params_set_start_threshold")
            swParamsSetAvailMin = try lib.function("snd_pcm_sw_params_set_avail_min")
            swParams = try lib.function("snd_pcm_sw_params")
            writei = try lib.function("snd_pcm_writei")
            readi = try lib.function("snd_pcm_readi")
            recover = try lib.function("snd_pcm_recover")
            delay = try lib.function("snd_pcm_delay")
            link = try lib.function("snd_pcm_link")
            unlink = try lib.function("snd_pcm_unlink")
            strerror = try lib.function("snd_strerror")
            cardNext = try lib.function("snd_card_next")
            nameHint = try lib.function("snd_device_name_hint")
            nameGetHint = try lib.function("snd_device_name_get_hint")
            nameFreeHint = try lib.function("snd_device_name_free_hint")
        }

        func message(_ code: Int32) -> String {
            strerror(code).map { String(cString: $0) } ?? "error \(code)"
        }
    }

    private static let loaded: Result<Library, AudioDeviceError> = {
        do { return .success(try Library(DynamicLibrary(soname: "libasound.so.2", package: "libasound2"))) }
        catch let error as AudioDeviceError { return .failure(error) }
        catch { return .failure(AudioDeviceError(.libraryMissing, "\(error)")) }
    }()

    /// alsa-lib, or an error naming the package to install.
    static func library() throws -> Library { try loaded.get() }
}

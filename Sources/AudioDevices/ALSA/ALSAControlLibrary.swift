// The part of alsa-lib's control API (control.h: "Control Interface", and conf.h for the
// configuration tree) that reading and watching jacks needs, declared from the alsa-lib
// reference documentation (https://www.alsa-project.org/alsa-doc/alsa-lib/group___control.html)
// and resolved from libasound.so.2 with dlsym, as ALSALibrary.swift does for the PCM API.
//
// Opaque types (snd_ctl_t, snd_ctl_elem_list_t, snd_ctl_elem_value_t, snd_ctl_event_t,
// snd_config_t) are OpaquePointer; `struct pollfd` is Glibc's.
#if canImport(Glibc)
import Glibc
#endif

extension ALSA {
    /// SND_CTL_NONBLOCK: open mode.
    static let controlNonBlocking: Int32 = 1
    /// SND_CTL_ELEM_IFACE_CARD: the interface jack controls live on (the kernel's
    /// `snd_jack_add_new_kctl` creates them there).
    static let elementInterfaceCard: Int32 = 0
    /// SND_CTL_ELEM_IFACE_MIXER: the interface of volume and switch controls.
    static let elementInterfaceMixer: Int32 = 2
    /// SND_CTL_ELEM_TYPE_BOOLEAN, SND_CTL_ELEM_TYPE_INTEGER.
    static let elementTypeBoolean: Int32 = 1
    static let elementTypeInteger: Int32 = 2

    typealias ControlOpen = @convention(c) (UnsafeMutablePointer<OpaquePointer?>, UnsafePointer<CChar>, Int32) -> Int32
    typealias ControlCall = @convention(c) (OpaquePointer) -> Int32
    typealias ControlSubscribe = @convention(c) (OpaquePointer, Int32) -> Int32
    typealias ControlPollDescriptors = @convention(c) (OpaquePointer, UnsafeMutablePointer<pollfd>, UInt32) -> Int32
    typealias ControlPollRevents = @convention(c) (OpaquePointer, UnsafeMutablePointer<pollfd>, UInt32, UnsafeMutablePointer<UInt16>) -> Int32
    typealias ControlObjectCall = @convention(c) (OpaquePointer, OpaquePointer) -> Int32
    typealias ObjectMalloc = @convention(c) (UnsafeMutablePointer<OpaquePointer?>) -> Int32
    typealias ObjectFree = @convention(c) (OpaquePointer) -> Void
    typealias ListCount = @convention(c) (OpaquePointer) -> UInt32
    typealias ListAllocSpace = @convention(c) (OpaquePointer, UInt32) -> Int32
    typealias ListIndexUInt = @convention(c) (OpaquePointer, UInt32) -> UInt32
    typealias ListIndexInt = @convention(c) (OpaquePointer, UInt32) -> Int32
    typealias ListIndexName = @convention(c) (OpaquePointer, UInt32) -> UnsafePointer<CChar>?
    typealias ValueSetNumID = @convention(c) (OpaquePointer, UInt32) -> Void
    typealias ValueGetBoolean = @convention(c) (OpaquePointer, UInt32) -> Int32
    typealias ValueGetInteger = @convention(c) (OpaquePointer, UInt32) -> Int
    typealias InfoGetInt = @convention(c) (OpaquePointer) -> Int32
    typealias InfoGetUInt = @convention(c) (OpaquePointer) -> UInt32
    typealias InfoGetLong = @convention(c) (OpaquePointer) -> Int
    typealias ConfigUpdateRef = @convention(c) (UnsafeMutablePointer<OpaquePointer?>) -> Int32
    typealias ConfigUnref = @convention(c) (OpaquePointer) -> Void
    typealias ConfigSearch = @convention(c) (OpaquePointer, UnsafePointer<CChar>, UnsafeMutablePointer<OpaquePointer?>?) -> Int32
    typealias ConfigGetString = @convention(c) (OpaquePointer, UnsafeMutablePointer<UnsafePointer<CChar>?>) -> Int32

    /// The control functions, resolved once per process.
    struct ControlLibrary {
        let open: ControlOpen
        let close: ControlCall
        let subscribeEvents: ControlSubscribe
        let pollDescriptorsCount: ControlCall
        let pollDescriptors: ControlPollDescriptors
        let pollDescriptorsRevents: ControlPollRevents
        let read: ControlObjectCall
        let elemList: ControlObjectCall
        let elemRead: ControlObjectCall
        let listMalloc: ObjectMalloc
        let listFree: ObjectFree
        let listAllocSpace: ListAllocSpace
        let listFreeSpace: ObjectFree
        let listGetCount: ListCount
        let listGetUsed: ListCount
        let listGetNumID: ListIndexUInt
        let listGetInterface: ListIndexInt
        let listGetName: ListIndexName
        let valueMalloc: ObjectMalloc
        let valueFree: ObjectFree
        let valueSetNumID: ValueSetNumID
        let valueGetBoolean: ValueGetBoolean
        let valueGetInteger: ValueGetInteger
        let infoMalloc: ObjectMalloc
        let infoFree: ObjectFree
        let infoSetNumID: ValueSetNumID
        let elemInfo: ControlObjectCall
        let infoGetType: InfoGetInt
        let infoGetCount: InfoGetUInt
        let infoGetMin: InfoGetLong
        let infoGetMax: InfoGetLong
        let eventMalloc: ObjectMalloc
        let eventFree: ObjectFree
        let configUpdateRef: ConfigUpdateRef
        let configUnref: ConfigUnref
        let configSearch: ConfigSearch
        let configGetString: ConfigGetString

        init(_ lib: DynamicLibrary) throws {
            open = try lib.function("snd_ctl_open")
            close = try lib.function("snd_ctl_close")
            subscribeEvents = try lib.function("snd_ctl_subscribe_events")
            pollDescriptorsCount = try lib.function("snd_ctl_poll_descriptors_count")
            pollDescriptors = try lib.function("snd_ctl_poll_descriptors")
            pollDescriptorsRevents = try lib.function("snd_ctl_poll_descriptors_revents")
            read = try lib.function("snd_ctl_read")
            elemList = try lib.function("snd_ctl_elem_list")
            elemRead = try lib.function("snd_ctl_elem_read")
            listMalloc = try lib.function("snd_ctl_elem_list_malloc")
            listFree = try lib.function("snd_ctl_elem_list_free")
            listAllocSpace = try lib.function("snd_ctl_elem_list_alloc_space")
            listFreeSpace = try lib.function("snd_ctl_elem_list_free_space")
            listGetCount = try lib.function("snd_ctl_elem_list_get_count")
            listGetUsed = try lib.function("snd_ctl_elem_list_get_used")
            listGetNumID = try lib.function("snd_ctl_elem_list_get_numid")
            listGetInterface = try lib.function("snd_ctl_elem_list_get_interface")
            listGetName = try lib.function("snd_ctl_elem_list_get_name")
            valueMalloc = try lib.function("snd_ctl_elem_value_malloc")
            valueFree = try lib.function("snd_ctl_elem_value_free")
            valueSetNumID = try lib.function("snd_ctl_elem_value_set_numid")
            valueGetBoolean = try lib.function("snd_ctl_elem_value_get_boolean")
            valueGetInteger = try lib.function("snd_ctl_elem_value_get_integer")
            infoMalloc = try lib.function("snd_ctl_elem_info_malloc")
            infoFree = try lib.function("snd_ctl_elem_info_free")
            infoSetNumID = try lib.function("snd_ctl_elem_info_set_numid")
            elemInfo = try lib.function("snd_ctl_elem_info")
            infoGetType = try lib.function("snd_ctl_elem_info_get_type")
            infoGetCount = try lib.function("snd_ctl_elem_info_get_count")
            infoGetMin = try lib.function("snd_ctl_elem_info_get_min")
            infoGetMax = try lib.function("snd_ctl_elem_info_get_max")
            eventMalloc = try lib.function("snd_ctl_event_malloc")
            eventFree = try lib.function("snd_ctl_event_free")
            configUpdateRef = try lib.function("snd_config_update_ref")
            configUnref = try lib.function("snd_config_unref")
            configSearch = try lib.function("snd_config_search")
            configGetString = try lib.function("snd_config_get_string")
        }

        /// The string the ALSA configuration gives `key` (e.g. `ctl.default.type` → "hw"): nil when
        /// it defines none or not as a string. Read through a reference to the current tree
        /// (alsa-lib may replace the global tree when its files change).
        func configString(_ key: String) -> String? {
            var top: OpaquePointer?
            guard configUpdateRef(&top) >= 0, let top else { return nil }
            defer { configUnref(top) }
            var node: OpaquePointer?
            guard key.withCString({ configSearch(top, $0, &node) }) >= 0, let node else { return nil }
            var value: UnsafePointer<CChar>?
            guard configGetString(node, &value) >= 0, let value else { return nil }
            return String(cString: value)
        }
    }

    private static let controlLoaded: Result<ControlLibrary, AudioDeviceError> = {
        do { return .success(try ControlLibrary(DynamicLibrary(soname: "libasound.so.2", package: "libasound2"))) }
        catch let error as AudioDeviceError { return .failure(error) }
        catch { return .failure(AudioDeviceError(.libraryMissing, "\(error)")) }
    }()

    /// alsa-lib's control API, or an error naming the package to install.
    static func controlLibrary() throws -> ControlLibrary { try controlLoaded.get() }
}

// The part of libdbus (the reference D-Bus client library, `libdbus-1.so.3`, Debian package
// libdbus-1-3) that the RealtimeKit client and its test service call, declared from libdbus's
// public API documentation (https://dbus.freedesktop.org/doc/api/html/) and resolved with dlsym.
// No header is included and nothing links against libdbus.
//
// Layouts this file relies on (dbus-errors.h, dbus-message.h; stable ABI since libdbus 1.0):
// - DBusError { const char *name; const char *message; unsigned int dummy1…dummy5 : 1;
//   void *padding1; } — 32 bytes on LP64; `name` at offset 0, `message` at offset 8.
// - DBusMessageIter: 72 bytes of opaque fields on LP64 (two pointers, ten ints, a pad int, two
//   pointers). Both are allocated here with room to spare (64 and 128 bytes), 16-byte aligned.
// - dbus_bool_t is uint32_t; DBusBusType is an int (DBUS_BUS_SYSTEM = 1); type codes are the
//   ASCII letters of the D-Bus signature ('t' uint64, 'u' uint32, 'i' int32, 'x' int64, 'v').
// - dbus_message_iter_get_basic writes the value into a DBusBasicValue (8 bytes; 16 given).
#if canImport(Glibc)
import Glibc
#endif

package enum DBus {
    package static let typeInvalid: Int32 = 0
    package static let typeUInt64 = Int32(UInt8(ascii: "t"))
    package static let typeUInt32 = Int32(UInt8(ascii: "u"))
    package static let typeInt32 = Int32(UInt8(ascii: "i"))
    package static let typeInt64 = Int32(UInt8(ascii: "x"))
    package static let typeString = Int32(UInt8(ascii: "s"))
    package static let typeVariant = Int32(UInt8(ascii: "v"))
    static let busSystem: Int32 = 1
    /// DBUS_NAME_FLAG_DO_NOT_QUEUE, DBUS_REQUEST_NAME_REPLY_PRIMARY_OWNER.
    package static let nameFlagDoNotQueue: UInt32 = 4
    package static let requestNamePrimaryOwner: Int32 = 1

    package typealias ErrorCall = @convention(c) (UnsafeMutableRawPointer) -> Void
    package typealias ErrorIsSet = @convention(c) (UnsafeRawPointer) -> UInt32
    package typealias BusGetPrivate = @convention(c) (Int32, UnsafeMutableRawPointer?) -> OpaquePointer?
    package typealias ConnectionOpenPrivate = @convention(c) (UnsafePointer<CChar>, UnsafeMutableRawPointer?) -> OpaquePointer?
    package typealias BusRegister = @convention(c) (OpaquePointer, UnsafeMutableRawPointer?) -> UInt32
    package typealias ConnectionCall = @convention(c) (OpaquePointer) -> Void
    package typealias SetExitOnDisconnect = @convention(c) (OpaquePointer, UInt32) -> Void
    package typealias NewMethodCall = @convention(c) (UnsafePointer<CChar>?, UnsafePointer<CChar>, UnsafePointer<CChar>?, UnsafePointer<CChar>) -> OpaquePointer?
    package typealias MessageCall = @convention(c) (OpaquePointer) -> Void
    package typealias IterInitAppend = @convention(c) (OpaquePointer, UnsafeMutableRawPointer) -> Void
    package typealias IterAppendBasic = @convention(c) (UnsafeMutableRawPointer, Int32, UnsafeRawPointer) -> UInt32
    package typealias SendWithReplyAndBlock = @convention(c) (OpaquePointer, OpaquePointer, Int32, UnsafeMutableRawPointer?) -> OpaquePointer?
    package typealias IterInit = @convention(c) (OpaquePointer, UnsafeMutableRawPointer) -> UInt32
    package typealias IterArgType = @convention(c) (UnsafeMutableRawPointer) -> Int32
    package typealias IterRecurse = @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void
    package typealias IterGetBasic = @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> Void
    package typealias IterNext = @convention(c) (UnsafeMutableRawPointer) -> UInt32
    package typealias IterOpenContainer = @convention(c) (UnsafeMutableRawPointer, Int32, UnsafePointer<CChar>?, UnsafeMutableRawPointer) -> UInt32
    package typealias IterCloseContainer = @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer) -> UInt32
    package typealias RequestName = @convention(c) (OpaquePointer, UnsafePointer<CChar>, UInt32, UnsafeMutableRawPointer?) -> Int32
    package typealias ReadWrite = @convention(c) (OpaquePointer, Int32) -> UInt32
    package typealias PopMessage = @convention(c) (OpaquePointer) -> OpaquePointer?
    package typealias IsMethodCall = @convention(c) (OpaquePointer, UnsafePointer<CChar>, UnsafePointer<CChar>) -> UInt32
    package typealias NewMethodReturn = @convention(c) (OpaquePointer) -> OpaquePointer?
    package typealias NewError = @convention(c) (OpaquePointer, UnsafePointer<CChar>, UnsafePointer<CChar>?) -> OpaquePointer?
    package typealias Send = @convention(c) (OpaquePointer, OpaquePointer, UnsafeMutablePointer<UInt32>?) -> UInt32
    package typealias ThreadsInit = @convention(c) () -> UInt32

    package struct Library {
        package let errorInit: ErrorCall
        package let errorFree: ErrorCall
        package let errorIsSet: ErrorIsSet
        let busGetPrivate: BusGetPrivate
        package let connectionOpenPrivate: ConnectionOpenPrivate
        package let busRegister: BusRegister
        package let connectionClose: ConnectionCall
        package let connectionUnref: ConnectionCall
        package let connectionFlush: ConnectionCall
        package let setExitOnDisconnect: SetExitOnDisconnect
        package let newMethodCall: NewMethodCall
        package let messageUnref: MessageCall
        package let iterInitAppend: IterInitAppend
        package let iterAppendBasic: IterAppendBasic
        package let sendWithReplyAndBlock: SendWithReplyAndBlock
        package let iterInit: IterInit
        package let iterArgType: IterArgType
        package let iterRecurse: IterRecurse
        package let iterGetBasic: IterGetBasic
        package let iterNext: IterNext
        package let iterOpenContainer: IterOpenContainer
        package let iterCloseContainer: IterCloseContainer
        package let requestName: RequestName
        package let readWrite: ReadWrite
        package let popMessage: PopMessage
        package let isMethodCall: IsMethodCall
        package let newMethodReturn: NewMethodReturn
        package let newError: NewError
        package let send: Send

        init(_ lib: DynamicLibrary) throws {
            errorInit = try lib.function("dbus_error_init")
            errorFree = try lib.function("dbus_error_free")
            errorIsSet = try lib.function("dbus_error_is_set")
            busGetPrivate = try lib.function("dbus_bus_get_private")
            connectionOpenPrivate = try lib.function("dbus_connection_open_private")
            busRegister = try lib.function("dbus_bus_register")
            connectionClose = try lib.function("dbus_connection_close")
            connectionUnref = try lib.function("dbus_connection_unref")
            connectionFlush = try lib.function("dbus_connection_flush")
            setExitOnDisconnect = try lib.function("dbus_connection_set_exit_on_disconnect")
            newMethodCall = try lib.function("dbus_message_new_method_call")
            messageUnref = try lib.function("dbus_message_unref")
            iterInitAppend = try lib.function("dbus_message_iter_init_append")
            iterAppendBasic = try lib.function("dbus_message_iter_append_basic")
            sendWithReplyAndBlock = try lib.function("dbus_connection_send_with_reply_and_block")
            iterInit = try lib.function("dbus_message_iter_init")
            iterArgType = try lib.function("dbus_message_iter_get_arg_type")
            iterRecurse = try lib.function("dbus_message_iter_recurse")
            iterGetBasic = try lib.function("dbus_message_iter_get_basic")
            iterNext = try lib.function("dbus_message_iter_next")
            iterOpenContainer = try lib.function("dbus_message_iter_open_container")
            iterCloseContainer = try lib.function("dbus_message_iter_close_container")
            requestName = try lib.function("dbus_bus_request_name")
            readWrite = try lib.function("dbus_connection_read_write")
            popMessage = try lib.function("dbus_connection_pop_message")
            isMethodCall = try lib.function("dbus_message_is_method_call")
            newMethodReturn = try lib.function("dbus_message_new_method_return")
            newError = try lib.function("dbus_message_new_error")
            send = try lib.function("dbus_connection_send")
            // Connections are used from more than one thread over their life (opened on one,
            // used on the requester's); libdbus asks for this once per process, before use.
            let threadsInit: ThreadsInit = try lib.function("dbus_threads_init_default")
            _ = threadsInit()
        }

        /// A private connection to `address` (nil: the system bus, from
        /// `DBUS_SYSTEM_BUS_ADDRESS` or libdbus's default socket), registered with the bus.
        /// A lost bus never exits the process (libdbus's default for bus connections).
        package func connect(address: String?) throws -> OpaquePointer {
            let error = ErrorBox(self)
            defer { error.free() }
            let connection: OpaquePointer?
            if let address {
                connection = address.withCString { connectionOpenPrivate($0, error.raw) }
                if let connection { setExitOnDisconnect(connection, 0) }
                if let connection, busRegister(connection, error.raw) == 0 {
                    connectionClose(connection)
                    connectionUnref(connection)
                    throw AudioDeviceError(.failed, "D-Bus: registering with the bus at \(address) failed: \(error.message)")
                }
            } else {
                connection = busGetPrivate(DBus.busSystem, error.raw)
                if let connection { setExitOnDisconnect(connection, 0) }
            }
            guard let connection else {
                throw AudioDeviceError(.notFound, "D-Bus: cannot reach the \(address == nil ? "system bus" : "bus at \(address!)"): \(error.message)")
            }
            return connection
        }

        package func disconnect(_ connection: OpaquePointer) {
            connectionClose(connection)
            connectionUnref(connection)
        }
    }

    /// A DBusError, allocated (libdbus fills it; `free()` releases its strings and the memory).
    package final class ErrorBox {
        package let raw: UnsafeMutableRawPointer
        let lib: Library
        package init(_ lib: Library) {
            self.lib = lib
            raw = .allocate(byteCount: 64, alignment: 16)
            raw.initializeMemory(as: UInt8.self, repeating: 0, count: 64)
            lib.errorInit(raw)
        }
        package var isSet: Bool { lib.errorIsSet(raw) != 0 }
        /// "NAME: message", or "unknown error".
        package var message: String {
            guard isSet else { return "unknown error" }
            let name = raw.load(as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? "?"
            let text = raw.load(fromByteOffset: 8, as: UnsafePointer<CChar>?.self).map { String(cString: $0) } ?? ""
            return "\(name): \(text)"
        }
        package var name: String? {
            guard isSet else { return nil }
            return raw.load(as: UnsafePointer<CChar>?.self).map { String(cString: $0) }
        }
        package func free() {
            if isSet { lib.errorFree(raw) }
            raw.deallocate()
        }
    }

    /// A DBusMessageIter's storage.
    package final class Iterator {
        package let raw: UnsafeMutableRawPointer
        package init() {
            raw = .allocate(byteCount: 128, alignment: 16)
            raw.initializeMemory(as: UInt8.self, repeating: 0, count: 128)
        }
        deinit { raw.deallocate() }
    }

    private static let loaded: Result<Library, AudioDeviceError> = {
        do { return .success(try Library(DynamicLibrary(soname: "libdbus-1.so.3", package: "libdbus-1-3"))) }
        catch let error as AudioDeviceError { return .failure(error) }
        catch { return .failure(AudioDeviceError(.libraryMissing, "\(error)")) }
    }()

    /// libdbus, or an error naming the package to install.
    package static func library() throws -> Library { try loaded.get() }
}

// Loading a system library at run time: the build needs neither its headers nor the library;
// a machine without it gets an error naming the Debian package to install.
#if canImport(Glibc)
import Glibc
#endif

/// A library opened with dlopen and kept open for the life of the process (backends' function
/// pointers stay valid; the libraries are not designed to be unloaded).
struct DynamicLibrary {
    let handle: UnsafeMutableRawPointer
    let soname: String
    let package: String

    /// Opens `soname`, or throws `.libraryMissing` naming `package`.
    init(soname: String, package: String) throws {
        guard let handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            throw AudioDeviceError(.libraryMissing,
                                   "\(soname) could not be loaded (\(reason)); install the Debian package \(package) (apt-get install \(package))")
        }
        self.handle = handle
        self.soname = soname
        self.package = package
    }

    /// The function `name` as a `@convention(c)` function type `T`; throws when the library lacks it.
    func function<T>(_ name: String, as type: T.Type = T.self) throws -> T {
        guard let symbol = dlsym(handle, name) else {
            throw AudioDeviceError(.libraryMissing, "\(soname) has no function \(name) (too old a version?); update the Debian package \(package)")
        }
        return unsafeBitCast(symbol, to: T.self)
    }
}

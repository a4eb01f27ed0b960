import Locking

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A system library loaded at run time (libpam, libsystemd's sd-bus, libcurl), as systemd loads
/// its optional libraries: the package builds and runs without their development files, and a
/// program that never uses one never loads it. One way for all of them: opened once per process
/// and path, with `RTLD_NOW | RTLD_LOCAL` (every symbol resolved at once, none leaking into
/// later lookups), never closed (a function pointer taken from it stays valid).
package struct DynamicLibrary: @unchecked Sendable {
    // The handle is only read by dlsym, which is thread-safe.
    private let handle: UnsafeMutableRawPointer
    /// The soname or path it was opened by.
    package let path: String

    private static let opened = Lock<[String: Result<DynamicLibrary, LoadError>]>([:])

    /// Why a library did not load: dlerror's words.
    package struct LoadError: Error, Sendable, CustomStringConvertible {
        package let description: String
    }

    /// The library at `path` (a soname such as `libpam.so.0`, or a path), opened once per process.
    package static func open(_ path: String) -> Result<DynamicLibrary, LoadError> {
        opened.withLock { cache in
            if let known = cache[path] { return known }
            let result: Result<DynamicLibrary, LoadError>
            if let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) {
                result = .success(DynamicLibrary(handle: handle, path: path))
            } else {
                let reason = dlerror().map { String(cString: $0) } ?? "unknown error"
                result = .failure(LoadError(description: "cannot load \(path): \(reason)"))
            }
            cache[path] = result
            return result
        }
    }

    /// The function `name` as the C function pointer type `type`; nil when the library has none.
    package func symbol<Function>(_ name: String, as type: Function.Type) -> Function? {
        guard let address = dlsym(handle, name) else { return nil }
        return unsafeBitCast(address, to: type)
    }
}

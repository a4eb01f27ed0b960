import Glibc

/// This process's environment variables and working directory, read from the C library: capctl
/// keeps Foundation out of its start (Docs/Performance.md, "Starting capctl").
enum ProcessEnvironment {
    /// Every `NAME=VALUE` of `environ` at the first use; the first of two equal names wins, as
    /// `getenv` answers. capctl never changes its own environment.
    static let variables: [String: String] = {
        var result: [String: String] = [:]
        var entry = environ
        while let pointer = entry.pointee {
            // Split at the byte: finding "=" among characters was 7 % of a `capctl check`.
            if let equals = strchr(pointer, Int32(UInt8(ascii: "="))) {
                let name = String(
                    decoding: UnsafeRawBufferPointer(start: pointer, count: equals - pointer), as: UTF8.self)
                if result[name] == nil { result[name] = String(cString: equals + 1) }
            }
            entry += 1
        }
        return result
    }()

    /// The working directory, or nil when it cannot be named (removed, or too long).
    static var currentDirectory: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

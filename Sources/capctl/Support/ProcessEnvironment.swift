import CapabilityPolicy
import Glibc

/// This process's environment variables and working directory, read from the C library: capctl
/// keeps Foundation out of its start (Docs/Performance.md, "Starting capctl").
enum ProcessEnvironment {
    /// The value of `name`, as `getenv` answers it (the first of two equal names). capctl never
    /// changes its own environment. Asked by name: a table of every variable was 3 % of a
    /// `capctl check` that reads four of them.
    static subscript(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }

    /// The policy search path this environment names.
    static var searchPath: PolicySearchPath {
        PolicySearchPath { self[$0] }
    }

    /// The working directory, or nil when it cannot be named (removed, or too long).
    static var currentDirectory: String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

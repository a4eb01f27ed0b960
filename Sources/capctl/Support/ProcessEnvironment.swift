import Glibc

/// This process's environment variables and working directory, read from the C library: capctl
/// keeps Foundation out of its start (Docs/Performance.md, "Starting capctl").
enum ProcessEnvironment {
    /// Every `NAME=VALUE` of `environ` at the first use; the first of two equal names wins, as
    /// `getenv` answers. capctl never changes its own environment.
    static let variables: [String: String] = {
        var entries: [UnsafeMutablePointer<CChar>] = []
        var entry = environ
        while let pointer = entry.pointee {
            entries.append(pointer)
            entry += 1
        }
        // Sized once, and filled from the last entry back, so that the first of two equal names
        // is the one kept with one hashing per entry: growing the table and looking each name up
        // before storing it were two thirds of this table's cost.
        var result = [String: String](minimumCapacity: entries.count)
        for pointer in entries.reversed() {
            // Split at the byte: finding "=" among characters was 7 % of a `capctl check`.
            guard let equals = strchr(pointer, Int32(UInt8(ascii: "="))) else { continue }
            let name = String(decoding: UnsafeRawBufferPointer(start: pointer, count: equals - pointer), as: UTF8.self)
            result[name] = String(cString: equals + 1)
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

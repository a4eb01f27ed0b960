import Foundation

/// A directory under the system's temporary directory, removed when the value is released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "flags-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `text` to `name` in place (open, truncate, write, close).
    @discardableResult
    func write(_ text: String, to name: String) throws -> String {
        let file = path + "/" + name
        try text.write(toFile: file, atomically: false, encoding: .utf8)
        return file
    }

    /// Writes `text` to a temporary name and renames it over `name`, as editors and config tools do.
    @discardableResult
    func replace(_ name: String, with text: String) throws -> String {
        let staging = path + "/." + name + ".tmp"
        try text.write(toFile: staging, atomically: false, encoding: .utf8)
        let file = path + "/" + name
        guard rename(staging, file) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return file
    }
}

/// A one-flag file: `key` is on or off.
func toggleFile(_ key: String, on: Bool) -> String {
    """
    {"flags": {"\(key)": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "\(on ? "on" : "off")"}}}
    """
}

import LinuxCapabilities

/// Reads flag and policy files as text, with errors that name the file.
package enum DefinitionFile {
    /// The text of `path`, which must be UTF-8.
    package static func text(_ path: String) throws(FlagDefinitionError) -> String {
        let bytes: [UInt8]
        do throws(FileContents.ReadError) {
            bytes = try FileContents.bytes(of: path)
        } catch {
            throw FlagDefinitionError("cannot read the file: \(error.reason)", file: path)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw FlagDefinitionError("the file is not valid UTF-8", file: path)
        }
        return text
    }
}

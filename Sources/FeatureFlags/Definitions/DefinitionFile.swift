import LinuxCapabilities

/// Reads flag and policy files as text, with errors that name the file.
package enum DefinitionFile {
    /// The text of `path`, which must pass ``TrustedFile``'s checks and be UTF-8.
    package static func text(_ path: String) throws(FlagDefinitionError) -> String {
        let bytes: [UInt8]
        do throws(TrustedFile.Refusal) {
            bytes = try TrustedFile.bytes(of: path)
        } catch {
            throw FlagDefinitionError(error.reason, file: path)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw FlagDefinitionError("the file is not valid UTF-8", file: path)
        }
        return text
    }
}

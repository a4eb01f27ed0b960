/// Reads configuration files (policies, drop-ins, flag files) as text, through the trusted
/// reader, with errors that name the file.
package enum ConfigurationFile {
    /// The text of `path`, which must pass ``TrustedFile``'s checks and be UTF-8.
    package static func text(_ path: String) throws(ConfigurationError) -> String {
        let bytes: [UInt8]
        do throws(TrustedFile.Refusal) {
            bytes = try TrustedFile.bytes(of: path)
        } catch {
            throw ConfigurationError(error.reason, file: path)
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigurationError("the file is not valid UTF-8", file: path)
        }
        return text
    }
}

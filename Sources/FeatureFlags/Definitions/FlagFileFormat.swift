import ConfigurationFiles

/// The two encodings of flagd's flag definition format.
public enum FlagFileFormat: String, Sendable, CaseIterable {
    /// flagd's JSON files (`.json`).
    case json
    /// The same definitions written in YAML (`.yaml`, `.yml`).
    case yaml

    /// The format a path's extension names (`.json`, `.yaml`, `.yml`), or nil.
    public init?(path: String) {
        let lowered = path.asciiLowercased
        if lowered.hasSuffix(".json") {
            self = .json
        } else if lowered.hasSuffix(".yaml") || lowered.hasSuffix(".yml") {
            self = .yaml
        } else {
            return nil
        }
    }

    /// JSON when the text starts with `{`, YAML otherwise.
    package init(sniffing text: String) {
        let first = text.unicodeScalars.first { !$0.properties.isWhitespace && $0 != "\u{FEFF}" }
        self = first == "{" ? .json : .yaml
    }
}

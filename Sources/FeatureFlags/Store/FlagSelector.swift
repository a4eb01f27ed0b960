public import ConfigurationFiles

/// Which flags a ``FlagStore`` evaluates, in flagd's selector syntax: one flag service or file may
/// hold several flag sets, and a store with a selector sees only the one it names.
///
/// ```swift
/// let payments = FlagStore(sources: [.file("/etc/flags.json")], selector: try FlagSelector("flagSetId=payments"))
/// ```
///
/// - `flagSetId=ID`: the flags whose `metadata.flagSetId` (their own or their file's) is `ID`;
///   `flagSetId=` alone, the flags of no flag set.
/// - `source=LOCATION`, or `LOCATION` alone (flagd's older form): the flags of the source with that
///   path or URL, written as the store was given it.
///
/// A flag outside the selection is not found (`FLAG_NOT_FOUND`), as in flagd.
public struct FlagSelector: Sendable, Hashable, CustomStringConvertible {
    /// What a selector picks by.
    public enum Criterion: Sendable, Hashable {
        /// The flags of a flag set; nil for those of none.
        case flagSet(String?)
        /// The flags of one source, by the path or URL it was given as.
        case source(String)
    }

    /// What this selector picks by.
    public let criterion: Criterion

    /// A selector picking by `criterion`.
    public init(_ criterion: Criterion) {
        self.criterion = criterion
    }

    /// Reads a selector in flagd's syntax (`flagSetId=ID`, `source=LOCATION` or `LOCATION`).
    /// - Throws: For an empty selector, or a key flagd does not define (flagd refuses those too,
    ///   rather than selecting everything).
    public init(_ text: String) throws(ConfigurationError) {
        guard !text.isEmpty else { throw ConfigurationError("a flag selector is empty", file: "<selector>") }
        guard let equals = text.firstIndex(of: "=") else {
            criterion = .source(text)
            return
        }
        let key = text[..<equals]
        let value = String(text[text.index(after: equals)...])
        switch key {
        case "flagSetId": criterion = .flagSet(value.isEmpty ? nil : value)
        case "source":
            guard !value.isEmpty else {
                throw ConfigurationError("the flag selector \"\(text)\" names no source", file: "<selector>")
            }
            criterion = .source(value)
        default:
            throw ConfigurationError(
                "unknown flag selector key \"\(key)\" in \"\(text)\" (expected flagSetId= or source=)",
                file: "<selector>")
        }
    }

    /// The selector in flagd's syntax.
    public var description: String {
        switch criterion {
        case .flagSet(let id): "flagSetId=\(id ?? "")"
        case .source(let location): "source=\(location)"
        }
    }

    /// Whether flags of the source at `location` can be selected at all.
    func admits(source location: String?) -> Bool {
        guard case .source(let wanted) = criterion else { return true }
        return location == wanted
    }

    /// Whether `flag` (from an admitted source) is selected.
    func admits(_ flag: FlagDefinition) -> Bool {
        guard case .flagSet(let id) = criterion else { return true }
        return flag.flagSetID == id
    }
}

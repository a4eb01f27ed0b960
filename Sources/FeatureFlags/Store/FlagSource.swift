/// One place flags come from, for a ``FlagStore`` that layers several: a later source's
/// definition of a flag replaces an earlier one's, whatever form either takes.
public enum FlagSource: Sendable {
    /// Flags already read (written inline in a policy file, say).
    case flags(FlagSet)
    /// A flag definition file (`.json`, `.yaml` or `.yml`), read now and kept current.
    case file(String)
    /// Flags kept current by another source (a flag service), such as `RemoteFlags`' `HTTPFlagSource`.
    case remote(any RemoteFlagSource)
    /// A document polled over HTTP, as declared. A store cannot follow it by itself (this module
    /// has no HTTP client): until it is given as ``remote(_:)``, its flags are an error.
    case http(HTTPFlagSourceSettings)

    /// The file's path, for a file.
    public var path: String? {
        if case .file(let path) = self { return path }
        return nil
    }

    /// The URL, for a remote source or an HTTP declaration.
    public var url: String? {
        switch self {
        case .remote(let source): source.location
        case .http(let settings): settings.url
        case .flags, .file: nil
        }
    }
}

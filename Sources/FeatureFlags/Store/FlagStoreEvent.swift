public import ConfigurationFiles

/// Something that happened to a ``FlagStore``'s files and remote sources.
public enum FlagStoreEvent: Sendable, CustomStringConvertible {
    /// A file (or a remote source, by its URL) was read and its flags are in effect.
    case loaded(file: String, flagKeys: [String])
    /// A file or a remote source could not be read or parsed; the flags it last loaded stay in effect.
    case failed(ConfigurationError)
    /// A remote source said its flags are unchanged: they are fresh again.
    case confirmed(source: String)
    /// A remote source went past its staleness limit: its flags now answer with an error.
    case expired(source: String, reason: String)

    /// The file or URL concerned.
    public var file: String {
        switch self {
        case .loaded(let file, _): file
        case .failed(let error): error.file
        case .confirmed(let source), .expired(let source, _): source
        }
    }

    public var description: String {
        switch self {
        case .loaded(let file, let keys): "loaded \(file): \(keys.count) flag(s)"
        case .failed(let error): "kept the last good flags: \(error)"
        case .confirmed(let source): "\(source): unchanged"
        case .expired(_, let reason): "no longer used: \(reason)"
        }
    }
}

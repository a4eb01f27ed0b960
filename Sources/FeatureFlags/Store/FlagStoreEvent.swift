public import ConfigurationFiles

/// Something that happened to a ``FlagStore``'s files.
public enum FlagStoreEvent: Sendable, CustomStringConvertible {
    /// A file was read and its flags are in effect.
    case loaded(file: String, flagKeys: [String])
    /// A file could not be read or parsed; the flags it last loaded stay in effect.
    case failed(ConfigurationError)

    /// The file concerned.
    public var file: String {
        switch self {
        case .loaded(let file, _): file
        case .failed(let error): error.file
        }
    }

    public var description: String {
        switch self {
        case .loaded(let file, let keys): "loaded \(file): \(keys.count) flag(s)"
        case .failed(let error): "kept the last good flags: \(error)"
        }
    }
}

/// Where a provider stands, as OpenFeature names the states.
public enum ProviderStatus: String, Sendable, Hashable, CustomStringConvertible {
    /// Not initialized yet: evaluations return `PROVIDER_NOT_READY`.
    case notReady = "NOT_READY"
    /// Initialized and serving.
    case ready = "READY"
    /// Failed, possibly for a while; evaluations still go to the provider.
    case error = "ERROR"
    /// Serving values that may be out of date.
    case stale = "STALE"
    /// Failed for good: evaluations return `PROVIDER_FATAL`.
    case fatal = "FATAL"

    public var description: String { rawValue }
}

/// Something that happened to a provider.
public struct ProviderEvent: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of event OpenFeature defines.
    public enum Kind: String, Sendable, Hashable {
        /// The provider is ready to evaluate.
        case ready = "PROVIDER_READY"
        /// The provider failed.
        case error = "PROVIDER_ERROR"
        /// The flags changed.
        case configurationChanged = "PROVIDER_CONFIGURATION_CHANGED"
        /// The provider's values may be out of date.
        case stale = "PROVIDER_STALE"
    }

    /// What happened.
    public var kind: Kind
    /// The provider's name, filled in by the API when it forwards the event.
    public var providerName: String
    /// The flags that changed, for ``Kind/configurationChanged``.
    public var flagsChanged: [String]
    /// Words for people, when there are any.
    public var message: String?
    /// For ``Kind/error``: whether the provider can never recover.
    public var isFatal: Bool

    /// Creates an event.
    public init(
        _ kind: Kind, providerName: String = "", flagsChanged: [String] = [], message: String? = nil,
        isFatal: Bool = false
    ) {
        self.kind = kind
        self.providerName = providerName
        self.flagsChanged = flagsChanged
        self.message = message
        self.isFatal = isFatal
    }

    public var description: String {
        var text = "\(kind.rawValue) \(providerName)"
        if !flagsChanged.isEmpty { text += " [" + flagsChanged.joined(separator: ", ") + "]" }
        if let message { text += ": \(message)" }
        return text
    }
}

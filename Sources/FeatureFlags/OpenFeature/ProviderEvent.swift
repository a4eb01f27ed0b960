/// Where a provider stands, as OpenFeature names the states. An open vocabulary, like the
/// reasons and error codes: a later specification's state is a new static member, so switching
/// over statuses needs a `default`.
///
/// ```swift
/// let client = api.client()
/// if client.providerStatus != .ready { print("flags not loaded yet: defaults apply") }
/// ```
public struct ProviderStatus: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The state as OpenFeature spells it.
    public let rawValue: String

    /// A status, well-known or not.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Not initialized yet: evaluations return `PROVIDER_NOT_READY`.
    public static let notReady = ProviderStatus(rawValue: "NOT_READY")
    /// Initialized and serving.
    public static let ready = ProviderStatus(rawValue: "READY")
    /// Failed, possibly for a while; evaluations still go to the provider.
    public static let error = ProviderStatus(rawValue: "ERROR")
    /// Serving values that may be out of date.
    public static let stale = ProviderStatus(rawValue: "STALE")
    /// Failed for good: evaluations return `PROVIDER_FATAL`.
    public static let fatal = ProviderStatus(rawValue: "FATAL")

    public var description: String { rawValue }
}

/// Something that happened to a provider.
///
/// ```swift
/// for await event in api.client().events() where event.kind == .configurationChanged {
///     print("changed:", event.flagsChanged)
/// }
/// ```
public struct ProviderEvent: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of event, as OpenFeature names them; an open vocabulary (switches need a `default`).
    ///
    /// ```swift
    /// for await event in api.client().events() {
    ///     if event.kind == .error { print(event.message ?? "provider error") }
    /// }
    /// ```
    public struct Kind: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The kind as OpenFeature spells it.
        public let rawValue: String

        /// A kind, well-known or not.
        public init(rawValue: String) {
            self.rawValue = rawValue
        }

        /// The provider is ready to evaluate.
        public static let ready = Kind(rawValue: "PROVIDER_READY")
        /// The provider failed.
        public static let error = Kind(rawValue: "PROVIDER_ERROR")
        /// The flags changed.
        public static let configurationChanged = Kind(rawValue: "PROVIDER_CONFIGURATION_CHANGED")
        /// The provider's values may be out of date.
        public static let stale = Kind(rawValue: "PROVIDER_STALE")

        public var description: String { rawValue }
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
    /// For ``Kind/error``: the error code evaluations get while it lasts (5.1.5).
    public var errorCode: FlagErrorCode?

    /// Creates an event.
    /// - Parameters:
    ///   - kind: What happened.
    ///   - providerName: The provider's name; the API fills it in when it forwards the event.
    ///   - flagsChanged: The flags that changed, for a configuration change.
    ///   - message: Words for people.
    ///   - isFatal: For an error: whether the provider can never recover.
    ///   - errorCode: For an error: its code (``FlagErrorCode/providerFatal`` when fatal and none is given).
    public init(
        _ kind: Kind, providerName: String = "", flagsChanged: [String] = [], message: String? = nil,
        isFatal: Bool = false, errorCode: FlagErrorCode? = nil
    ) {
        self.kind = kind
        self.providerName = providerName
        self.flagsChanged = flagsChanged
        self.message = message
        self.isFatal = isFatal
        self.errorCode = errorCode ?? (isFatal ? .providerFatal : nil)
    }

    public var description: String {
        var text = "\(kind.rawValue) \(providerName)"
        if !flagsChanged.isEmpty { text += " [" + flagsChanged.joined(separator: ", ") + "]" }
        if let errorCode { text += " (\(errorCode.rawValue))" }
        if let message { text += ": \(message)" }
        return text
    }
}

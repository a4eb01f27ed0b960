/// Why an evaluation produced its value, in OpenFeature's vocabulary; printed as OpenFeature
/// spells it (`TARGETING_MATCH`). Providers may report reasons of their own
/// (`FlagEvaluationReason(rawValue: "CACHED_BY_EDGE")`), so this is a set of well-known values,
/// not a closed enumeration: a `switch` over it needs a `default`.
///
/// ```swift
/// let details = api.client().booleanDetails("new-export", default: false)
/// if details.reason == .targetingMatch { print("a targeting rule chose \(details.value)") }
/// ```
public struct FlagEvaluationReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The reason as OpenFeature spells it.
    public let rawValue: String

    /// A reason, well-known or a provider's own.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The flag has no targeting: its default variant, always.
    public static let `static` = FlagEvaluationReason(rawValue: "STATIC")
    /// Targeting did not pick a variant, so the default variant (or the code default) was used.
    public static let `default` = FlagEvaluationReason(rawValue: "DEFAULT")
    /// Targeting picked the variant.
    public static let targetingMatch = FlagEvaluationReason(rawValue: "TARGETING_MATCH")
    /// A pseudorandom split picked the variant. (flagd reports `fractional` as
    /// ``targetingMatch``, and so does this library, for the same answers as flagd.)
    public static let split = FlagEvaluationReason(rawValue: "SPLIT")
    /// The value came from a cache.
    public static let cached = FlagEvaluationReason(rawValue: "CACHED")
    /// The flag is disabled: the caller's default, without an error.
    public static let disabled = FlagEvaluationReason(rawValue: "DISABLED")
    /// The reason is not known.
    public static let unknown = FlagEvaluationReason(rawValue: "UNKNOWN")
    /// The value may be out of date.
    public static let stale = FlagEvaluationReason(rawValue: "STALE")
    /// Evaluation failed: the caller's default, with an error code.
    public static let error = FlagEvaluationReason(rawValue: "ERROR")

    public var description: String { rawValue }
}

/// What went wrong in an evaluation, in OpenFeature's vocabulary; printed as OpenFeature spells
/// it (`PARSE_ERROR`). A set of well-known values that may grow, so a `switch` needs a `default`.
///
/// ```swift
/// let details = api.client().booleanDetails("new-export", default: false)
/// if details.errorCode == .flagNotFound { print("no such flag: the default was used") }
/// ```
public struct FlagErrorCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The code as OpenFeature spells it.
    public let rawValue: String

    /// A code, well-known or a provider's own.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The flags were not loaded yet.
    public static let providerNotReady = FlagErrorCode(rawValue: "PROVIDER_NOT_READY")
    /// No flag has this key.
    public static let flagNotFound = FlagErrorCode(rawValue: "FLAG_NOT_FOUND")
    /// The flag's definition cannot be evaluated (an unknown operator, a `$ref` to nothing, no variants).
    public static let parseError = FlagErrorCode(rawValue: "PARSE_ERROR")
    /// The flag's values are not of the requested type.
    public static let typeMismatch = FlagErrorCode(rawValue: "TYPE_MISMATCH")
    /// A rule needs a targeting key and the context has none.
    public static let targetingKeyMissing = FlagErrorCode(rawValue: "TARGETING_KEY_MISSING")
    /// The context holds something rules cannot use.
    public static let invalidContext = FlagErrorCode(rawValue: "INVALID_CONTEXT")
    /// The source of flags failed for good.
    public static let providerFatal = FlagErrorCode(rawValue: "PROVIDER_FATAL")
    /// Anything else, such as targeting that names no variant, or a hook that failed.
    public static let general = FlagErrorCode(rawValue: "GENERAL")

    public var description: String { rawValue }
}

/// The full answer of one evaluation, as OpenFeature defines it. Evaluation never throws:
/// on any problem the value is the caller's default, the reason ``FlagEvaluationReason/error``
/// and the error code says why.
///
/// ```swift
/// let details = api.client().booleanDetails("new-export", default: false)
/// print(details.value, details.variant ?? "-", details.reason)
/// ```
public struct FlagEvaluationDetails<Value: Sendable>: Sendable {
    /// The flag evaluated.
    public var flagKey: String
    /// The value: the variant's, or the caller's default.
    public var value: Value
    /// The variant's name; nil when the value is the caller's default.
    public var variant: String?
    /// Why this value.
    public var reason: FlagEvaluationReason
    /// What went wrong, when the reason is ``FlagEvaluationReason/error``.
    public var errorCode: FlagErrorCode?
    /// The problem in words, when there was one.
    public var errorMessage: String?
    /// The flag set's metadata overlaid with the flag's own.
    public var flagMetadata: [String: FlagValue]

    /// Creates details.
    public init(
        flagKey: String, value: Value, variant: String? = nil, reason: FlagEvaluationReason,
        errorCode: FlagErrorCode? = nil, errorMessage: String? = nil, flagMetadata: [String: FlagValue] = [:]
    ) {
        self.flagKey = flagKey
        self.value = value
        self.variant = variant
        self.reason = reason
        self.errorCode = errorCode
        self.errorMessage = errorMessage
        self.flagMetadata = flagMetadata
    }
}

extension FlagEvaluationDetails {
    /// The same details with the value transformed (to erase its type, for example).
    public func map<Other: Sendable>(_ transform: (Value) -> Other) -> FlagEvaluationDetails<Other> {
        FlagEvaluationDetails<Other>(
            flagKey: flagKey, value: transform(value), variant: variant, reason: reason, errorCode: errorCode,
            errorMessage: errorMessage, flagMetadata: flagMetadata)
    }
}

extension FlagEvaluationDetails: Equatable where Value: Equatable {}

extension FlagEvaluationDetails: CustomStringConvertible {
    public var description: String {
        var text = "\(flagKey) = \(value) (\(reason.rawValue)"
        if let variant { text += ", variant \(variant)" }
        if let errorCode { text += ", \(errorCode.rawValue)" }
        text += ")"
        if let errorMessage { text += ": \(errorMessage)" }
        return text
    }
}

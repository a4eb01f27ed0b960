/// Why an evaluation produced its value, in OpenFeature's vocabulary; printed as OpenFeature
/// spells it (`TARGETING_MATCH`).
public enum FlagEvaluationReason: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The flag has no targeting: its default variant, always.
    case `static` = "STATIC"
    /// Targeting did not pick a variant, so the default variant (or the code default) was used.
    case `default` = "DEFAULT"
    /// Targeting picked the variant.
    case targetingMatch = "TARGETING_MATCH"
    /// A pseudorandom split picked the variant. (flagd reports `fractional` as
    /// ``targetingMatch``, and so does this library, for the same answers as flagd.)
    case split = "SPLIT"
    /// The value came from a cache.
    case cached = "CACHED"
    /// The flag is disabled: the caller's default, without an error.
    case disabled = "DISABLED"
    /// The reason is not known.
    case unknown = "UNKNOWN"
    /// The value may be out of date.
    case stale = "STALE"
    /// Evaluation failed: the caller's default, with an error code.
    case error = "ERROR"

    public var description: String { rawValue }
}

/// What went wrong in an evaluation, in OpenFeature's vocabulary; printed as OpenFeature spells
/// it (`PARSE_ERROR`).
public enum FlagErrorCode: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The flags were not loaded yet.
    case providerNotReady = "PROVIDER_NOT_READY"
    /// No flag has this key.
    case flagNotFound = "FLAG_NOT_FOUND"
    /// The flag's definition cannot be evaluated (an unknown operator, a `$ref` to nothing, no variants).
    case parseError = "PARSE_ERROR"
    /// The flag's values are not of the requested type.
    case typeMismatch = "TYPE_MISMATCH"
    /// A rule needs a targeting key and the context has none.
    case targetingKeyMissing = "TARGETING_KEY_MISSING"
    /// The context holds something rules cannot use.
    case invalidContext = "INVALID_CONTEXT"
    /// The source of flags failed for good.
    case providerFatal = "PROVIDER_FATAL"
    /// Anything else, such as targeting that names no variant, or a hook that failed.
    case general = "GENERAL"

    public var description: String { rawValue }
}

/// The full answer of one evaluation, as OpenFeature defines it. Evaluation never throws:
/// on any problem the value is the caller's default, the reason ``FlagEvaluationReason/error``
/// and the error code says why.
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

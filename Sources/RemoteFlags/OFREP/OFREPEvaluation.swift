import ConfigurationFiles
import FeatureFlags

/// One flag's answer from an OFREP service, as its schemas say: a success (`key`, `value` or
/// none to mean the code default, `reason`, `variant`, `metadata`) or a failure (`key`,
/// `errorCode`, `errorDetails`).
enum OFREPEvaluation: Sendable, Equatable {
    case success(value: FlagValue?, reason: FlagEvaluationReason, variant: String?, metadata: [String: FlagValue])
    case failure(FlagErrorCode, String)

    /// The error codes a failure may carry (evaluationFailure, flagNotFound); any other is GENERAL.
    static let knownCodes: Set<String> = [
        "PARSE_ERROR", "TARGETING_KEY_MISSING", "INVALID_CONTEXT", "GENERAL", "FLAG_NOT_FOUND",
    ]

    /// Reads one evaluation object; nil with the problem when it is not one.
    static func read(_ node: DocumentNode) -> (key: String, evaluation: OFREPEvaluation)? {
        guard case .object = node.kind, case .string(let key)? = node.member("key")?.value.kind else { return nil }
        if let code = node.member("errorCode")?.value {
            guard case .string(let text) = code.kind else { return nil }
            let details = node.member("errorDetails").flatMap { member -> String? in
                if case .string(let text) = member.value.kind { return text }
                return nil
            }
            let known = knownCodes.contains(text) ? FlagErrorCode(rawValue: text) : .general
            return (key, .failure(known, details ?? "the service answered \(text)"))
        }
        var reason = FlagEvaluationReason.unknown
        if let member = node.member("reason") {
            guard case .string(let text) = member.value.kind else { return nil }
            reason = FlagEvaluationReason(rawValue: text)
        }
        var variant: String?
        if let member = node.member("variant") {
            guard case .string(let text) = member.value.kind else { return nil }
            variant = text
        }
        var metadata: [String: FlagValue] = [:]
        if let member = node.member("metadata") {
            guard case .object(let entries) = member.value.kind else { return nil }
            for entry in entries {
                switch entry.value.kind {
                case .bool, .string, .number: metadata[entry.key] = entry.value.value
                default: return nil
                }
            }
        }
        return (
            key,
            .success(value: node.member("value")?.value.value, reason: reason, variant: variant, metadata: metadata)
        )
    }

    /// The details for a caller who asked for `T` with `defaultValue`.
    func details<T: FlagValueType>(key: String, default defaultValue: T) -> FlagEvaluationDetails<T> {
        switch self {
        case .failure(let code, let message):
            return FlagEvaluationDetails(
                flagKey: key, value: defaultValue, reason: .error, errorCode: code, errorMessage: message)
        case .success(let value, let reason, let variant, let metadata):
            // No value: the service defers to the code default (the protocol's ADR 0006).
            guard let value else {
                return FlagEvaluationDetails(
                    flagKey: key, value: defaultValue, variant: variant, reason: reason, flagMetadata: metadata)
            }
            guard let typed = T(flagValue: value) else {
                return FlagEvaluationDetails(
                    flagKey: key, value: defaultValue, reason: .error, errorCode: .typeMismatch,
                    errorMessage: "flag \"\(key)\" is a \(value.typeName) (\(value)), not \(T.requested)",
                    flagMetadata: metadata)
            }
            return FlagEvaluationDetails(
                flagKey: key, value: typed, variant: variant, reason: reason, flagMetadata: metadata)
        }
    }
}

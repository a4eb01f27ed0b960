import Capabilities
import FeatureFlags

/// capctl's JSON, built from FeatureFlags' JSON values so every string is escaped one way.
enum JSONText {
    static func string(_ value: FlagValue) -> String { value.description }

    static func optional(_ text: String?) -> FlagValue { text.map(FlagValue.string) ?? .null }

    /// A status entry: `name`, `kind`, `status`, `reason`, `cause` when there is one, plus kind-specific details.
    static func entry(
        name: String, kind: String, status: String, reason: String, cause: String? = nil,
        details: [String: FlagValue] = [:]
    ) -> FlagValue {
        var members = details
        members["name"] = .string(name)
        members["kind"] = .string(kind)
        members["status"] = .string(status)
        members["reason"] = .string(reason)
        if let cause { members["cause"] = .string(cause) }
        return .structure(members)
    }

    /// OpenFeature's evaluation details.
    static func details(_ details: FlagEvaluationDetails<FlagValue>) -> FlagValue {
        .structure([
            "key": .string(details.flagKey),
            "value": details.value,
            "variant": optional(details.variant),
            "reason": .string(details.reason.rawValue),
            "errorCode": optional(details.errorCode?.rawValue),
            "errorMessage": optional(details.errorMessage),
            "flagMetadata": .structure(details.flagMetadata),
        ])
    }
}

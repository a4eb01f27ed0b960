public import Capabilities

/// A feature flag as a capability: authorized while the flag evaluates to an expected value
/// (by default `true`).
///
/// Statuses: authorized when the value matches; denied when it does not or the flag is
/// disabled; unavailable when the flag cannot be evaluated (no flag has the key, a broken
/// flag, a type mismatch), so that neither it nor its negation lets a gate through. A flag is
/// never authorized by asking, so ``authorize()`` only reads it again.
///
/// ```swift
/// let newExport = FeatureFlag("new-export", in: flags)  // a capability: authorized while the flag is on
/// export.addCondition(AuthorizedFor(newExport))
/// ```
public struct FeatureFlag: CapabilityType {
    /// The flag's key.
    public let key: String
    /// The value the flag must have.
    public let expected: FlagValue
    /// The store the flag is read from.
    public let store: FlagStore
    /// Laid over the store's context for every evaluation.
    public let context: FlagEvaluationContext?

    /// A capability held while flag `key` in `store` evaluates to `expected`.
    public init(
        _ key: String, in store: FlagStore, equals expected: FlagValue = true, context: FlagEvaluationContext? = nil
    ) {
        self.key = key
        self.expected = expected
        self.store = store
        self.context = context
    }

    public var name: String { expected == true ? "flag:\(key)" : "flag:\(key)=\(expected)" }

    public func status() async throws -> CapabilityStatus { currentStatus() }

    public func knownStatus() -> CapabilityStatus? { currentStatus() }

    public func statusUpdates() -> CapabilityStatusUpdates {
        .signalled(self, by: [store.changed])
    }

    private func currentStatus() -> CapabilityStatus {
        let details = store.valueDetails(key, default: .null, context: context)
        let how = details.variant.map { "variant \($0), \(details.reason.rawValue)" } ?? details.reason.rawValue
        switch details.reason {
        case .disabled:
            return .denied("flag \(key) is disabled")
        case .error where details.errorCode == .flagNotFound:
            return .unavailable(details.errorMessage ?? "no flag \(key)", cause: .resourceMissing)
        case .error:
            return .unavailable(
                "flag \(key) could not be evaluated (\(details.errorCode?.rawValue ?? "ERROR")): \(details.errorMessage ?? "")",
                cause: details.errorCode == .parseError ? .misconfigured : .error)
        default:
            guard details.variant != nil else {
                return .denied("flag \(key) defers to the code default, which is off (\(how))")
            }
            // Another type can never be equal: a misconfiguration, undecided, never "not held" (under
            // `not`, that would open the gate whatever the flag says).
            guard details.value.typeName == expected.typeName else {
                return .unavailable(
                    "flag \(key) is \(details.value.describedType) (\(details.value)), compared with \(expected.describedType) (\(expected))",
                    cause: .misconfigured)
            }
            if details.value == expected { return .authorized("flag \(key) is \(details.value) (\(how))") }
            return .denied("flag \(key) is \(details.value), needs \(expected) (\(how))")
        }
    }
}

/// The outcome of evaluating one flag before it is typed: the variant chosen and why.
struct FlagResolution: Sendable {
    /// The variant's value; nil means the caller's default.
    var value: FlagValue?
    var variant: String?
    var reason: FlagEvaluationReason
    var errorCode: FlagErrorCode?
    var errorMessage: String?

    static func failure(_ code: FlagErrorCode, _ message: String) -> FlagResolution {
        FlagResolution(value: nil, variant: nil, reason: .error, errorCode: code, errorMessage: message)
    }
}

/// Evaluates a flag the way flagd does:
/// - disabled: the caller's default, reason DISABLED;
/// - no targeting: the default variant, reason STATIC (the caller's default, reason DEFAULT,
///   when the default variant is null or missing);
/// - targeting returns null: as if it picked nothing, reason DEFAULT;
/// - targeting returns a variant's name (or `true`/`false` for variants named so): that
///   variant, reason TARGETING_MATCH; anything else is an error.
enum FlagResolver {
    /// - Parameters:
    ///   - overlay: The caller's context, whose values win over `base`.
    ///   - base: The store's context.
    ///   - baseProblem: The invalid attribute in `base`, found once when the store was made.
    static func resolve(
        _ flag: FlagDefinition, overlay: FlagEvaluationContext?, base: FlagEvaluationContext, baseProblem: String?,
        now: () -> Int
    ) -> FlagResolution {
        guard flag.isEnabled else { return FlagResolution(value: nil, variant: nil, reason: .disabled) }
        guard let targeting = flag.targeting else { return defaultResolution(flag, reason: .static) }

        if let path = overlay?.firstInvalidAttribute() ?? baseProblem {
            return .failure(.invalidContext, "context attribute \"\(path)\" is not a finite number")
        }
        let scope = TargetingScope(
            overlay: overlay, base: base, flagKey: flag.key, timestamp: flag.readsTimestamp ? now() : 0, element: nil)
        let result: FlagValue
        do {
            result = try targeting.evaluate(scope)
        } catch {
            return .failure(
                .targetingKeyMissing,
                "flag \"\(flag.key)\" buckets with fractional on the targeting key, and the context has none")
        }
        let name: String
        switch result {
        case .null: return defaultResolution(flag, reason: .default)
        case .string(let text): name = text
        case .bool(let value): name = value ? "true" : "false"
        case .number(let number): name = FlagValue.format(number)
        case .list, .structure:
            return .failure(.parseError, "targeting of flag \"\(flag.key)\" returned \(result), not a variant name")
        }
        guard let value = flag.variants[name] else {
            let known = flag.variants.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            return .failure(
                .parseError, "targeting of flag \"\(flag.key)\" returned \"\(name)\", which is not one of its variants (\(known))")
        }
        return FlagResolution(value: value, variant: name, reason: .targetingMatch)
    }

    private static func defaultResolution(_ flag: FlagDefinition, reason: FlagEvaluationReason) -> FlagResolution {
        guard let variant = flag.defaultVariant else {
            // A null or missing default variant defers to the code default.
            return FlagResolution(value: nil, variant: nil, reason: .default)
        }
        return FlagResolution(value: flag.defaultValue, variant: variant, reason: reason)
    }
}

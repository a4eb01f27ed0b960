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
/// - broken (see ``FlagDefinition/problem``): PARSE_ERROR;
/// - disabled: the caller's default, reason DISABLED;
/// - no targeting: the default variant, reason STATIC (the caller's default, reason DEFAULT,
///   when the default variant is null or missing);
/// - targeting returns null, or one of flagd's operators fails inside it: as if it picked
///   nothing, reason DEFAULT;
/// - targeting returns a variant's name (or `true`/`false`/a number, read as the name): that
///   variant, reason TARGETING_MATCH; any other result is GENERAL.
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
        if let problem = flag.problem {
            return .failure(.parseError, "flag \"\(flag.key)\" cannot be evaluated: \(problem)")
        }
        guard let targeting = flag.targeting else { return defaultResolution(flag, reason: .static) }

        if let path = overlay?.firstInvalidAttribute() ?? baseProblem {
            return .failure(
                .invalidContext, "context attribute \"\(path)\" is not finite (JSON has no NaN or infinity)")
        }
        let scope = TargetingScope(
            overlay: overlay, base: base, flagKey: flag.key, timestamp: flag.readsTimestamp ? now() : 0, element: nil)
        let result: FlagValue
        do throws(TargetingFailure) {
            result = try targeting.evaluate(scope)
        } catch {
            if let (name, reason) = error.incompleteAttribute {
                return .failure(
                    .invalidContext,
                    "targeting of flag \"\(flag.key)\" reads context attribute \"\(name)\", which is incomplete: \(reason)"
                )
            }
            return defaultResolution(flag, reason: .default)
        }
        let name: String
        switch result {
        case .null: return defaultResolution(flag, reason: .default)
        case .string(let text): name = text
        case .bool(let value): name = value ? "true" : "false"
        case .number(let number): name = FlagValue.format(number)
        case .date(let date): name = date.description
        case .list, .structure:
            return .failure(.general, "targeting of flag \"\(flag.key)\" returned \(result), not a variant name")
        }
        guard let variant = flag.variant(named: name) else {
            let known = flag.variants.keys.sorted().map { "\"\($0)\"" }.joined(separator: ", ")
            return .failure(
                .general,
                "targeting of flag \"\(flag.key)\" returned \"\(name)\", which is not one of its variants (\(known))")
        }
        return FlagResolution(value: variant.value, variant: variant.name, reason: .targetingMatch)
    }

    private static func defaultResolution(_ flag: FlagDefinition, reason: FlagEvaluationReason) -> FlagResolution {
        guard let variant = flag.defaultVariant else {
            // A null or missing default variant defers to the code default.
            return FlagResolution(value: nil, variant: nil, reason: .default)
        }
        return FlagResolution(value: flag.defaultValue, variant: variant, reason: reason)
    }
}

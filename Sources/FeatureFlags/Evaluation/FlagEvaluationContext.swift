/// What flags are evaluated for: a targeting key (the subject of `fractional` rollouts) and
/// attributes that targeting rules read with `var`.
///
/// A ``FlagStore`` evaluates with its own context (empty unless given one) with each call's
/// laid over it; the call's values win. On Linux, `FlagEvaluationContext.host` (from
/// `LinuxBackends`) describes this process, for stores that should target by user, group
/// or host.
///
/// ```swift
/// let context = FlagEvaluationContext(targetingKey: user.id, attributes: ["tier": .string(user.tier)])
/// let enabled = flags.value("new-export", default: false, context: context)
/// ```
public struct FlagEvaluationContext: Sendable, Hashable {
    /// The subject of the evaluation; flagd exposes it to rules as `targetingKey`.
    public var targetingKey: String?
    /// Attributes, by name.
    public var attributes: [String: FlagValue]
    /// Attributes that could not be built completely, by name, with the reason (a group name
    /// the directory could not give, say). A rule that reads one is an evaluation error
    /// (`INVALID_CONTEXT`), so a gate on it stays undecided: a shorter list of groups must never
    /// let a member of a denied group through. A value given for the name in a context laid
    /// over this one replaces the incomplete one.
    public var incompleteAttributes: [String: String]

    /// Creates a context.
    public init(
        targetingKey: String? = nil, attributes: [String: FlagValue] = [:], incompleteAttributes: [String: String] = [:]
    ) {
        self.targetingKey = targetingKey
        self.attributes = attributes
        self.incompleteAttributes = incompleteAttributes
    }

    /// This context laid over `base`: attributes and targeting key given here win.
    public func merged(over base: FlagEvaluationContext) -> FlagEvaluationContext {
        var merged = base
        merged.attributes.merge(attributes) { _, mine in mine }
        for name in attributes.keys { merged.incompleteAttributes[name] = nil }
        merged.incompleteAttributes.merge(incompleteAttributes) { _, mine in mine }
        if let targetingKey { merged.targetingKey = targetingKey }
        return merged
    }

    /// The first attribute that JSON cannot carry (NaN or an infinity, a number or a date's
    /// seconds), as a path.
    package func firstInvalidAttribute() -> String? {
        func check(_ value: FlagValue, _ path: String) -> String? {
            switch value {
            case .number(let number): return number.isFinite ? nil : path
            case .date(let date): return date.secondsSince1970.isFinite ? nil : path
            case .list(let elements):
                for (index, element) in elements.enumerated() {
                    if let bad = check(element, "\(path)[\(index)]") { return bad }
                }
                return nil
            case .structure(let members):
                for (key, member) in members {
                    if let bad = check(member, "\(path).\(key)") { return bad }
                }
                return nil
            default: return nil
            }
        }
        for (key, value) in attributes {
            if let bad = check(value, key) { return bad }
        }
        return nil
    }
}

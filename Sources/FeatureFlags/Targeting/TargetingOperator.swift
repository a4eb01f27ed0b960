/// The operators a targeting rule may use: the JsonLogic operations flagd documents, and
/// flagd's own `fractional`, `sem_ver`, `starts_with` and `ends_with`.
enum TargetingOperator: String, CaseIterable, Sendable {
    // Data access
    case variable = "var"
    case missing
    case missingSome = "missing_some"
    // Logic
    case ifThenElse = "if"
    case ternary = "?:"
    case equal = "=="
    case strictEqual = "==="
    case notEqual = "!="
    case strictNotEqual = "!=="
    case not = "!"
    case truthy = "!!"
    case or
    case and
    // Numbers
    case greater = ">"
    case greaterOrEqual = ">="
    case less = "<"
    case lessOrEqual = "<="
    case max
    case min
    case add = "+"
    case subtract = "-"
    case multiply = "*"
    case divide = "/"
    case remainder = "%"
    // Arrays
    case map
    case filter
    case reduce
    case all
    case none
    case some
    case merge
    case `in`
    // Strings
    case cat
    case substr
    case log
    // flagd
    case fractional
    case semanticVersion = "sem_ver"
    case startsWith = "starts_with"
    case endsWith = "ends_with"

    /// What the compiler and the evaluator need to know about an operator.
    struct Facts {
        /// The argument counts accepted, or nil for any.
        var arity: ClosedRange<Int>?
        /// Not all arguments are evaluated up front.
        var isLazy = false
        /// With one or two arguments, it needs nothing but their values.
        var hasFixedArguments = false
        /// flagd's own: misused, it makes the rule null instead of failing to load.
        var isFlagdOperator = false
    }

    /// Every operator's facts, in one switch without a default: an operator added to the enum
    /// does not compile until its facts are written here.
    var facts: Facts {
        switch self {
        case .variable: Facts(arity: 0...2)
        case .missing: Facts(arity: nil)
        case .missingSome: Facts(arity: 2...2)
        case .ifThenElse, .ternary, .or, .and: Facts(arity: nil, isLazy: true)
        case .equal, .strictEqual, .notEqual, .strictNotEqual, .greater, .greaterOrEqual, .divide, .remainder, .in:
            Facts(arity: 2...2, hasFixedArguments: true)
        case .not, .truthy, .log: Facts(arity: 1...1, hasFixedArguments: true)
        case .less, .lessOrEqual: Facts(arity: 2...3, hasFixedArguments: true)
        case .subtract: Facts(arity: 1...2, hasFixedArguments: true)
        case .substr: Facts(arity: 2...3, hasFixedArguments: true)
        case .max, .min, .add, .multiply, .merge, .cat: Facts(arity: nil)
        case .map, .filter, .all, .none, .some: Facts(arity: 2...2, isLazy: true)
        case .reduce: Facts(arity: 2...3, isLazy: true)
        case .fractional: Facts(arity: 1...Int.max, isFlagdOperator: true)
        case .semanticVersion: Facts(arity: 3...3, isFlagdOperator: true)
        case .startsWith, .endsWith: Facts(arity: 2...2, hasFixedArguments: true, isFlagdOperator: true)
        }
    }

    /// flagd's own operators: misused, they make the rule null instead of failing to load.
    var isFlagdOperator: Bool { facts.isFlagdOperator }

    /// Operators whose arguments are not all evaluated up front.
    var isLazy: Bool { facts.isLazy }

    /// Whether, with one or two arguments, the operator needs nothing but their values.
    var hasFixedArguments: Bool { facts.hasFixedArguments }

    /// The argument counts accepted, or nil for any.
    var arity: ClosedRange<Int>? { facts.arity }
}

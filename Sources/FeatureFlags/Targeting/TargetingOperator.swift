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

    /// flagd's own operators: misused, they make the rule null instead of failing to load.
    var isFlagdOperator: Bool {
        switch self {
        case .fractional, .semanticVersion, .startsWith, .endsWith: true
        default: false
        }
    }

    /// Operators whose arguments are not all evaluated up front.
    var isLazy: Bool {
        switch self {
        case .ifThenElse, .ternary, .or, .and, .map, .filter, .reduce, .all, .none, .some: true
        default: false
        }
    }

    /// Whether, with one or two arguments, the operator needs nothing but their values.
    var hasFixedArguments: Bool {
        switch self {
        case .equal, .notEqual, .strictEqual, .strictNotEqual, .not, .truthy, .greater, .greaterOrEqual, .less,
            .lessOrEqual, .subtract, .divide, .remainder, .in, .substr, .log, .startsWith, .endsWith:
            true
        default: false
        }
    }

    /// The argument counts accepted, or nil for any.
    var arity: ClosedRange<Int>? {
        switch self {
        case .variable: 0...2
        case .missingSome, .map, .filter, .all, .none, .some, .in, .startsWith, .endsWith, .divide, .remainder,
            .strictEqual, .strictNotEqual, .equal, .notEqual, .greater, .greaterOrEqual:
            2...2
        case .less, .lessOrEqual: 2...3
        case .subtract: 1...2
        case .reduce, .substr: 2...3
        case .semanticVersion: 3...3
        case .not, .truthy, .log: 1...1
        case .fractional: 1...Int.max
        default: nil
        }
    }
}

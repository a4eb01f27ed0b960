/// Maps every element of an input array, in order, as ProcedureKit's `MapProcedure`.
///
/// ```swift
/// let ids = MapProcedure(name: "ids", inputFrom: loadUsers) { user in user.id }
/// ```
///
/// A thrown error fails the step; for work per element that blocks or suspends, or that should
/// run several at once, use ``BatchProcedure``.
// Sendable by hand, as `TransformProcedure`.
public final class MapProcedure<Element: Sendable, Mapped: Sendable>: TransformProcedure<[Element], [Mapped]>,
    @unchecked Sendable
{
    /// Creates a step that maps `elements`, or the array taken later from a dependency.
    public init(
        name: String? = nil, elements: [Element]? = nil, _ transform: @escaping @Sendable (Element) throws -> Mapped
    ) {
        super.init(name: name, input: elements) { try $0.map(transform) }
    }

    /// Creates a step that maps `dependency`'s output.
    public convenience init(
        name: String? = nil, inputFrom dependency: ResultProcedure<[Element]>,
        _ transform: @escaping @Sendable (Element) throws -> Mapped
    ) {
        self.init(name: name, elements: nil, transform)
        takeInput(from: dependency)
    }
}

/// Keeps the elements of an input array that pass a test, in order, as ProcedureKit's `FilterProcedure`.
///
/// ```swift
/// let gold = FilterProcedure(name: "gold", inputFrom: loadUsers) { user in user.tier == "gold" }
/// ```
// Sendable by hand, as `TransformProcedure`.
public final class FilterProcedure<Element: Sendable>: TransformProcedure<[Element], [Element]>, @unchecked Sendable {
    /// Creates a step that filters `elements`, or the array taken later from a dependency.
    public init(
        name: String? = nil, elements: [Element]? = nil, _ isIncluded: @escaping @Sendable (Element) throws -> Bool
    ) {
        super.init(name: name, input: elements) { try $0.filter(isIncluded) }
    }

    /// Creates a step that filters `dependency`'s output.
    public convenience init(
        name: String? = nil, inputFrom dependency: ResultProcedure<[Element]>,
        _ isIncluded: @escaping @Sendable (Element) throws -> Bool
    ) {
        self.init(name: name, elements: nil, isIncluded)
        takeInput(from: dependency)
    }
}

/// Combines the elements of an input array into one value, in order, as ProcedureKit's `ReduceProcedure`.
///
/// ```swift
/// let total = ReduceProcedure(name: "total", inputFrom: loadInvoices, initial: 0) { sum, invoice in
///     sum + invoice.amount
/// }
/// ```
// Sendable by hand, as `TransformProcedure`.
public final class ReduceProcedure<Element: Sendable, Reduced: Sendable>: TransformProcedure<[Element], Reduced>,
    @unchecked Sendable
{
    /// Creates a step that reduces `elements`, or the array taken later from a dependency,
    /// starting from `initial`.
    public init(
        name: String? = nil, elements: [Element]? = nil, initial: Reduced,
        _ combine: @escaping @Sendable (Reduced, Element) throws -> Reduced
    ) {
        super.init(name: name, input: elements) { try $0.reduce(initial, combine) }
    }

    /// Creates a step that reduces `dependency`'s output, starting from `initial`.
    public convenience init(
        name: String? = nil, inputFrom dependency: ResultProcedure<[Element]>, initial: Reduced,
        _ combine: @escaping @Sendable (Reduced, Element) throws -> Reduced
    ) {
        self.init(name: name, elements: nil, initial: initial, combine)
        takeInput(from: dependency)
    }
}

/// Lists procedures in a closure, one per line, for ``GroupProcedure/init(name:maxConcurrentCount:workload:onChildFailure:_:)``.
@resultBuilder
public enum ProcedureBuilder {
    /// One procedure on a line.
    public static func buildExpression(_ procedure: Procedure) -> [Procedure] { [procedure] }
    /// Several procedures on a line, in order.
    public static func buildExpression(_ procedures: [Procedure]) -> [Procedure] { procedures }
    /// The lines, in order.
    public static func buildBlock(_ parts: [Procedure]...) -> [Procedure] { parts.flatMap { $0 } }
    /// An `if` without `else`: its procedures, or none.
    public static func buildOptional(_ part: [Procedure]?) -> [Procedure] { part ?? [] }
    /// The `if` branch of an `if`/`else`.
    public static func buildEither(first part: [Procedure]) -> [Procedure] { part }
    /// The `else` branch of an `if`/`else`.
    public static func buildEither(second part: [Procedure]) -> [Procedure] { part }
    /// A `for` loop: every iteration's procedures, in order.
    public static func buildArray(_ parts: [[Procedure]]) -> [Procedure] { parts.flatMap { $0 } }
}

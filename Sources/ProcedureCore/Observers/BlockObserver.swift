/// An observer made of closures, for the events you care about.
///
/// ```swift
/// export.addObserver(
///     BlockObserver(
///         willExecute: { print("\($0.name) starts") },
///         didFinish: { procedure, error in print("\(procedure.name) finished", error.map { "with \($0)" } ?? "") }))
/// ```
public struct BlockObserver: ProcedureObserver {
    private let willExecute: (@Sendable (Procedure) -> Void)?
    private let didCancel: (@Sendable (Procedure, (any Error)?) -> Void)?
    private let didProduce: (@Sendable (Procedure, Procedure) -> Void)?
    private let willFinish: (@Sendable (Procedure, (any Error)?) -> Void)?
    private let didFinish: (@Sendable (Procedure, (any Error)?) -> Void)?
    private let didReportProgress: (@Sendable (Procedure, ProcedureProgress) -> Void)?

    /// Creates an observer; each closure is optional.
    public init(
        willExecute: (@Sendable (Procedure) -> Void)? = nil,
        didCancel: (@Sendable (Procedure, (any Error)?) -> Void)? = nil,
        didProduce: (@Sendable (_ procedure: Procedure, _ dependency: Procedure) -> Void)? = nil,
        willFinish: (@Sendable (Procedure, (any Error)?) -> Void)? = nil,
        didFinish: (@Sendable (Procedure, (any Error)?) -> Void)? = nil,
        didReportProgress: (@Sendable (Procedure, ProcedureProgress) -> Void)? = nil
    ) {
        self.willExecute = willExecute
        self.didCancel = didCancel
        self.didProduce = didProduce
        self.willFinish = willFinish
        self.didFinish = didFinish
        self.didReportProgress = didReportProgress
    }

    public func procedureWillExecute(_ procedure: Procedure) { willExecute?(procedure) }
    public func procedureDidCancel(_ procedure: Procedure, error: (any Error)?) { didCancel?(procedure, error) }
    public func procedure(_ procedure: Procedure, didProduce dependency: Procedure) {
        didProduce?(procedure, dependency)
    }
    public func procedureWillFinish(_ procedure: Procedure, error: (any Error)?) { willFinish?(procedure, error) }
    public func procedureDidFinish(_ procedure: Procedure, error: (any Error)?) { didFinish?(procedure, error) }
    public func procedure(_ procedure: Procedure, didReportProgress progress: ProcedureProgress) {
        didReportProgress?(procedure, progress)
    }
}

extension Procedure {
    /// Runs `block` just before the procedure executes (ProcedureKit's `addWillExecuteBlockObserver`).
    public final func addWillExecuteBlockObserver(_ block: @escaping @Sendable (Procedure) -> Void) {
        addObserver(BlockObserver(willExecute: block))
    }

    /// Runs `block` when the procedure is cancelled, with the reason if one was given.
    public final func addDidCancelBlockObserver(_ block: @escaping @Sendable (Procedure, (any Error)?) -> Void) {
        addObserver(BlockObserver(didCancel: block))
    }

    /// Runs `block` once the procedure has finished, with its error if it failed. Added after
    /// the procedure finished, it runs at once.
    public final func addDidFinishBlockObserver(_ block: @escaping @Sendable (Procedure, (any Error)?) -> Void) {
        addObserver(BlockObserver(didFinish: block))
    }

    /// Runs `block` with each progress the procedure reports (``Procedure/reportProgress(_:)``),
    /// on the reporting thread. ``Procedure/progressUpdates`` gives the same as an `AsyncSequence`.
    public final func addProgressBlockObserver(_ block: @escaping @Sendable (Procedure, ProcedureProgress) -> Void) {
        addObserver(BlockObserver(didReportProgress: block))
    }
}

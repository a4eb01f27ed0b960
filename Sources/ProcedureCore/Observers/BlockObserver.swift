/// An observer made of closures, for the events you care about.
public struct BlockObserver: ProcedureObserver {
    private let willExecute: (@Sendable (Procedure) -> Void)?
    private let didCancel: (@Sendable (Procedure, (any Error)?) -> Void)?
    private let didProduce: (@Sendable (Procedure, Procedure) -> Void)?
    private let willFinish: (@Sendable (Procedure, (any Error)?) -> Void)?
    private let didFinish: (@Sendable (Procedure, (any Error)?) -> Void)?

    /// Creates an observer; each closure is optional.
    public init(
        willExecute: (@Sendable (Procedure) -> Void)? = nil,
        didCancel: (@Sendable (Procedure, (any Error)?) -> Void)? = nil,
        didProduce: (@Sendable (_ procedure: Procedure, _ dependency: Procedure) -> Void)? = nil,
        willFinish: (@Sendable (Procedure, (any Error)?) -> Void)? = nil,
        didFinish: (@Sendable (Procedure, (any Error)?) -> Void)? = nil
    ) {
        self.willExecute = willExecute
        self.didCancel = didCancel
        self.didProduce = didProduce
        self.willFinish = willFinish
        self.didFinish = didFinish
    }

    public func procedureWillExecute(_ procedure: Procedure) { willExecute?(procedure) }
    public func procedureDidCancel(_ procedure: Procedure, error: (any Error)?) { didCancel?(procedure, error) }
    public func procedure(_ procedure: Procedure, didProduce dependency: Procedure) {
        didProduce?(procedure, dependency)
    }
    public func procedureWillFinish(_ procedure: Procedure, error: (any Error)?) { willFinish?(procedure, error) }
    public func procedureDidFinish(_ procedure: Procedure, error: (any Error)?) { didFinish?(procedure, error) }
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
}

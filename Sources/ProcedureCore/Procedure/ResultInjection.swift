extension Procedure {
    /// Takes input from `dependency`'s output once it finished, before this procedure's
    /// conditions are evaluated. Adds `dependency` as a dependency.
    ///
    /// If `dependency` failed or was cancelled, or `receive` throws, this procedure is
    /// cancelled with ``ProcedureError/inputUnavailable(from:reason:)`` and never executes.
    /// Ignored once this procedure is on a queue.
    public final func injectResult<Input: Sendable>(
        from dependency: ResultProcedure<Input>,
        _ receive: @escaping @Sendable (Input) throws -> Void
    ) {
        let action = storage.withLock { state in
            state.addInput { [dependency] in
                // Erased, as the outcome is stored: this runs unspecialized (see `ErasedOutcome`).
                switch dependency.erasedOutput {
                case .success(let value):
                    do {
                        try receive(value as! Input)
                        return nil
                    } catch {
                        return ProcedureError.inputUnavailable(from: dependency.name, reason: error)
                    }
                case .failure(let error):
                    return ProcedureError.inputUnavailable(from: dependency.name, reason: error)
                case .none:
                    return ProcedureError.inputUnavailable(from: dependency.name, reason: nil)
                }
            }
        }
        if case .accepted = action { addDependency(dependency) }
    }

    /// Takes `dependency`'s outcome, success or not, and lets `receive` decide: it sees the
    /// output, or the error (``ProcedureError/cancelled`` when the dependency was cancelled
    /// without one), and returns to go on (recovering, with a default for example) or throws to
    /// cancel this procedure with ``ProcedureError/inputUnavailable(from:reason:)``. Adds
    /// `dependency` as a dependency. Ignored once this procedure is on a queue.
    public final func injectOutcome<Input: Sendable>(
        from dependency: ResultProcedure<Input>,
        _ receive: @escaping @Sendable (Result<Input, any Error>) throws -> Void
    ) {
        let action = storage.withLock { state in
            state.addInput { [dependency] in
                do {
                    try receive(dependency.output ?? .failure(ProcedureError.cancelled))
                    return nil
                } catch {
                    return ProcedureError.inputUnavailable(from: dependency.name, reason: error)
                }
            }
        }
        if case .accepted = action { addDependency(dependency) }
    }
}

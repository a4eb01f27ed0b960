import Locking

/// A procedure that produces a typed output. Await it with ``value()``.
///
/// Subclass and call ``finish(returning:)`` or ``finish(throwing:)`` from ``Procedure/execute()``.
///
/// ```swift
/// final class Count: ResultProcedure<Int>, @unchecked Sendable {
///     override func execute() { finish(returning: 42) }
/// }
/// let count = Count(name: "count")
/// queue.addProcedure(count)
/// print(try await count.value())
/// ```
// Sendable by hand, as `Procedure`: the result is behind a lock.
open class ResultProcedure<Output: Sendable>: Procedure, @unchecked Sendable {
    private let outcome = Lock<ErasedOutcome>(.none)

    /// Creates a procedure.
    public override init(name: String? = nil) {
        super.init(name: name)
    }

    /// The output once finished: success, failure, or nil when cancelled without one.
    public var output: Result<Output, any Error>? {
        erasedOutput.typed(as: Output.self)
    }

    /// ``output`` without naming the output's type (see ``ErasedOutcome``).
    final var erasedOutput: ErasedOutcome {
        guard isFinished else { return .none }
        let stored = outcome.withLock { $0 }
        if !stored.isNone { return stored }
        if let error { return .failure(error) }
        return .none
    }

    /// Finishes with an output. Ignored unless executing.
    public final func finish(returning output: Output) {
        guard isExecuting else { return }
        outcome.withLock { if $0.isNone { $0 = .success(output) } }
        finish()
    }

    /// ``finish(returning:)`` with an output already erased; it must be an `Output`.
    final func finishErased(returning output: any Sendable) {
        guard isExecuting else { return }
        outcome.withLock { if $0.isNone { $0 = .success(output) } }
        finish()
    }

    /// Finishes with an error. Ignored unless executing.
    public final func finish(throwing error: any Error) {
        guard isExecuting else { return }
        outcome.withLock { if $0.isNone { $0 = .failure(error) } }
        finish(with: error)
    }

    /// Waits until finished and returns the output, or throws its error
    /// (``ProcedureError/cancelled`` when cancelled without one).
    public func value() async throws -> Output {
        await waitUntilFinished()
        switch output {
        case .success(let value): return value
        case .failure(let error): throw error
        case nil: throw isCancelled ? ProcedureError.cancelled : ProcedureError.noOutput(name)
        }
    }
}

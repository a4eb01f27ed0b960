import Locking

/// A synchronous step from an input to an output, as ProcedureKit's `TransformProcedure`.
///
/// The input is given when the procedure is made, or taken from a dependency's output
/// (``init(name:inputFrom:_:)``); the transform runs on one of the queue's workers, and a thrown
/// error fails the procedure.
///
/// ```swift
/// let fetch = AsyncProcedure { try await download() }
/// let catalog = TransformProcedure(name: "decode", inputFrom: fetch) { data in try decode(data) }
/// queue.addProcedures([fetch, catalog])
/// let decoded = try await catalog.value()
/// ```
///
/// For a step that suspends (network, files through async APIs), use ``AsyncProcedure`` with
/// `inputFrom:` instead.
// Sendable by hand, as `ResultProcedure`: the input and the transform are behind a lock.
open class TransformProcedure<Input: Sendable, Output: Sendable>: ResultProcedure<Output>, @unchecked Sendable {
    /// The transform of one input.
    public typealias Transform = @Sendable (Input) throws -> Output

    private typealias Work = ErasedTransformWork

    private let work: Lock<Work>

    /// Creates a step that runs `transform` on `input`, or on the input taken later from a
    /// dependency (``takeInput(from:)``).
    public init(name: String? = nil, input: Input? = nil, _ transform: @escaping Transform) {
        // Unconditional cast: only this step stores its input, as `Input`.
        work = Lock(Work(input: input.map { $0 }, transform: { try transform($0 as! Input) }))
        super.init(name: name)
    }

    /// Creates a step that runs `transform` on `dependency`'s output. It depends on `dependency`;
    /// if that fails or is cancelled, this one is cancelled with
    /// ``ProcedureError/inputUnavailable(from:reason:)`` and `transform` never runs.
    public convenience init(
        name: String? = nil, inputFrom dependency: ResultProcedure<Input>, _ transform: @escaping Transform
    ) {
        self.init(name: name, input: nil, transform)
        takeInput(from: dependency)
    }

    /// Takes the input from `dependency`'s output, before this step's conditions are evaluated,
    /// and depends on it. Ignored once this step is on a queue.
    public final func takeInput(from dependency: ResultProcedure<Input>) {
        // Unowned: the closure is kept by this step and run only by it, as its evaluation begins (a
        // strong reference would keep a step that never runs; a weak one gives every step a side
        // table, each retain of it then on the runtime's slow path).
        injectResult(from: dependency) { [unowned self] value in self.work.withLock { $0.input = value } }
    }

    public final override func execute() {
        // Taking the transform makes a second call (or a direct one) do nothing.
        let taken = work.withLock { work -> Work? in
            guard isExecuting, work.transform != nil else { return nil }
            defer { work.transform = nil }
            return work
        }
        guard let taken, let transform = taken.transform else { return }
        guard let input = taken.input else {
            finish(
                throwing: ProcedureError.misuse(
                    name, "it executed without an input: give one or take it from a dependency"))
            return
        }
        do {
            finishErased(returning: try transform(input))
        } catch {
            finish(throwing: error)
        }
    }

    override func releaseWorkBody(executed: Bool) {
        work.withLock { $0 = Work() }
    }
}

/// A ``TransformProcedure``'s input and transform. Neither is stored under its own type, and this
/// is not nested in the generic class (a nested type is generic too): the class's code runs
/// unspecialized, where a type built from `Input` or `Output` costs a metadata cache lookup per use
/// (see ``ErasedOutcome``). The transform is wrapped once, at making.
private struct ErasedTransformWork {
    var input: (any Sendable)?
    var transform: (@Sendable (any Sendable) throws -> any Sendable)?
}

extension ResultProcedure {
    /// A step that transforms this procedure's output once it has finished: `fetch.then { $0.count }`.
    /// The step depends on this procedure and is cancelled if it fails; add both to a queue.
    public func then<Next: Sendable>(
        name: String? = nil, _ transform: @escaping @Sendable (Output) throws -> Next
    ) -> TransformProcedure<Output, Next> {
        TransformProcedure(name: name, inputFrom: self, transform)
    }
}

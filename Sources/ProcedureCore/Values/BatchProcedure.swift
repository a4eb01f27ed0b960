import Locking

/// Runs one procedure per element of an input array, several at once, and collects their
/// outputs in the elements' order, as ProcedureKit's `BatchProcedure`.
///
/// The procedures run on a queue of the batch's own, at most `width` at once, once the batch
/// executes. With ``FailurePolicy/failFast`` (the default) the first failure cancels the rest and
/// fails the batch with that error; with ``FailurePolicy/collectErrors`` every element runs and the
/// batch fails with ``ProcedureError/childrenFailed(_:)`` listing each failure in element order.
/// Cancelling the batch cancels the procedures not finished yet. Its ``Procedure/progress`` counts
/// the elements finished, of all of them. Every element's procedure is
/// made when the batch executes (about 150 bytes each before it runs), so a batch of millions of
/// elements is better split into batches of batches.
///
/// ```swift
/// let sizes = BatchProcedure(name: "sizes", elements: urls, width: 8) { url in
///     AsyncProcedure { try await fetchSize(of: url) }
/// }
/// queue.addProcedure(sizes)
/// let all = try await sizes.value()   // in the order of `urls`
/// ```
///
/// For synchronous work per element, make a ``TransformProcedure``:
/// `BatchProcedure(elements: files, width: 4, workload: .blocking) { TransformProcedure(input: $0, checksum) }`.
// Sendable by hand, as `ResultProcedure`: the elements, the outputs and the queue are behind a lock.
public final class BatchProcedure<Element: Sendable, Output: Sendable>: ResultProcedure<[Output]>, @unchecked Sendable {
    /// What a failed element does to the batch.
    public enum FailurePolicy: Sendable {
        /// The first failure cancels the elements not finished and fails the batch with its error.
        case failFast
        /// Every element runs; the batch fails with every failure, in element order.
        case collectErrors
    }

    /// Makes the procedure for one element.
    public typealias MakeProcedure = @Sendable (Element) -> ResultProcedure<Output>

    private struct Run {
        var elements: [Element]?
        var make: MakeProcedure?
        var queue: ProcedureQueue?
        var outputs: [Output?] = []
        var failures: [(index: Int, error: any Error)] = []
        var remaining = 0
        var done = false
    }

    private enum AfterElement {
        case wait
        case cancelRest(ProcedureQueue?, any Error)
        case finish(Result<[Output], any Error>)
    }

    private let width: Int
    private let policy: FailurePolicy
    private let workload: ProcedureQueue.Workload
    private let run: Lock<Run>

    /// Creates a batch over `elements` (or the array taken later from a dependency,
    /// ``takeInput(from:)``), running at most `width` of `makeProcedure`'s procedures at once.
    /// - Parameters:
    ///   - name: A name for messages; also the name of the batch's queue.
    ///   - elements: The elements, one procedure each; nil to take them from a dependency.
    ///   - width: How many element procedures may run at once (at least 1).
    ///   - failurePolicy: What a failed element does to the batch (``FailurePolicy/failFast`` by default).
    ///   - workload: ``ProcedureQueue/Workload-swift.enum/blocking`` when the procedures' bodies block.
    ///   - makeProcedure: Makes the procedure for one element; its output is that element's output.
    public init(
        name: String? = nil, elements: [Element]? = nil, width: Int = 8, failurePolicy: FailurePolicy = .failFast,
        workload: ProcedureQueue.Workload = .nonBlocking, _ makeProcedure: @escaping MakeProcedure
    ) {
        self.width = max(1, width)
        policy = failurePolicy
        self.workload = workload
        run = Lock(Run(elements: elements, make: makeProcedure))
        super.init(name: name)
    }

    /// Creates a batch over `dependency`'s output.
    public convenience init(
        name: String? = nil, inputFrom dependency: ResultProcedure<[Element]>, width: Int = 8,
        failurePolicy: FailurePolicy = .failFast, workload: ProcedureQueue.Workload = .nonBlocking,
        _ makeProcedure: @escaping MakeProcedure
    ) {
        self.init(
            name: name, elements: nil, width: width, failurePolicy: failurePolicy, workload: workload, makeProcedure)
        takeInput(from: dependency)
    }

    /// Takes the elements from `dependency`'s output, before this batch's conditions are
    /// evaluated, and depends on it. Ignored once this batch is on a queue.
    public func takeInput(from dependency: ResultProcedure<[Element]>) {
        // Unowned, as TransformProcedure's: kept by this batch and run only by it.
        injectResult(from: dependency) { [unowned self] elements in self.run.withLock { $0.elements = elements } }
    }

    public override func execute() {
        guard isExecuting else { return }
        let queue = ProcedureQueue(name: name, maxConcurrentCount: width, isSuspended: true, workload: workload)
        // Taking the maker makes a second call (or a direct one) do nothing.
        let taken = run.withLock { run -> (elements: [Element]?, make: MakeProcedure)? in
            guard let make = run.make else { return nil }
            run.make = nil
            let elements = run.elements
            run.elements = nil
            if let elements {
                run.queue = queue
                run.outputs = Array(repeating: nil, count: elements.count)
                run.remaining = elements.count
            }
            return (elements, make)
        }
        guard let taken else { return }
        guard let elements = taken.elements else {
            finish(
                throwing: ProcedureError.misuse(
                    name, "it executed without elements: give them or take them from a dependency"))
            return
        }
        let make = taken.make
        reportProgress(completed: 0, of: Int64(elements.count))
        guard !elements.isEmpty else {
            finishOnce(.success([]))
            return
        }
        let procedures = elements.enumerated().map { index, element in
            let procedure = make(element)
            procedure.addObserver(ElementObserver(batch: self, index: index))
            return procedure
        }
        queue.addProcedures(procedures)
        // A batch cancelled while its procedures were being made cancels them now.
        if isCancelled { queue.cancelAll(with: ProcedureError.groupCancelled(name, reason: error)) }
        queue.isSuspended = false
    }

    public override func didCancel(with error: (any Error)?) {
        run.withLock { $0.queue }?.cancelAll(with: ProcedureError.groupCancelled(name, reason: error))
    }

    override func releaseWorkBody(executed: Bool) {
        run.withLock { run in
            run.elements = nil
            run.make = nil
            run.queue = nil
        }
    }

    fileprivate func element(_ index: Int, didFinish procedure: ResultProcedure<Output>) {
        let output = procedure.output
        var progress: ProcedureProgress?
        let next = run.withLock { run -> AfterElement in
            guard !run.done else { return .wait }
            run.remaining -= 1
            progress = ProcedureProgress(
                completed: Int64(run.outputs.count - run.remaining), of: Int64(run.outputs.count))
            switch output {
            case .success(let value):
                run.outputs[index] = value
            case .failure(let error):
                run.failures.append((index, error))
            case nil:
                // Cancelled without an error: the element has no output either.
                run.failures.append((index, procedure.error ?? ProcedureError.cancelled))
            }
            if policy == .failFast, let first = run.failures.first {
                run.done = true
                return .cancelRest(run.queue, first.error)
            }
            guard run.remaining == 0 else { return .wait }
            run.done = true
            if !run.failures.isEmpty {
                let errors = run.failures.sorted { $0.index < $1.index }.map(\.error)
                // Only collecting gets here: failing fast finished at the first failure.
                return .finish(.failure(ProcedureError.childrenFailed(errors)))
            }
            return .finish(.success(run.outputs.map { $0! }))
        }
        if let progress { reportProgress(progress) }
        switch next {
        case .wait:
            break
        case .cancelRest(let queue, let error):
            queue?.cancelAll(with: ProcedureError.groupCancelled(name, reason: error))
            finishOnce(.failure(error))
        case .finish(let result):
            finishOnce(result)
        }
    }

    private func finishOnce(_ result: Result<[Output], any Error>) {
        switch result {
        case .success(let outputs): finish(returning: outputs)
        // A cancelled batch finishes cancelled, with the error it was cancelled with if any.
        case .failure where isCancelled: finish()
        case .failure(let error): finish(throwing: error)
        }
    }
}

/// Reports one element's procedure finishing to its batch. Strongly: a weak reference gave every
/// batch a side table (each retain of it on the slow path) and cost a weak load per element; the
/// cycle it would make (batch, its queue, an element, this observer) ends as each element finishes
/// and leaves the queue, and the batch lets its queue go once it finished.
private struct ElementObserver<Element: Sendable, Output: Sendable>: ProcedureObserver {
    let batch: BatchProcedure<Element, Output>
    let index: Int

    func procedureDidFinish(_ procedure: Procedure, error: (any Error)?) {
        // Only added to the batch's own element procedures, whose type the maker fixes: no cast
        // to check (a checked cast to a generic class costs more than the rest of the element).
        batch.element(index, didFinish: unsafeDowncast(procedure, to: ResultProcedure<Output>.self))
    }
}

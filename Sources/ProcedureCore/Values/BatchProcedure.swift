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

    /// What the batch is made with, until it runs.
    private struct Work {
        var elements: [Element]?
        var make: MakeProcedure?
        /// The running batch's bookkeeping (not generic: see ``BatchTally``).
        var tally: BatchTally?
    }

    private let width: Int
    private let policy: FailurePolicy
    private let workload: ProcedureQueue.Workload
    private let work: Lock<Work>

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
        work = Lock(Work(elements: elements, make: makeProcedure))
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
        injectResult(from: dependency) { [unowned self] elements in self.work.withLock { $0.elements = elements } }
    }

    public override func execute() {
        guard isExecuting else { return }
        let queue = ProcedureQueue(name: name, maxConcurrentCount: width, isSuspended: true, workload: workload)
        // Taking the maker makes a second call (or a direct one) do nothing.
        let taken = work.withLock { work -> (elements: [Element]?, make: MakeProcedure)? in
            guard let make = work.make else { return nil }
            work.make = nil
            let elements = work.elements
            work.elements = nil
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
            finish(returning: [])
            return
        }
        let tally = BatchTally(
            count: elements.count, failsFast: policy == .failFast, queue: queue, batch: self,
            // Only added to the batch's own element procedures, whose type the maker fixes: no
            // checked cast (one to a generic class costs more than the rest of the element).
            outcomeOf: { unsafeDowncast($0, to: ResultProcedure<Output>.self).erasedOutput },
            end: { [self] ending in end(ending) })
        work.withLock { $0.tally = tally }
        var procedures: [Procedure] = []
        procedures.reserveCapacity(elements.count)
        for index in elements.indices {
            let procedure = make(elements[index])
            procedure.addObserver(tally.observer(for: index))
            procedures.append(procedure)
        }
        queue.addProcedures(procedures)
        // A batch cancelled while its procedures were being made cancels them now.
        if isCancelled { queue.cancelAll(with: ProcedureError.groupCancelled(name, reason: error)) }
        queue.isSuspended = false
    }

    public override func didCancel(with error: (any Error)?) {
        work.withLock { $0.tally }?.queue?.cancelAll(with: ProcedureError.groupCancelled(name, reason: error))
    }

    override func releaseWorkBody(executed: Bool) {
        let tally = work.withLock { work -> BatchTally? in
            defer { work = Work() }
            return work.tally
        }
        tally?.releaseQueue()
    }

    /// Finishes with the tally's ending, typing the outputs once.
    private func end(_ ending: BatchTally.Ending) {
        switch ending {
        case .outputs(let erased):
            // Unconditional casts: each element procedure stored its output as an `Output`.
            let outputs = [Output](unsafeUninitializedCapacity: erased.count) { buffer, count in
                for index in erased.indices { (buffer.baseAddress! + index).initialize(to: erased[index] as! Output) }
                count = erased.count
            }
            finish(returning: outputs)
        // A cancelled batch finishes cancelled, with the error it was cancelled with if any.
        case .failure where isCancelled: finish()
        case .failure(let error): finish(throwing: error)
        }
    }
}

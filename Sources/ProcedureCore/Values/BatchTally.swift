import Locking

/// A batch's bookkeeping while its elements run: their outputs in element order, their failures,
/// how many are left, and whether the batch has finished.
///
/// Not generic on purpose: it is reached once per element, from code that runs unspecialized,
/// where every type built from the batch's element or output types is a lookup in the runtime's
/// metadata cache (see ``ErasedOutcome``). Outputs are kept erased and typed once, by the batch.
final class BatchTally: Sendable {
    /// How the batch ends.
    enum Ending {
        /// Every element succeeded: their outputs, in element order.
        case outputs([any Sendable])
        /// The batch failed with this error (the first failure, or every failure collected).
        case failure(any Error)
    }

    private struct State {
        var outputs: [(any Sendable)?]
        var failures: [(index: Int, error: any Error)] = []
        var remaining: Int
        var done = false
        /// The elements' queue, until the batch has finished.
        var queue: ProcedureQueue?
    }

    private enum Next {
        case wait
        case cancelRest(ProcedureQueue?, any Error)
        case end(Ending)
    }

    private let state: Lock<State>
    private let failsFast: Bool
    /// The batch, to report progress to. Strongly: the cycle it makes (batch, its queue, an
    /// element, its observer, this tally) ends as each element finishes and leaves the queue.
    private let batch: Procedure
    /// Reads an element procedure's outcome (the batch knows their output type).
    private let outcomeOf: @Sendable (Procedure) -> ErasedOutcome
    /// Finishes the batch; called once.
    private let end: @Sendable (Ending) -> Void

    init(
        count: Int, failsFast: Bool, queue: ProcedureQueue, batch: Procedure,
        outcomeOf: @escaping @Sendable (Procedure) -> ErasedOutcome, end: @escaping @Sendable (Ending) -> Void
    ) {
        state = Lock(State(outputs: Array(repeating: nil, count: count), remaining: count, queue: queue))
        self.failsFast = failsFast
        self.batch = batch
        self.outcomeOf = outcomeOf
        self.end = end
    }

    /// The observer that reports element `index`'s procedure finishing.
    func observer(for index: Int) -> some ProcedureObserver { ElementObserver(tally: self, index: index) }

    /// The elements' queue, while the batch runs.
    var queue: ProcedureQueue? { state.withLock { $0.queue } }

    /// Forgets the elements' queue (the batch finished).
    func releaseQueue() {
        state.withLock { $0.queue = nil }
    }

    fileprivate func element(_ index: Int, didFinish procedure: Procedure) {
        let outcome = outcomeOf(procedure)
        var progress: ProcedureProgress?
        let next = state.withLock { state -> Next in
            guard !state.done else { return .wait }
            state.remaining -= 1
            progress = ProcedureProgress(
                completed: Int64(state.outputs.count - state.remaining), of: Int64(state.outputs.count))
            switch outcome {
            case .success(let value):
                state.outputs[index] = value
            case .failure(let error):
                state.failures.append((index, error))
            case .none:
                // Cancelled without an error: the element has no output either.
                state.failures.append((index, procedure.error ?? ProcedureError.cancelled))
            }
            if failsFast, let first = state.failures.first {
                state.done = true
                return .cancelRest(state.queue, first.error)
            }
            guard state.remaining == 0 else { return .wait }
            state.done = true
            if !state.failures.isEmpty {
                let errors = state.failures.sorted { $0.index < $1.index }.map(\.error)
                // Only collecting gets here: failing fast finished at the first failure.
                return .end(.failure(ProcedureError.childrenFailed(errors)))
            }
            return .end(.outputs(state.outputs.map { $0! }))
        }
        if let progress { batch.reportProgress(progress) }
        switch next {
        case .wait:
            break
        case .cancelRest(let queue, let error):
            queue?.cancelAll(with: ProcedureError.groupCancelled(batch.name, reason: error))
            end(.failure(error))
        case .end(let ending):
            end(ending)
        }
    }
}

/// Reports one element's procedure finishing to its batch's tally. Two words, within an
/// existential's inline buffer, so adding it to an element allocates nothing.
private struct ElementObserver: ProcedureObserver {
    let tally: BatchTally
    let index: Int

    func procedureDidFinish(_ procedure: Procedure, error: (any Error)?) {
        tally.element(index, didFinish: procedure)
    }
}

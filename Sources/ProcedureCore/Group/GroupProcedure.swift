import Locking

/// A procedure made of child procedures, run on the group's own queue.
///
/// Children do not start (nor evaluate conditions) before the group executes. The group
/// finishes when every child has finished, including children added while it runs, and fails
/// with ``ProcedureError/childrenFailed(_:)`` when any child failed (each root cause once: a
/// child that missed its input because another failed is named, not given the whole chain).
/// Cancelling the group cancels its children with ``ProcedureError/groupCancelled(_:reason:)``,
/// so their observers can tell they never ran; the group itself is then cancelled, not failed.
///
/// Exclusivity categories the group holds are arbitrated among its children by a nested scope,
/// so a child asking for its group's category waits for its siblings, never for the group.
///
/// A child's error is first shown to ``child(_:didFailWith:)`` (by default, the `onChildFailure`
/// handler given when the group was made), which may recover before the group finishes: retry the
/// child or replace it (``ChildFailureResponse/replace(with:)``), or ignore the error.
///
/// The group's ``Procedure/progress`` is its children's added up: each child counts one unit,
/// done once it finished, and a running child adds the fraction it reported; the group's detail is
/// the last one a child reported.
///
/// Children can also come from a builder:
///
/// ```swift
/// let download = GroupProcedure(name: "download") {
///     fetchMetadata
///     fetchDatabase
///     if verifies { verify }
/// }
/// ```
// Sendable by hand, as `Procedure`: the children's bookkeeping is behind a lock, the rest is `let`.
open class GroupProcedure: Procedure, @unchecked Sendable {
    /// What a group does with a child's error.
    public enum ChildFailureResponse: Sendable {
        /// The group fails with the error, in ``ProcedureError/childrenFailed(_:)`` (the default).
        case fail
        /// The error is dropped: the group finishes as if the child had succeeded.
        case ignore
        /// The error is dropped and these new children run in the failed child's place (a fresh
        /// attempt, or another way to do the work); the group waits for them.
        case replace(with: [Procedure])

        /// Runs `attempt` in place of the failed child: ``replace(with:)`` with one procedure.
        public static func retry(with attempt: Procedure) -> ChildFailureResponse { .replace(with: [attempt]) }
    }

    /// The handler ``child(_:didFailWith:)`` consults unless overridden.
    public typealias ChildFailureHandler = @Sendable (_ child: Procedure, _ error: any Error) -> ChildFailureResponse

    private struct State {
        var hasStarted = false
        var outstanding = 0
        /// The failed children and their errors, in the order they finished.
        var failures: [(child: Procedure, error: any Error)] = []
        /// The children not finished yet, for the cycle search.
        var running: [ObjectIdentifier: Procedure] = [:]
        var children: [Procedure] = []
        var progress = GroupProgress()

        /// The group's progress once it started; nil before, when children may still be added.
        var startedProgress: ProcedureProgress? { hasStarted ? progress.value(children: children.count) : nil }
    }

    /// The queue the children run on. Suspended until the group executes.
    public let childQueue: ProcedureQueue
    private let group = Lock(State())
    private let onChildFailure: ChildFailureHandler?

    /// Creates a group.
    /// - Parameters:
    ///   - name: A name for messages.
    ///   - children: The first children.
    ///   - maxConcurrentCount: How many children may execute at once.
    ///   - workload: ``ProcedureQueue/Workload-swift.enum/blocking`` when the children's bodies block.
    ///   - onChildFailure: Decides what a child's error does (see ``ChildFailureResponse``); the
    ///     group fails with every child error when nil.
    public init(
        name: String? = nil, children: [Procedure] = [], maxConcurrentCount: Int = .max,
        workload: ProcedureQueue.Workload = .nonBlocking, onChildFailure: ChildFailureHandler? = nil
    ) {
        childQueue = ProcedureQueue(
            name: name, maxConcurrentCount: maxConcurrentCount, isSuspended: true, workload: workload)
        self.onChildFailure = onChildFailure
        super.init(name: name)
        childQueue.group = self
        childQueue.addObserver(ChildTracker(group: self))
        addChildren(children)
    }

    /// Creates a group whose children a builder lists, in order (`if`, `for` and optionals allowed).
    public convenience init(
        name: String? = nil, maxConcurrentCount: Int = .max, workload: ProcedureQueue.Workload = .nonBlocking,
        onChildFailure: ChildFailureHandler? = nil, @ProcedureBuilder _ children: () -> [Procedure]
    ) {
        self.init(
            name: name, children: children(), maxConcurrentCount: maxConcurrentCount, workload: workload,
            onChildFailure: onChildFailure)
    }

    /// Decides what a child's error does before the group finishes. The default asks the
    /// `onChildFailure` handler the group was made with, or fails. Override to decide in a
    /// subclass; called once per failed child, outside the group's locks.
    open func child(_ child: Procedure, didFailWith error: any Error) -> ChildFailureResponse {
        onChildFailure?(child, error) ?? .fail
    }

    /// Adds a child. Ignored once the group is finishing or finished.
    public final func addChild(_ child: Procedure) {
        addChildren([child])
    }

    /// Adds children, in order. Ignored once the group is finishing or finished.
    public final func addChildren(_ children: [Procedure]) {
        guard !children.isEmpty, state < .finishing else { return }
        let progress = group.withLock { state in
            state.outstanding += children.count
            for child in children { state.running[ObjectIdentifier(child)] = child }
            state.children.append(contentsOf: children)
            return state.startedProgress
        }
        if let progress { reportProgress(progress) }
        childQueue.addProcedures(children)
        if isCancelled { for child in children { child.cancel() } }
    }

    /// The children added so far, in the order they were added, finished ones included (as in
    /// ProcedureKit); dependencies their conditions produced are not children.
    public var children: [Procedure] { group.withLock { $0.children } }

    /// The children not finished yet, which the group waits for as for dependencies (cycle search).
    var unfinishedChildren: [Procedure] { group.withLock { Array($0.running.values) } }

    open override func execute() {
        let parent = storage.withLock { $0.queue }
        let scope = parent?.exclusivityScope ?? .root
        if let parent { childQueue.logger = parent.logger }
        childQueue.exclusivityScope = scope.nested(holding: exclusivityCategories)
        let progress = group.withLock { state in
            state.hasStarted = true
            return state.startedProgress
        }
        if let progress { reportProgress(progress) }
        childQueue.isSuspended = false
        finishIfDone()
    }

    open override func didCancel(with error: (any Error)?) {
        // With an error, so a child's observers can tell "never ran" from "done".
        childQueue.cancelAll(with: ProcedureError.groupCancelled(name, reason: error))
    }

    fileprivate func childDidFinish(_ child: Procedure) {
        // Dependencies produced by the children's conditions are not children.
        guard !child.storage.withLock({ $0.flags[.isProducedDependency] }) else { return }
        var error = child.error
        // A cancelled group is cancelled, not failed: its own cancellation of a child is no failure.
        if let own = error as? ProcedureError, own.code == .groupCancelled, isCancelled { error = nil }
        if let failure = error {
            switch self.child(child, didFailWith: failure) {
            case .fail:
                break
            case .ignore:
                error = nil
            case .replace(let replacements):
                // Added before the failed child is counted out, so the group cannot finish in between.
                addChildren(replacements)
                error = nil
            }
        }
        let progress = group.withLock { state in
            state.outstanding -= 1
            state.running[ObjectIdentifier(child)] = nil
            state.progress.childFinished(ObjectIdentifier(child))
            if let error { state.failures.append((child, error)) }
            return state.startedProgress
        }
        if let progress { reportProgress(progress) }
        finishIfDone()
    }

    /// A child's report, added up into the group's own (one from a child that already finished,
    /// or from a dependency a condition produced, is not counted).
    func childDidReportProgress(_ child: Procedure, _ progress: ProcedureProgress) {
        let total = group.withLock { state -> ProcedureProgress? in
            guard state.running[ObjectIdentifier(child)] != nil else { return nil }
            state.progress.child(ObjectIdentifier(child), reported: progress)
            return state.startedProgress
        }
        if let total { reportProgress(total) }
    }

    private func finishIfDone() {
        let failures = group.withLock { state -> [(child: Procedure, error: any Error)]? in
            guard state.hasStarted, state.outstanding == 0 else { return nil }
            // In the order the children were added, which is how a reader thinks of the steps (a
            // failed step's dependents finish, cancelled, before it is counted out).
            guard state.failures.count > 1 else { return state.failures }
            let order = Dictionary(
                state.children.enumerated().map { (ObjectIdentifier($1), $0) }, uniquingKeysWith: { first, _ in first })
            return state.failures.sorted {
                order[ObjectIdentifier($0.child), default: .max] < order[ObjectIdentifier($1.child), default: .max]
            }
        }
        guard let failures else { return }
        finish(
            with: failures.isEmpty
                ? nil : ProcedureError.childrenFailed(failures.map(\.error), children: failures.map(\.child.name)))
    }
}

private struct ChildTracker: ProcedureQueueObserver {
    weak var group: GroupProcedure?

    func queue(_ queue: ProcedureQueue, didFinish procedure: Procedure) {
        group?.childDidFinish(procedure)
    }
}

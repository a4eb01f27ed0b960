import Synchronization

/// A procedure made of child procedures, run on the group's own queue.
///
/// Children do not start (nor evaluate conditions) before the group executes. The group
/// finishes when every child has finished, including children added while it runs, and fails
/// with ``ProcedureError/childrenFailed(_:)`` when any child failed. Cancelling the group
/// cancels its children.
///
/// Exclusivity categories the group holds are arbitrated among its children by a nested scope,
/// so a child asking for its group's category waits for its siblings, never for the group.
open class GroupProcedure: Procedure, @unchecked Sendable {
    private struct State {
        var hasStarted = false
        var outstanding = 0
        var errors: [any Error] = []
        /// The children not finished yet, for the cycle search.
        var running: [ObjectIdentifier: Procedure] = [:]
        var children: [Procedure] = []
    }

    /// The queue the children run on. Suspended until the group executes.
    public let childQueue: ProcedureQueue
    private let group = Mutex(State())

    /// Creates a group.
    /// - Parameters:
    ///   - name: A name for messages.
    ///   - children: The first children.
    ///   - maxConcurrentCount: How many children may execute at once.
    public init(name: String? = nil, children: [Procedure] = [], maxConcurrentCount: Int = .max) {
        childQueue = ProcedureQueue(name: name, maxConcurrentCount: maxConcurrentCount, isSuspended: true)
        super.init(name: name)
        childQueue.addObserver(ChildTracker(group: self))
        addChildren(children)
    }

    /// Adds a child. Ignored once the group is finishing or finished.
    public final func addChild(_ child: Procedure) {
        addChildren([child])
    }

    /// Adds children, in order. Ignored once the group is finishing or finished.
    public final func addChildren(_ children: [Procedure]) {
        guard !children.isEmpty, state < .finishing else { return }
        group.withLock { state in
            state.outstanding += children.count
            for child in children { state.running[ObjectIdentifier(child)] = child }
            state.children.append(contentsOf: children)
        }
        childQueue.addProcedures(children)
        if isCancelled { for child in children { child.cancel() } }
    }

    /// The children added so far, in the order they were added, finished ones included (as in
    /// ProcedureKit); dependencies their conditions produced are not children.
    public var children: [Procedure] { group.withLock { $0.children } }

    /// The children not finished yet, which the group waits for as for dependencies (cycle search).
    var unfinishedChildren: [Procedure] { group.withLock { Array($0.running.values) } }

    open override func execute() {
        let scope = storage.withLock { $0.queue?.exclusivityScope } ?? .root
        childQueue.exclusivityScope = scope.nested(holding: exclusivityCategories)
        group.withLock { $0.hasStarted = true }
        childQueue.isSuspended = false
        finishIfDone()
    }

    open override func didCancel(with error: (any Error)?) {
        childQueue.cancelAll()
    }

    fileprivate func childDidFinish(_ child: Procedure) {
        // Dependencies produced by the children's conditions are not children.
        guard !child.storage.withLock({ $0.isProducedDependency }) else { return }
        let error = child.error
        group.withLock { state in
            state.outstanding -= 1
            state.running[ObjectIdentifier(child)] = nil
            if let error { state.errors.append(error) }
        }
        finishIfDone()
    }

    private func finishIfDone() {
        let errors = group.withLock { state -> [any Error]? in
            guard state.hasStarted, state.outstanding == 0 else { return nil }
            return state.errors
        }
        guard let errors else { return }
        finish(with: errors.isEmpty ? nil : ProcedureError.childrenFailed(errors))
    }
}

private struct ChildTracker: ProcedureQueueObserver {
    weak var group: GroupProcedure?

    func queue(_ queue: ProcedureQueue, didFinish procedure: Procedure) {
        group?.childDidFinish(procedure)
    }
}

import Synchronization

/// Finds dependency cycles when procedures are enqueued, so a cycle fails instead of hanging.
///
/// A procedure's dependencies are frozen once it is on a queue, so a cycle is complete when its
/// last member is enqueued; the search from that member finds it. The search walks only
/// enqueued, unfinished procedures and remembers ("seals") those whose whole dependency graph
/// is enqueued and acyclic: they can never join a later cycle, which keeps long chains linear.
enum DependencyCycleDetector {
    /// Serializes searches so two members of one cycle enqueued at once cannot both miss it.
    private static let searchLock = Mutex(())

    /// Checks the procedure just enqueued; on a cycle, finishes every member with a cycle error.
    static func check(_ start: Procedure) {
        let cycle: [Procedure]? = searchLock.withLock { _ in findCycle(from: start) }
        guard let cycle else { return }
        let error = ProcedureError.dependencyCycle(cycle.map(\.name))
        for member in cycle { member.finishWithoutExecuting(error: error) }
    }

    private enum Visit {
        /// Finished, on a known cycle, or sealed: nothing beyond can lead back.
        case closed
        /// Not enqueued yet: its dependencies may still change.
        case open
        case walk(ProcedureList)
    }

    private static func visit(_ procedure: Procedure) -> Visit {
        procedure.storage.withLock { state in
            if state.state >= .finishing || state.isOnDependencyCycle || state.isSealedAgainstCycles { return .closed }
            if state.state == .initialized { return .open }
            return .walk(state.dependencies)
        }
    }

    private static func isClosed(_ procedure: Procedure) -> Bool {
        if case .closed = visit(procedure) { return true }
        return false
    }

    private struct Frame {
        let procedure: Procedure
        let dependencies: ProcedureList
        var next = 0
        var reachesOpen = false
    }

    /// Depth-first search from `start` back to `start`. Called under the search lock.
    private static func findCycle(from start: Procedure) -> [Procedure]? {
        guard case .walk(let startDependencies) = visit(start) else { return nil }
        // The usual case, a dependency already known to be acyclic or finished, needs no search.
        if startDependencies.allSatisfy({ $0 !== start && isClosed($0) }) {
            start.storage.withLock { $0.isSealedAgainstCycles = true }
            return nil
        }
        var stack = [Frame(procedure: start, dependencies: startDependencies)]
        // Explored nodes, and whether they reach something not yet fixed (not enqueued, or a
        // cycle whose own check has not run yet): such nodes are not sealed.
        var explored: [ObjectIdentifier: Bool] = [:]
        var onStack: Set<ObjectIdentifier> = [ObjectIdentifier(start)]
        while !stack.isEmpty {
            let top = stack.count - 1
            guard stack[top].next < stack[top].dependencies.count else {
                let frame = stack.removeLast()
                onStack.remove(ObjectIdentifier(frame.procedure))
                explored[ObjectIdentifier(frame.procedure)] = frame.reachesOpen
                if frame.reachesOpen {
                    if !stack.isEmpty { stack[stack.count - 1].reachesOpen = true }
                } else {
                    frame.procedure.storage.withLock { $0.isSealedAgainstCycles = true }
                }
                continue
            }
            let dependency = stack[top].dependencies[stack[top].next]
            stack[top].next += 1
            if dependency === start {
                let members = stack.map(\.procedure)
                for member in members { member.storage.withLock { $0.isOnDependencyCycle = true } }
                return members
            }
            let id = ObjectIdentifier(dependency)
            if onStack.contains(id) {
                // A cycle that does not pass through `start`; the check of its last member reports it.
                stack[top].reachesOpen = true
                continue
            }
            if let reachesOpen = explored[id] {
                if reachesOpen { stack[top].reachesOpen = true }
                continue
            }
            switch visit(dependency) {
            case .closed:
                continue
            case .open:
                stack[top].reachesOpen = true
            case .walk(let dependencies):
                onStack.insert(id)
                stack.append(Frame(procedure: dependency, dependencies: dependencies))
            }
        }
        return nil
    }
}

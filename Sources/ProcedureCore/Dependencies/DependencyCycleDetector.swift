import Locking

/// Finds dependency cycles when procedures are enqueued, so a cycle fails instead of hanging.
///
/// A procedure's dependencies are frozen once it is on a queue, so a cycle is complete when its
/// last member is enqueued; the search from that member finds it. The search walks only
/// enqueued, unfinished procedures and remembers ("seals") those whose whole dependency graph
/// is enqueued and acyclic: they can never join a later cycle, which keeps long chains linear.
///
/// A group waits for its children, so its children count as its dependencies here: a child that
/// depends on something that depends on its group is a cycle. A group can gain children while it
/// runs, so neither it nor anything reaching it is sealed before it finishes; adding a child
/// enqueues it, and the child's own check finds a cycle it closes.
enum DependencyCycleDetector {
    /// Serializes searches so two members of one cycle enqueued at once cannot both miss it.
    private static let searchLock = Lock(())

    /// Checks the procedure just enqueued; on a cycle, finishes every member with a cycle error.
    static func check(_ start: Procedure) {
        let cycle: [Procedure]? = searchLock.withLock { _ in findCycle(from: start) }
        guard let cycle else { return }
        let error = ProcedureError.dependencyCycle(cycle.map(\.name))
        // A member already executing (a running group) finishes when the members it waits for do.
        for member in cycle { member.finishWithoutExecuting(error: error) }
        // A group on the cycle that never started lets its other children go.
        for case let group as GroupProcedure in cycle {
            group.childQueue.cancelAll(with: ProcedureError.groupCancelled(group.name, reason: error))
        }
    }

    private enum Visit {
        /// Finished, on a known cycle, or sealed: nothing beyond can lead back.
        case closed
        /// Not enqueued yet: its dependencies may still change.
        case open
        case walk(ProcedureList, contained: [Procedure])
    }

    private static func visit(_ procedure: Procedure) -> Visit {
        let visit = procedure.storage.withLock { state -> Visit in
            if state.state >= .finishing || state.flags[.isOnDependencyCycle] || state.flags[.isSealedAgainstCycles] {
                return .closed
            }
            if state.state == .initialized { return .open }
            return .walk(state.dependencies, contained: [])
        }
        guard case .walk(let dependencies, _) = visit, let group = procedure as? GroupProcedure else { return visit }
        return .walk(dependencies, contained: group.unfinishedChildren)
    }

    private static func isClosed(_ procedure: Procedure) -> Bool {
        if case .closed = visit(procedure) { return true }
        return false
    }

    private struct Frame {
        let procedure: Procedure
        let dependencies: ProcedureList
        /// A group's children, which it waits for as for dependencies.
        let contained: [Procedure]
        var next = 0
        /// A group can still gain children, so it is never sealed before it finishes.
        var reachesOpen: Bool

        init(procedure: Procedure, dependencies: ProcedureList, contained: [Procedure]) {
            self.procedure = procedure
            self.dependencies = dependencies
            self.contained = contained
            reachesOpen = procedure is GroupProcedure
        }

        var count: Int { dependencies.count + contained.count }
        subscript(index: Int) -> Procedure {
            index < dependencies.count ? dependencies[index] : contained[index - dependencies.count]
        }
    }

    /// Depth-first search from `start` back to `start`. Called under the search lock.
    private static func findCycle(from start: Procedure) -> [Procedure]? {
        guard case .walk(let startDependencies, let startContained) = visit(start) else { return nil }
        // A group is never sealed: it can gain children until it finishes.
        // The usual case, a dependency already known to be acyclic or finished, needs no search.
        if !(start is GroupProcedure), startDependencies.allSatisfy({ $0 !== start && isClosed($0) }) {
            start.storage.withLock { $0.markSealedAgainstCycles() }
            return nil
        }
        var stack = [Frame(procedure: start, dependencies: startDependencies, contained: startContained)]
        // Explored nodes, and whether they reach something not yet fixed (not enqueued, or a
        // cycle whose own check has not run yet): such nodes are not sealed.
        var explored: [ObjectIdentifier: Bool] = [:]
        var onStack: Set<ObjectIdentifier> = [ObjectIdentifier(start)]
        while !stack.isEmpty {
            let top = stack.count - 1
            guard stack[top].next < stack[top].count else {
                let frame = stack.removeLast()
                onStack.remove(ObjectIdentifier(frame.procedure))
                explored[ObjectIdentifier(frame.procedure)] = frame.reachesOpen
                if frame.reachesOpen {
                    if !stack.isEmpty { stack[stack.count - 1].reachesOpen = true }
                } else {
                    frame.procedure.storage.withLock { $0.markSealedAgainstCycles() }
                }
                continue
            }
            let dependency = stack[top][stack[top].next]
            stack[top].next += 1
            if dependency === start {
                let members = stack.map(\.procedure)
                for member in members { member.storage.withLock { $0.markOnDependencyCycle() } }
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
            case .walk(let dependencies, let contained):
                onStack.insert(id)
                stack.append(Frame(procedure: dependency, dependencies: dependencies, contained: contained))
            }
        }
        return nil
    }
}

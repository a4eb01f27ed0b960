import DequeModule

/// A queue's ready procedures: user-initiated ones first, then utility, then background, each
/// in the order they became ready. Guarded by the queue's lock.
///
/// Most queues only ever hold utility procedures, so that list is checked after one test of
/// the two others' counts, and costs what a single list did.
struct ReadyList {
    private var utility = Deque<Procedure>()
    private var userInitiated = Deque<Procedure>()
    private var background = Deque<Procedure>()
    /// How many are in the other two lists together.
    private var prioritized = 0

    var isEmpty: Bool { utility.isEmpty && prioritized == 0 }

    var count: Int { utility.count + prioritized }

    mutating func append(_ procedure: Procedure) {
        switch procedure.conditionReference.priority {
        case .utility:
            utility.append(procedure)
        case .userInitiated:
            userInitiated.append(procedure)
            prioritized += 1
        case .background:
            background.append(procedure)
            prioritized += 1
        }
    }

    mutating func append(contentsOf procedures: [Procedure]) {
        for procedure in procedures { append(procedure) }
    }

    /// The next procedure to run. The list must not be empty.
    mutating func removeFirst() -> Procedure {
        guard prioritized > 0 else { return utility.removeFirst() }
        if !userInitiated.isEmpty {
            prioritized -= 1
            return userInitiated.removeFirst()
        }
        if !utility.isEmpty { return utility.removeFirst() }
        prioritized -= 1
        return background.removeFirst()
    }
}

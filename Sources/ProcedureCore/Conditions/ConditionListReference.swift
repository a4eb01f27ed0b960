import Synchronization

/// A procedure's ``ConditionList``, held through one atomic word whose low bits carry two flags,
/// so that the worker taking the procedure from the ready list learns without the procedure's
/// lock whether it is to evaluate the conditions, and whether the procedure was cancelled before
/// it got there (then it does not evaluate them). That saves a worker one lock per conditioned
/// procedure. Two more bits hold the procedure's ``ProcedurePriority``, which its queue reads
/// without the lock as it files the procedure as ready (a field of its own would have grown every
/// procedure by 16 bytes).
///
/// Every write holds the procedure's lock, so writes never race one another; only the worker's
/// read is without it, and reads with acquiring order what the adding thread published.
struct ConditionListReference: ~Copyable {
    /// The list's address (retained by this reference) with the flags in its low bits: a
    /// `ManagedBuffer` is allocated 16-byte aligned, so the low four bits are free.
    private let word = Atomic<UInt>(0)

    private static let cancelled: UInt = 1
    private static let evaluatesOnWorker: UInt = 2
    /// 0 utility (the default, so a new word needs no setting), 1 background, 2 user-initiated.
    private static let priorityBits: UInt = 0b1100
    private static let flagBits: UInt = 0b1111

    init() {}

    deinit {
        Self.reference(in: word.load(ordering: .relaxed))?.release()
    }

    private static func reference(in word: UInt) -> Unmanaged<ConditionList>? {
        guard let address = UnsafeRawPointer(bitPattern: word & ~flagBits) else { return nil }
        return Unmanaged.fromOpaque(address)
    }

    // MARK: With the procedure's lock held

    /// Whether a condition was added.
    var isEmpty: Bool { word.load(ordering: .relaxed) & ~Self.flagBits == 0 }

    /// The list, or nil before the first condition.
    var list: ConditionList? { Self.reference(in: word.load(ordering: .relaxed))?.takeUnretainedValue() }

    /// Appends the condition `key` names (`condition` boxes it, called only when it is stored),
    /// replacing the list when it is shared or grows.
    func append(_ key: ConditionKey, _ condition: () -> any ProcedureCondition) {
        let current = word.load(ordering: .relaxed)
        let old = Self.reference(in: current)
        // In place when the list is the procedure's own and has room: no reference counting.
        if let old, old._withUnsafeGuaranteedRef({ $0.appendIfRoom(condition) }) { return }
        let list = Self.withOptionalGuaranteedRef(old) { old in
            SharedConditionLists.list(appending: key, condition, to: old)
                ?? Unmanaged.passRetained(ConditionList.appending(condition(), to: old))
        }
        let address = UInt(bitPattern: list.toOpaque())
        precondition(address & Self.flagBits == 0, "a condition list must be 16-byte aligned")
        word.store(address | (current & Self.flagBits), ordering: .releasing)
        // A shared single list goes back to this thread's cache, which hands it out again.
        if let old, !SharedConditionLists.takeBack(old) { old.release() }
    }

    private static func withOptionalGuaranteedRef<Result>(
        _ list: Unmanaged<ConditionList>?, _ body: (ConditionList?) -> Result
    ) -> Result {
        guard let list else { return body(nil) }
        return list._withUnsafeGuaranteedRef { body($0) }
    }

    /// Marks the procedure as one whose worker evaluates its plain conditions, or no longer.
    func setEvaluatesOnWorker(_ evaluates: Bool) {
        set(Self.evaluatesOnWorker, evaluates)
    }

    /// The procedure's priority. Set only before it is on a queue; read by the queue after it
    /// claimed the procedure (under the procedure's lock too), so a relaxed read sees it.
    var priority: ProcedurePriority {
        switch (word.load(ordering: .relaxed) & Self.priorityBits) >> 2 {
        case 1: .background
        case 2: .userInitiated
        default: .utility
        }
    }

    func setPriority(_ priority: ProcedurePriority) {
        let code: UInt =
            switch priority {
            case .utility: 0
            case .background: 1
            case .userInitiated: 2
            }
        let current = word.load(ordering: .relaxed)
        word.store((current & ~Self.priorityBits) | code << 2, ordering: .releasing)
    }

    /// Marks the procedure cancelled, so that a worker taking it does not evaluate its conditions.
    func markCancelled() {
        set(Self.cancelled, true)
    }

    private func set(_ flag: UInt, _ on: Bool) {
        let current = word.load(ordering: .relaxed)
        let updated = on ? current | flag : current & ~flag
        if updated != current { word.store(updated, ordering: .releasing) }
    }

    // MARK: Without the lock

    /// For the worker that took the procedure from the ready list: the list to evaluate, when
    /// that is its job and the procedure was not cancelled. Unretained: the procedure holds it.
    func listForWorker() -> Unmanaged<ConditionList>? {
        let current = word.load(ordering: .acquiring)
        guard current & (Self.evaluatesOnWorker | Self.cancelled) == Self.evaluatesOnWorker else { return nil }
        return Self.reference(in: current)
    }
}

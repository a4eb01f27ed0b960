/// A procedure's conditions and the answers of their last evaluation.
///
/// Most conditioned procedures have one or two plain conditions, checked once on a worker. The
/// list is kept small on purpose: two conditions take 120 bytes, within what glibc recycles from
/// its fast bins. Larger blocks, freed by the workers in bulk, are coalesced and handed back to
/// the system, and the next burst of procedures pays a page fault for every 4 KiB it takes back
/// (measured: with a list of 168 bytes a procedure with one condition took 1.45 times as long
/// as a bare one, with 96 bytes 1.30 times). So the answers are not kept beside the conditions:
/// answers that are just ``ConditionResult/satisfied(_:)`` with its default reason are not
/// stored at all, one satisfied answer with a reason of its own (a gate's "password accepted")
/// is kept in the header, and only more than that goes in an array the evaluating worker makes.
/// Checking borrows each condition where it lies instead of copying it: conditions are usually
/// shared by many procedures, and every copy is a reference count other threads contend for.
/// With compositions the tree has more leaves than the list has slots, so their answers are kept
/// by the procedure instead.
///
/// Thread safety follows the procedure's lifecycle rather than a lock of its own: conditions are
/// appended only under the procedure's lock before it is enqueued, and then never change. Answers
/// are written by the one evaluation a procedure gets; the procedure publishes them under its lock
/// (`ProcedureLifecycle.Flags.hasConditionResults`) and nobody reads them before that.
final class ConditionList: ManagedBuffer<ConditionList.Header, ConditionList.Slot> {
    // 24 bytes, so two slots still fit in 120 (the order matters: the index fills the answers'
    // spare byte). The capacity is not stored: lists start at two slots and double, so a list is
    // full exactly when its count is a power of two from two on.
    struct Header {
        var answers = Answers.defaults
        /// Which condition ``Answers/satisfied(_:)`` belongs to (only the first 256 are answered that way).
        var satisfiedIndex: UInt8 = 0
        var count: Int32 = 0
    }

    /// The answers of the last evaluation, in the smallest form that holds them: a gate's
    /// satisfied answer usually has a reason of its own, and an array for it would be a second
    /// allocation per procedure.
    enum Answers {
        /// Every condition answered ``ConditionResult/satisfied(_:)`` with its default reason.
        case defaults
        /// One condition (``Header/satisfiedIndex``) was satisfied with this reason, the others by default.
        case satisfied(String)
        /// One answer per condition.
        case listed([ConditionResult?])
    }

    /// Not copyable, so a condition in a slot is used where it lies.
    struct Slot: ~Copyable {
        let condition: any ProcedureCondition
    }

    /// Appends `condition` when the list has room. Returns false, changing nothing, when it is full.
    func appendIfRoom<Condition: ProcedureCondition>(_ condition: Condition) -> Bool {
        withUnsafeMutablePointers { header, slots in
            let count = Int(header.pointee.count)
            guard Self.hasRoom(count: count) else { return false }
            (slots + count).initialize(to: Slot(condition: condition))
            header.pointee.count += 1
            return true
        }
    }

    /// A new list holding `list`'s conditions (moved out of it) and then `condition`.
    static func appending<Condition: ProcedureCondition>(_ condition: Condition, to list: ConditionList?)
        -> ConditionList
    {
        let grown = grown(list)
        // Not `appendIfRoom`: a grown list's count is a power of two, which reads as full until
        // this condition takes the first new slot (see ``Header``).
        grown.withUnsafeMutablePointers { header, slots in
            (slots + Int(header.pointee.count)).initialize(to: Slot(condition: condition))
            header.pointee.count += 1
        }
        return grown
    }

    /// Whether a list holding `count` conditions has a free slot (see ``Header``).
    private static func hasRoom(count: Int) -> Bool {
        count < 2 || count & (count - 1) != 0
    }

    /// A list with twice the room of `list` (or two slots), holding its conditions.
    private static func grown(_ list: ConditionList?) -> ConditionList {
        let capacity = max(2, (list?.count ?? 0) * 2)
        let grown = unsafeDowncast(
            ConditionList.create(minimumCapacity: capacity) { _ in Header() }, to: ConditionList.self)
        guard let list else { return grown }
        grown.withUnsafeMutablePointers { header, slots in
            list.withUnsafeMutablePointers { oldHeader, oldSlots in
                slots.moveInitialize(from: oldSlots, count: Int(oldHeader.pointee.count))
                header.pointee.count = oldHeader.pointee.count
                oldHeader.pointee.count = 0
            }
        }
        return grown
    }

    deinit {
        _ = withUnsafeMutablePointers { header, slots in slots.deinitialize(count: Int(header.pointee.count)) }
    }

    var count: Int { withUnsafeMutablePointerToHeader { Int($0.pointee.count) } }

    var conditions: [any ProcedureCondition] {
        withUnsafeMutablePointers { header, slots in
            (0..<Int(header.pointee.count)).map { slots[$0].condition }
        }
    }

    /// The tree evaluation and explanations work on.
    func tree(containsCompositions: Bool) -> ConditionTree {
        ConditionTree(conditions: conditions, containsCompositions: containsCompositions)
    }

    // MARK: Answers

    /// The answers of plain conditions, one per condition.
    var results: [ConditionResult?] {
        withUnsafeMutablePointerToHeader { header in
            Self.expand(
                header.pointee.answers, count: Int(header.pointee.count),
                satisfiedIndex: Int(header.pointee.satisfiedIndex))
        }
    }

    /// Keeps the answers of plain conditions, one per condition.
    func store(_ results: [ConditionResult?]) {
        withUnsafeMutablePointerToHeader { $0.pointee.answers = .listed(results) }
    }

    /// The first phase for plain conditions: each condition is asked in order until one cannot
    /// answer at once. Returns nil when all were satisfied (their answers are stored), otherwise
    /// what was answered, for the evaluation that carries on from it.
    func checkImmediately(for procedure: Procedure) -> ConditionEvaluation.ImmediateCheck? {
        withUnsafeMutablePointers { header, slots in
            let count = Int(header.pointee.count)
            var answers = Answers.defaults
            var satisfiedIndex = 0
            var answered = 0
            var passed = true
            while answered < count, let result = Self.firstAnswer(of: slots[answered], for: procedure) {
                if result.verdict != .satisfied { passed = false }
                if case .listed(var results) = answers {
                    answers = .defaults
                    results.append(result)
                    answers = .listed(results)
                } else if !result.isDefaultSatisfied {
                    let fitsHeader = result.verdict == .satisfied && result.error == nil && answered <= UInt8.max
                    if case .defaults = answers, fitsHeader {
                        answers = .satisfied(result.reason)
                        satisfiedIndex = answered
                    } else {
                        // Made only when two answers have reasons of their own, or one did not pass.
                        var results = Self.expand(answers, count: answered, satisfiedIndex: satisfiedIndex)
                        results.reserveCapacity(count)
                        results.append(result)
                        answers = .listed(results)
                    }
                }
                answered += 1
            }
            if passed, answered == count {
                header.pointee.answers = answers
                header.pointee.satisfiedIndex = UInt8(truncatingIfNeeded: satisfiedIndex)
                return nil
            }
            var partial = Self.expand(answers, count: answered, satisfiedIndex: satisfiedIndex)
            partial.append(contentsOf: repeatElement(nil, count: count - answered))
            return ConditionEvaluation.ImmediateCheck(results: partial, firstUnchecked: answered)
        }
    }

    /// `answers` as an array of `count` answers.
    private static func expand(_ answers: Answers, count: Int, satisfiedIndex: Int) -> [ConditionResult?] {
        switch answers {
        case .listed(let results): return results
        case .defaults: return Array(repeating: .satisfied(), count: count)
        case .satisfied(let reason):
            var results: [ConditionResult?] = Array(repeating: .satisfied(), count: count)
            results[satisfiedIndex] = .satisfied(reason)
            return results
        }
    }

    /// A slot's first-phase answer. The slot is borrowed, so its condition is used where it lies.
    private static func firstAnswer(of slot: borrowing Slot, for procedure: Procedure) -> ConditionResult? {
        ConditionEvaluation.immediateAnswer(
            of: slot.condition, mayStayOpen: slot.condition.producesDependency, for: procedure)
    }
}

extension ConditionResult {
    /// Exactly ``satisfied(_:)`` with its default reason: not worth storing.
    fileprivate var isDefaultSatisfied: Bool { verdict == .satisfied && error == nil && reason == "satisfied" }
}

import CPlatform

/// A procedure's conditions and the answers of their last evaluation.
///
/// Most conditioned procedures have one or two plain conditions, the same for every procedure
/// of their kind, checked once on a worker. Their list is shared (``SharedConditionLists``): it
/// never changes and keeps no answers, since a list of its own per procedure, made on the
/// configuring thread and freed on a worker, was most of what a condition cost. A procedure
/// holding a shared list keeps its answers itself, only when they are not all the default:
/// answers that are just ``ConditionResult/satisfied(_:)`` with its default reason are not
/// stored at all; one satisfied answer with a reason of its own (a gate's "password accepted")
/// that is the list's ``CommonAnswer`` is a flag of the procedure; anything else goes in the
/// procedure's extras, as the answers of compositions do (their tree has more leaves than the
/// list has slots).
///
/// A procedure with more conditions, or with a condition too large to compare, has a list of
/// its own, which keeps its answers in its header in the same smallest forms.
/// Checking borrows each condition where it lies instead of copying it: conditions are usually
/// shared by many procedures, and every copy is a reference count other threads contend for.
///
/// Thread safety follows the procedure's lifecycle rather than a lock of its own: conditions are
/// appended only under the procedure's lock before it is enqueued, and then never change. Answers
/// are written by the one evaluation a procedure gets; the procedure publishes them under its lock
/// (`ProcedureLifecycle.Flags.hasConditionResults`) and nobody reads them before that.
final class ConditionList: ManagedBuffer<ConditionList.Header, ConditionList.Slot> {
    // The capacity is not stored: lists start at two slots and double, so a list of its own is
    // full exactly when its count is a power of two from two on.
    struct Header {
        var answers = Answers.defaults
        /// Which condition ``Answers/satisfied(_:)`` belongs to (only the first 256 are answered that way).
        var satisfiedIndex: UInt8 = 0
        /// Shared by procedures (``SharedConditionLists``): never changed, no answers kept.
        var isShared = false
        var count: Int32 = 0
        /// In a shared list, the first satisfied answer with a reason of its own that a
        /// procedure kept (a retained ``CommonAnswer``, set once): the procedures whose answer
        /// is the same only say so (a gate's procedures mostly share their status's reason).
        var commonAnswer: UnsafeMutableRawPointer?
    }

    /// An answer that procedures sharing a list share too.
    final class CommonAnswer {
        let index: Int
        let reason: String
        init(index: Int, reason: String) { (self.index, self.reason) = (index, reason) }
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

    /// Appends the condition `condition` boxes when the list is a procedure's own and has room.
    /// Returns false, changing nothing (and boxing nothing), otherwise.
    func appendIfRoom(_ condition: () -> any ProcedureCondition) -> Bool {
        withUnsafeMutablePointers { header, slots in
            let count = Int(header.pointee.count)
            guard !header.pointee.isShared, Self.hasRoom(count: count) else { return false }
            (slots + count).initialize(to: Slot(condition: condition()))
            header.pointee.count += 1
            return true
        }
    }

    /// A new list holding `list`'s conditions (moved out of it, or copied when it is shared) and
    /// then `condition`.
    static func appending(_ condition: any ProcedureCondition, to list: ConditionList?) -> ConditionList {
        let grown = grown(list)
        // Not `appendIfRoom`: a grown list's count is a power of two, which reads as full until
        // this condition takes the first new slot (see ``Header``).
        grown.withUnsafeMutablePointers { header, slots in
            (slots + Int(header.pointee.count)).initialize(to: Slot(condition: condition))
            header.pointee.count += 1
        }
        return grown
    }

    /// A new shared list holding `list`'s conditions (copied) and then `condition`.
    static func shared(appending condition: any ProcedureCondition, to list: ConditionList?) -> ConditionList {
        let made = appending(condition, to: list)
        made.withUnsafeMutablePointerToHeader { $0.pointee.isShared = true }
        return made
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
                let count = Int(oldHeader.pointee.count)
                if oldHeader.pointee.isShared {
                    for index in 0..<count {
                        (slots + index).initialize(to: Slot(condition: oldSlots[index].condition))
                    }
                } else {
                    slots.moveInitialize(from: oldSlots, count: count)
                    oldHeader.pointee.count = 0
                }
                header.pointee.count = Int32(count)
            }
        }
        return grown
    }

    deinit {
        _ = withUnsafeMutablePointers { header, slots in
            if let common = header.pointee.commonAnswer { Unmanaged<CommonAnswer>.fromOpaque(common).release() }
            return slots.deinitialize(count: Int(header.pointee.count))
        }
    }

    var count: Int { withUnsafeMutablePointerToHeader { Int($0.pointee.count) } }

    var isShared: Bool { withUnsafeMutablePointerToHeader { $0.pointee.isShared } }

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

    /// The answers of plain conditions, one per condition: those kept in the list, or, for a
    /// procedure whose answer was the shared list's common one (`common`), that one.
    func results(common: Bool) -> [ConditionResult?] {
        withUnsafeMutablePointerToHeader { header in
            let count = Int(header.pointee.count)
            if common, let answer = cplatform_load_acquiring(Self.commonAnswerWord(header)) {
                let common = Unmanaged<CommonAnswer>.fromOpaque(answer).takeUnretainedValue()
                return Self.expand(.satisfied(common.reason), count: count, satisfiedIndex: common.index)
            }
            return Self.expand(header.pointee.answers, count: count, satisfiedIndex: Int(header.pointee.satisfiedIndex))
        }
    }

    /// Whether `reason` at `index` is this shared list's common answer, making it so when the
    /// list has none yet.
    private static func isCommonAnswer(
        _ reason: String, at index: Int, in header: UnsafeMutablePointer<Header>
    ) -> Bool {
        let word = commonAnswerWord(header)
        var common = cplatform_load_acquiring(word)
        if common == nil {
            let made = Unmanaged.passRetained(CommonAnswer(index: index, reason: reason)).toOpaque()
            common = cplatform_set_once(word, made)
            // Another procedure's answer came first.
            if common != made { Unmanaged<CommonAnswer>.fromOpaque(made).release() }
        }
        guard let common else { return false }
        // Not retained: the list holds it until it goes, and every worker of every procedure
        // sharing the list reads it, so a count of its own would be one cache line they all write.
        return Unmanaged<CommonAnswer>.fromOpaque(common)._withUnsafeGuaranteedRef { answer in
            answer.index == index && answer.reason == reason
        }
    }

    /// The common answer's word, reached without an inout access: several workers may be at it
    /// at once, and every access to it is atomic.
    private static func commonAnswerWord(_ header: UnsafeMutablePointer<Header>)
        -> UnsafeMutablePointer<UnsafeMutableRawPointer?>
    {
        let offset = MemoryLayout<Header>.offset(of: \.commonAnswer)!
        return (UnsafeMutableRawPointer(header) + offset).assumingMemoryBound(to: UnsafeMutableRawPointer?.self)
    }

    /// Keeps the answers of plain conditions, one per condition, in a list that is not shared.
    func store(_ results: [ConditionResult?]) {
        withUnsafeMutablePointerToHeader { header in
            precondition(!header.pointee.isShared, "answers stored in a shared condition list")
            header.pointee.answers = .listed(results)
        }
    }

    /// What the first phase found.
    enum FirstPhase {
        /// Every condition was satisfied, and their answers are kept: in the list, or, when it
        /// is shared, nowhere, since they are all the default.
        case passed
        /// Every condition was satisfied, with the shared list's common answer.
        case passedWithCommonAnswer
        /// Every condition was satisfied, but the list is shared and not every answer is the
        /// default or the common one: the procedure is to keep these.
        case passedWithAnswers([ConditionResult?])
        /// Not decided at once: what was answered, for the evaluation that carries on from it.
        case undecided(ConditionEvaluation.ImmediateCheck)
    }

    /// The first phase for plain conditions: each condition is asked in order until one cannot
    /// answer at once.
    func checkImmediately(for procedure: Procedure) -> FirstPhase {
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
                if !header.pointee.isShared {
                    header.pointee.answers = answers
                    header.pointee.satisfiedIndex = UInt8(truncatingIfNeeded: satisfiedIndex)
                } else if case .defaults = answers {
                } else if case .satisfied(let reason) = answers,
                    Self.isCommonAnswer(reason, at: satisfiedIndex, in: header)
                {
                    return .passedWithCommonAnswer
                } else {
                    return .passedWithAnswers(Self.expand(answers, count: count, satisfiedIndex: satisfiedIndex))
                }
                return .passed
            }
            var partial = Self.expand(answers, count: answered, satisfiedIndex: satisfiedIndex)
            partial.append(contentsOf: repeatElement(nil, count: count - answered))
            return .undecided(ConditionEvaluation.ImmediateCheck(results: partial, firstUnchecked: answered))
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

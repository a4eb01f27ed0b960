/// A procedure's conditions, each beside the answer of its last evaluation, in one allocation.
///
/// Most conditioned procedures have one or two plain conditions, checked once on a worker. Keeping
/// the answers next to the conditions spares that path a second allocation, and checking through
/// the slots borrows each condition instead of copying it (conditions are usually shared by many
/// procedures, so every copy would be a reference count other threads contend for).
///
/// Thread safety follows the procedure's lifecycle rather than a lock of its own: conditions are
/// appended only under the procedure's lock before it is enqueued, and then never change. Answers
/// are written by the one evaluation a procedure gets; the procedure publishes them under its lock
/// (``Procedure/Storage/Flags/hasConditionResults``) and nobody reads them before that.
final class ConditionList: ManagedBuffer<ConditionList.Header, ConditionList.Slot> {
    struct Header {
        var count = 0
        var capacity: Int
        /// Some condition is an AllOf, AnyOf, Negated or Silent: evaluation goes through a tree.
        var containsCompositions = false
        /// With compositions, the tree's leaves outnumber the slots: their answers are kept here.
        var treeResults: [ConditionResult?] = []
    }

    /// Not copyable, so a condition in a slot is used where it lies: a copy of a condition
    /// shared by many procedures would be a reference count other threads contend for.
    struct Slot: ~Copyable {
        let condition: any ProcedureCondition
        var result: ConditionResult?
    }

    /// Appends `condition` to `list`, creating or growing it when it has no room.
    static func append(
        _ condition: consuming any ProcedureCondition, isComposed: Bool, to list: inout ConditionList?
    ) {
        let hasRoom = list?.withUnsafeMutablePointerToHeader { $0.pointee.count < $0.pointee.capacity } ?? false
        if !hasRoom { list = grown(list) }
        // Taken inside the closure, so the condition is moved rather than copied: a condition
        // shared by many procedures would pay a contended reference count for every copy.
        var slot: Slot? = Slot(condition: condition, result: nil)
        list?.withUnsafeMutablePointers { header, slots in
            (slots + header.pointee.count).initialize(to: slot.take()!)
            header.pointee.count += 1
            if isComposed { header.pointee.containsCompositions = true }
        }
    }

    /// A list with twice the room of `list` (or two slots), holding its conditions.
    private static func grown(_ list: ConditionList?) -> ConditionList {
        let capacity = max(2, (list?.count ?? 0) * 2)
        let grown = unsafeDowncast(
            ConditionList.create(minimumCapacity: capacity) { _ in Header(capacity: capacity) },
            to: ConditionList.self)
        guard let list else { return grown }
        grown.withUnsafeMutablePointers { header, slots in
            list.withUnsafeMutablePointers { oldHeader, oldSlots in
                slots.moveInitialize(from: oldSlots, count: oldHeader.pointee.count)
                header.pointee.count = oldHeader.pointee.count
                header.pointee.containsCompositions = oldHeader.pointee.containsCompositions
                oldHeader.pointee.count = 0
            }
        }
        return grown
    }

    deinit {
        _ = withUnsafeMutablePointers { header, slots in slots.deinitialize(count: header.pointee.count) }
    }

    var count: Int { withUnsafeMutablePointerToHeader { $0.pointee.count } }
    var containsCompositions: Bool { withUnsafeMutablePointerToHeader { $0.pointee.containsCompositions } }

    var conditions: [any ProcedureCondition] {
        withUnsafeMutablePointers { header, slots in
            (0..<header.pointee.count).map { slots[$0].condition }
        }
    }

    /// The tree evaluation and explanations work on.
    var tree: ConditionTree { ConditionTree(conditions: conditions, containsCompositions: containsCompositions) }

    // MARK: Answers

    /// The answers stored by ``store(_:)``, one per leaf of ``tree``.
    var results: [ConditionResult?] {
        withUnsafeMutablePointers { header, slots in
            if header.pointee.containsCompositions { return header.pointee.treeResults }
            return (0..<header.pointee.count).map { slots[$0].result }
        }
    }

    /// Keeps an evaluation's answers, one per leaf of ``tree``.
    func store(_ results: [ConditionResult?]) {
        withUnsafeMutablePointers { header, slots in
            if header.pointee.containsCompositions {
                header.pointee.treeResults = results
                return
            }
            for index in 0..<min(header.pointee.count, results.count) { slots[index].result = results[index] }
        }
    }

    /// The first phase for plain conditions, answered in place: each condition is asked in
    /// order until one cannot answer at once. Returns true when all were satisfied; otherwise
    /// ``firstCheck`` carries on from what was answered.
    func checkImmediately(for procedure: Procedure) -> Bool {
        withUnsafeMutablePointers { header, slots in
            var passed = true
            for index in 0..<header.pointee.count {
                guard let result = Self.firstAnswer(of: slots[index], for: procedure) else { return false }
                if result.verdict != .satisfied { passed = false }
                slots[index].result = result
            }
            return passed
        }
    }

    /// A slot's first-phase answer, normalized, or nil when it needs a completion handler.
    /// The slot is borrowed, so its condition is used where it lies.
    private static func firstAnswer(of slot: borrowing Slot, for procedure: Procedure) -> ConditionResult? {
        let mayStay = slot.condition.producesDependency
        let context = ConditionContext(mayInteractLater: mayStay)
        guard
            let result = ConditionEvaluation.deferredResult(slot.condition, mayStay)
                ?? slot.condition.evaluateImmediately(for: procedure, context: context)
        else { return nil }
        return ConditionTree.normalize(result, mayStayOpen: mayStay)
    }

    /// What ``checkImmediately(for:)`` answered, for the evaluation that carries on from it.
    var firstCheck: ConditionEvaluation.ImmediateCheck {
        withUnsafeMutablePointers { header, slots in
            var results: [ConditionResult?] = []
            results.reserveCapacity(header.pointee.count)
            for index in 0..<header.pointee.count { results.append(slots[index].result) }
            return ConditionEvaluation.ImmediateCheck(
                results: results, firstUnchecked: results.firstIndex { $0 == nil } ?? results.count)
        }
    }
}

import CPlatform
import Locking

/// Condition lists shared by the procedures one thread gives the same conditions, so that the
/// usual procedure (one or two conditions, the same for every procedure of its kind) allocates
/// no list of its own.
///
/// A list of its own per procedure was the main cost of a condition: made on the thread that
/// configures procedures and freed on the worker that finishes them, it sent every free to
/// another thread's heap (measured: sharing the list brought the adding phase of a conditioned
/// procedure down to that of a bare one). A shared list is immutable: it holds no answers (a
/// procedure keeps answers that are not the default itself, see ``ConditionList``), and adding
/// a condition to a procedure holding one gives the procedure another list.
///
/// Each thread remembers the last list of one condition it made, and the last list of two that
/// extends it. A condition matches when it is of the same type with the same bits: a value of a
/// type is determined by its bits (references included, and the remembered list keeps what they
/// refer to alive, so an address cannot be reused meanwhile), so the procedures get exactly the
/// value they were given. A condition too large for an existential's inline buffer is boxed
/// anew for every list, never matches, and costs what it did before.
///
/// The price: a thread keeps the last one or two conditions it added alive until it adds others
/// or exits, after the procedures that used them are gone (Semantics.md, rule 14); an exited
/// thread's are released by the next thread that starts lists of its own, never by the exit.
final class SharedConditionLists {
    private var single: ConditionList?
    private var singleKey: ConditionKey?
    /// References to ``single`` that procedures gave back when a second condition moved them to
    /// ``pair``, handed out again instead of new ones: a procedure with two conditions then
    /// counts one reference (its pair's) rather than three (the single's, the pair's, and the
    /// single's release). Each is a reference held, released when the single is replaced or the
    /// thread exits.
    private var singleCredits = 0
    /// The single list that ``pair`` extends, retained, so that comparing identities is sound.
    private var pairBase: ConditionList?
    private var pair: ConditionList?
    private var pairKey: ConditionKey?

    private init() {}

    deinit {
        releaseCredits()
    }

    private func releaseCredits() {
        guard let single else { return }
        for _ in 0..<singleCredits { Unmanaged.passUnretained(single).release() }
        singleCredits = 0
    }

    /// This thread's lists, unretained: the thread holds them until it exits.
    private static var current: Unmanaged<SharedConditionLists> {
        if let cache = cplatform_thread_cache() { return Unmanaged.fromOpaque(cache) }
        releaseRetired()
        let cache = Unmanaged.passRetained(SharedConditionLists())
        cplatform_set_thread_cache(cache.toOpaque()) { cache in
            guard let cache else { return }
            SharedConditionLists.retired.withLock { $0.append(UInt(bitPattern: cache)) }
        }
        return cache
    }

    /// The lists of threads that have exited (their addresses), released by the next thread that
    /// makes lists of its own. Releasing them as the thread exits would run the conditions'
    /// deinits in a pthread key's destructor, after libdispatch has torn the thread's state down:
    /// a deinit that enqueued work (a task, a dispatch block) made libdispatch set its state up
    /// again and free its cache a second time when the thread ended (a double free, seen as a
    /// test process's crash).
    private static let retired = Lock<[UInt]>([])

    private static func releaseRetired() {
        let addresses = retired.withLock { retired in
            defer { retired = [] }
            return retired
        }
        for address in addresses {
            guard let pointer = UnsafeRawPointer(bitPattern: address) else { continue }
            Unmanaged<SharedConditionLists>.fromOpaque(pointer).release()
        }
    }

    /// A shared list holding `list`'s conditions and then the condition `key` names (`condition`
    /// boxes it, called only when a list is made), retained for the caller, or nil when the
    /// result is not to be shared (more than two conditions, a condition too large to compare,
    /// or `list` is a procedure's own).
    static func list(
        appending key: ConditionKey, _ condition: () -> any ProcedureCondition, to list: ConditionList?
    ) -> Unmanaged<ConditionList>? {
        guard key.bits != nil else { return nil }
        return current._withUnsafeGuaranteedRef { lists in
            guard let list else { return lists.single(condition, key) }
            guard list.isShared, list.count == 1 else { return nil }
            return lists.pair(extending: list, with: condition, key)
        }
    }

    private func single(_ condition: () -> any ProcedureCondition, _ key: ConditionKey) -> Unmanaged<ConditionList> {
        if let single, singleKey == key {
            guard singleCredits > 0 else { return Unmanaged.passRetained(single) }
            singleCredits -= 1
            return Unmanaged.passUnretained(single)
        }
        releaseCredits()
        let made = ConditionList.shared(appending: condition(), to: nil)
        (single, singleKey) = (made, key)
        return Unmanaged.passRetained(made)
    }

    /// Takes over a procedure's reference to `list` when it is this thread's single list (the
    /// procedure moved on to a pair); returns false, taking nothing, otherwise.
    static func takeBack(_ list: Unmanaged<ConditionList>) -> Bool {
        guard let cache = cplatform_thread_cache() else { return false }
        return Unmanaged<SharedConditionLists>.fromOpaque(cache)._withUnsafeGuaranteedRef { lists in
            guard let single = lists.single, Unmanaged.passUnretained(single).toOpaque() == list.toOpaque() else {
                return false
            }
            lists.singleCredits += 1
            return true
        }
    }

    private func pair(
        extending base: ConditionList, with condition: () -> any ProcedureCondition, _ key: ConditionKey
    ) -> Unmanaged<ConditionList> {
        if let pair, pairBase === base, pairKey == key { return Unmanaged.passRetained(pair) }
        let made = ConditionList.shared(appending: condition(), to: base)
        (pairBase, pair, pairKey) = (base, made, key)
        return Unmanaged.passRetained(made)
    }
}

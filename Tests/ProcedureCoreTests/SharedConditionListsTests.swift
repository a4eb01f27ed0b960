import Glibc
import Synchronization
import Testing

@testable import ProcedureCore

/// Procedures given the same conditions share one list of them (SharedConditionLists); each
/// still has answers of its own, and a condition is shared only when it is the same value.
@Suite(.timeLimit(.minutes(2)))
struct SharedConditionListsTests {
    private func list(of procedure: Procedure) -> ConditionList? {
        procedure.storage.withLock { _ in procedure.conditionReference.list }
    }

    private func names(of procedure: Procedure) -> [String] {
        procedure.conditions.map(\.name)
    }

    @Test("procedures given the same condition share one list; another value, or a third condition, gives another")
    func sameValueSharesTheList() throws {
        let first = BlockCondition(name: "first") { _ in true }
        let second = BlockCondition(name: "second") { _ in true }
        let one = BlockProcedure {}
        let two = BlockProcedure {}
        one.addCondition(first)
        two.addCondition(first)
        let shared = try #require(list(of: one))
        #expect(shared.isShared)
        #expect(list(of: two) === shared)

        // Same type, other bits (another closure box): not the same value.
        let other = BlockProcedure {}
        other.addCondition(second)
        #expect(list(of: other) !== list(of: one))
        #expect(names(of: other) == ["second"])

        let pairs = [BlockProcedure {}, BlockProcedure {}]
        for procedure in pairs {
            procedure.addCondition(first)
            procedure.addCondition(second)
        }
        let pair = try #require(list(of: pairs[0]))
        #expect(pair.isShared)
        #expect(list(of: pairs[1]) === pair)
        #expect(names(of: pairs[0]) == ["first", "second"])

        let three = BlockProcedure {}
        three.addCondition(first)
        three.addCondition(second)
        three.addCondition(first)
        let own = try #require(list(of: three))
        #expect(!own.isShared)
        #expect(names(of: three) == ["first", "second", "first"])
        // The shared pair was copied, not taken apart.
        #expect(names(of: pairs[1]) == ["first", "second"])
    }

    /// Four words: an existential boxes it, so its bits cannot be compared.
    private struct Wide: SynchronousCondition {
        var name: String { "wide" }
        let values: (Int, Int, Int, Int) = (1, 2, 3, 4)
        func evaluate(for procedure: Procedure, context: ConditionContext) -> ConditionResult { .satisfied() }
    }

    @Test("a condition larger than three words is never shared: each procedure has a list of its own")
    func wideConditionsAreNotShared() async throws {
        let condition = Wide()
        let procedures = [BlockProcedure {}, BlockProcedure {}]
        for procedure in procedures { procedure.addCondition(condition) }
        let lists = procedures.map { list(of: $0) }
        #expect(lists[0] !== lists[1])
        #expect(lists.allSatisfy { $0?.isShared == false })
        let queue = ProcedureQueue()
        queue.addProcedures(procedures)
        await queue.waitUntilAllFinished()
        #expect(
            procedures.allSatisfy { $0.error == nil && $0.conditionExplanation?.children.first?.reason == "satisfied" })
    }

    @Test(
        "on a shared list each procedure keeps its own answers: the default, the common reason, another reason, a failure",
        arguments: [false, true])
    func answersStayEachProcedures(afterAnotherCondition: Bool) async throws {
        // What the gate answers depends on the procedure, as a capability's status may.
        let gate = BlockCondition(name: "gate") { procedure in
            switch procedure.name {
            case "other": .satisfied("kept for this session")
            case "denied": .failed("not a member")
            case "plain": .satisfied()
            default: .satisfied("password accepted")
            }
        }
        let first = BlockCondition(name: "first") { _ in true }
        let names = ["a", "b", "other", "c", "denied", "plain", "d"]
        let procedures = names.map { BlockProcedure(name: $0) {} }
        for procedure in procedures {
            if afterAnotherCondition { procedure.addCondition(first) }
            procedure.addCondition(gate)
        }
        let shared = try #require(list(of: procedures[0]))
        #expect(shared.isShared)
        #expect(procedures.allSatisfy { list(of: $0) === shared })

        let queue = ProcedureQueue()
        queue.addProcedures(procedures)
        await queue.waitUntilAllFinished()
        let expected = [
            "a": "password accepted", "b": "password accepted", "other": "kept for this session",
            "c": "password accepted", "denied": "not a member", "plain": "satisfied", "d": "password accepted",
        ]
        for procedure in procedures {
            let explanation = try #require(procedure.conditionExplanation)
            let reasons = explanation.children.map(\.reason)
            let gateReason = try #require(expected[procedure.name])
            #expect(reasons == (afterAnotherCondition ? ["satisfied", gateReason] : [gateReason]), "\(procedure.name)")
            #expect((procedure.error != nil) == (procedure.name == "denied"), "\(procedure.name)")
        }
    }

    private final class Token: Sendable {}

    @Test("the thread keeps the last condition it added alive only until it adds another")
    func keptUntilTheThreadAddsAnother() {
        // No suspension in this test: it runs on one thread, whose lists these are.
        weak var released: Token?
        do {
            let token = Token()
            released = token
            let procedure = BlockProcedure {}
            procedure.addCondition(
                BlockCondition(name: "holds the token") { _ in withExtendedLifetime(token) { true } })
        }
        // The procedure is gone; the thread's list still holds the condition (Semantics.md, rule 14).
        #expect(released != nil)
        BlockProcedure {}.addCondition(BlockCondition(name: "another") { _ in true })
        #expect(released == nil)
    }

    /// The kernel's id of the calling thread ("PID/task/TID" is where /proc/thread-self points).
    private static func threadID() -> String {
        var link = [CChar](repeating: 0, count: 64)
        let length = readlink("/proc/thread-self", &link, link.count - 1)
        return String(decoding: link.prefix(max(length, 0)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// A thread's id, written on one thread and read on another.
    private final class ThreadRecord: Sendable {
        private let id = Mutex<String?>(nil)
        func record() { id.withLock { $0 = SharedConditionListsTests.threadID() } }
        var recorded: String? { id.withLock { $0 } }
    }

    /// Records the thread its deinit runs on.
    private final class Witness: Sendable {
        let releasedOn: ThreadRecord
        init(_ releasedOn: ThreadRecord) { self.releasedOn = releasedOn }
        deinit { releasedOn.record() }
    }

    /// Runs `body` on a thread of its own and returns once that thread has ended (its pthread
    /// keys' destructors included).
    private func onThreadThatEnds(_ body: @escaping @Sendable () -> Void) throws {
        final class Work {
            let body: @Sendable () -> Void
            init(_ body: @escaping @Sendable () -> Void) { self.body = body }
        }
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { context in
                Unmanaged<Work>.fromOpaque(context!).takeRetainedValue().body()
                return nil
            }, Unmanaged.passRetained(Work(body)).toOpaque())
        try #require(status == 0)
        pthread_join(thread, nil)
    }

    @Test(
        "a thread's exit runs no condition's deinit on that thread: the next thread that starts lists releases what it kept"
    )
    func exitedThreadsListsReleasedElsewhere() throws {
        let releasedOn = ThreadRecord()
        let exited = ThreadRecord()
        try onThreadThatEnds {
            exited.record()
            let witness = Witness(releasedOn)
            BlockProcedure {}.addCondition(
                BlockCondition(name: "holds the witness") { _ in withExtendedLifetime(witness) { true } })
        }
        // A deinit in the exit's destructor may enqueue work after libdispatch has cleaned the
        // thread up (it crashed the test process with a double free); another thread releases it.
        #expect(releasedOn.recorded != exited.recorded)
        // A new thread's first list releases every list of threads that have ended before it.
        try onThreadThatEnds { BlockProcedure {}.addCondition(BlockCondition(name: "another") { _ in true }) }
        let released = releasedOn.recorded
        #expect(released != nil, "the ended thread's list was never released")
        #expect(released != exited.recorded && exited.recorded?.contains("/task/") == true, "\(exited.recorded ?? "")")
    }

    @Test("a single list given back for a pair is handed out again, and every reference to it is released")
    func singleGivenBackIsReleased() throws {
        // One thread throughout, as above.
        weak var released: Token?
        do {
            let token = Token()
            released = token
            let first = BlockCondition(name: "holds the token") { _ in withExtendedLifetime(token) { true } }
            let second = BlockCondition(name: "second") { _ in true }
            let lone = BlockProcedure {}
            lone.addCondition(first)
            let single = try #require(list(of: lone))
            var procedures: [BlockProcedure] = []
            for _ in 0..<5 {
                let procedure = BlockProcedure {}
                procedure.addCondition(first)
                // The single list the pair extends, handed out again each time, is still one list.
                #expect(list(of: procedure) === single)
                procedure.addCondition(second)
                procedures.append(procedure)
            }
            #expect(single.isShared && single.count == 1)
            #expect(procedures.allSatisfy { list(of: $0)?.count == 2 && list(of: $0) === list(of: procedures[0]) })
            #expect(procedures.allSatisfy { names(of: $0) == ["holds the token", "second"] })
        }
        // The last procedure's reference to the single list is the thread's now.
        #expect(released != nil)
        // Another single and another pair replace both lists: no reference the thread took back is left.
        let other = BlockProcedure {}
        other.addCondition(BlockCondition(name: "another") { _ in true })
        other.addCondition(BlockCondition(name: "and another") { _ in true })
        #expect(released == nil)
    }
}

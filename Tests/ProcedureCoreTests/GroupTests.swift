import TestSupport
import Testing

@testable import ProcedureCore

/// Semantics rule 30 (groups) and 31 (result injection).
@Suite(.timeLimit(.minutes(2)))
struct GroupTests {
    @Test("30: children lists every child in the order added, including those added while running")
    func childrenAreListed() async {
        let first = BlockProcedure(name: "first") {}
        let second = BlockProcedure(name: "second") {}
        let group = GroupProcedure(name: "group", children: [first, second])
        let late = BlockProcedure(name: "late") {}
        first.addWillExecuteBlockObserver { _ in group.addChild(late) }
        await run(group)
        #expect(group.children.map(\.name) == ["first", "second", "late"])
        #expect(group.children.allSatisfy { $0.isFinished })
    }

    @Test("30: children do not start, nor evaluate conditions, before the group executes")
    func childrenWaitForGroup() async {
        let gate = ManualProcedure(name: "gate")
        let condition = ScriptedCondition("c", answer: .satisfied)
        let child = BlockProcedure(name: "child") {}
        child.addCondition(condition)
        let group = GroupProcedure(children: [child])
        group.addDependency(gate)
        let queue = ProcedureQueue()
        queue.addProcedures([group, gate])
        await gate.started.wait()
        #expect(condition.evaluations.count == 0)
        #expect(child.state == .pending)
        gate.finish()
        await group.waitUntilFinished()
        #expect(child.isFinished && condition.evaluations.count == 1)
    }

    @Test("30: a group finishes after every child, including children added while it runs")
    func childrenAddedLater() async {
        let log = EventLog()
        let group = GroupProcedure(name: "group")
        let late = BlockProcedure(name: "late") { log.record("late") }
        let first = BlockProcedure(name: "first") {
            log.record("first")
            group.addChild(late)
        }
        group.addChild(first)
        group.addObserver(BlockObserver(didFinish: { _, _ in log.record("group") }))
        await run(group)
        #expect(log.all == ["first", "late", "group"])
    }

    @Test("30: a group reports its children's errors and cancels its children when cancelled")
    func errorsAndCancellation() async {
        let failing = GroupProcedure(children: [
            BlockProcedure { throw TestError("one") }, BlockProcedure {}, BlockProcedure { throw TestError("two") },
        ])
        await run(failing)
        guard let error = failing.error as? ProcedureError, error.code == .childrenFailed else {
            Issue.record("expected childrenFailed, got \(String(describing: failing.error))")
            return
        }
        #expect(Set(error.underlying.compactMap { ($0 as? TestError)?.message }) == ["one", "two"])

        let running = ManualProcedure(name: "running")
        let group = GroupProcedure(children: [running])
        let queue = ProcedureQueue()
        queue.addProcedure(group)
        await running.started.wait()
        group.cancel()
        await running.cancelled.wait()
        running.finish()
        await group.waitUntilFinished()
        #expect(group.isCancelled && running.isCancelled)
    }

    @Test("an empty group finishes at once")
    func emptyGroup() async {
        let group = GroupProcedure()
        await run(group)
        #expect(group.isFinished && group.error == nil)
    }

    @Test("31: a procedure takes its input from a dependency's output")
    func injection() async throws {
        let fetch = AsyncProcedure(name: "fetch") { "payload" }
        let parse = AsyncProcedure(inputFrom: fetch) { (text: String) in text.count }
        let queue = ProcedureQueue()
        queue.addProcedures([parse, fetch])
        #expect(try await parse.value() == 7)
    }

    @Test("31: if the dependency failed or was cancelled, the receiver is cancelled with an error saying so")
    func injectionFromFailure() async {
        let ran = Counter()
        let fetch = AsyncProcedure<String>(name: "fetch") { throw TestError("offline") }
        let parse = AsyncProcedure(inputFrom: fetch) { (text: String) -> Int in
            ran.increment()
            return text.count
        }
        let cancelledFetch = AsyncProcedure(name: "cancelled fetch") { "never" }
        cancelledFetch.cancel()
        let receiver = BlockProcedure { ran.increment() }
        receiver.injectResult(from: cancelledFetch) { _ in }
        let queue = ProcedureQueue()
        queue.addProcedures([parse, fetch, receiver, cancelledFetch])
        await queue.waitUntilAllFinished()
        #expect(ran.count == 0)
        #expect(parse.isCancelled && receiver.isCancelled)
        #expect("\(parse.error!)" == "input from 'fetch' unavailable: offline")
        #expect("\(receiver.error!)" == "input from 'cancelled fetch' unavailable: it was cancelled")
    }

    @Test("31: injectOutcome lets the receiver see the error or the cancellation and recover, or refuse")
    func injectionOfOutcomes() async {
        let seen = EventLog()
        let failing = AsyncProcedure<String>(name: "fetch") { throw TestError("offline") }
        let recovering = BlockProcedure(name: "recovering") { seen.record("recovering ran") }
        recovering.injectOutcome(from: failing) { outcome in
            if case .failure(let error) = outcome { seen.record("saw \(error)") }
        }
        let cancelled = AsyncProcedure(name: "cancelled fetch") { "never" }
        cancelled.cancel()
        let refusing = BlockProcedure(name: "refusing") { seen.record("refusing ran") }
        refusing.injectOutcome(from: cancelled) { outcome in
            if case .failure(let error as ProcedureError) = outcome, error.code == .cancelled {
                seen.record("saw the cancellation")
                throw TestError("no input")
            }
        }
        let queue = ProcedureQueue()
        queue.addProcedures([recovering, failing, refusing, cancelled])
        await queue.waitUntilAllFinished()
        #expect(Set(seen.all) == ["saw offline", "recovering ran", "saw the cancellation"])
        #expect(recovering.error == nil)
        #expect(refusing.isCancelled)
        #expect("\(refusing.error!)" == "input from 'cancelled fetch' unavailable: no input")
    }
}

/// Semantics rule 44, and groups from a builder.
@Suite(.timeLimit(.minutes(2)))
struct GroupChildFailureTests {
    @Test("44: without a hook, every child error fails the group")
    func failByDefault() async {
        let group = GroupProcedure { BlockProcedure(name: "a") { throw TestError("a") } }
        await run(group)
        #expect((group.error as? ProcedureError)?.code == .childrenFailed)
    }

    @Test("44: the hook may retry a failed child; the group waits for the new attempt and succeeds")
    func retryChild() async {
        let attempts = Counter()
        @Sendable func attempt(_ number: Int) -> BlockProcedure {
            BlockProcedure(name: "fetch \(number)") {
                attempts.increment()
                if number < 3 { throw TestError("fetch \(number)") }
            }
        }
        let seen = EventLog()
        let group = GroupProcedure(name: "download", children: [attempt(1)]) { child, error in
            seen.record("\(child.name): \(error)")
            let number = Int(child.name.split(separator: " ").last!)!
            return .retry(with: attempt(number + 1))
        }
        await run(group)
        #expect(group.error == nil)
        #expect(attempts.count == 3)
        #expect(seen.all == ["fetch 1: fetch 1", "fetch 2: fetch 2"])
        #expect(group.children.map(\.name) == ["fetch 1", "fetch 2", "fetch 3"])
    }

    @Test("44: the hook may ignore an error, or let it fail the group; a subclass can decide by overriding")
    func ignoreOrFail() async {
        final class Tolerant: GroupProcedure, @unchecked Sendable {
            override func child(_ child: Procedure, didFailWith error: any Error) -> ChildFailureResponse {
                child.name == "optional" ? .ignore : .fail
            }
        }
        let tolerant = Tolerant(children: [BlockProcedure(name: "optional") { throw TestError("optional") }])
        await run(tolerant)
        #expect(tolerant.error == nil)
        let strict = Tolerant(children: [
            BlockProcedure(name: "optional") { throw TestError("optional") },
            BlockProcedure(name: "required") { throw TestError("required") },
        ])
        await run(strict)
        let error = strict.error as? ProcedureError
        #expect(error?.underlying.map { "\($0)" } == ["required"])
    }

    @Test("a builder lists children with if, for and optionals, in order")
    func builder() async {
        let log = EventLog()
        let verify = true
        let optional: Procedure? = nil
        let group = GroupProcedure(name: "built", maxConcurrentCount: 1) {
            BlockProcedure(name: "first") { log.record("first") }
            for index in 1...2 {
                BlockProcedure(name: "item \(index)") { log.record("item \(index)") }
            }
            if verify {
                BlockProcedure(name: "verify") { log.record("verify") }
            } else {
                BlockProcedure(name: "skip") { log.record("skip") }
            }
            if let optional { optional }
        }
        #expect(group.children.map(\.name) == ["first", "item 1", "item 2", "verify"])
        await run(group)
        #expect(log.all == ["first", "item 1", "item 2", "verify"])
    }
}

/// `IgnoreErrorsProcedure`: the wrapped procedure's failure does not fail what depends on it.
@Suite(.timeLimit(.minutes(2)))
struct IgnoreErrorsProcedureTests {
    @Test("a failing procedure, wrapped, lets its dependents run; its own error is kept")
    func ignoresErrors() async {
        let failing = BlockProcedure(name: "warm-up") { throw TestError("cache down") }
        let wrapper = IgnoreErrorsProcedure(failing)
        let served = Counter()
        let serve = BlockProcedure(name: "serve") { served.increment() }
        serve.addDependency(wrapper)
        serve.addCondition(NoFailedDependencies())
        let queue = ProcedureQueue()
        queue.addProcedures([serve, wrapper])
        await serve.waitUntilFinished()
        #expect(wrapper.error == nil)
        #expect(wrapper.name == "IgnoreErrors(warm-up)")
        #expect((failing.error as? TestError) == TestError("cache down"))
        #expect(served.count == 1)
    }

    @Test("a cancelled wrapper is still cancelled, and cancels what it wraps")
    func cancelled() async {
        let inner = ManualProcedure(name: "inner")
        let wrapper = IgnoreErrorsProcedure(inner)
        wrapper.cancel()
        await run(wrapper)
        #expect(wrapper.isCancelled)
        #expect(inner.isCancelled)
        #expect(!inner.started.isOpen, "the wrapped procedure never ran")
    }
}

/// Failures that read well: a root cause said once, and children that never ran say why.
@Suite(.timeLimit(.minutes(2)))
struct GroupFailureTests {
    struct HTTPError: Error, CustomStringConvertible {
        var description: String { "HTTP 404" }
    }

    @Test("a chain whose first step failed: the group names the cause once and the steps that never ran")
    func rootCauseOnce() async {
        let download = TransformProcedure<String, [UInt8]>(name: "download", input: "/update.gz") { _ in
            throw HTTPError()
        }
        let decompress = TransformProcedure(name: "decompress", inputFrom: download) { $0 }
        let verify = TransformProcedure(name: "verify", inputFrom: decompress) { $0.count }
        let group = GroupProcedure(name: "update", children: [download, decompress, verify])
        await run(group)
        #expect(
            verify.error.map { "\($0)" } == "input from 'decompress' unavailable, because 'download' failed: HTTP 404")
        #expect(decompress.error.map { "\($0)" } == "input from 'download' unavailable: HTTP 404")
        #expect(
            group.error.map { "\($0)" }
                == "'download' failed: HTTP 404; 'decompress', 'verify' did not run without the output of 'download'")
        let error = group.error as? ProcedureError
        #expect(error?.code == .childrenFailed)
        #expect(error?.procedures == ["download", "decompress", "verify"])
    }

    @Test("children of a cancelled group finish with an error that says so; the group is cancelled, not failed")
    func cancelledGroup() async {
        let log = EventLog()
        let child = BlockProcedure(name: "child") {}
        child.addObserver(FinishRecorder(log: log))
        let group = GroupProcedure(name: "group", children: [child])
        group.cancel(with: TestError("shutting down"))
        await run(group)
        #expect(child.isCancelled)
        let error = child.error as? ProcedureError
        #expect(error?.code == .groupCancelled)
        #expect(error.map { "\($0)" } == "its group 'group' was cancelled: shutting down")
        #expect(log.all == ["child: its group 'group' was cancelled: shutting down"])
        #expect((group.error as? TestError) == TestError("shutting down"), "the group keeps its own reason")
    }

    @Test("children of a group whose conditions failed finish with the group's reason")
    func vetoedGroup() async {
        let child = BlockProcedure(name: "child") {}
        let group = GroupProcedure(name: "vetoed", children: [child])
        group.addCondition(BlockCondition(name: "never") { _ in false })
        await run(group)
        let error = child.error as? ProcedureError
        #expect(error?.code == .groupCancelled)
        #expect((error?.underlying.first as? ProcedureError)?.code == .conditionsNotSatisfied)
    }

    struct FinishRecorder: ProcedureObserver {
        let log: EventLog
        func procedureDidFinish(_ procedure: Procedure, error: (any Error)?) {
            log.record("\(procedure.name): " + (error.map { "\($0)" } ?? "done"))
        }
    }
}

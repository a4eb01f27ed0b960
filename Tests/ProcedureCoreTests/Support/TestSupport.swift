import Foundation
import Locking
import TestSupport

@testable import ProcedureCore

/// A seeds-style procedure: execute() returns at once and the test finishes it later.
final class ManualProcedure: Procedure, @unchecked Sendable {
    let started = Latch()
    let cancelled = Latch()

    override func execute() { started.open() }
    override func didCancel(with error: (any Error)?) { cancelled.open() }
}

/// A procedure whose `didCancel` runs `onCancel` (which may block): a cancel is paused after the
/// procedure is marked cancelled and before it is finished. Counts its executions.
final class CancelPausingProcedure: Procedure, @unchecked Sendable {
    let executions = Counter()
    private let onCancel: @Sendable () -> Void
    init(name: String, onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
        super.init(name: name)
    }
    override func execute() {
        executions.increment()
        finish()
    }
    override func didCancel(with error: (any Error)?) { onCancel() }
}

/// A procedure that counts its deinitializations, to prove finished procedures are released.
final class CountedProcedure: Procedure, @unchecked Sendable {
    let released: Counter
    /// Opened by the release that brings the count to `count`.
    let whenReleased: (count: Int, latch: Latch)?
    init(name: String? = nil, released: Counter, whenReleased: (count: Int, latch: Latch)? = nil) {
        self.released = released
        self.whenReleased = whenReleased
        super.init(name: name)
    }
    deinit {
        let count = released.increment()
        if let whenReleased, count == whenReleased.count { whenReleased.latch.open() }
    }
}

/// A condition the test scripts: its answer now, and what its produced dependency ("asking")
/// changes the answer to. Counts evaluations and dependencies made.
final class ScriptedCondition: ProcedureCondition, @unchecked Sendable {
    let name: String
    let producesDependency: Bool
    let evaluatesBeforeDependency: Bool
    private let answer: Lock<ConditionResult.Verdict>
    private let answerAfterAsking: ConditionResult.Verdict
    let evaluations = Counter()
    let dependenciesMade = Counter()

    init(
        _ name: String, answer: ConditionResult.Verdict, interactive: Bool = false,
        answerAfterAsking: ConditionResult.Verdict = .satisfied, evaluatesBeforeDependency: Bool = true
    ) {
        self.name = name
        self.evaluatesBeforeDependency = evaluatesBeforeDependency
        self.answer = Lock(answer)
        producesDependency = interactive
        self.answerAfterAsking = answerAfterAsking
    }

    func makeDependency(for procedure: Procedure) -> Procedure? {
        dependenciesMade.increment()
        let next = answerAfterAsking
        return BlockProcedure(name: "ask \(name)") { [self] in answer.withLock { $0 = next } }
    }

    func evaluate(
        for procedure: Procedure, context: ConditionContext,
        completion: @escaping @Sendable (ConditionResult) -> Void
    ) {
        evaluations.increment()
        switch answer.withLock({ $0 }) {
        case .satisfied: completion(.satisfied("\(name) holds"))
        case .failed: completion(.failed("\(name) does not hold"))
        case .undecided: completion(.undecided("\(name) could not be decided"))
        case .needsInteraction: completion(.needsInteraction("\(name) needs asking"))
        }
    }
}

/// A meeting point for threads: each arrival blocks until `expected` threads have arrived.
/// Proves that many bodies really run at the same time (no timing involved).
final class Rendezvous: @unchecked Sendable {
    private let condition = NSCondition()
    private var arrived = 0
    private let expected: Int

    init(expected: Int) { self.expected = expected }

    /// Arrives and waits for the others; false if they had not all arrived by `timeout` seconds
    /// (a failure bound only: a passing run never waits for it).
    func arriveAndWait(timeout: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        arrived += 1
        if arrived >= expected {
            condition.broadcast()
            return true
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while arrived < expected {
            if !condition.wait(until: deadline) { return arrived >= expected }
        }
        return true
    }
}

/// The procedures of a test that began executing, in the order they began.
final class StartedProcedures<Output: Sendable>: Sendable {
    private let list = Lock<[ManualResultProcedure<Output>]>([])

    func append(_ procedure: ManualResultProcedure<Output>) { list.withLock { $0.append(procedure) } }

    var all: [ManualResultProcedure<Output>] { list.withLock { $0 } }

    /// Waits until `count` have begun, and returns them.
    func waitFor(_ count: Int) async -> [ManualResultProcedure<Output>] {
        while true {
            let current = all
            if current.count >= count { return current }
            await Task.yield()
        }
    }
}

/// A result procedure the test finishes: it reports that it started, then waits for
/// `finish(returning:)` or `finish(throwing:)` from the test. Cancelling it finishes it at once.
final class ManualResultProcedure<Output: Sendable>: ResultProcedure<Output>, @unchecked Sendable {
    private let started: StartedProcedures<Output>
    let executions = Counter()

    init(name: String, started: StartedProcedures<Output>) {
        self.started = started
        super.init(name: name)
    }

    override func execute() {
        executions.increment()
        started.append(self)
    }

    override func didCancel(with error: (any Error)?) {
        if isExecuting { finish() }
    }
}

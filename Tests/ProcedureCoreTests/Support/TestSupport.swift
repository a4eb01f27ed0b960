import Synchronization
@testable import ProcedureCore

/// A one-shot latch: `wait()` returns once `open()` was called, before or after.
final class Latch: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    var isOpen: Bool { state.withLock { $0.isOpen } }

    func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }
}

/// A thread-safe counter.
final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    @discardableResult
    func increment() -> Int { value.add(1, ordering: .sequentiallyConsistent).newValue }
    func decrement() { value.subtract(1, ordering: .sequentiallyConsistent) }
    var count: Int { value.load(ordering: .sequentiallyConsistent) }
}

/// A thread-safe list of events, in the order they happened.
final class EventLog: Sendable {
    private let events = Mutex<[String]>([])
    func record(_ event: String) { events.withLock { $0.append(event) } }
    var all: [String] { events.withLock { $0 } }
    func count(of event: String) -> Int { all.filter { $0 == event }.count }
}

/// An observer that logs every event as "event name" (for example "didFinish a").
struct LoggingObserver: ProcedureObserver {
    let log: EventLog
    func procedureWillExecute(_ procedure: Procedure) { log.record("willExecute \(procedure.name)") }
    func procedureDidCancel(_ procedure: Procedure, error: (any Error)?) { log.record("didCancel \(procedure.name)") }
    func procedure(_ procedure: Procedure, didProduce dependency: Procedure) {
        log.record("didProduce \(procedure.name)")
    }
    func procedureWillFinish(_ procedure: Procedure, error: (any Error)?) { log.record("willFinish \(procedure.name)") }
    func procedureDidFinish(_ procedure: Procedure, error: (any Error)?) { log.record("didFinish \(procedure.name)") }
}

/// A seeds-style procedure: execute() returns at once and the test finishes it later.
final class ManualProcedure: Procedure, @unchecked Sendable {
    let started = Latch()
    let cancelled = Latch()

    override func execute() { started.open() }
    override func didCancel(with error: (any Error)?) { cancelled.open() }
}

/// A procedure that counts its deinitializations, to prove finished procedures are released.
final class CountedProcedure: Procedure, @unchecked Sendable {
    let released: Counter
    init(name: String? = nil, released: Counter) {
        self.released = released
        super.init(name: name)
    }
    deinit { released.increment() }
}

/// A condition the test scripts: its answer now, and what its produced dependency ("asking")
/// changes the answer to. Counts evaluations and dependencies made.
final class ScriptedCondition: ProcedureCondition, @unchecked Sendable {
    let name: String
    let producesDependency: Bool
    private let answer: Mutex<ConditionResult.Verdict>
    private let answerAfterAsking: ConditionResult.Verdict
    let evaluations = Counter()
    let dependenciesMade = Counter()

    init(
        _ name: String, answer: ConditionResult.Verdict, interactive: Bool = false,
        answerAfterAsking: ConditionResult.Verdict = .satisfied
    ) {
        self.name = name
        self.answer = Mutex(answer)
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
        case .undetermined: completion(.undetermined("\(name) needs asking"))
        }
    }
}

/// Runs `procedure` on a fresh queue and waits for it.
func run(_ procedure: Procedure, on queue: ProcedureQueue = ProcedureQueue()) async {
    queue.addProcedure(procedure)
    await procedure.waitUntilFinished()
}

struct TestError: Error, Equatable, CustomStringConvertible {
    let message: String
    init(_ message: String = "test error") { self.message = message }
    var description: String { message }
}

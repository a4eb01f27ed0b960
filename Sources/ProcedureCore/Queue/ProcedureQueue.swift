import CPlatform
import Dispatch
import Locking
public import Logging
import Synchronization

/// Runs procedures: waits for their dependencies, evaluates their conditions, takes their
/// exclusivity locks and executes them, at most ``maxConcurrentCount`` at a time.
///
/// With the default ``Workload-swift.enum/nonBlocking`` workload, work bodies run on a few worker
/// threads (at most one per processor, fewer if ``maxConcurrentCount`` is lower), so a body that
/// blocks holds back the others. Give bodies that block (a file copy, a subprocess, sqlite) a
/// queue made with ``Workload-swift.enum/blocking``: each then gets a thread of the queue's own,
/// up to ``maxConcurrentCount``.
///
/// The queue logs through its ``logger``: what happens to each procedure at debug level, and
/// misuse (configuring a procedure after adding it, adding it to a second queue, finishing it
/// outside its work body) as warnings.
///
/// ```swift
/// let work = ProcedureQueue(name: "backups", maxConcurrentCount: 2)
/// work.addProcedure(BlockProcedure(name: "backup") { try runBackup() })
/// await work.waitUntilAllFinished()
/// ```
// Sendable by hand: every stored property is a `let` of a lock, an atomic or a Sendable value.
public final class ProcedureQueue: @unchecked Sendable {
    /// How a queue's work bodies use the thread they run on.
    public enum Workload: Sendable {
        /// Bodies return quickly, or finish later without blocking a thread (the default): they
        /// share at most one worker per processor, on Dispatch's threads.
        case nonBlocking
        /// Bodies block their thread: each of up to ``ProcedureQueue/maxConcurrentCount``
        /// executing bodies runs on a thread the queue starts for it (and reuses while work is
        /// ready), so a queue of width 16 runs 16 blocking bodies at once on any machine.
        case blocking
    }

    fileprivate struct State {
        var ready = ReadyList()
        var parked: [Procedure] = []
        var executing = 0
        var maxConcurrent: Int
        var isSuspended: Bool
        /// Set by ``ProcedureQueue/shutDown(cancellingUnfinished:)``: procedures added later are refused.
        var isShutDown = false
        var workers = 0
        var first: Procedure?
        unowned(unsafe) var last: Procedure?
        var unfinished = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
        var observers: [any ProcedureQueueObserver] = []
        var exclusivityScope = ExclusivityScope.root

        /// Whether another worker loop should start. Reserves it when so: never more loops than
        /// there is ready work for (loops not running a body will take from the ready list), and
        /// never more than the limit (a blocking queue's is its width, which may be unbounded).
        mutating func reserveWorker(limit: Int) -> Bool {
            guard !isSuspended, !ready.isEmpty, executing < maxConcurrent,
                workers < min(limit, maxConcurrent), workers - executing < ready.count
            else { return false }
            workers += 1
            return true
        }
    }

    private let state: Lock<State>
    /// Mirrors `State.isSuspended` so the common, running case needs no lock to check it.
    private let suspended: Atomic<Bool>
    private let workerLimit: Int
    /// Whether any queue observer was added: finishes are then reported one by one, not batched.
    private let hasObservers = Atomic<Bool>(false)
    private let logging: Lock<Logger>
    /// Whether the logger takes debug messages, read without a lock on every state change.
    private let debugLogging: Atomic<Bool>

    /// A name for diagnostics.
    public let name: String?

    /// How the queue runs work bodies, fixed when it is created.
    public let workload: Workload

    /// Creates a queue.
    /// - Parameters:
    ///   - name: A name for diagnostics and log messages.
    ///   - maxConcurrentCount: How many procedures may execute at once. 1 makes a serial queue.
    ///     Values below 1 are treated as 1.
    ///   - isSuspended: Whether the queue starts suspended.
    ///   - workload: ``Workload-swift.enum/blocking`` when work bodies block their thread.
    ///   - logger: Where messages go; ``defaultLogger`` unless given.
    public init(
        name: String? = nil, maxConcurrentCount: Int = .max, isSuspended: Bool = false,
        workload: Workload = .nonBlocking, logger: Logger? = nil
    ) {
        self.name = name
        self.workload = workload
        state = Lock(State(maxConcurrent: max(1, maxConcurrentCount), isSuspended: isSuspended))
        suspended = Atomic(isSuspended)
        workerLimit = workload == .blocking ? .max : Self.processorCount
        let logger = logger ?? Self.defaultLogger
        logging = Lock(logger)
        debugLogging = Atomic(logger.logLevel <= .debug)
    }

    /// Where the queue's messages go. Its level is read when it is set: to change the level,
    /// set a logger with the new level.
    public var logger: Logger {
        get { logging.withLock { $0 } }
        set {
            logging.withLock { $0 = newValue }
            debugLogging.store(newValue.logLevel <= .debug, ordering: .relaxed)
        }
    }

    /// The group whose children run here, so procedures produced here become its children.
    weak var group: GroupProcedure?

    /// Whether debug messages are wanted (so that they are built at all).
    var logsDebug: Bool { debugLogging.load(ordering: .relaxed) }

    // MARK: Configuration

    /// How many procedures may execute at once. Values below 1 are treated as 1.
    public var maxConcurrentCount: Int {
        get { state.withLock { $0.maxConcurrent } }
        set {
            let start = state.withLock { state -> Int in
                state.maxConcurrent = max(1, newValue)
                var count = 0
                while state.reserveWorker(limit: workerLimit) { count += 1 }
                return count
            }
            startWorkers(start)
        }
    }

    /// A suspended queue evaluates no conditions and starts no procedures; cancellation still works.
    public var isSuspended: Bool {
        get { state.withLock { $0.isSuspended } }
        set {
            let (parked, start) = state.withLock { state -> ([Procedure], Int) in
                state.isSuspended = newValue
                suspended.store(newValue, ordering: .sequentiallyConsistent)
                guard !newValue else { return ([], 0) }
                let parked = state.parked
                state.parked = []
                var count = 0
                while state.reserveWorker(limit: workerLimit) { count += 1 }
                return (parked, count)
            }
            startWorkers(start)
            for procedure in parked { procedure.beginEvaluation() }
        }
    }

    /// How many procedures were added and have not finished.
    public var unfinishedCount: Int { state.withLock { $0.unfinished } }

    /// Adds an observer of procedures being added and finishing.
    public func addObserver(_ observer: any ProcedureQueueObserver) {
        state.withLock { $0.observers.append(observer) }
        hasObservers.store(true, ordering: .sequentiallyConsistent)
    }

    // MARK: Adding

    /// Adds a procedure. A procedure runs on one queue only, once: adding one that is already
    /// on a queue (this one or another), or has finished, changes nothing and logs a warning.
    public func addProcedure(_ procedure: Procedure) {
        add(CollectionOfOne(procedure))
    }

    /// Adds several procedures, in order.
    public func addProcedures(_ procedures: some Sequence<Procedure>) {
        add(Array(procedures))
    }

    /// Adds several procedures, in order.
    public func addProcedures(_ procedures: [Procedure]) {
        add(procedures)
    }

    // Specialized here for arrays and single procedures, whatever the caller's module.
    private func add<Procedures: Collection<Procedure>>(_ procedures: Procedures) {
        let observers = state.withLock { $0.observers }
        var claimed: [Procedure] = []
        for procedure in procedures {
            for observer in observers { observer.queue(self, willAdd: procedure) }
            switch procedure.claim(by: self) {
            case .claimed:
                claimed.append(procedure)
                ProcedureLog.debug(procedure, on: self, "added to queue '\(name ?? "unnamed")'")
            case .onQueue(let other):
                let which = other === self ? "this queue" : "queue '\(other.name ?? "unnamed")'"
                ProcedureLog.warning(procedure, on: self, "already added to \(which): not added again")
            case .started(let phase):
                ProcedureLog.warning(procedure, on: self, "is \(phase): a procedure runs once, not added again")
            }
        }
        guard !claimed.isEmpty else { return }
        let refused = state.withLock { state in
            for procedure in claimed { state.link(procedure) }
            return state.isShutDown
        }
        if refused {
            // Linked and then finished without executing, so whoever waits for them is told.
            for procedure in claimed {
                ProcedureLog.warning(
                    procedure, on: self, "added to queue '\(name ?? "unnamed")' after it was shut down: cancelled")
                procedure.cancel(
                    with: ProcedureError.misuse(procedure.name, "it was added to a queue that was shut down"))
            }
        }
        // Procedures that became ready at once join the ready list in chunks, one lock per
        // chunk; chunks keep workers busy while the rest are still being prepared.
        var ready: [Procedure] = []
        ready.reserveCapacity(min(claimed.count, Self.readyChunk))
        for procedure in claimed where procedure.didEnqueue(on: self) {
            ready.append(procedure)
            if ready.count == Self.readyChunk {
                pushReady(ready)
                ready.removeAll(keepingCapacity: true)
            }
        }
        pushReady(ready)
    }

    private static let readyChunk = 256

    private func pushReady(_ procedures: [Procedure]) {
        guard !procedures.isEmpty else { return }
        let start = state.withLock { state -> Int in
            state.ready.append(contentsOf: procedures)
            var count = 0
            while state.reserveWorker(limit: workerLimit) { count += 1 }
            return count
        }
        startWorkers(start)
    }

    /// Adds a ``BlockProcedure`` running `block` and returns it.
    @discardableResult
    public func addBlock(name: String? = nil, _ block: @escaping @Sendable () throws -> Void) -> BlockProcedure {
        let procedure = BlockProcedure(name: name, block)
        addProcedure(procedure)
        return procedure
    }

    // MARK: Cancelling and waiting

    /// Cancels every unfinished procedure on the queue, with `error` as the reason when given.
    /// None starts executing after it returns, and none that was waiting starts during it.
    public func cancelAll(with error: (any Error)? = nil) {
        let all = state.withLock { state -> [Procedure] in
            var all: [Procedure] = []
            all.reserveCapacity(state.unfinished)
            var cursor = state.first
            while let procedure = cursor {
                all.append(procedure)
                cursor = procedure.queueNext
            }
            return all
        }
        // The waiting ones first: a running one that stops frees its slot, which must not go to a
        // procedure about to be cancelled.
        for procedure in all where procedure.state < .executing { procedure.cancel(with: error) }
        for procedure in all { procedure.cancel(with: error) }
    }

    /// Shuts the queue down: a procedure added from now on is refused (it finishes at once,
    /// cancelled with a ``ProcedureError/Code/misuse`` error, and the logger gets a warning), a
    /// suspended queue resumes so its work can finish, and this returns once every procedure
    /// already on the queue has finished. With `cancellingUnfinished`, those are cancelled first
    /// (running ones stop cooperatively).
    ///
    /// ```swift
    /// await queue.shutDown()
    /// ```
    public func shutDown(cancellingUnfinished: Bool = false) async {
        state.withLock { $0.isShutDown = true }
        if cancellingUnfinished { cancelAll() }
        if isSuspended { isSuspended = false }
        await waitUntilAllFinished()
    }

    /// Whether ``shutDown(cancellingUnfinished:)`` was called: the queue takes no more procedures.
    public var isShutDown: Bool { state.withLock { $0.isShutDown } }

    /// Waits until every procedure added so far (and any added while waiting) has finished.
    public func waitUntilAllFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state -> Bool in
                if state.unfinished == 0 { return true }
                state.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    /// How many ``waitUntilAllFinished()`` calls are waiting: for tests that must know a waiter
    /// is in place before the work it waits for may run.
    package var waiterCount: Int { state.withLock { $0.waiters.count } }

    // MARK: Internal: scheduling

    /// The exclusivity arbiter that procedures on this queue use. A group's inner queue gets a
    /// nested scope holding the group's own categories.
    var exclusivityScope: ExclusivityScope {
        get { state.withLock { $0.exclusivityScope } }
        set { state.withLock { $0.exclusivityScope = newValue } }
    }

    /// Whether the queue is suspended, without its lock.
    var isSuspendedNow: Bool { suspended.load(ordering: .sequentiallyConsistent) }

    /// Keeps a procedure whose dependencies finished while the queue is suspended. True if parked.
    func parkIfSuspended(_ procedure: Procedure) -> Bool {
        guard suspended.load(ordering: .sequentiallyConsistent) else { return false }
        return state.withLock { state in
            guard state.isSuspended else { return false }
            state.parked.append(procedure)
            return true
        }
    }

    func enqueueReady(_ procedure: Procedure) {
        // A procedure made ready by one of this queue's own workers (a dependency finishing at
        // the end of its body) is picked up by that worker when it loops; waking another
        // thread for it would only make the two race for it.
        let onOwnWorker = WorkerThread.current(for: self) != nil
        let start = state.withLock { state -> Bool in
            state.ready.append(procedure)
            if onOwnWorker, state.ready.count == 1 { return false }
            return state.reserveWorker(limit: workerLimit)
        }
        if start { startWorkers(1) }
    }

    func procedureDidFinish(_ procedure: Procedure, wasExecuting: Bool) {
        // On one of this queue's own workers, the loop settles the books when it next takes
        // work, in the same lock: one lock per procedure instead of two.
        if !hasObservers.load(ordering: .relaxed), let worker = WorkerThread.current(for: self) {
            worker.departures.append((procedure, wasExecuting))
            return
        }
        enum Step {
            case notify([any ProcedureQueueObserver])
            case accounted(State.Departure)
        }
        let step = state.withLock { state -> Step in
            guard state.observers.isEmpty else { return .notify(state.observers) }
            return .accounted(state.depart(procedure, wasExecuting: wasExecuting, workerLimit: workerLimit))
        }
        let departure: State.Departure
        switch step {
        case .accounted(let done):
            departure = done
        case .notify(let observers):
            for observer in observers { observer.queue(self, didFinish: procedure) }
            departure = state.withLock { $0.depart(procedure, wasExecuting: wasExecuting, workerLimit: workerLimit) }
        }
        if departure.startWorker { startWorkers(1) }
        for waiter in departure.waiters { waiter.resume() }
    }

    private func startWorkers(_ count: Int) {
        guard workload == .blocking else {
            for _ in 0..<count {
                DispatchQueue.global().async { [self] in work() }
            }
            return
        }
        for _ in 0..<count {
            let context = Unmanaged.passRetained(self).toOpaque()
            let result = cplatform_start_thread(
                { context in
                    let queue = Unmanaged<ProcedureQueue>.fromOpaque(context!).takeRetainedValue()
                    // Named for the queue, so an operator's `top -H` tells its threads apart.
                    cplatform_name_current_thread(queue.name ?? "ProcedureQueue")
                    queue.work()
                    return nil
                }, context)
            if result != 0 {
                // No thread to be had: the shared workers run the body rather than nobody.
                Unmanaged<ProcedureQueue>.fromOpaque(context).release()
                DispatchQueue.global().async { [self] in work() }
            }
        }
    }

    /// A worker loop: runs ready procedures until none is left or the queue is full or suspended.
    ///
    /// Each turn takes one lock to settle the procedures that finished on this thread and take
    /// the next few ready ones (several when many wait, so that workers meet on the lock less).
    private func work() {
        WorkerThread.run(for: self) { worker in
            var batch: [Procedure] = []
            var notRun = 0
            while true {
                let departures = worker.departures
                worker.departures = []
                let turn = state.withLock { state -> (waiters: [CheckedContinuation<Void, Never>], startWorker: Bool) in
                    var waiters: [CheckedContinuation<Void, Never>] = []
                    for departure in departures {
                        waiters += state.settle(departure.procedure, wasExecuting: departure.wasExecuting)
                    }
                    state.executing -= notRun
                    let take = state.takeable(batchLimit: workload == .blocking ? 1 : Self.batchLimit)
                    guard take > 0 else {
                        state.workers -= 1
                        return (waiters, false)
                    }
                    for _ in 0..<take { batch.append(state.ready.removeFirst()) }
                    state.executing += take
                    return (waiters, state.reserveWorker(limit: workerLimit))
                }
                if turn.startWorker { startWorkers(1) }
                for waiter in turn.waiters { waiter.resume() }
                if batch.isEmpty { return }
                notRun = 0
                for procedure in batch where !procedure.run(on: self) { notRun += 1 }
                batch.removeAll(keepingCapacity: true)
            }
        }
    }

    /// The most ready procedures one worker takes in one turn.
    private static let batchLimit = 8

    private static let processorCount = Int(cplatform_processor_count())
}

extension ProcedureQueue.State {
    fileprivate mutating func link(_ procedure: Procedure) {
        procedure.queueNext = nil
        procedure.queuePrevious = last
        if let last { last.queueNext = procedure } else { first = procedure }
        last = procedure
        unfinished += 1
    }

    struct Departure {
        var waiters: [CheckedContinuation<Void, Never>] = []
        var startWorker = false
    }

    /// Takes a finished procedure off the queue's books.
    mutating func depart(_ procedure: Procedure, wasExecuting: Bool, workerLimit: Int) -> Departure {
        var departure = Departure()
        departure.waiters = settle(procedure, wasExecuting: wasExecuting)
        departure.startWorker = reserveWorker(limit: workerLimit)
        return departure
    }

    /// Takes a finished procedure off the queue's books; returns the waiters to resume when it was the last.
    mutating func settle(_ procedure: Procedure, wasExecuting: Bool) -> [CheckedContinuation<Void, Never>] {
        unlink(procedure)
        if wasExecuting { executing -= 1 }
        guard unfinished == 0, !waiters.isEmpty else { return [] }
        defer { waiters = [] }
        return waiters
    }

    /// How many ready procedures a worker may take now: a fair share of those waiting, at most
    /// `batchLimit`, within the free width.
    func takeable(batchLimit: Int) -> Int {
        guard !isSuspended, executing < maxConcurrent, !ready.isEmpty else { return 0 }
        let share = ready.count / max(1, workers)
        return max(1, min(batchLimit, share, maxConcurrent - executing))
    }

    fileprivate mutating func unlink(_ procedure: Procedure) {
        let next = procedure.queueNext
        let previous = procedure.queuePrevious
        if let previous { previous.queueNext = next } else { first = next }
        if let next { next.queuePrevious = previous } else { last = previous }
        procedure.queueNext = nil
        procedure.queuePrevious = nil
        unfinished -= 1
    }
}

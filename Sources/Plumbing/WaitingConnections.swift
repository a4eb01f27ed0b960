import CPlatform
import Dispatch
import Glibc
import Locking
package import SystemPackage

/// Connections between requests, waited on together in one epoll set instead of each by a thread
/// of its own, and the threads that serve each one as soon as its next request arrives.
///
/// A connection waiting costs its descriptor and a few hundred bytes, not a thread: a service can
/// hold thousands of idle clients. A connection is served by one thread at a time (the epoll
/// registration fires once and is armed again after the turn), and a turn may block (a login
/// asked, a watch followed): when every thread is busy another is started, up to the limit, so a
/// turn that waits holds up only its own client. Each connection has an idle deadline, restarted
/// whenever a turn answers something; a connection that outlives it is ended, unless it is awaited
/// (another connection's call waits for a message on it).
package final class WaitingConnections: Sendable {
    /// What a connection's turn came to.
    package enum Turn: Sendable {
        /// Something was answered: wait for the next request, within a new idle deadline.
        case answered
        /// Only part of a request has arrived: wait for the rest, within the same deadline.
        case partial
        /// The connection is over (the client closed it, broke the protocol, or is done): end it.
        case over
    }

    /// One connection as the service serves it.
    package struct Connection: Sendable {
        /// The descriptor waited on; ``end`` closes it.
        let descriptor: Int32
        /// Reads what has arrived without waiting for more, and answers each whole request in it.
        let serve: @Sendable () -> Turn
        /// Whether the connection outlasts its idle deadline and a stop: another call waits on it.
        let isAwaited: @Sendable () -> Bool
        /// Closes it: called once, when it ends for any reason.
        let end: @Sendable () -> Void

        package init(
            descriptor: Int32, serve: @escaping @Sendable () -> Turn, isAwaited: @escaping @Sendable () -> Bool,
            end: @escaping @Sendable () -> Void
        ) {
            (self.descriptor, self.serve, self.isAwaited, self.end) = (descriptor, serve, isAwaited, end)
        }
    }

    private struct Slot {
        let connection: Connection
        var deadline: ContinuousClock.Instant
        /// A thread has it (a turn, or being added): no event, deadline or stop touches it meanwhile.
        var isServed: Bool
    }

    private struct State {
        var slots: [UInt64: Slot] = [:]
        var nextToken: UInt64 = 1
        /// Threads started and not ended, and how many of them are serving a turn.
        var threads = 0
        var busy = 0
        var stopping = false
        var finished = false
    }

    /// The token of the eventfd that tells every thread the set is finished.
    private static let finishedToken: UInt64 = 0
    /// How long a spare thread waits for work before it ends.
    private static let spareThreadLifetime: Int32 = 10_000

    private let epoll: Int32
    private let finishedSignal: Int32
    private let threadLimit: Int
    private let idleTimeout: Duration
    private let state = Lock(State())
    /// Woken when the set stops, so the deadline keeper ends awaited connections as they free up.
    private let keeperWake = DispatchSemaphore(value: 0)

    /// A set whose connections are served on at most `threadLimit` threads at once, each ended
    /// after `idleTimeout` without a request.
    /// - Throws: `Errno` when no epoll set or eventfd can be made (out of descriptors).
    package init(threadLimit: Int, idleTimeout: Duration) throws(Errno) {
        let epoll = cplatform_epoll_create()
        guard epoll >= 0 else { throw Errno(rawValue: errno) }
        let signal = cplatform_eventfd()
        guard signal >= 0, cplatform_epoll_watch_level(epoll, signal, Self.finishedToken) == 0 else {
            let error = Errno(rawValue: errno)
            if signal >= 0 { Glibc.close(signal) }
            Glibc.close(epoll)
            throw error
        }
        self.epoll = epoll
        finishedSignal = signal
        self.threadLimit = max(1, threadLimit)
        self.idleTimeout = idleTimeout
        let started = DetachedThread.start(named: "idle-deadlines") { [self] in keepDeadlines() }
        if !started { fatalError("WaitingConnections: no thread for the idle deadlines") }
    }

    deinit {
        Glibc.close(epoll)
        Glibc.close(finishedSignal)
    }

    /// How many connections are waiting or being served.
    package var count: Int { state.withLock { $0.slots.count } }

    /// Serving threads started and not ended.
    package var threadCount: Int { state.withLock { $0.threads } }

    /// Adds `connection`, to be served when its first request arrives; ends it at once when the
    /// set has stopped or cannot watch it.
    package func add(_ connection: Connection) {
        let added = state.withLock { state -> (token: UInt64, startsThread: Bool)? in
            guard !state.stopping else { return nil }
            let token = state.nextToken
            state.nextToken += 1
            // Served while it is added: a stop must not close it before it is watched.
            state.slots[token] = Slot(connection: connection, deadline: .now + idleTimeout, isServed: true)
            let startsThread = state.threads == state.busy && state.threads < threadLimit
            if startsThread { state.threads += 1 }
            return (token, startsThread)
        }
        guard let added else {
            connection.end()
            return
        }
        if added.startsThread { startThread() }
        guard cplatform_epoll_watch_once(epoll, connection.descriptor, added.token, 1) == 0 else {
            state.withLock { _ = $0.slots.removeValue(forKey: added.token) }
            connection.end()
            return
        }
        finishTurn(added.token, .partial)
    }

    /// Stops: a connection waiting for a request is ended at once, one being served after its turn,
    /// an awaited one once it no longer is; then the threads end. New connections are refused.
    package func stop() {
        let ended = state.withLock { state -> [Connection] in
            state.stopping = true
            var ended: [Connection] = []
            for (token, slot) in state.slots where !slot.isServed && !slot.connection.isAwaited() {
                state.slots[token] = nil
                ended.append(slot.connection)
            }
            return ended
        }
        for connection in ended { connection.end() }
        finishIfDone()
        keeperWake.signal()
    }

    /// Waits until the set has stopped and every connection has ended, or until `deadline`.
    package func waitUntilFinished(until deadline: ContinuousClock.Instant) -> Bool {
        while ContinuousClock.now < deadline {
            if state.withLock({ $0.finished }) { return true }
            var pause = timespec(tv_sec: 0, tv_nsec: 10_000_000)
            nanosleep(&pause, nil)
        }
        return state.withLock { $0.finished }
    }

    // MARK: Serving

    private func startThread() {
        let started = DetachedThread.start(named: "serving") { [self] in serveTurns() }
        if !started { state.withLock { $0.threads -= 1 } }
    }

    private func serveTurns() {
        var token: UInt64 = 0
        while true {
            let ready = cplatform_epoll_wait_one(epoll, Self.spareThreadLifetime, &token)
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 {
                // Idle for a while (or the set is gone bad): end, unless this is the last one waiting.
                let ends = state.withLock { state -> Bool in
                    guard ready < 0 || state.threads - state.busy > 1 else { return false }
                    state.threads -= 1
                    return true
                }
                if ends { return }
                continue
            }
            if token == Self.finishedToken {
                state.withLock { $0.threads -= 1 }
                return
            }
            let taken = state.withLock { state -> (Connection, startsThread: Bool)? in
                // Ended meanwhile (its deadline, a stop): the event is stale.
                guard var slot = state.slots[token], !slot.isServed else { return nil }
                slot.isServed = true
                state.slots[token] = slot
                state.busy += 1
                // Someone must wait for the others' requests while this turn runs, however long.
                let startsThread = state.threads == state.busy && state.threads < threadLimit
                if startsThread { state.threads += 1 }
                return (slot.connection, startsThread)
            }
            guard let (connection, startsThread) = taken else { continue }
            if startsThread { startThread() }
            let turn = connection.serve()
            state.withLock { $0.busy -= 1 }
            finishTurn(token, turn)
        }
    }

    /// After a turn: the connection waits again (its registration armed while the lock is held, so
    /// no other thread can end it or take its next event in between), or it ends.
    private func finishTurn(_ token: UInt64, _ turn: Turn) {
        let ended = state.withLock { state -> Connection? in
            guard var slot = state.slots[token] else { return nil }
            var ends = turn == .over || (state.stopping && !slot.connection.isAwaited())
            if !ends {
                if turn == .answered { slot.deadline = .now + idleTimeout }
                slot.isServed = false
                state.slots[token] = slot
                ends = cplatform_epoll_watch_once(epoll, slot.connection.descriptor, token, 0) != 0
            }
            guard ends else { return nil }
            state.slots[token] = nil
            return slot.connection
        }
        guard let ended else { return }
        ended.end()
        finishIfDone()
    }

    /// Once stopped and empty: tells every thread, through the eventfd left readable, to end.
    private func finishIfDone() {
        let finishes = state.withLock { state -> Bool in
            guard state.stopping, state.slots.isEmpty, !state.finished else { return false }
            state.finished = true
            return true
        }
        guard finishes else { return }
        var one: UInt64 = 1
        _ = Glibc.write(finishedSignal, &one, 8)
        keeperWake.signal()
    }

    // MARK: Idle deadlines

    /// Ends the connections past their idle deadline, waking at the earliest deadline left (never
    /// more often than every 50 ms: deadlines are seconds long), until the set is finished.
    private func keepDeadlines() {
        let granularity = Duration.milliseconds(50)
        while true {
            let now = ContinuousClock.now
            let (expired, next, finished) = state.withLock {
                state -> ([Connection], ContinuousClock.Instant, Bool) in
                var expired: [Connection] = []
                var next = now + min(idleTimeout, .seconds(1))
                for (token, slot) in state.slots where !slot.isServed {
                    let awaited = slot.deadline <= now || state.stopping ? slot.connection.isAwaited() : false
                    if slot.deadline <= now || state.stopping {
                        if awaited {
                            state.slots[token]?.deadline = now + idleTimeout
                        } else {
                            state.slots[token] = nil
                            expired.append(slot.connection)
                            continue
                        }
                    }
                    next = min(next, state.slots[token]!.deadline)
                }
                return (expired, max(next, now + granularity), state.finished)
            }
            for connection in expired { connection.end() }
            if !expired.isEmpty { finishIfDone() }
            if finished { return }
            let left = ContinuousClock.now.duration(to: next)
            let (seconds, attoseconds) = max(left, .zero).components
            _ = keeperWake.wait(
                timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
        }
    }
}

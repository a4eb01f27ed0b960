import CPlatform
import Dispatch
import Glibc
import Locking
package import SystemPackage

/// Connections between requests, waited on together in one epoll set instead of each by a thread
/// of its own, and the threads that serve each one as soon as its next request arrives.
///
/// A connection waiting costs its descriptor and a few KiB (2.6 KiB in capctld), not a thread: a
/// service can hold thousands of idle clients. A connection is served by one thread at a time (the
/// epoll registration fires once and is armed again after the turn), and a turn may block (a login
/// asked, a watch followed). There is a thread per processor; when all are busy, none has
/// finished a turn for 2 ms and none of them can run (they wait, they do not work), another is
/// started, up to the limit, so a turn that waits holds up only its own client. More threads
/// than that would only take turns from each other: at a thousand clients asking at once, a
/// thread per busy turn was 256 threads contending for two processors, at a sixth of the rate
/// of eight clients. Each connection has an idle deadline, restarted whenever a turn answers
/// something or its client reads a reply that had to wait; a connection that outlives it is
/// ended, unless it is awaited (another connection's call waits for a message on it). A
/// connection whose client does not read its replies waits in the set for room to write, not on
/// a thread.
package final class WaitingConnections: Sendable {
    /// What a connection's turn came to.
    package enum Turn: Sendable {
        /// Something was answered: wait for the next request, within a new idle deadline.
        case answered
        /// Only part of a request has arrived: wait for the rest, within the same deadline.
        case partial
        /// A reply waits for the client to read what was sent before it (its socket is full): wait
        /// until the socket takes more, then serve again, within a new idle deadline. No thread
        /// waits on a client that does not read.
        case writing
        /// The connection is over (the client closed it, broke the protocol, or is done): end it.
        case over
    }

    /// One connection as the service serves it.
    package struct Connection: Sendable {
        /// The descriptor waited on (owned by the connection: ``end`` closes it).
        let descriptor: FileDescriptor
        /// Reads what has arrived without waiting for more, and answers each whole request in it.
        let serve: @Sendable () -> Turn
        /// Whether the connection outlasts its idle deadline and a stop: another call waits on it.
        let isAwaited: @Sendable () -> Bool
        /// Closes it: called once, when it ends for any reason.
        let end: @Sendable () -> Void

        package init(
            descriptor: FileDescriptor, serve: @escaping @Sendable () -> Turn,
            isAwaited: @escaping @Sendable () -> Bool,
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
        /// Its registration fired while a thread had it (armed again, input came at once): that
        /// thread serves it again rather than let the event go.
        var firedWhileServed = false
        /// Being added: a thread may take it (its client may ask before the adding ends), but no
        /// deadline or stop closes its descriptor while it is being registered.
        var isBeingAdded = false
    }

    private struct State {
        var slots: [UInt64: Slot] = [:]
        var nextToken: UInt64 = 1
        /// Threads started and not ended, and how many of them are serving a turn.
        var threads = 0
        var busy = 0
        /// Turns finished since the set began: whether the busy threads make progress.
        var finishedTurns: UInt64 = 0
        /// `finishedTurns` when every thread was found busy, until the keeper looks again.
        var allBusySince: UInt64?
        /// The serving threads' ids, for the keeper to see whether any of them is runnable.
        var threadIDs: [Int32] = []
        var stopping = false
        var finished = false
    }

    /// The token of the eventfd that tells every thread the set is finished.
    private static let finishedToken: UInt64 = 0
    /// How long a spare thread waits for work before it ends.
    private static let spareThreadLifetimeMilliseconds: Int32 = 10_000
    /// How long every thread may be busy without finishing a turn before another is started.
    private static let stallTime = Duration.milliseconds(2)
    /// How long a stall may last, a thread still runnable, before another thread is started anyway.
    private static let longStall = Duration.milliseconds(100)

    private let epoll: FileDescriptor
    private let finishedSignal: FileDescriptor
    private let threadLimit: Int
    /// Threads started without waiting for a stall: one per processor.
    private let baseThreads: Int
    private let idleTimeout: Duration
    private let state = Lock(State())
    /// Woken when the set stops, so the deadline keeper ends awaited connections as they free up.
    private let keeperWake = DispatchSemaphore(value: 0)

    /// A set whose connections are served on at most `threadLimit` threads at once, each ended
    /// after `idleTimeout` without a request.
    /// - Throws: `Errno` when no epoll set or eventfd can be made (out of descriptors).
    package init(threadLimit: Int, idleTimeout: Duration) throws(Errno) {
        guard let epoll = FileDescriptor(adopting: cplatform_epoll_create()) else { throw Errno(rawValue: errno) }
        guard let signal = FileDescriptor(adopting: cplatform_eventfd()),
            cplatform_epoll_watch_level(epoll.rawValue, signal.rawValue, Self.finishedToken) == 0
        else {
            let error = Errno(rawValue: errno)
            try? epoll.close()
            throw error
        }
        self.epoll = epoll
        finishedSignal = signal
        self.threadLimit = max(1, threadLimit)
        baseThreads = min(self.threadLimit, cplatform_processor_count())
        self.idleTimeout = idleTimeout
        let started = DetachedThread.start(named: "idle-deadlines") { [self] in keepDeadlines() }
        if !started { fatalError("WaitingConnections: no thread for the idle deadlines") }
    }

    deinit {
        try? epoll.close()
        try? finishedSignal.close()
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
            // A stop must not close it before it is watched; a thread may serve it at once.
            state.slots[token] = Slot(
                connection: connection, deadline: .now + idleTimeout, isServed: false, isBeingAdded: true)
            let startsThread = state.threads < baseThreads
            if startsThread { state.threads += 1 }
            return (token, startsThread)
        }
        guard let added else {
            connection.end()
            return
        }
        if added.startsThread { startThread() }
        let watched = cplatform_epoll_watch_once(epoll.rawValue, connection.descriptor.rawValue, added.token, 1, 0) == 0
        // Its client may have asked already, and a thread served it (or even ended it) meanwhile:
        // the adding ends with the registration. (An adding that kept it served until then had a
        // thread woken for its first request find it served, again and again: a dozen wake-ups
        // for a client that connects and asks at once.)
        let ended = state.withLock { state -> Connection? in
            guard var slot = state.slots[added.token] else { return nil }
            slot.isBeingAdded = false
            guard watched, !state.stopping || slot.isServed || slot.connection.isAwaited() else {
                // Not watched, no event: no thread has it.
                state.slots[added.token] = nil
                return slot.connection
            }
            state.slots[added.token] = slot
            return nil
        }
        if let ended {
            ended.end()
            finishIfDone()
        }
    }

    /// Stops: a connection waiting for a request is ended at once, one being served after its turn,
    /// an awaited one once it no longer is; then the threads end. New connections are refused.
    package func stop() {
        let ended = state.withLock { state -> [Connection] in
            state.stopping = true
            var ended: [Connection] = []
            for (token, slot) in state.slots where !slot.isServed && !slot.isBeingAdded && !slot.connection.isAwaited()
            {
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
        // The eventfd that ends the threads is readable from then on: wait for it, not in a loop.
        while !state.withLock({ $0.finished }) {
            let left = ContinuousClock.now.duration(to: deadline)
            guard left > .zero else { return false }
            let (seconds, attoseconds) = left.components
            var entry = pollfd(fd: finishedSignal.rawValue, events: Int16(POLLIN), revents: 0)
            _ = poll(&entry, 1, Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1))
        }
        return true
    }

    // MARK: Serving

    private func startThread() {
        let started = DetachedThread.start(named: "serving") { [self] in serveTurns() }
        if !started { state.withLock { $0.threads -= 1 } }
    }

    private func serveTurns() {
        let id = cplatform_thread_id()
        state.withLock { $0.threadIDs.append(id) }
        defer { state.withLock { $0.threadIDs.removeAll { $0 == id } } }
        var token: UInt64 = 0
        while true {
            let ready = cplatform_epoll_wait_one(epoll.rawValue, Self.spareThreadLifetimeMilliseconds, &token)
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 {
                // Idle for a while (or the set has gone bad): a thread started past the base ends,
                // unless it is the last one waiting.
                let ends = state.withLock { state -> Bool in
                    guard ready < 0 || (state.threads > baseThreads && state.threads - state.busy > 1) else {
                        return false
                    }
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
                guard var slot = state.slots[token] else { return nil }
                guard !slot.isServed else {
                    // Armed again just now by the thread that has it, which takes this input too.
                    slot.firedWhileServed = true
                    state.slots[token] = slot
                    return nil
                }
                slot.isServed = true
                state.slots[token] = slot
                state.busy += 1
                // Every thread busy: the keeper looks again shortly, and starts another if none
                // has finished a turn by then.
                let suspectsStall =
                    state.busy == state.threads && state.threads < threadLimit && state.allBusySince == nil
                if suspectsStall { state.allBusySince = state.finishedTurns }
                return (slot.connection, suspectsStall)
            }
            guard let (connection, suspectsStall) = taken else { continue }
            if suspectsStall { keeperWake.signal() }
            var turn = connection.serve()
            while finishTurn(token, turn) {
                state.withLock { $0.finishedTurns &+= 1 }
                turn = connection.serve()
            }
            state.withLock { state in
                state.busy -= 1
                state.finishedTurns &+= 1
            }
        }
    }

    /// After a turn: the connection ends, or waits again; true when its next request is here and
    /// the calling thread is to serve another turn. The registration is armed outside the lock,
    /// the slot still served (no deadline or stop closes the descriptor, and an event that comes
    /// meanwhile is marked, not dropped), so no thread waits on the lock for a system call.
    private func finishTurn(_ token: UInt64, _ turn: Turn) -> Bool {
        let waits = state.withLock {
            state -> (descriptor: FileDescriptor?, ended: Connection?, anotherThreadWaits: Bool) in
            guard var slot = state.slots[token] else { return (nil, nil, false) }
            guard turn != .over, !state.stopping || slot.connection.isAwaited() else {
                state.slots[token] = nil
                return (nil, slot.connection, false)
            }
            if turn == .answered || turn == .writing { slot.deadline = .now + idleTimeout }
            state.slots[token] = slot
            return (slot.connection.descriptor, nil, state.threads > state.busy)
        }
        guard let descriptor = waits.descriptor else {
            if let ended = waits.ended {
                ended.end()
                finishIfDone()
            }
            return false
        }
        // A client that asks again as soon as it has its answer (on this core, before this thread
        // is back) has its next request here already: armed, it would wake a waiting thread that
        // only finds the connection served. It is served here instead, but only while another
        // thread waits in the set, which then serves any other connection's request: one client
        // never keeps a thread from the others.
        if turn == .answered, waits.anotherThreadWaits, Self.hasInput(descriptor) { return true }
        guard cplatform_epoll_watch_once(epoll.rawValue, descriptor.rawValue, token, 0, turn == .writing ? 1 : 0) == 0
        else {
            let ended = state.withLock { $0.slots.removeValue(forKey: token) }
            ended?.connection.end()
            finishIfDone()
            return false
        }
        // The event fired as it was armed and another thread, finding it served, left it: this
        // thread serves it.
        return state.withLock { state -> Bool in
            guard var slot = state.slots[token] else { return false }
            defer { state.slots[token] = slot }
            guard slot.firedWhileServed else {
                slot.isServed = false
                return false
            }
            slot.firedWhileServed = false
            return true
        }
    }

    /// Whether input (or the peer's end) is waiting on `descriptor` now.
    private static func hasInput(_ descriptor: FileDescriptor) -> Bool {
        var waiting = pollfd(fd: descriptor.rawValue, events: Int16(POLLIN), revents: 0)
        return poll(&waiting, 1, 0) == 1
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
        _ = Glibc.write(finishedSignal.rawValue, &one, 8)
        keeperWake.signal()
    }

    // MARK: Idle deadlines

    /// Ends the connections past their idle deadline, waking at the earliest deadline left (never
    /// more often than every 50 ms: deadlines are seconds long), until the set is finished; and
    /// starts a thread when every thread has been busy for ``stallTime`` without finishing a turn.
    private func keepDeadlines() {
        let granularity = Duration.milliseconds(50)
        var nextSweep = ContinuousClock.now
        /// A stall not met with a thread because a thread could run: since which finished turn, and when.
        var vetoed: (turns: UInt64, at: ContinuousClock.Instant)?
        while true {
            let now = ContinuousClock.now
            let stalled = state.withLock { state -> (threads: [Int32], turns: UInt64)? in
                guard let since = state.allBusySince else { return nil }
                state.allBusySince = nil
                guard state.busy == state.threads, state.threads < threadLimit else { return nil }
                guard state.finishedTurns == since else {
                    // Still all busy, but turns finish: look again, from here (a thread that
                    // finished a quick turn may be in a long one now, taken while this was open).
                    state.allBusySince = state.finishedTurns
                    return nil
                }
                return (state.threadIDs, since)
            }
            // No turn finished, and every thread is busy: another is started only if none of
            // them can run. A runnable one is working, or waiting for a processor (fifty busy
            // clients on two cores), or holds a lock the others wait for; another thread would
            // only take processor time and the lock from them. Without that check, a burst of
            // clients started thread after thread, whose contention on the set's lock made every
            // turn slower, so more stalls were seen: a thousand connections served at a third of
            // their rate, by ten threads, each call three times the processor time. A stall that
            // lasts (a turn that computes for long beside one that waits) gets its thread anyway.
            var startsThread = false
            if let stalled {
                if vetoed?.turns != stalled.turns { vetoed = (stalled.turns, now) }
                let someRuns =
                    now - (vetoed?.at ?? now) < Self.longStall
                    && stalled.threads.contains { cplatform_thread_is_runnable($0) == 1 }
                startsThread = state.withLock { state in
                    guard !someRuns else {
                        // Looked at again shortly, while all stay busy.
                        if state.busy == state.threads { state.allBusySince = state.finishedTurns }
                        return false
                    }
                    guard state.busy == state.threads, state.threads < threadLimit else { return false }
                    state.threads += 1
                    return true
                }
            }
            if startsThread { startThread() }
            if now >= nextSweep {
                let (expired, next) = endExpired(at: now)
                for connection in expired { connection.end() }
                if !expired.isEmpty { finishIfDone() }
                nextSweep = max(next, now + granularity)
            }
            let (finished, stallSuspected) = state.withLock { ($0.finished, $0.allBusySince != nil) }
            if finished { return }
            // A stall suspected meanwhile is looked at after its time, else the next deadline.
            let wake = stallSuspected ? min(nextSweep, ContinuousClock.now + Self.stallTime) : nextSweep
            let (seconds, attoseconds) = max(ContinuousClock.now.duration(to: wake), .zero).components
            _ = keeperWake.wait(
                timeout: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)))
            // Signalled for a suspected stall: give the busy threads their time before looking.
            if state.withLock({ $0.allBusySince != nil }) {
                let (seconds, attoseconds) = Self.stallTime.components
                var pause = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
                nanosleep(&pause, nil)
            }
        }
    }

    /// Removes the connections waiting past their idle deadline (or, once stopping, at all) that
    /// nothing awaits; returns them, and the earliest deadline left.
    private func endExpired(at now: ContinuousClock.Instant) -> ([Connection], ContinuousClock.Instant) {
        state.withLock { state in
            var expired: [Connection] = []
            var next = now + min(idleTimeout, .seconds(1))
            for (token, slot) in state.slots where !slot.isServed && !slot.isBeingAdded {
                if slot.deadline <= now || state.stopping {
                    guard slot.connection.isAwaited() else {
                        state.slots[token] = nil
                        expired.append(slot.connection)
                        continue
                    }
                    state.slots[token]?.deadline = now + idleTimeout
                }
                next = min(next, state.slots[token]!.deadline)
            }
            return (expired, next)
        }
    }
}

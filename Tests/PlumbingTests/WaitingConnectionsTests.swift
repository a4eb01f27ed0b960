import Dispatch
import Glibc
import Locking
import Plumbing
import SystemPackage
import Testing

/// Connections waited on together: many idle ones on few threads, a turn that blocks holding up
/// only its own client, idle deadlines, and a stop that ends the idle at once and the busy after
/// their turn. Real socket pairs; every wait is for an event, bounded.
@Suite(.timeLimit(.minutes(1)))
struct WaitingConnectionsTests {
    /// One served connection: its service end (answering each line with "ok: LINE") and the
    /// client's end, and a semaphore signalled when the set ends it.
    final class Served: Sendable {
        let service: LineConnection
        let client: LineConnection
        let ended = DispatchSemaphore(value: 0)
        let endings = Lock(0)

        init() throws {
            let (near, far) = try FileDescriptor.socketPair()
            (service, client) = (LineConnection(owning: near), LineConnection(owning: far))
        }

        func connection(
            isAwaited: @escaping @Sendable () -> Bool = { false },
            answering: @escaping @Sendable (String) -> Void = { _ in }
        ) -> WaitingConnections.Connection {
            WaitingConnections.Connection(
                descriptor: service.descriptor,
                serve: { [service] in
                    guard service.receiveArrived() else { return .over }
                    var answered = false
                    while case .line(let bytes)? = service.bufferedLine(limit: 1024, terminator: 10) {
                        let text = String(decoding: bytes, as: UTF8.self)
                        answering(text)
                        service.writeLine("ok: " + text)
                        answered = true
                    }
                    return answered ? .answered : .partial
                },
                isAwaited: isAwaited,
                end: { [self] in
                    endings.withLock { $0 += 1 }
                    service.close()
                    ended.signal()
                })
        }

        /// Sends `line` and reads the answer.
        func ask(_ line: String) -> LineConnection.Read {
            _ = client.writeLine(line)
            return client.readLine(limit: 1024, until: .now + .seconds(10))
        }
    }

    @Test("200 idle connections wait on a few threads, not one each, and each is answered when it asks")
    func manyIdle() throws {
        let set = try WaitingConnections(threadLimit: 64, idleTimeout: .seconds(60))
        defer { set.stop() }
        let served = try (0..<200).map { _ in try Served() }
        for one in served { set.add(one.connection()) }
        #expect(set.count == 200)
        for (index, one) in served.enumerated().reversed() {
            #expect(one.ask("call \(index)") == .line(Array("ok: call \(index)".utf8)))
        }
        // One client asking at a time keeps a thread or two busy (one finishing its turn as the
        // next starts), each with a spare waiting: never a thread per connection.
        #expect(set.threadCount < 16, "threads: \(set.threadCount)")
        // Pipelined calls in one write are answered in order, within one turn or several.
        _ = served[0].client.writeLine("a\nb")
        #expect(served[0].client.readLine(limit: 64, until: .now + .seconds(10)) == .line(Array("ok: a".utf8)))
        #expect(served[0].client.readLine(limit: 64, until: .now + .seconds(10)) == .line(Array("ok: b".utf8)))
    }

    @Test("a turn that blocks holds up only its own client: another thread serves the rest")
    func blockingTurn() throws {
        let set = try WaitingConnections(threadLimit: 8, idleTimeout: .seconds(60))
        defer { set.stop() }
        let release = DispatchSemaphore(value: 0)
        let blocked = try Served()
        let other = try Served()
        set.add(blocked.connection(answering: { text in if text == "wait" { release.wait() } }))
        set.add(other.connection())
        _ = blocked.client.writeLine("wait")
        #expect(other.ask("meanwhile") == .line(Array("ok: meanwhile".utf8)))
        release.signal()
        #expect(blocked.client.readLine(limit: 64, until: .now + .seconds(10)) == .line(Array("ok: wait".utf8)))
    }

    @Test("turns that block on more connections than there are processors still leave a thread for the next client")
    func manyBlockingTurns() throws {
        let set = try WaitingConnections(threadLimit: 16, idleTimeout: .seconds(60))
        defer { set.stop() }
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let blocked = try (0..<6).map { _ in try Served() }
        for one in blocked {
            set.add(
                one.connection(answering: { text in
                    guard text == "wait" else { return }
                    started.signal()
                    release.wait()
                }))
        }
        // One after the other: each waits for the thread the one before it holds to be replaced.
        // Each first asks something quick on the same connection, as a varlink client asks for the
        // interface's description before its call: a turn finishing while every thread is busy
        // must not hide the long one after it.
        for one in blocked {
            #expect(one.ask("quick") == .line(Array("ok: quick".utf8)))
            _ = one.client.writeLine("wait")
            #expect(started.wait(timeout: .now() + 10) == .success)
        }
        let other = try Served()
        set.add(other.connection())
        #expect(other.ask("meanwhile") == .line(Array("ok: meanwhile".utf8)))
        for _ in blocked { release.signal() }
        for one in blocked {
            #expect(one.client.readLine(limit: 64, until: .now + .seconds(10)) == .line(Array("ok: wait".utf8)))
        }
    }

    @Test("a client asking again within its turn waits its turn in the set when no other thread waits there")
    func askingAgainWithOneThread() throws {
        let set = try WaitingConnections(threadLimit: 1, idleTimeout: .seconds(60))
        defer { set.stop() }
        let eager = try Served()
        let other = try Served()
        let order = Lock([String]())
        set.add(
            eager.connection(answering: { text in
                order.withLock { $0.append(text) }
                // The other client asks first, then this one again, both before the turn ends.
                if text == "1" { _ = other.client.writeLine("other") }
                if let turn = Int(text), turn < 3 { _ = eager.client.writeLine(String(turn + 1)) }
            }))
        set.add(other.connection(answering: { text in order.withLock { $0.append(text) } }))
        _ = eager.client.writeLine("1")
        for turn in 1...3 {
            #expect(eager.client.readLine(limit: 64, until: .now + .seconds(10)) == .line(Array("ok: \(turn)".utf8)))
        }
        #expect(other.client.readLine(limit: 64, until: .now + .seconds(10)) == .line(Array("ok: other".utf8)))
        // The set's order is the order requests came in: the eager client's second request is not
        // served on the thread that has it before the one that waited.
        #expect(order.withLock { $0 } == ["1", "other", "2", "3"])
    }

    @Test("clients asking again within their turns on every thread leave none of the others waiting")
    func askingAgainOnEveryThread() throws {
        let set = try WaitingConnections(threadLimit: 2, idleTimeout: .seconds(60))
        defer { set.stop() }
        let otherAnswered = Lock(false)
        let turns = Lock(0)
        let eager = try (0..<2).map { _ in try Served() }
        for one in eager {
            set.add(
                one.connection(answering: { text in
                    // Asks again at once, until the other client has its answer (or far past
                    // the point where it would have had it, were it served in its turn).
                    let more = turns.withLock { turns in
                        turns += 1
                        return turns < 5_000
                    }
                    if more, !otherAnswered.withLock({ $0 }) { _ = one.client.writeLine(text) }
                }))
        }
        let other = try Served()
        set.add(other.connection())
        for one in eager { _ = one.client.writeLine("again") }
        #expect(other.ask("once") == .line(Array("ok: once".utf8)))
        otherAnswered.withLock { $0 = true }
        #expect(turns.withLock { $0 } < 20_000, "the other client was answered only once the eager ones stopped")
    }

    @Test("turns that compute on every thread start no other thread: it could only take processor time from them")
    func computingTurns() throws {
        let set = try WaitingConnections(threadLimit: 8, idleTimeout: .seconds(60))
        defer { set.stop() }
        let served = try (0..<4).map { _ in try Served() }
        let started = DispatchSemaphore(value: 0)
        for one in served {
            set.add(
                one.connection(answering: { text in
                    guard text == "compute" else { return }
                    started.signal()
                    // Runs (never sleeps) for 25 times the stall the set looks for, half the time
                    // after which it starts a thread anyway: a thread sleeping in its turn would
                    // have had another started long before.
                    let end = ContinuousClock.now + .milliseconds(50)
                    var spins = 0
                    while ContinuousClock.now < end { spins &+= 1 }
                    withExtendedLifetime(spins) {}
                }))
        }
        // As many computing turns as there are threads: every thread busy, none sleeping.
        let threads = set.threadCount
        #expect(threads >= 1)
        for one in served.prefix(threads) { _ = one.client.writeLine("compute") }
        for _ in 0..<threads { #expect(started.wait(timeout: .now() + 10) == .success) }
        for one in served.prefix(threads) {
            #expect(one.client.readLine(limit: 64, until: .now + .seconds(10)) == .line(Array("ok: compute".utf8)))
        }
        #expect(set.threadCount == threads, "a thread was started beside \(threads) computing ones")
    }

    @Test("a client that sends nothing, or half a request, is ended at its idle deadline; one that asks is not")
    func idleDeadline() throws {
        let set = try WaitingConnections(threadLimit: 4, idleTimeout: .milliseconds(300))
        defer { set.stop() }
        let silent = try Served()
        let half = try Served()
        set.add(silent.connection())
        set.add(half.connection())
        _ = Array("no newline".utf8).withUnsafeBytes { half.client.write($0) }
        #expect(silent.ended.wait(timeout: .now() + 10) == .success)
        #expect(half.ended.wait(timeout: .now() + 10) == .success)
        #expect(silent.client.readLine(limit: 64, until: .now + .seconds(10)) == .end)
        #expect(set.count == 0)
        // The deadline counts from the last answer: a client asking within it each time stays.
        let asking = try Served()
        set.add(asking.connection())
        for index in 0..<3 {
            #expect(asking.ask("\(index)") == .line(Array("ok: \(index)".utf8)))
        }
        #expect(asking.endings.withLock { $0 } == 0)
    }

    @Test(
        "a turn whose reply waits for its client to read is served again when the client has read, not when it sends; a client that never reads meets the idle deadline"
    )
    func waitingToWrite() throws {
        let set = try WaitingConnections(threadLimit: 2, idleTimeout: .seconds(2))
        defer { set.stop() }
        /// A service that fills its end of the socket on its first turn, as replies to many calls
        /// would, and counts the turns after it.
        func filling(_ served: Served, later: DispatchSemaphore) -> WaitingConnections.Connection {
            let turns = Lock(0)
            return WaitingConnections.Connection(
                descriptor: served.service.descriptor,
                serve: { [service = served.service] in
                    _ = service.receiveArrived()
                    let first = turns.withLock { turns in
                        defer { turns += 1 }
                        return turns == 0
                    }
                    guard first else {
                        later.signal()
                        return .partial
                    }
                    let block = [UInt8](repeating: 120, count: 1 << 20)
                    return block.withUnsafeBytes { service.writeWithoutWaiting($0) } == .kept ? .writing : .over
                },
                isAwaited: { false },
                end: {
                    served.service.close()
                    served.ended.signal()
                })
        }
        let reading = try Served()
        let servedAgain = DispatchSemaphore(value: 0)
        set.add(filling(reading, later: servedAgain))
        _ = reading.client.writeLine("go")
        // The client reads what comes, and sends nothing: the next turn is for the room it made.
        // (It reads until then: the service may still be writing when it first finds nothing.)
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var again = false
        let deadline = ContinuousClock.now + .seconds(10)
        while !again, ContinuousClock.now < deadline {
            var entry = pollfd(fd: reading.client.descriptor.rawValue, events: Int16(POLLIN), revents: 0)
            if poll(&entry, 1, 100) == 1 {
                while Glibc.recv(reading.client.descriptor.rawValue, &chunk, chunk.count, Int32(MSG_DONTWAIT)) > 0 {}
            }
            again = servedAgain.wait(timeout: .now()) == .success
        }
        #expect(again)
        // A client that never reads holds no thread, and is ended at its deadline.
        let silent = try Served()
        let never = DispatchSemaphore(value: 0)
        set.add(filling(silent, later: never))
        _ = silent.client.writeLine("go")
        #expect(silent.ended.wait(timeout: .now() + 30) == .success)
        #expect(never.wait(timeout: .now()) == .timedOut)
    }

    @Test("an awaited connection outlives its idle deadline and a stop, until it is no longer awaited")
    func awaited() throws {
        let set = try WaitingConnections(threadLimit: 4, idleTimeout: .milliseconds(200))
        let awaited = Lock(true)
        let kept = try Served()
        let idle = try Served()
        set.add(kept.connection(isAwaited: { awaited.withLock { $0 } }))
        set.add(idle.connection())
        #expect(idle.ended.wait(timeout: .now() + 10) == .success)
        // Past several deadlines: still served.
        #expect(kept.ask("still") == .line(Array("ok: still".utf8)))
        set.stop()
        #expect(kept.ask("after the stop") == .line(Array("ok: after the stop".utf8)))
        #expect(!set.waitUntilFinished(until: .now + .milliseconds(50)))
        awaited.withLock { $0 = false }
        #expect(kept.ended.wait(timeout: .now() + 10) == .success)
        #expect(set.waitUntilFinished(until: .now + .seconds(10)))
    }

    @Test("a stop ends idle connections at once and a busy one after its turn; then nothing is added")
    func stop() throws {
        let set = try WaitingConnections(threadLimit: 4, idleTimeout: .seconds(60))
        let release = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let busy = try Served()
        let idle = try Served()
        set.add(
            busy.connection(answering: { _ in
                started.signal()
                release.wait()
            }))
        set.add(idle.connection())
        _ = busy.client.writeLine("slow")
        #expect(started.wait(timeout: .now() + 10) == .success)
        set.stop()
        #expect(idle.ended.wait(timeout: .now() + 10) == .success)
        #expect(busy.endings.withLock { $0 } == 0)
        release.signal()
        // The call in progress is answered, then the connection ends.
        #expect(busy.client.readLine(limit: 64, until: .now + .seconds(10)) == .line(Array("ok: slow".utf8)))
        #expect(busy.ended.wait(timeout: .now() + 10) == .success)
        #expect(set.waitUntilFinished(until: .now + .seconds(10)))
        let late = try Served()
        set.add(late.connection())
        #expect(late.ended.wait(timeout: .now() + 10) == .success)
        #expect(late.endings.withLock { $0 } == 1)
    }
}

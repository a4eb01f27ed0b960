import Glibc
package import Plumbing
import ServiceLifecycle

/// The listener in async code and in a swift-service-lifecycle `ServiceGroup`.
extension ClientListener {
    /// Serves clients as ``run(_:)`` does (each on a thread of its own, within the limits) until
    /// the task is cancelled or its `ServiceGroup` shuts down gracefully; then stops accepting,
    /// waits up to `draining` for the clients being served to finish, and returns (20 s by
    /// default: below systemd's default stop timeout of 90 s, where a client silent at a PAM
    /// question could otherwise hold the stop for its 120 s). A listener
    /// that made its socket file removes it when it goes; systemd's socket is left to systemd.
    ///
    /// ```swift
    /// let listener = try ClientListener(path: "/run/myservice.sock")
    /// try await listener.serve { client in
    ///     guard let request = try? client.readRequest() else { return }
    ///     client.reply(request == "ping" ? "ok: pong" : "error: unknown request")
    /// }
    /// ```
    public func serve(
        draining: Duration = .seconds(20), _ handle: @escaping @Sendable (ClientConnection) -> Void
    ) async throws {
        try await withTaskCancellationHandler {
            try await withGracefulShutdownHandler {
                try await acceptingOnOwnThread(handle)
            } onGracefulShutdown: {
                self.shutdown()
            }
        } onCancel: {
            self.shutdown()
        }
        // The accept loop is over; those already admitted finish within their own deadlines.
        let waiting = self
        _ = await BlockingWork.run { waiting.waitUntilIdle(until: .now + draining) }
    }

    /// Serves clients that talk in requests (varlink calls) as ``serve(draining:_:)`` does, except
    /// that a client between requests holds no thread: its connection waits with every other in
    /// one epoll set (`WaitingConnections`), and a thread serves it when its next request arrives.
    /// Thousands of idle clients then cost their descriptors and a little memory each.
    /// - Parameters:
    ///   - draining: How long the clients being served may take to finish once accepting stops.
    ///   - idleTimeout: How long a client may take to send each request; a slower one is closed.
    ///   - threads: How many requests are served at once, at most (a turn may block on its client).
    ///   - serving: What serves `client`'s requests, made when it is admitted.
    package func serve(
        draining: Duration, idleTimeout: Duration, threads: Int,
        waiting serving: @escaping @Sendable (ClientConnection) -> WaitingConnections.Connection
    ) async throws {
        let waiting = try WaitingConnections(threadLimit: threads, idleTimeout: idleTimeout)
        do {
            try await withTaskCancellationHandler {
                try await withGracefulShutdownHandler {
                    try await acceptingOnOwnThread { listener throws(ServiceError) in
                        try listener.acceptClients { client in waiting.add(serving(client)) }
                    }
                } onGracefulShutdown: {
                    self.shutdown()
                }
            } onCancel: {
                self.shutdown()
            }
        } catch {
            waiting.stop()
            throw error
        }
        waiting.stop()
        // The accept loop is over; those being served finish within their own deadlines.
        let listener = self
        _ = await BlockingWork.run {
            let deadline = ContinuousClock.now + draining
            return waiting.waitUntilFinished(until: deadline) && listener.waitUntilIdle(until: deadline)
        }
    }

    /// ``run(_:)`` on a thread of its own, awaited.
    private func acceptingOnOwnThread(_ handle: @escaping @Sendable (ClientConnection) -> Void) async throws {
        try await acceptingOnOwnThread { listener throws(ServiceError) in try listener.run(handle) }
    }

    private func acceptingOnOwnThread(
        _ accepting: @escaping @Sendable (ClientListener) throws(ServiceError) -> Void
    ) async throws {
        let listener = self
        let outcome: Result<Void, ServiceError> = await withCheckedContinuation { continuation in
            let started = DetachedThread.start(named: "accept") {
                do throws(ServiceError) {
                    try accepting(listener)
                    continuation.resume(returning: .success(()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
            if !started { continuation.resume(returning: .failure(ServiceError("cannot start the accepting thread"))) }
        }
        try outcome.get()
    }

    /// Every client admitted from now on, identified, as an async sequence: it ends when the
    /// listener shuts down, and ending its iteration (the task cancelled, a `break`) shuts the
    /// listener down. It never holds more clients than ``limits`` admit at once: each one holds
    /// its slot until its ``ClientConnection`` is released.
    ///
    /// ```swift
    /// let listener = try ClientListener(path: "/run/myservice.sock")
    /// for await client in listener.clients() {
    ///     client.reply("ok: \(client.subject)")
    /// }
    /// ```
    public func clients() -> AsyncStream<ClientConnection> {
        let listener = self
        let (stream, continuation) = AsyncStream<ClientConnection>.makeStream(bufferingPolicy: .unbounded)
        continuation.onTermination = { _ in listener.shutdown() }
        let started = DetachedThread.start(named: "accept") {
            while true {
                do throws(ServiceError) {
                    let client = try listener.accept()
                    if case .terminated = continuation.yield(client) { return }
                } catch {
                    if error.isClientError { continue }
                    if error.isResourceShortage {
                        // Waited out, as run(_:) does: the pending connection stays queued.
                        var pause = timespec(tv_sec: 0, tv_nsec: 50_000_000)
                        nanosleep(&pause, nil)
                        continue
                    }
                    // Shut down, or accepting failed for good: the sequence ends.
                    continuation.finish()
                    return
                }
            }
        }
        if !started { continuation.finish() }
        return stream
    }
}

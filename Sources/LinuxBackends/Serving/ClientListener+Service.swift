import Glibc
import Plumbing
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

    /// ``run(_:)`` on a thread of its own, awaited.
    private func acceptingOnOwnThread(_ handle: @escaping @Sendable (ClientConnection) -> Void) async throws {
        let listener = self
        let outcome: Result<Void, ServiceError> = await withCheckedContinuation { continuation in
            let started = DetachedThread.start(named: "accept") {
                do throws(ServiceError) {
                    try listener.run(handle)
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

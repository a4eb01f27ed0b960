import Dispatch

/// Runs `body`, which blocks (a synchronous client call, a wait on a file), on a thread of
/// Dispatch's, not on one of the few threads Swift's tasks share: a task of the same test that
/// must run for `body` to finish (the service it calls) is not starved by it.
public func awaitBlocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
        DispatchQueue.global().async { done.resume(with: Result { try body() }) }
    }
}

/// Starts `body` in a task and returns once the task runs: a service whose socket already
/// listens (`run(adopting:)`) then serves without waiting to be scheduled, so a client's
/// deadline does not run out while the shared threads are busy with other tests.
public func startedTask(
    _ body: @escaping @Sendable () async throws -> Void
) async -> Task<Void, any Error> {
    let (started, signal) = AsyncStream.makeStream(of: Void.self)
    let task = Task {
        signal.yield()
        signal.finish()
        try await body()
    }
    for await _ in started { break }
    return task
}

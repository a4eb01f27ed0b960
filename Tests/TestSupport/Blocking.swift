import Dispatch

/// Runs `body`, which blocks (a synchronous client call, a wait on a file), on a thread of
/// Dispatch's, not on one of the few threads Swift's tasks share: a task of the same test that
/// must run for `body` to finish (the service it calls) is not starved by it.
public func awaitBlocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
        DispatchQueue.global().async { done.resume(with: Result { try body() }) }
    }
}

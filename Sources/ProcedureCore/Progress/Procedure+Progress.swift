import Locking

extension Procedure {
    /// How far the work has come: the last progress reported, complete once the procedure
    /// finished without an error, ``ProcedureProgress/notStarted`` before anything was reported.
    public var progress: ProcedureProgress { storage.withLock { $0.progress } }

    /// Reports how far the work has come: `completed` units of `total` (`nil` while unknown).
    ///
    /// Call it from the work body as often as the work moves; observers hear each report on the
    /// calling thread, and a group passes its children's on, added up. A report once the
    /// procedure is finishing is dropped. Out-of-range counts are brought into range
    /// (``ProcedureProgress/init(completed:of:detail:)``).
    /// - Parameters:
    ///   - completed: The units done so far.
    ///   - total: The units in all, or `nil` while unknown.
    ///   - detail: What the work is doing, for people ("downloading catalog.gz").
    public final func reportProgress(completed: Int64, of total: Int64?, detail: String? = nil) {
        reportProgress(ProcedureProgress(completed: completed, of: total, detail: detail))
    }

    /// Reports how far the work has come (see ``reportProgress(completed:of:detail:)``).
    public final func reportProgress(_ progress: ProcedureProgress) {
        guard case .tell(let observers, let group) = storage.withLock({ $0.progressReported(progress) }) else { return }
        for observer in observers { observer.procedure(self, didReportProgress: progress) }
        group?.childDidReportProgress(self, progress)
    }

    /// The procedure's progress as it changes, ending once the procedure has finished.
    ///
    /// It starts with the current ``progress`` and ends with the final one. A reader slower than
    /// the reports sees the newest and skips the ones in between, which is what a progress bar
    /// wants. Stopping the iteration stops the observation.
    ///
    /// ```swift
    /// Task {
    ///     for await progress in fetchDatabase.progressUpdates {
    ///         print("\r\(Int((progress.fractionCompleted ?? 0) * 100))%", terminator: "")
    ///     }
    /// }
    /// ```
    public var progressUpdates: AsyncStream<ProcedureProgress> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ProcedureProgress.self, bufferingPolicy: .bufferingNewest(1))
        let observer = ProgressStreamObserver(continuation: continuation)
        let registration = addRemovableObserver(observer)
        continuation.onTermination = { _ in registration.remove() }
        // Read after registering and yielded under the observer's lock, so a report racing with
        // the first value is either in it or yielded after it, never overtaken by it.
        observer.yieldCurrent(of: self)
        return stream
    }
}

/// Feeds ``Procedure/progressUpdates``.
private final class ProgressStreamObserver: ProcedureObserver {
    let continuation: AsyncStream<ProcedureProgress>.Continuation
    private let order = Lock(())

    init(continuation: AsyncStream<ProcedureProgress>.Continuation) { self.continuation = continuation }

    func yieldCurrent(of procedure: Procedure) {
        order.withLock { _ in _ = continuation.yield(procedure.progress) }
    }

    func procedure(_ procedure: Procedure, didReportProgress progress: ProcedureProgress) {
        order.withLock { _ in _ = continuation.yield(progress) }
    }

    func procedureDidFinish(_ procedure: Procedure, error: (any Error)?) {
        order.withLock { _ in
            continuation.yield(procedure.progress)
            continuation.finish()
        }
    }
}

/// Reports progress for the procedure whose body it was handed to, as
/// ``AsyncProcedure/init(name:reportingProgress:)`` does.
///
/// ```swift
/// let copy = AsyncProcedure(name: "copy") { progress in
///     for (index, file) in files.enumerated() {
///         try await copyFile(file)
///         progress.report(completed: Int64(index + 1), of: Int64(files.count), detail: file)
///     }
/// }
/// ```
public struct ProgressReporter: Sendable {
    private let procedure: Procedure

    init(_ procedure: Procedure) { self.procedure = procedure }

    /// Reports `completed` units of `total` (``Procedure/reportProgress(completed:of:detail:)``).
    /// - Parameters:
    ///   - completed: The units done so far.
    ///   - total: The units in all, or `nil` while unknown.
    ///   - detail: What the work is doing, for people.
    public func report(completed: Int64, of total: Int64?, detail: String? = nil) {
        procedure.reportProgress(completed: completed, of: total, detail: detail)
    }
}

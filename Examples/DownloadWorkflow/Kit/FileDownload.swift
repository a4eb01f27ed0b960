import Foundation
import ProcedureCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// GET `url` into `file` as the body arrives, chunk by chunk, so a large database never sits in
/// memory, reporting the bytes written so far of the announced length.
///
/// Anything but 200 is a ``DownloadWorkflow/HTTPFailure``; cancelling the calling task stops
/// the transfer.
func downloadFile(
    from url: URL, into file: URL, detail: String, progress: ProgressReporter
) async throws -> Int64 {
    guard FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
    else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: file.path]) }
    let writer = try FileWriter(url: url, file: file) { written, expected in
        progress.report(completed: written, of: expected, detail: detail)
    }
    let session = URLSession(configuration: .ephemeral, delegate: writer, delegateQueue: nil)
    defer { session.finishTasksAndInvalidate() }
    let task = session.dataTask(with: url)
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { continuation in
            writer.start(task, continuation: continuation)
        }
    } onCancel: {
        task.cancel()
    }
}

/// Receives the body for ``downloadFile(from:into:detail:progress:)`` and writes it out.
/// URLSession's delegate protocols require an `NSObject`; its callbacks come one at a time on
/// the session's delegate queue, and `state` guards what the starting task also touches.
private final class FileWriter: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct State {
        var continuation: CheckedContinuation<Int64, any Error>?
        var failure: (any Error)?
        var written: Int64 = 0
        var expected: Int64?
    }

    private let url: URL
    private let output: FileHandle
    private let wrote: @Sendable (_ written: Int64, _ expected: Int64?) -> Void
    private let lock = NSLock()
    private var state = State()

    init(url: URL, file: URL, wrote: @escaping @Sendable (Int64, Int64?) -> Void) throws {
        self.url = url
        output = try FileHandle(forWritingTo: file)
        self.wrote = wrote
    }

    func start(_ task: URLSessionDataTask, continuation: CheckedContinuation<Int64, any Error>) {
        lock.withLock { state.continuation = continuation }
        task.resume()
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        let status = (response as? HTTPURLResponse)?.statusCode ?? 0
        guard status == 200 else {
            lock.withLock { state.failure = DownloadWorkflow.HTTPFailure(url: url, status: status) }
            return completionHandler(.cancel)
        }
        let length = response.expectedContentLength
        lock.withLock { state.expected = length >= 0 ? length : nil }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        do {
            try output.write(contentsOf: data)
        } catch {
            lock.withLock { state.failure = state.failure ?? error }
            return dataTask.cancel()
        }
        let (written, expected) = lock.withLock {
            state.written += Int64(data.count)
            return (state.written, state.expected)
        }
        // After the write, so what was reported is on disk.
        wrote(written, expected)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        let (continuation, failure, written, expected) = lock.withLock {
            defer { state.continuation = nil }
            return (state.continuation, state.failure, state.written, state.expected)
        }
        try? output.close()
        if let failure {
            continuation?.resume(throwing: failure)
        } else if let error {
            let cancelled = (error as? URLError)?.code == .cancelled
            continuation?.resume(throwing: cancelled ? CancellationError() : error)
        } else if let expected, written != expected {
            continuation?.resume(throwing: URLError(.networkConnectionLost))
        } else {
            continuation?.resume(returning: written)
        }
    }
}

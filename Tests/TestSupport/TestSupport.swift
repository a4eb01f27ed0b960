import Foundation
import Synchronization
import ProcedureCore

/// A one-shot latch: `wait()` returns once `open()` was called, before or after.
public final class Latch: Sendable {
    private let state = Mutex<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    public init() {}

    public func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    public var isOpen: Bool { state.withLock { $0.isOpen } }

    public func wait() async {
        await withCheckedContinuation { continuation in
            let open = state.withLock { state -> Bool in
                if state.isOpen { return true }
                state.waiters.append(continuation)
                return false
            }
            if open { continuation.resume() }
        }
    }
}

/// A thread-safe counter.
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)
    public init() {}
    @discardableResult
    public func increment() -> Int { value.add(1, ordering: .sequentiallyConsistent).newValue }
    public func decrement() { value.subtract(1, ordering: .sequentiallyConsistent) }
    public var count: Int { value.load(ordering: .sequentiallyConsistent) }
}

/// A thread-safe list of events, in the order they happened.
public final class EventLog: Sendable {
    private let events = Mutex<[String]>([])
    public init() {}
    public func record(_ event: String) { events.withLock { $0.append(event) } }
    public var all: [String] { events.withLock { $0 } }
    public func count(of event: String) -> Int { all.filter { $0 == event }.count }
}

/// An observer that logs every event as "event name" (for example "didFinish a").
public struct LoggingObserver: ProcedureObserver {
    public let log: EventLog
    public init(log: EventLog) { self.log = log }
    public func procedureWillExecute(_ procedure: Procedure) { log.record("willExecute \(procedure.name)") }
    public func procedureDidCancel(_ procedure: Procedure, error: (any Error)?) { log.record("didCancel \(procedure.name)") }
    public func procedure(_ procedure: Procedure, didProduce dependency: Procedure) {
        log.record("didProduce \(procedure.name)")
    }
    public func procedureWillFinish(_ procedure: Procedure, error: (any Error)?) { log.record("willFinish \(procedure.name)") }
    public func procedureDidFinish(_ procedure: Procedure, error: (any Error)?) { log.record("didFinish \(procedure.name)") }
}

/// Runs `procedure` on a fresh queue and waits for it.
public func run(_ procedure: Procedure, on queue: ProcedureQueue = ProcedureQueue()) async {
    queue.addProcedure(procedure)
    await procedure.waitUntilFinished()
}

public struct TestError: Error, Equatable, CustomStringConvertible {
    public let message: String
    public init(_ message: String = "test error") { self.message = message }
    public var description: String { message }
}

/// What a child process printed and how it ended.
public struct ProcessOutput: Sendable {
    public let status: Int32
    public let standardOutput: String
    public let standardError: String
}

/// Runs `executable` with `arguments` and waits for it (a real child process: fork and exec).
/// - Parameters:
///   - environment: The child's whole environment; this process's when nil.
///   - input: What the child reads on standard input (nothing: end of input at once).
public func runProcess(
    _ executable: String, _ arguments: [String], environment: [String: String]? = nil, input: String = ""
) throws -> ProcessOutput {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let environment { process.environment = environment }
    let output = Pipe()
    let error = Pipe()
    let standardInput = Pipe()
    process.standardOutput = output
    process.standardError = error
    process.standardInput = standardInput
    try process.run()
    standardInput.fileHandleForWriting.write(Data(input.utf8))
    try standardInput.fileHandleForWriting.close()
    // Read before waiting, so a child writing more than a pipe holds cannot block.
    let outData = output.fileHandleForReading.readDataToEndOfFile()
    let errData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return ProcessOutput(
        status: process.terminationStatus,
        standardOutput: String(decoding: outData, as: UTF8.self),
        standardError: String(decoding: errData, as: UTF8.self))
}

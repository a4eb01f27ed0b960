import Foundation
import Glibc
import Locking
public import ProcedureCore
import Synchronization

/// A one-shot latch: `wait()` returns once `open()` was called, before or after.
public final class Latch: Sendable {
    private let state = Lock<(isOpen: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

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
    /// Adds `amount`.
    public func increment(by amount: Int) { value.add(amount, ordering: .sequentiallyConsistent) }
    public func decrement() { value.subtract(1, ordering: .sequentiallyConsistent) }
    public var count: Int { value.load(ordering: .sequentiallyConsistent) }
}

/// A thread-safe list of events, in the order they happened.
public final class EventLog: Sendable {
    private let events = Lock<[String]>([])
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
    public func procedureDidCancel(_ procedure: Procedure, error: (any Error)?) {
        log.record("didCancel \(procedure.name)")
    }
    public func procedure(_ procedure: Procedure, didProduce dependency: Procedure) {
        log.record("didProduce \(procedure.name)")
    }
    public func procedureWillFinish(_ procedure: Procedure, error: (any Error)?) {
        log.record("willFinish \(procedure.name)")
    }
    public func procedureDidFinish(_ procedure: Procedure, error: (any Error)?) {
        log.record("didFinish \(procedure.name)")
    }
}

/// Runs long synchronous work on a Dispatch thread and waits for it, so that it does not hold
/// one of the cooperative pool's threads (there are as many as cores) while other tests wait.
public func offCooperativePool<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: body()) }
    }
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
    // Read before waiting, so a child writing more than a pipe holds cannot block; a child that
    // has not finished within the deadline is killed, and says so in its error output.
    let deadline = ContinuousClock.now + TestDeadline.wait
    var outData = readToEnd(output.fileHandleForReading, by: deadline)
    var errData = readToEnd(error.fileHandleForReading, by: deadline)
    if ContinuousClock.now >= deadline {
        kill(process.processIdentifier, SIGKILL)
        outData += readToEnd(output.fileHandleForReading, by: .now + .seconds(5))
        errData += Data("\n(runProcess: \(executable) killed: no end within \(TestDeadline.wait))\n".utf8)
    }
    process.waitUntilExit()
    return ProcessOutput(
        status: process.terminationStatus,
        standardOutput: String(decoding: outData, as: UTF8.self),
        standardError: String(decoding: errData, as: UTF8.self))
}

/// Everything left to read from `handle`, up to the end of file or `deadline`.
func readToEnd(_ handle: FileHandle, by deadline: ContinuousClock.Instant) -> Data {
    var data = Data()
    var bytes = [UInt8](repeating: 0, count: 65_536)
    while true {
        let count = bytes.withUnsafeMutableBytes { TestDeadline.read(handle.fileDescriptor, into: $0, by: deadline) }
        guard count > 0 else { return data }
        data.append(contentsOf: bytes[0..<count])
    }
}

/// A child process whose output is read line by line as it comes; terminated when released.
public final class StreamingProcess: @unchecked Sendable {
    // The buffer is only touched by one nextLine() at a time.
    private let process = Process()
    private let output = Pipe()
    private let errors = Pipe()
    private var buffer = Data()
    private let errorsRead = DispatchGroup()
    /// Written once by the reader before it leaves `errorsRead`, read only after waiting on it.
    private final class ErrorBox: @unchecked Sendable { var data = Data() }
    private let errorBox = ErrorBox()

    /// Starts `command` (an executable path and its arguments), with `environment` if given.
    public init(_ command: [String], environment: [String: String]? = nil) throws {
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        if let environment { process.environment = environment }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Drained as it comes, so a chatty child never blocks on a full pipe.
        let reader = errors.fileHandleForReading
        let box = errorBox
        errorsRead.enter()
        DispatchQueue.global().async { [errorsRead] in
            // For as long as the child runs: the end of its output is the end of this read.
            box.data = readToEnd(reader, by: .now + .seconds(24 * 3600))
            errorsRead.leave()
        }
    }

    /// What the child wrote to standard error, once it has ended (for failure messages).
    public func errorText() -> String {
        process.waitUntilExit()
        errorsRead.wait()
        return String(decoding: errorBox.data, as: UTF8.self)
    }

    /// The next line, or nil at the end of the output. Blocks a dispatch thread, not the caller's.
    public func nextLine() async -> String? {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: self.readLine()) }
        }
    }

    /// The next line, or nil at the end of the output or when none came within ``TestDeadline/wait``.
    private func readLine() -> String? {
        let deadline = ContinuousClock.now + TestDeadline.wait
        var bytes = [UInt8](repeating: 0, count: 65_536)
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let count = bytes.withUnsafeMutableBytes {
                TestDeadline.read(output.fileHandleForReading.fileDescriptor, into: $0, by: deadline)
            }
            guard count > 0 else { return nil }
            buffer.append(contentsOf: bytes[0..<count])
        }
    }

    /// Sends SIGTERM, as systemd does to stop a service.
    public func terminate() {
        process.terminate()
    }

    /// Waits for the process and returns its exit status.
    public func waitUntilExit() -> Int32 {
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }
}

/// The path of an executable this package builds, next to the test binary.
public func builtProduct(_ name: String) -> String {
    var buffer = [CChar](repeating: 0, count: 4096)
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let testBinary = String(decoding: buffer.prefix(max(length, 0)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    return (testBinary as NSString).deletingLastPathComponent + "/" + name
}

/// A copy of the built product `name` (and of its `companions`, the helpers it starts from its
/// own directory) in a fresh directory under /tmp that every user may enter, so a child run as
/// another user (setpriv) can execute it wherever the package was cloned; it goes with
/// ``TestRunDirectory`` when the tests end.
public func builtProductForAnyUser(_ name: String, companions: [String] = []) -> String {
    let directory = TestRunDirectory.path + "/\(name)-" + UUID().uuidString
    try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
    chmod(directory, 0o755)
    for product in [name] + companions {
        let copy = directory + "/" + product
        // Copied by cp(1), never written from this process: a child another test forks here between
        // its fork and its exec holds every descriptor this process has open, close-on-exec or not,
        // and executing the copy fails with "Text file busy" while one is open for writing (a
        // fresh-clone run failed so). cp's own descriptor is in cp alone, closed when it exits.
        let cp = Process()
        cp.executableURL = URL(fileURLWithPath: "/bin/cp")
        cp.arguments = [builtProduct(product), copy]
        try? cp.run()
        cp.waitUntilExit()
        chmod(copy, 0o755)
    }
    return directory + "/" + name
}

/// PAM test modules, where installed: pam_matrix.so from libpam-wrapper, and the directory of
/// the stock modules (pam_debug.so, pam_echo.so, pam_permit.so).
public enum PAMTestModules {
    public static let matrix: String? = [
        "/usr/lib/x86_64-linux-gnu/pam_wrapper/pam_matrix.so", "/usr/lib/aarch64-linux-gnu/pam_wrapper/pam_matrix.so",
        "/usr/lib64/pam_wrapper/pam_matrix.so", "/usr/lib/pam_wrapper/pam_matrix.so",
    ].first { FileManager.default.fileExists(atPath: $0) }

    public static let stockDirectory: String? = [
        "/usr/lib/x86_64-linux-gnu/security", "/usr/lib/aarch64-linux-gnu/security", "/usr/lib64/security",
        "/lib/security",
    ].first { FileManager.default.fileExists(atPath: $0 + "/pam_debug.so") }
}

/// Runs `body`, which blocks (a child process, a socket round trip), on a thread of Dispatch's and
/// waits for it without holding one of the few threads Swift's tasks share: on two cores those are
/// two, and a test that blocks one for minutes starves every other suite's tasks.
public func offSharedThreads<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (done: CheckedContinuation<T, any Error>) in
        DispatchQueue.global().async { done.resume(with: Result { try body() }) }
    }
}

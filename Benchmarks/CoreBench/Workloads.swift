import CLinuxSupport
import Dispatch
import Foundation
import Glibc
import HeapUsage
import Logging
import ProcedureCore

/// The workloads, each run the same way through this core, Foundation and Dispatch.
/// Each returns seconds, creation of the operations included.
enum Workloads {
    static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) * 1e-18
    }

    /// How long the last `timeProcedures` took to make, add and run its procedures.
    struct Phases {
        var make: Duration
        var add: Duration
        var run: Duration
    }

    // Written and read only by the benchmark's one task, between awaits.
    nonisolated(unsafe) static var lastPhases: Phases?
    /// Set by `--compare`, which prints the phases itself.
    nonisolated(unsafe) static var quietPhases = false

    // MARK: Independent operations

    /// Creates `count` procedures with `make` (which sees those made so far), adds them to a
    /// new queue at once and waits for all of them.
    static func timeProcedures(
        _ count: Int, logger: Logger? = nil, _ make: (_ index: Int, _ made: [Procedure]) -> Procedure
    ) async -> Double {
        let start = ContinuousClock.now
        let queue = ProcedureQueue(logger: logger)
        var procedures: [Procedure] = []
        procedures.reserveCapacity(count)
        for index in 0..<count { procedures.append(make(index, procedures)) }
        let made = ContinuousClock.now
        queue.addProcedures(procedures)
        let added = ContinuousClock.now
        procedures = []
        await queue.waitUntilAllFinished()
        let finished = ContinuousClock.now
        lastPhases = Phases(make: made - start, add: added - made, run: finished - added)
        if ProcessInfo.processInfo.environment["PHASES"] != nil, !quietPhases {
            print("make \(made - start) add \(added - made) run \(finished - added)")
        }
        return seconds(since: start)
    }

    static func independentProcedures(_ count: Int, debugLogging: Bool = false) async -> Double {
        guard debugLogging else { return await timeProcedures(count) { _, _ in BlockProcedure {} } }
        return await timeProcedures(count, logger: DroppingLogHandler.logger) { _, _ in BlockProcedure {} }
    }

    /// A handler at debug level that drops what it is given: the cost of building messages.
    struct DroppingLogHandler: LogHandler {
        static let logger = Logger(label: "core-bench") { _ in DroppingLogHandler() }
        var logLevel: Logger.Level = .debug
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {}
    }

    static func independentFoundation(_ count: Int) -> Double {
        let start = ContinuousClock.now
        let queue = OperationQueue()
        var operations: [Operation] = []
        operations.reserveCapacity(count)
        for _ in 0..<count { operations.append(BlockOperation {}) }
        queue.addOperations(operations, waitUntilFinished: true)
        return seconds(since: start)
    }

    static func independentDispatch(_ count: Int) -> Double {
        let start = ContinuousClock.now
        let group = DispatchGroup()
        let queue = DispatchQueue.global()
        for _ in 0..<count { queue.async(group: group) {} }
        group.wait()
        return seconds(since: start)
    }

    // MARK: Chains

    static func chainProcedures(_ count: Int) async -> Double {
        await timeProcedures(count) { index, made in
            let procedure = BlockProcedure {}
            if index > 0 { procedure.addDependency(made[index - 1]) }
            return procedure
        }
    }

    static func chainFoundation(_ count: Int) -> Double {
        let start = ContinuousClock.now
        let queue = OperationQueue()
        var operations: [Operation] = []
        operations.reserveCapacity(count)
        for index in 0..<count {
            let operation = BlockOperation {}
            if index > 0 { operation.addDependency(operations[index - 1]) }
            operations.append(operation)
        }
        queue.addOperations(operations, waitUntilFinished: true)
        return seconds(since: start)
    }

    static func chainDispatch(_ count: Int) -> Double {
        let start = ContinuousClock.now
        let done = DispatchSemaphore(value: 0)
        let queue = DispatchQueue.global()
        @Sendable func step(_ remaining: Int) {
            if remaining == 0 {
                done.signal()
            } else {
                queue.async { step(remaining - 1) }
            }
        }
        step(count)
        done.wait()
        return seconds(since: start)
    }

    // MARK: Conditions

    static func conditionedProcedures(_ count: Int, conditions: Int) async -> Double {
        let first = BlockCondition(name: "first") { _ in true }
        let second = BlockCondition(name: "second") { _ in true }
        return await timeProcedures(count) { _, _ in
            let procedure = BlockProcedure {}
            if conditions > 0 { procedure.addCondition(first) }
            if conditions > 1 { procedure.addCondition(second) }
            return procedure
        }
    }

    // MARK: Batches

    /// A `BatchProcedure` over `count` elements, `width` at once; the work per element is tiny,
    /// so this measures what the batch costs per element.
    static func batchProcedure(_ count: Int, width: Int) async -> Double {
        let elements = Array(0..<count)
        let start = ContinuousClock.now
        let batch = BatchProcedure(name: "batch", elements: elements, width: width) {
            TransformProcedure(input: $0) { $0 &* 2 }
        }
        ProcedureQueue().addProcedure(batch)
        let outputs = try? await batch.value()
        let elapsed = seconds(since: start)
        precondition(outputs?.count == count && outputs?.last == (count - 1) * 2, "the batch lost elements")
        return elapsed
    }

    /// The same with a task group keeping `width` child tasks in flight, outputs in element order.
    static func batchTaskGroup(_ count: Int, width: Int) async -> Double {
        let start = ContinuousClock.now
        let outputs = await withTaskGroup(of: (Int, Int).self) { group -> [Int] in
            var outputs = [Int](repeating: 0, count: count)
            var next = 0
            while next < min(width, count) {
                let element = next
                group.addTask { (element, element &* 2) }
                next += 1
            }
            while let (index, output) = await group.next() {
                outputs[index] = output
                if next < count {
                    let element = next
                    group.addTask { (element, element &* 2) }
                    next += 1
                }
            }
            return outputs
        }
        let elapsed = seconds(since: start)
        precondition(outputs.count == count && outputs.last == (count - 1) * 2, "the task group lost elements")
        return elapsed
    }

    // MARK: Blocking work

    static func blockingProcedures(_ count: Int, seconds: Double, workload: ProcedureQueue.Workload) async -> Double {
        let start = ContinuousClock.now
        let queue = ProcedureQueue(maxConcurrentCount: count, workload: workload)
        for _ in 0..<count { queue.addBlock { usleep(UInt32(seconds * 1e6)) } }
        await queue.waitUntilAllFinished()
        return self.seconds(since: start)
    }

    static func blockingFoundation(_ count: Int, seconds: Double) -> Double {
        let start = ContinuousClock.now
        let queue = OperationQueue()
        queue.maxConcurrentOperationCount = count
        for _ in 0..<count { queue.addOperation { usleep(UInt32(seconds * 1e6)) } }
        queue.waitUntilAllOperationsAreFinished()
        return self.seconds(since: start)
    }

    static func blockingThreads(_ count: Int, seconds: Double) -> Double {
        let start = ContinuousClock.now
        let done = DispatchGroup()
        for _ in 0..<count {
            done.enter()
            Thread.detachNewThread {
                usleep(UInt32(seconds * 1e6))
                done.leave()
            }
        }
        done.wait()
        return self.seconds(since: start)
    }

    // MARK: Memory

    /// Bytes the allocator hands out right now.
    static func heapInUse() -> Int {
        Int(heap_usage_in_use_bytes())
    }

    static func enqueuedMemoryProcedures(_ count: Int) async -> Double {
        let queue = ProcedureQueue(isSuspended: true)
        let before = heapInUse()
        for _ in 0..<count { queue.addProcedure(BlockProcedure {}) }
        let bytes = Double(heapInUse() - before) / Double(count)
        queue.isSuspended = false
        await queue.waitUntilAllFinished()
        return bytes
    }

    static func enqueuedMemoryFoundation(_ count: Int) -> Double {
        let queue = OperationQueue()
        queue.isSuspended = true
        let before = heapInUse()
        for _ in 0..<count { queue.addOperation(BlockOperation {}) }
        let bytes = Double(heapInUse() - before) / Double(count)
        queue.isSuspended = false
        queue.waitUntilAllOperationsAreFinished()
        return bytes
    }

    /// A datagram socket in a temporary directory that drains what it receives on a thread of
    /// its own, as a syslog daemon's socket does.
    final class DatagramSink: @unchecked Sendable {
        let path: String
        private let descriptor: Int32
        init(path: String, descriptor: Int32) {
            self.path = path
            self.descriptor = descriptor
        }
        func close() {
            Glibc.shutdown(descriptor, Int32(SHUT_RDWR))
            Glibc.close(descriptor)
            unlink(path)
        }
        func drain() {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while recv(descriptor, &buffer, buffer.count, 0) > 0 {}
        }
    }

    static func datagramSink() -> DatagramSink {
        let path = "/tmp/core-bench-audit-\(getpid())"
        unlink(path)
        let descriptor = clinux_unix_socket(path, Int32(SOCK_DGRAM.rawValue), CLINUX_UNIX_BIND)
        precondition(descriptor >= 0, "cannot bind \(path)")
        let sink = DatagramSink(path: path, descriptor: descriptor)
        Thread { sink.drain() }.start()
        return sink
    }
}

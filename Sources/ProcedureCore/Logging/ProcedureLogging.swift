public import Logging

extension ProcedureQueue {
    /// The logger a queue uses unless given one: label `ProcedureCore`, with the handler and
    /// level of whatever `LoggingSystem` the program bootstrapped (created on first use).
    public static let defaultLogger = Logger(label: "ProcedureCore")
}

/// Where the core's messages go, and the check that keeps them free when debug logging is off.
///
/// Debug messages (state changes, condition decisions) cost one relaxed atomic load when the
/// queue's logger is above debug level: the message is never built. Warnings report misuse and
/// are rare, so they take the logger under its lock.
enum ProcedureLog {
    @inline(__always)
    static func debug(_ procedure: Procedure, on queue: ProcedureQueue?, _ message: @autoclosure () -> String) {
        if let queue, queue.logsDebug { emitDebug(procedure, queue, message()) }
    }

    @inline(never)
    private static func emitDebug(_ procedure: Procedure, _ queue: ProcedureQueue, _ message: String) {
        let name = procedure.name
        queue.logger.debug("\(name): \(message)", metadata: metadata(name, queue))
    }

    static func warning(_ procedure: Procedure, on queue: ProcedureQueue?, _ message: String) {
        let name = procedure.name
        let logger = queue?.logger ?? ProcedureQueue.defaultLogger
        logger.warning("\(name): \(message)", metadata: metadata(name, queue))
    }

    private static func metadata(_ name: String, _ queue: ProcedureQueue?) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["procedure": "\(name)"]
        if let queueName = queue?.name { metadata["queue"] = "\(queueName)" }
        return metadata
    }
}

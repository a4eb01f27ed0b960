public import ServiceLifecycle

/// An audit trail in a swift-service-lifecycle `ServiceGroup`: while the group runs, it writes
/// the summaries of users' intervals that ended and says lost records every 30 s
/// (``AuditTrail/flush(all:)``); listed first, it stops last, and then writes every summary left.
///
/// ```swift
/// import Logging
/// import ServiceLifecycle
///
/// let audit = AuditTrail(identifier: "myservice", limitPerUser: .service)
/// let group = ServiceGroup(services: [audit], gracefulShutdownSignals: [.sigterm], logger: Logger(label: "myservice"))
/// try await group.run()
/// ```
extension AuditTrail: Service {
    /// Returns at the group's graceful shutdown or at cancellation, having written what is left.
    public func run() async throws {
        defer { flush(all: true) }
        try? await cancelWhenGracefulShutdown {
            while true {
                try await Task.sleep(for: .seconds(30))
                self.flush()
            }
        }
    }
}

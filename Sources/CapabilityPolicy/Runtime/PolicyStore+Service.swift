public import ServiceLifecycle

/// A policy store in a swift-service-lifecycle `ServiceGroup`: it follows its files while the
/// group runs, and stops following them (``PolicyStore/shutdown()``) when the group shuts down.
///
/// ```swift
/// import Logging
/// import ServiceLifecycle
///
/// let logger = Logger(label: "myservice")
/// let store = PolicyStore(searchPath: PolicySearchPath(environment: env))
/// let group = ServiceGroup(services: [store], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
extension PolicyStore: Service {
    /// Returns at the group's graceful shutdown or at cancellation, with the store shut down:
    /// every inotify instance closed, the policy in force kept for whoever still reads it.
    public func run() async throws {
        defer { shutdown() }
        // Graceful shutdown returns; cancellation throws: either way the store stops following.
        try? await gracefulShutdown()
    }
}

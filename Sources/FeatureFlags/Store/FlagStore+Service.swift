public import ServiceLifecycle

/// A flag store in a swift-service-lifecycle `ServiceGroup`: its files (and services) are
/// followed while the group runs, and no longer once it shuts down.
///
/// ```swift
/// import Logging
/// import ServiceLifecycle
///
/// let logger = Logger(label: "myservice")
/// let flags = FlagStore(files: ["/etc/myservice/flags.json"], context: .host)
/// let group = ServiceGroup(services: [flags], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
extension FlagStore: Service {
    /// Returns at the group's graceful shutdown or at cancellation, with the store shut down
    /// (``shutdown()``): the flags last read stay readable.
    public func run() async throws {
        defer { shutdown() }
        try? await gracefulShutdown()
    }
}

public import Capabilities
import Plumbing

/// Whether this host can reach the network at all, the way `NWPathMonitor` users know it:
/// satisfied (authorized) when an interface is up and running with an address beyond
/// loopback and link-local, and a default route exists; unsatisfied (denied) otherwise, with
/// what is missing.
///
/// Reading it is cheap and local (getifaddrs and the kernel's route tables; no packets are
/// sent). Changes arrive from rtnetlink (link, address and route events), not by polling.
///
/// ```swift
/// export.addCondition(AuthorizedFor(NetworkPath()))  // runs only while a route to the internet exists
/// ```
public struct NetworkPath: SubjectCapability {
    /// Creates the capability.
    public init() {}

    public var name: String { "network:path" }

    /// Runs on a thread of its own: the interfaces come from a netlink dump and the routes from
    /// procfs, both I/O, so gates do not read them inline.
    public func status() async throws -> CapabilityStatus {
        try await BlockingWork.value { NetworkPath().currentStatus() }
    }

    public func statusUpdates() -> CapabilityStatusUpdates {
        .rereading(self, whenever: { [NetworkChangeMonitor.changes()] })
    }

    private func currentStatus() -> CapabilityStatus {
        let interfaces = NetworkInterface.all()
        let usable = interfaces.filter(\.isUsable)
        let routes = DefaultRoute.all()
        let described = usable.map { "\($0.name) (\($0.addresses.joined(separator: ", ")))" }.joined(separator: "; ")
        guard !usable.isEmpty else {
            let down = interfaces.filter { !$0.isLoopback }.map {
                "\($0.name) \($0.isUp ? ($0.isRunning ? "has no address" : "has no carrier") : "is down")"
            }
            return .denied(
                "unsatisfied: no usable interface"
                    + (down.isEmpty ? " (only loopback)" : " (" + down.joined(separator: ", ") + ")"))
        }
        let usableNames = Set(usable.map(\.name))
        guard let route = routes.first(where: { usableNames.contains($0.interface) }) else {
            return .denied("unsatisfied: no default route (interfaces: \(described))")
        }
        return .authorized(
            "satisfied: default route via \(route.interface) (interfaces: \(described))",
            grants: Set(usable.map(\.name)))
    }
}

extension NetworkPath {
    /// The network is the same for every subject on this host: this capability answers as it is.
    public func forSubject(_ subject: Subject) -> any CapabilityType { self }
}

public import Capabilities
import Plumbing

/// Whether polkitd answers on the system bus: authorized with its name and version, unavailable
/// with the reason (no libsystemd, no bus, polkitd not running). `capctl status` shows it.
///
/// ```swift
/// print(try await PolkitService().status())  // whether polkitd answers on the system bus
/// ```
public struct PolkitService: CapabilityType {
    private let libraryPath: String

    /// The service, reached through sd-bus from `library` (`libsystemd.so.0` by default).
    public init(library: String = "libsystemd.so.0") {
        libraryPath = library
    }

    public var name: String { "polkit" }

    public var availability: CapabilityAvailability { SystemdBusLibrary.availability(at: libraryPath) }

    /// Asks polkitd for its backend's name and version.
    public func status() async throws -> CapabilityStatus {
        guard let library = SystemdBusLibrary.loaded(libraryPath) else { return SystemdBusLibrary.missing(libraryPath) }
        let outcome = await BlockingWork.run { () -> CapabilityStatus in
            do throws(DBusError) {
                let backend = try PolkitAuthority(on: DBusConnection(systemBusWith: library), timeout: .seconds(10))
                    .backend()
                return .authorized("\(backend.name) \(backend.version) answers on the system bus")
            } catch {
                let status = PolkitAuthorization.status(of: error, action: "")
                return .unavailable(status.reason, cause: status.cause)
            }
        }
        guard case .finished(let status) = outcome else { throw CancellationError() }
        return status
    }
}

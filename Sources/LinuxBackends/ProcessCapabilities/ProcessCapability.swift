public import Capabilities
import ConfigurationFiles

/// Whether this process holds a Linux capability, such as `CAP_NET_BIND_SERVICE`, in its
/// effective set right now.
///
/// The effective set is read from the kernel (`CapEff` in /proc/self/status), never inferred
/// from the user id: root in a container may lack capabilities, and an unprivileged service
/// may have been granted one (systemd's `AmbientCapabilities=`). Asking cannot grant a
/// capability, so the status is authorized or denied.
public struct ProcessCapability: CapabilityType {
    /// The capability's canonical name, such as `CAP_NET_BIND_SERVICE`.
    public let capability: String
    /// Its number in the kernel's bit set.
    public let number: Int

    /// A capability by name: `CAP_NET_BIND_SERVICE`, `cap_net_bind_service` or `net_bind_service`.
    public init(_ name: String) throws(CapabilityConfigurationError) {
        let upper = name.asciiUppercased
        let canonical = upper.hasPrefix("CAP_") ? upper : "CAP_" + upper
        guard let number = LinuxCapabilitySet.number(of: canonical) else {
            throw CapabilityConfigurationError(
                "unknown Linux capability \"\(name)\" (known: CAP_CHOWN ... \(LinuxCapabilitySet.names.last ?? ""), see capabilities(7))"
            )
        }
        self.capability = LinuxCapabilitySet.names[number]
        self.number = number
    }

    public var name: String { "capability:\(capability)" }

    public func status() async throws -> CapabilityStatus {
        try currentStatus()
    }

    /// Reading /proc/self/status is a cheap local read, so gates decide inline.
    public func knownStatus() -> CapabilityStatus? {
        do {
            return try currentStatus()
        } catch {
            return .failure(error)
        }
    }

    private func currentStatus() throws(LinuxCapabilitySet.ReadError) -> CapabilityStatus {
        let effective = try LinuxCapabilitySet.effective()
        if effective.contains(number) { return .authorized("\(capability) is in the effective set") }
        return .denied("\(capability) is not in the effective set (effective: \(effective))")
    }
}

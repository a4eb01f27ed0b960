public import Capabilities
import ConfigurationFiles

/// Whether this process holds a Linux capability, such as `CAP_NET_BIND_SERVICE`, in its
/// effective set right now.
///
/// The effective set is read from the kernel (`CapEff` in /proc/self/status), never inferred
/// from the user id: root in a container may lack capabilities, and an unprivileged service
/// may have been granted one (systemd's `AmbientCapabilities=`). Asking cannot grant a
/// capability, so the status is authorized or denied.
///
/// For a subject, the subject process's effective set (`/proc/PID/status`), read between two
/// readings of its start time so a reused pid is never mistaken for it; a subject without a
/// process (a user by name) is unavailable, and so is a process that may no longer be the one
/// identified: one whose credentials differ from the subject's, or that runs a program it gained
/// privileges by starting (setuid, setgid, file capabilities), which it may have exec'd after it
/// connected. Capabilities count only in this process's user
/// namespace (on a host, the initial one): a subject in a user namespace of its own holds none
/// here, whatever its `CapEff` says, and one whose namespace cannot be read is unavailable.
///
/// ```swift
/// export.addCondition(AuthorizedFor(try ProcessCapability("cap_net_bind_service")))
/// ```
public struct ProcessCapability: SubjectCapability {
    /// The capability's canonical name, such as `CAP_NET_BIND_SERVICE`.
    public let capability: String
    /// Its number in the kernel's bit set.
    public let number: Int
    private var subject: Subject?

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

    /// The same question about `subject`'s process.
    public func forSubject(_ subject: Subject) -> any CapabilityType {
        var asked = self
        asked.subject = subject
        return asked
    }

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
        if let subject { return status(of: subject) }
        let effective = try LinuxCapabilitySet.effective()
        if effective.contains(number) { return .authorized("\(capability) is in the effective set") }
        return .denied("\(capability) is not in the effective set (effective: \(effective))")
    }

    private func status(of subject: Subject) -> CapabilityStatus {
        guard let process = subject.process else {
            return .unavailable("\(subject) is no process, so it holds no \(capability)", cause: .misconfigured)
        }
        let effective: UInt64?
        let namespace: ProcessFiles.UserNamespace
        switch PinnedProcessReading.read(process) {
        case .holding(let read, let readNamespace): (effective, namespace) = (read, readNamespace)
        case .ended: return .unavailable("\(subject) has ended", cause: .resourceMissing)
        case .changed(let reason): return .unavailable(reason, cause: .resourceMissing)
        case .unreadable(let reason): return .unavailable(reason, cause: .error)
        }
        guard let mask = effective else {
            return .unavailable("cannot read the effective set of \(subject)", cause: .error)
        }
        switch namespace {
        case .same: break
        case .other:
            // Its effective set counts in its own user namespace only, not on this host.
            return .denied(
                "\(capability) is not held by \(subject) here: it runs in a user namespace of its own, where its capabilities grant nothing on this host"
            )
        case .unknown(let reason):
            return .unavailable(reason, cause: .error)
        }
        if LinuxCapabilitySet(mask: mask).contains(number) {
            return .authorized("\(capability) is in the effective set of \(subject)")
        }
        return .denied("\(capability) is not in the effective set of \(subject)")
    }
}

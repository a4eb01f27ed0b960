import Capabilities
import LinuxBackends

/// One line of `capctl status`.
struct StatusEntry: Sendable, Equatable {
    var name: String
    var kind: String
    var status: String
    var reason: String
    /// The status's cause for programs (`dismissed`, `expired`, `backendMissing`, ...), when it has one.
    var cause: String? = nil
    /// The policy's `description:`, when it gives one.
    var summary: String? = nil
    /// Where the policy defined it (`status --origin`); nil for the host's built-in capabilities.
    var origin: DefinitionOrigin? = nil
    /// `capctld` for a gate capctld decided; nil for what this process decided.
    var decidedBy: String? = nil
}

/// The host's built-in capabilities, reported when there is no policy at all, so `capctl
/// status` is useful on a fresh machine: user and groups, effective Linux capabilities, the
/// network path, PAM, polkit, and access to the home and working directories.
struct HostReport {
    var entries: [StatusEntry]

    /// The built-in capabilities, by the names `capctl status` shows.
    static func capabilities() -> [(name: String, kind: String, capability: (any CapabilityType)?, fixed: StatusEntry?)]
    {
        let identity = ProcessIdentity.current()
        var list: [(String, String, (any CapabilityType)?, StatusEntry?)] = [
            (
                "user", "user", nil,
                StatusEntry(
                    name: "user", kind: "user", status: "authorized",
                    reason: "effective user \(identity.effectiveUser), real user \(identity.realUser)")
            ),
            (
                "groups", "group", nil,
                StatusEntry(
                    name: "groups", kind: "group", status: "authorized",
                    reason: "effective group \(identity.effectiveGroup); supplementary: "
                        + (identity.supplementaryGroups.isEmpty
                            ? "(none)" : identity.supplementaryGroups.map(\.description).joined(separator: " ")))
            ),
        ]
        do {
            let set = try LinuxCapabilitySet.effective()
            list.append(
                (
                    "process-capabilities", "process-capabilities", nil,
                    StatusEntry(
                        name: "process-capabilities", kind: "process-capabilities",
                        status: set.mask == 0 ? "denied" : "authorized",
                        reason: "effective set: \(set)")
                ))
        } catch {
            list.append(
                (
                    "process-capabilities", "process-capabilities", nil,
                    StatusEntry(
                        name: "process-capabilities", kind: "process-capabilities", status: "denied", reason: "\(error)"
                    )
                ))
        }
        list.append(("network", "network", NetworkPath(), nil))
        if let login = try? PAMLogin(service: "login") { list.append(("pam:login", "pam", login, nil)) }
        list.append(("polkit", "polkit", PolkitService(), nil))
        if let home = ProcessEnvironment["HOME"],
            let access = try? FileAccess(home, access: [.read, .write], kind: .directory)
        {
            list.append(("home", "file", access, nil))
        }
        if let directory = ProcessEnvironment.currentDirectory,
            let access = try? FileAccess(directory, access: [.read, .write], kind: .directory)
        {
            list.append(("working-directory", "file", access, nil))
        }
        return list
    }

    static func current() async -> HostReport {
        var entries: [StatusEntry] = []
        for (name, kind, capability, fixed) in capabilities() {
            if let fixed {
                entries.append(fixed)
            } else if let capability {
                let status = await capability.resolveStatus()
                entries.append(
                    StatusEntry(
                        name: name, kind: kind, status: status.kind.rawValue, reason: status.reason,
                        cause: status.cause?.name))
            }
        }
        return HostReport(entries: entries)
    }
}

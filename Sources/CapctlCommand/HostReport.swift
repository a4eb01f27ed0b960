import LinuxCapabilities

/// One line of `capctl status`.
struct StatusEntry: Sendable, Equatable {
    var name: String
    var kind: String
    var status: String
    var reason: String
}

/// The host's built-in facts, read from the kernel and the user and group databases.
struct HostReport {
    var entries: [StatusEntry]

    static func current() -> HostReport {
        let identity = ProcessIdentity.current()
        var entries = [
            StatusEntry(
                name: "user", kind: "user", status: "authorized",
                reason: "effective user \(identity.effectiveUser), real user \(identity.realUser)"),
            StatusEntry(
                name: "groups", kind: "group", status: "authorized",
                reason: "effective group \(identity.effectiveGroup); supplementary: "
                    + (identity.supplementaryGroups.isEmpty
                        ? "(none)" : identity.supplementaryGroups.map(\.description).joined(separator: " "))),
        ]
        do {
            let set = try LinuxCapabilitySet.effective()
            entries.append(
                StatusEntry(
                    name: "process-capabilities", kind: "linux-capabilities",
                    status: set.mask == 0 ? "denied" : "authorized",
                    reason: "effective set: \(set)"))
        } catch {
            entries.append(
                StatusEntry(
                    name: "process-capabilities", kind: "linux-capabilities", status: "denied",
                    reason: "\(error)"))
        }
        if let path = NetworkPath().knownStatus() {
            entries.append(StatusEntry(name: "network", kind: "network-path", status: path.kind.rawValue, reason: path.reason))
        }
        // The login service shows whether PAM works here at all; status never prompts.
        if let login = try? PAMLogin(service: "login"), let status = login.knownStatus() {
            entries.append(StatusEntry(name: "pam:login", kind: "pam", status: status.kind.rawValue, reason: status.reason))
        }
        return HostReport(entries: entries)
    }
}

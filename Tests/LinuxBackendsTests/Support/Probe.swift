import Capabilities
import Foundation
import Glibc
import TestSupport

/// Runs the `capability-probe` helper (built next to the test binary) in a process of its own.
enum Probe {
    /// The probe copied into a directory everyone may enter, so a child with other credentials
    /// can execute it wherever the package was cloned.
    static let executable = builtProductForAnyUser("capability-probe")

    /// Whether this process can start children as another user (it is root).
    static var canDropPrivileges: Bool { geteuid() == 0 }

    /// The status the probe printed for `arguments`, run through `prefix` (for example setpriv).
    static func status(_ arguments: [String], via prefix: [String] = []) throws -> CapabilityStatus {
        let statuses = try statuses(arguments, via: prefix)
        guard statuses.count == 1, let status = statuses[0] else { throw ProbeError(description: "\(statuses)") }
        return status
    }

    /// Every status the probe printed, one per line; nil for a line saying `cancelled`.
    static func statuses(
        _ arguments: [String], via prefix: [String] = [], environment: [String: String]? = nil, input: String = ""
    ) throws -> [CapabilityStatus?] {
        try statuses(ofCommand: prefix + [executable] + arguments, environment: environment, input: input)
    }

    /// The statuses a whole command line prints, the probe being somewhere in it.
    static func statuses(ofCommand command: [String], environment: [String: String]? = nil, input: String = "") throws
        -> [CapabilityStatus?]
    {
        let output = try runProcess(command[0], Array(command.dropFirst()), environment: environment, input: input)
        guard output.status == 0 else { throw ProbeError(output: output) }
        return try output.standardOutput.split(separator: "\n").map { line -> CapabilityStatus? in
            if line == "cancelled" { return nil }
            // kind, grants, cause, reason
            let fields = line.split(separator: "\t", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, let kind = CapabilityStatus.Kind(rawValue: String(fields[0])) else {
                throw ProbeError(output: output)
            }
            let grants = Set(fields[1].split(separator: ",").map(String.init))
            let cause = fields[2].isEmpty ? nil : CapabilityStatus.Cause(String(fields[2]))
            return CapabilityStatus(kind, reason: String(fields[3]), grants: grants, cause: cause)
        }
    }

    /// Runs the probe as the unprivileged user 65534 (nobody), with no supplementary groups.
    static func statusAsNobody(_ arguments: [String]) throws -> CapabilityStatus {
        try status(arguments, via: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
    }

    struct ProbeError: Error, CustomStringConvertible {
        let description: String
        init(description: String) { self.description = description }
        init(output: ProcessOutput) {
            description = "probe exited \(output.status): \(output.standardOutput) \(output.standardError)"
        }
    }
}

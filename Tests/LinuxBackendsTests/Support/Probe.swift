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
        let command = prefix.isEmpty ? executable : prefix[0]
        let output = try runProcess(
            command, Array(prefix.dropFirst()) + (prefix.isEmpty ? [] : [executable]) + arguments)
        guard output.status == 0 else { throw ProbeError(output: output) }
        let fields = output.standardOutput.trimmingCharacters(in: .newlines).split(
            separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
        guard fields.count == 3, let kind = CapabilityStatus.Kind(rawValue: String(fields[0])) else {
            throw ProbeError(output: output)
        }
        let grants = Set(fields[1].split(separator: ",").map(String.init))
        return CapabilityStatus(kind, reason: String(fields[2]), grants: grants)
    }

    /// Runs the probe as the unprivileged user 65534 (nobody), with no supplementary groups.
    static func statusAsNobody(_ arguments: [String]) throws -> CapabilityStatus {
        try status(arguments, via: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
    }

    struct ProbeError: Error, CustomStringConvertible {
        let output: ProcessOutput
        var description: String { "probe exited \(output.status): \(output.standardOutput) \(output.standardError)" }
    }
}

import Foundation
import Glibc
import TestSupport
import Testing

/// Runs the built `capctl` binary as a user would, against policy trees of the test's own.
struct CapctlRun {
    let status: Int32
    let output: String
    let error: String

    /// The output parsed as JSON.
    func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(output.utf8)) }

    /// The entries of `status --json`'s `sections` (capabilities, flags, gates, definitions) by name.
    func entries(_ sections: String...) throws -> [String: [String: Any]] {
        let object = try #require(try json() as? [String: Any], "\(output)")
        var byName: [String: [String: Any]] = [:]
        for section in sections {
            for entry in object[section] as? [[String: Any]] ?? [] { byName[entry["name"] as! String] = entry }
        }
        return byName
    }
}

/// A temporary policy tree: vendor, admin and runtime roots (CAPCTL_POLICY_ROOTS), an empty
/// per-user configuration directory, and room for flag files and PAM service directories.
final class PolicyTree {
    private let directory: TemporaryDirectory
    var root: String { directory.path }
    var vendor: String { root + "/usr-share" }
    var admin: String { root + "/etc" }
    var runtime: String { root + "/run" }

    /// capctl next to the test binary.
    static let capctl = builtProduct("capctl")

    init() throws {
        directory = try TemporaryDirectory(prefix: "capctl-test")
        for name in ["usr-share", "etc", "run", "home", "config"] { try directory.directory(name) }
    }

    /// Writes `text` to `path` under the tree (creating directories), mode 0644.
    @discardableResult
    func write(_ path: String, _ text: String, mode: mode_t = 0o644) throws -> String {
        try directory.write(text, to: path, mode: mode)
    }

    var environment: [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["CAPCTL_POLICY_ROOTS"] = [vendor, admin, runtime].joined(separator: ":")
        environment["XDG_CONFIG_HOME"] = root + "/config"
        environment["HOME"] = root + "/home"
        environment["NO_COLOR"] = "1"
        // Kept logins go to the tree, never to the machine's /run/capctl/keep.
        environment["CAPCTL_KEEP_DIRECTORY"] = root + "/keep"
        return environment
    }

    /// A PAM service `service` in the tree's `pam/` directory where alice's password is
    /// `secret` (pam_matrix, for auth and account).
    func matrixService(_ service: String) throws {
        let passwords = try write("pam/passdb", "alice:secret:\(service)\n")
        try write(
            "pam/\(service)",
            """
            auth required \(PAMTestModules.matrix!) passdb=\(passwords)
            account required \(PAMTestModules.matrix!) passdb=\(passwords)
            """)
    }

    /// A flag file whose Boolean flag `export` has `defaultVariant` (`on` or `off`), and a policy
    /// whose capability `export-on` is that flag: for tests that watch a change. Called again, it
    /// rewrites the flag file only.
    func writeExportFlag(defaultVariant: String) throws {
        let flagFile = try write(
            "flags/flags.json",
            #"{"flags": {"export": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": ""#
                + defaultVariant + #""}}}"#)
        guard !FileManager.default.fileExists(atPath: admin + "/policy.yaml") else { return }
        try write(
            "etc/policy.yaml",
            """
            capabilities:
              export-on: { kind: flag, flag: export }
            flags:
              files: [\(flagFile)]
            """)
    }

    /// Runs capctl with `arguments` in this tree.
    func capctl(_ arguments: [String], input: String = "") throws -> CapctlRun {
        let result = try runProcess(Self.capctl, arguments, environment: environment, input: input)
        return CapctlRun(status: result.status, output: result.standardOutput, error: result.standardError)
    }

    /// capctl (with its flag service helper) copied where every user may execute it, wherever
    /// the package was cloned.
    static let sharedCapctl = builtProductForAnyUser("capctl", companions: ["capctl-flag-source"])

    /// Runs capctl as root or as uid 65534 (setpriv, no groups), optionally under an address
    /// space limit (prlimit) and through a wrapper command that execs its arguments.
    func capctl(
        _ arguments: [String], as identity: CapctlSecurityTests.Identity, memoryLimit: Int? = nil,
        wrapper: [String] = [], input: String = ""
    ) throws -> CapctlRun {
        var command = wrapper + [Self.sharedCapctl] + arguments
        if let memoryLimit { command = ["/usr/bin/prlimit", "--as=\(memoryLimit)", "--"] + command }
        if identity == .nobody {
            command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command
        }
        let result = try runProcess(command[0], Array(command.dropFirst()), environment: environment, input: input)
        return CapctlRun(status: result.status, output: result.standardOutput, error: result.standardError)
    }

    /// Runs a whole command line (capctl somewhere in it, ``sharedCapctl`` for other users) in
    /// this tree, with `extraEnvironment` added.
    func run(_ command: [String], extraEnvironment: [String: String], input: String = "") throws -> CapctlRun {
        let result = try runProcess(
            command[0], Array(command.dropFirst()), environment: environment.merging(extraEnvironment) { $1 },
            input: input)
        return CapctlRun(status: result.status, output: result.standardOutput, error: result.standardError)
    }

    /// Runs capctl as root under an address space limit.
    func capctl(_ arguments: [String], memoryLimit: Int) throws -> CapctlRun {
        try capctl(arguments, as: .root, memoryLimit: memoryLimit)
    }
}

extension PolicyTree {
    /// A policy whose one flag service (on a port nothing listens on) serves the only flag of gate
    /// `remote`; `more` adds capabilities and gates.
    static func unreachableService(capabilities more: String = "", gates: String = "") throws -> PolicyTree {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            flags:
              http:
                - url: http://127.0.0.1:9/flags.json
                  timeout: 1s
            capabilities:
              remote: { kind: flag, flag: remote-only }
            \(more)
            gates:
              remote: { require: remote }
            \(gates)
            """)
        return tree
    }
}

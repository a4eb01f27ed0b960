public import CapabilityPolicy
import Foundation
import LinuxPolicy

/// A policy on disk whose gates take every outcome for this host's users `root` and `nobody`, a
/// flag file beside it, and a PAM service of the test's own (pam_matrix, from libpam-wrapper:
/// no root, no real passwords): what both frameworks' route-gate tests decide with.
public final class WebGateFixture: @unchecked Sendable {
    /// The directory, removed when the fixture is released.
    public let directory: String
    /// The policy file.
    public let policyFile: String
    /// The PAM service directory (service `web`: `nobody` and `root` with password `right`).
    public let pamDirectory: String
    /// The store following the policy.
    public let store: PolicyStore

    /// Whether pam_matrix is installed (the test command installs libpam-wrapper).
    public static let pamMatrix: String? = [
        "/usr/lib/x86_64-linux-gnu/pam_wrapper/pam_matrix.so", "/usr/lib/aarch64-linux-gnu/pam_wrapper/pam_matrix.so",
        "/usr/lib64/pam_wrapper/pam_matrix.so", "/usr/lib/pam_wrapper/pam_matrix.so",
    ].first { FileManager.default.fileExists(atPath: $0) }

    /// The password pam_matrix accepts for `root` and `nobody`.
    public static let password = "right"

    /// A fixture; with `policy`, that text instead of the matrix's policy; its store loads with
    /// `options`.
    public init(policy: String? = nil, options: PolicyOptions = PolicyOptions()) throws {
        // Under /tmp, mode 0755: the trusted-file checks accept a directory only its owner writes.
        directory = "/tmp/web-gates-\(getpid())-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(
            atPath: directory + "/pam", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        pamDirectory = directory + "/pam"
        let passwords = directory + "/pam/passdb"
        try "root:\(Self.password):web\nnobody:\(Self.password):web\n".write(
            toFile: passwords, atomically: false, encoding: .utf8)
        let matrix = Self.pamMatrix ?? "/nonexistent/pam_matrix.so"
        try "auth required \(matrix) passdb=\(passwords)\naccount required \(matrix) passdb=\(passwords)\n".write(
            toFile: pamDirectory + "/web", atomically: false, encoding: .utf8)
        try Self.flags.write(toFile: directory + "/flags.json", atomically: false, encoding: .utf8)
        policyFile = directory + "/policy.yaml"
        try (policy ?? Self.policy(pamDirectory: pamDirectory)).write(
            toFile: policyFile, atomically: false, encoding: .utf8)
        store = PolicyStore(files: [policyFile], environment: .linux, options: options)
    }

    deinit {
        store.shutdown()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Gates whose outcomes for `root` and `nobody` are known on any host: `members` (the group
    /// root), `broken` (a flag whose value is not a boolean: undecided), `not-broken`, `either`
    /// (undecided or the group root), `login` (a PAM login of the user's own), `beta` (a flag
    /// targeted at `root` and at the `tier` header `beta`).
    static func policy(pamDirectory: String) -> String {
        """
        capabilities:
          root-group: { kind: group, group: root }
          login: { kind: pam, service: web, service-directory: \(pamDirectory), tries: 1 }
        flags:
          files: [flags.json]
        gates:
          members: { description: For the root group, require: root-group }
          broken: { require: { flag: broken } }
          not-broken: { require: { not: { flag: broken } } }
          either: { require: { any-of: [{ flag: broken }, root-group] } }
          login: { description: Your own password again, require: login }
          beta: { require: { flag: beta } }

        """
    }

    static let flags = """
        {
          "flags": {
            "broken": {
              "state": "ENABLED", "variants": { "on": true, "off": false }, "defaultVariant": "off",
              "targeting": { "cat": ["no-", "such-variant"] }
            },
            "beta": {
              "state": "ENABLED", "variants": { "on": true, "off": false }, "defaultVariant": "off",
              "targeting": { "if": [{ "or": [
                { "==": [{ "var": "targetingKey" }, "root"] },
                { "==": [{ "var": "tier" }, "beta"] }
              ] }, "on", "off"] }
            }
          }
        }
        """
}

/// One request of the outcome matrix and the status it must get: 200 (the handler ran), 403,
/// 503 or 401. The user is named by the test's `X-Test-User` header; `password` is sent by
/// HTTP Basic for that user (and makes it the Basic login's user).
public struct RouteCase: Sendable, CustomStringConvertible {
    /// The gate (and the route: `/GATE`).
    public let gate: String
    /// The user; nil: anonymous.
    public let user: String?
    /// A Basic password for `user`.
    public let password: String?
    /// The `X-Tier` header.
    public let tier: String?
    /// The status expected.
    public let status: Int

    /// Whether the case needs pam_matrix.
    public var needsPAM: Bool { password != nil || gate == "login" }

    public var description: String {
        "\(gate) for \(user ?? "anonymous")" + (password.map { " with password \($0)" } ?? "")
            + (tier.map { " tier \($0)" } ?? "") + " -> \(status)"
    }

    init(_ gate: String, _ user: String?, password: String? = nil, tier: String? = nil, _ status: Int) {
        (self.gate, self.user, self.password, self.tier, self.status) = (gate, user, password, tier, status)
    }

    /// Every gate outcome for every kind of identity: a member, a user who is not, a name the host
    /// does not know, and nobody at all; the undecided cases never pass, whoever asks.
    public static let matrix: [RouteCase] = [
        RouteCase("members", "root", 200), RouteCase("members", "nobody", 403),
        RouteCase("members", "no-such-user-here", 403), RouteCase("members", nil, 401),
        RouteCase("broken", "root", 503), RouteCase("broken", "nobody", 503), RouteCase("broken", nil, 401),
        RouteCase("not-broken", "root", 503), RouteCase("not-broken", "nobody", 503),
        RouteCase("either", "root", 200), RouteCase("either", "nobody", 503),
        RouteCase("beta", "root", 200), RouteCase("beta", "nobody", 403),
        RouteCase("beta", "nobody", tier: "beta", 200), RouteCase("beta", "nobody", tier: "gamma", 403),
        RouteCase("login", "nobody", 401), RouteCase("login", "root", 401),
        RouteCase("login", "nobody", password: WebGateFixture.password, 200),
        RouteCase("login", "nobody", password: "wrong", 401),
        RouteCase("members", "nobody", password: WebGateFixture.password, 403),
        RouteCase("members", "root", password: WebGateFixture.password, 200),
        RouteCase("members", "root", password: "wrong", 401),
    ]

    /// The gates of the matrix, each a route `/GATE`.
    public static let gates = ["members", "broken", "not-broken", "either", "beta", "login"]
}

import CapabilityPolicy
import Foundation
import Glibc
import LinuxPolicy
import TestSupport
import Testing

/// Which decisions may read a flag, so that one that cannot waits for no flag service.
@Suite
struct PolicyFlagReadsTests {
    private func load(_ text: String) throws -> Policy {
        let directory = TestRunDirectory.path + "/policy-flag-reads-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        chmod(directory, 0o755)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let file = directory + "/policy.yaml"
        try text.write(toFile: file, atomically: false, encoding: .utf8)
        chmod(file, 0o644)
        return try PolicyLoader.load(files: [file], environment: .linux)
    }

    @Test("a gate reads flags through a flag: reference, a flag capability or a gate it uses; Linux kinds read none")
    func gatesThatReadFlags() throws {
        let policy = try load(
            """
            flags:
              inline:
                flags:
                  maintenance: { state: ENABLED, variants: { "on": true, "off": false }, defaultVariant: "off" }
                  beta: { state: ENABLED, variants: { "on": true, "off": false }, defaultVariant: "off" }
            capabilities:
              scratch: { kind: file, path: /tmp }
              root: { kind: user, user: root }
              maintenance: { kind: flag, flag: maintenance }
            gates:
              local: { require: { any-of: [scratch, { not: root }] } }
              direct: { require: { all-of: [scratch, { flag: beta }] } }
              by-capability: { require: { silent: maintenance } }
              through-gate: { require: { all-of: [{ gate: local }, { gate: direct }] } }
              twice-local: { require: { all-of: [{ gate: local }, { not: { gate: local } }] } }
            """)
        #expect(!policy.readsFlags(deciding: ["local"]))
        #expect(!policy.readsFlags(deciding: ["twice-local", "scratch", "root"]))
        #expect(policy.readsFlags(deciding: ["direct"]))
        #expect(policy.readsFlags(deciding: ["by-capability"]))
        #expect(policy.readsFlags(deciding: ["through-gate"]))
        #expect(policy.readsFlags(deciding: ["maintenance"]))
        #expect(policy.readsFlags(deciding: ["local", "direct"]))
        // What the policy does not know may read anything.
        #expect(policy.readsFlags(deciding: ["no-such-gate"]))
    }
}

import Foundation
import Glibc
import TestSupport
import Testing

/// A policy's flag service through the built binary: capctl asks nginx, keeps the last good copy,
/// shows the source, and a gate on a remote flag is undecided once the copy is past max-staleness.
@Suite(
    "capctl with a flag service", .enabled(if: NginxFixture.isAvailable, "needs root, nginx-light and openssl"),
    .timeLimit(.minutes(2)))
struct CapctlRemoteFlagsTests {
    static let document = """
        {"flags": {"export-enabled": {"state": "ENABLED", "variants": {"on": true, "off": false}, "defaultVariant": "on"}}}
        """

    private func tree(_ server: NginxFixture, path: String = "flags.json", extra: String = "") throws -> PolicyTree {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            flags:
              http:
                - url: \(server.url(path))
                  ca-file: \(server.certificate.certificatePath)
                  cache-file: \(tree.root)/copies/flags.json
                  timeout: 2s
                  max-staleness: 1h
            \(extra)
            capabilities:
              export-flag: { kind: flag, flag: export-enabled }
            gates:
              export: { require: export-flag }
            """)
        return tree
    }

    @Test("check opens a gate on a remote flag; flags sources and status show URL, state, last success, ETag")
    func gateOnRemoteFlag() throws {
        let server = try NginxFixture()
        try server.serve("flags.json", Self.document)
        let tree = try tree(server)
        let check = try tree.capctl(["check", "export"])
        #expect(check.status == 0, "\(check.output)\(check.error)")
        let sources = try tree.capctl(["flags", "sources", "--json"])
        #expect(sources.status == 0, "\(sources.output)\(sources.error)")
        let list = try #require(try sources.json() as? [[String: Any]])
        #expect(list.count == 1)
        #expect(list.first?["url"] as? String == server.url("flags.json"))
        #expect(list.first?["state"] as? String == "fresh")
        #expect((list.first?["etag"] as? String)?.hasPrefix("\"") == true)
        #expect((list.first?["ageSeconds"] as? Double).map { $0 >= 0 && $0 < 3600 } == true)
        // The copy is younger than the interval: answered from disk, nginx not asked again.
        #expect(server.statuses == [200])
        let status = try tree.capctl(["status"])
        #expect(status.output.contains("\(server.url("flags.json"))  flag-source  fresh"), "\(status.output)")
        #expect(status.output.contains("ETag \""), "\(status.output)")
    }

    @Test("the service down: the last good copy answers; past max-staleness the gate is undecided, never open")
    func staleCopy() throws {
        let server = try NginxFixture()
        try server.serve("flags.json", Self.document)
        let tree = try tree(server)
        #expect(try tree.capctl(["check", "export"]).status == 0)
        server.stop()
        // Due (the interval is 30 s): asked, refused, and the copy answers.
        let copyPath = tree.root + "/copies/flags.json"
        let copy = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: copyPath))) as? [String: Any])
        var aged = copy
        aged["fetched"] = (copy["fetched"] as? Double ?? 0) - 60
        try JSONSerialization.data(withJSONObject: aged).write(to: URL(fileURLWithPath: copyPath))
        let offline = try tree.capctl(["check", "export"])
        #expect(offline.status == 0, "\(offline.output)\(offline.error)")
        let sources = try tree.capctl(["flags", "sources"])
        #expect(sources.status == 1)
        #expect(sources.output.contains("stale"), "\(sources.output)")
        // Two hours old with max-staleness 1h: the flag is an error and the gate undecided.
        aged["fetched"] = (copy["fetched"] as? Double ?? 0) - 7200
        try JSONSerialization.data(withJSONObject: aged).write(to: URL(fileURLWithPath: copyPath))
        let expired = try tree.capctl(["check", "export"])
        #expect(expired.status == 1, "\(expired.output)\(expired.error)")
        #expect(expired.output.contains("export: undecided"), "\(expired.output)")
        #expect(expired.output.contains("past max-staleness"), "\(expired.output)")
        // Stamped two hours ahead (the clock set back since): no trustworthy age, so not believed.
        aged["fetched"] = (copy["fetched"] as? Double ?? 0) + 7200
        try JSONSerialization.data(withJSONObject: aged).write(to: URL(fileURLWithPath: copyPath))
        let future = try tree.capctl(["check", "export"])
        #expect(future.status == 1 && future.output.contains("export: undecided"), "\(future.output)")
        let listed = try tree.capctl(["flags", "sources"])
        #expect(listed.output.contains("the clock changed"), "\(listed.output)")
    }

    @Test(
        "a flag service in a policy is checked: credentials in the URL, max-staleness under the interval, an unknown key"
    )
    func invalidDeclarations() throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            flags:
              http:
                - url: https://user:secret@flags.example.com/a.json
                - url: https://flags.example.com/b.json
                  interval: 10m
                  max-staleness: 1m
                - url: https://flags.example.com/c.json
                  intervall: 10s
                - url: ftp://flags.example.com/d.json
            """)
        let validate = try tree.capctl(["validate"])
        #expect(validate.status == 78)
        #expect(
            validate.output.contains("policy.yaml:3:12: a flag service's \"url\" must not hold credentials"),
            "\(validate.output)")
        #expect(validate.output.contains("policy.yaml:6:22: \"max-staleness\""), "\(validate.output)")
        #expect(
            validate.output.contains(
                "policy.yaml:8:7: unknown key \"intervall\" in a flag service (did you mean \"interval\"?"),
            "\(validate.output)")
        #expect(
            validate.output.contains("policy.yaml:9:12: a flag service's \"url\" must start with https:// or http://"),
            "\(validate.output)")
        #expect(!validate.output.contains("secret@"), "credentials are never quoted back")
        // A valid declaration validates, service or no service (it exited 78: "no HTTP client").
        try tree.write(
            "etc/policy.yaml",
            """
            flags:
              http:
                - url: https://flags.example.com/a.json
                  cache-file: \(tree.root)/copies/a.json
            capabilities:
              remote: { kind: flag, flag: served-elsewhere }
            gates:
              g: { require: remote }
            """)
        let valid = try tree.capctl(["validate"])
        #expect(valid.status == 0, "\(valid.output)\(valid.error)")
        #expect(valid.output.contains("ok: 1 file(s) checked"), "\(valid.output)")
    }

    @Test(
        "as uid 65534: no copy is written and a root-only token is a clear problem; as root: a copy another user owns is not believed"
    )
    func otherUsers() throws {
        let server = try NginxFixture()
        try server.serve("private/flags.json", Self.document)
        let secrets = try TemporaryDirectory(prefix: "flag-token")
        let token = try secrets.write("Bearer \(server.bearerToken)\n", to: "token", mode: 0o600)
        let tree = try tree(server, path: "private/flags.json")
        try tree.write(
            "etc/policy.yaml",
            try String(contentsOfFile: tree.root + "/etc/policy.yaml", encoding: .utf8)
                .replacingOccurrences(
                    of: "      timeout: 2s", with: "      timeout: 2s\n      authorization-file: \(token)"))
        // Root: the token is read, the flags come, the copy is kept.
        #expect(try tree.capctl(["check", "export"]).status == 0)
        let copy = tree.root + "/copies/flags.json"
        #expect(FileManager.default.fileExists(atPath: copy))
        try FileManager.default.removeItem(atPath: copy)

        // uid 65534 cannot read root's token: the service is not asked, the gate is undecided.
        let nobody = try tree.capctl(["check", "export"], as: .nobody)
        #expect(nobody.status == 1, "\(nobody.output)\(nobody.error)")
        #expect(nobody.output.contains("export: undecided"), "\(nobody.output)")
        #expect(nobody.output.contains("\(token)"), "the problem names the token file: \(nobody.output)")
        #expect(!FileManager.default.fileExists(atPath: copy), "only root writes the copy")

        // A copy owned by another user is refused, even by root, even with the service gone.
        #expect(try tree.capctl(["check", "export"]).status == 0)
        chown(copy, 65534, 65534)
        server.stop()
        let refused = try tree.capctl(["flags", "sources", "--json"])
        let source = try #require((try refused.json() as? [[String: Any]])?.first)
        #expect(source["state"] as? String == "loading", "\(source)")
        #expect((source["note"] as? String)?.contains("owned by") == true, "\(source)")
        let check = try tree.capctl(["check", "export"])
        #expect(check.status == 1 && check.output.contains("export: undecided"), "\(check.output)")
    }

    /// The helper is the one process that parses TLS, HTTP and JSON from the network; it ran with
    /// capctl's uid (root), groups, capabilities and whole environment.
    @Test(
        "under root, the flag service helper runs as nobody with no groups, no capabilities, no_new_privs and no environment"
    )
    func helperHoldsNothing() async throws {
        let server = try NginxFixture()
        try server.serve("flags.json", Self.document)
        let tree = try tree(server)
        var environment = tree.environment
        environment["https_proxy"] = "http://127.0.0.1:9"
        environment["SSL_CERT_FILE"] = "/nonexistent"
        let watch = try DaemonProcess([PolicyTree.capctl, "watch", "export"], environment: environment)
        defer { watch.stop() }
        // The gate comes to hold: the helper fetched the flags, the proxy and CA variables ignored.
        #expect(await watch.waitForOutput(containing: "\texport\tholds"))
        let helper = try #require(DaemonProcess.children(of: watch.pid).first, "capctl's helper is running")
        #expect(DaemonProcess.command(of: helper) == "capctl-flag-sou", "\(DaemonProcess.command(of: helper) ?? "")")
        let status = try String(contentsOfFile: "/proc/\(helper)/status", encoding: .utf8)
        func field(_ name: String) -> String {
            status.split(separator: "\n").first { $0.hasPrefix(name + ":") }.map {
                $0.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces)
            } ?? "?"
        }
        #expect(field("Uid") == "65534\t65534\t65534\t65534", "\(field("Uid"))")
        #expect(field("Gid") == "65534\t65534\t65534\t65534", "\(field("Gid"))")
        #expect(field("Groups") == "", "\(field("Groups"))")
        #expect(field("CapEff") == "0000000000000000" && field("CapPrm") == "0000000000000000")
        #expect(field("NoNewPrivs") == "1")
        let environ = try Data(contentsOf: URL(fileURLWithPath: "/proc/\(helper)/environ"))
        #expect(environ.isEmpty, "\(String(decoding: environ, as: UTF8.self))")
        // Another process of nobody's cannot look inside it (the token is in its memory): the kernel
        // made it non-dumpable when it left root, so ptrace access is refused.
        let peek = try runProcess(
            "/usr/bin/setpriv",
            ["--reuid=65534", "--regid=65534", "--clear-groups", "/bin/cat", "/proc/\(helper)/environ"])
        #expect(peek.status != 0 && peek.standardError.contains("Permission denied"), "\(peek.standardError)")
        // capctl, still root, kept the last good copy the helper can no longer write.
        let copy = try FileManager.default.attributesOfItem(atPath: tree.root + "/copies/flags.json")
        #expect(copy[.ownerAccountID] as? Int == 0)
    }

    @Test("for every caller, a flag service helper that others may change is not started")
    func untrustedHelper() throws {
        let tree = try PolicyTree.unreachableService()
        let capctl = builtProductForAnyUser("capctl", companions: ["capctl-flag-source"])
        let helper = (capctl as NSString).deletingLastPathComponent + "/capctl-flag-source"
        chmod(helper, 0o777)
        for credentials in [[], ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]] {
            let run = try tree.run(
                credentials + [capctl, "check", "remote", "--non-interactive"], extraEnvironment: [:])
            #expect(run.status == 1, "\(run.output)\(run.error)")
            #expect(run.output.contains("remote: undecided"), "\(run.output)")
            #expect(
                run.output.contains("the flag service helper is not trusted")
                    && run.output.contains("can be written by anyone"),
                "\(credentials): \(run.output)")
        }
    }

    /// A 300 KB one-line document kept `capctl check` busy 26 s with `timeout: 2s`: capctl waited
    /// for its helper without bound. Here the helper never answers at all.
    @Test(
        "capctl's wait for its flag helper is bounded by the source's timeout: a silent helper leaves the gate undecided"
    )
    func silentHelper() throws {
        let tree = try PolicyTree.unreachableService(
            capabilities: "  scratch: { kind: file, path: /tmp }",
            gates: """
                  local: { require: { all-of: [scratch, { not: { gate: never } }] } }
                  never: { require: { not: scratch } }
                """)
        let capctl = builtProductForAnyUser("capctl")
        let directory = (capctl as NSString).deletingLastPathComponent
        let helper = directory + "/capctl-flag-source"
        // Leaves a mark that it ran, says it started, then reads every command and answers none.
        let script = [
            "#!/bin/sh", ": > \"${0%/*}/helper-started\"",
            "echo '{\"event\":\"started\",\"status\":{\"condition\":\"loading\"}}'",
            "while read -r command; do :; done",
        ]
        try (script.joined(separator: "\n") + "\n").write(toFile: helper, atomically: false, encoding: .utf8)
        chmod(helper, 0o755)
        // A gate that reads no flag, through other gates too, starts no flag service and waits for none.
        let local = try tree.run([capctl, "check", "local", "--non-interactive"], extraEnvironment: [:])
        #expect(local.status == 0, "\(local.output)\(local.error)")
        #expect(!FileManager.default.fileExists(atPath: directory + "/helper-started"), "the helper was not started")
        let run = try tree.run([capctl, "check", "remote", "--non-interactive"], extraEnvironment: [:])
        #expect(run.status == 1, "\(run.output)\(run.error)")
        #expect(run.output.contains("remote: undecided"), "\(run.output)")
        #expect(run.output.contains("did not answer a refresh within 6.0 seconds"), "\(run.output)")
        #expect(FileManager.default.fileExists(atPath: directory + "/helper-started"))
    }
}

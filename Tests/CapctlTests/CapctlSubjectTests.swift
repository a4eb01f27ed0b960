import Foundation
import Glibc
import TestSupport
import Testing

/// `capctl check --for-process` and `--for-user`: a gate decided for another subject, as root
/// (pkcheck --process, sudo -l -U), through the built binary.
@Suite(
    "capctl decides for another subject", .serialized,
    .enabled(if: geteuid() == 0, "needs root: only root may decide for another subject"), .timeLimit(.minutes(2)))
struct CapctlSubjectTests {
    /// A process of uid 65534 with supplementary group 4242 (no name), ready once it printed a line.
    private func nobodyProcess() async throws -> DaemonProcess {
        let process = try DaemonProcess(
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--groups=4242", "/bin/sh", "-c",
                "echo ready; exec sleep 60",
            ], environment: [:])
        #expect(await process.nextLine() == "ready")
        return process
    }

    private func tree(secret: String) throws -> PolicyTree {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            flags:
              inline:
                flags:
                  staff-only:
                    state: ENABLED
                    variants: { "yes": true, "no": false }
                    defaultVariant: "no"
                    targeting: { "if": [ { "in": [ 4242, { "var": "groups" } ] }, "yes", "no" ] }
            capabilities:
              is-root: { kind: user, user: root }
              in-4242: { kind: group, group: "4242" }
              read-secret: { kind: file, path: \(secret), access: [read] }
              bind: { kind: process-capability, capability: CAP_NET_BIND_SERVICE }
              net: { kind: network }
              staff: { kind: flag, flag: staff-only }
            gates:
              root: { require: is-root }
              group: { require: in-4242 }
              secret: { require: read-secret }
              bind: { require: bind }
              staff: { require: staff }
            """)
        return tree
    }

    @Test("user, group, file, process capabilities and flags answer for the subject, not for root's capctl")
    func answersForTheSubject() async throws {
        let secret = try TemporaryDirectory(prefix: "subject-secret")
        chmod(secret.path, 0o755)
        let file = try secret.write("root only\n", to: "secret", mode: 0o600)
        let tree = try tree(secret: file)
        let nobody = try await nobodyProcess()
        defer { nobody.stop() }
        let forNobody = ["--for-process", try #require(DaemonProcess.processReference(nobody.pid))]
        let forRoot = ["--for-process", try #require(DaemonProcess.processReference(getpid()))]
        // capctl itself runs as root and could read the file: the subject cannot.
        for (gate, nobodyStatus, rootStatus) in [
            ("root", 1, 0), ("group", 0, 1), ("secret", 1, 0), ("bind", 1, 0), ("staff", 0, 1),
        ] as [(String, Int32, Int32)] {
            let asNobody = try tree.capctl(["check", gate] + forNobody)
            #expect(asNobody.status == nobodyStatus, "\(gate) for nobody: \(asNobody.output)\(asNobody.error)")
            let asRoot = try tree.capctl(["check", gate] + forRoot)
            #expect(asRoot.status == rootStatus, "\(gate) for root: \(asRoot.output)\(asRoot.error)")
        }
        let denied = try tree.capctl(["check", "secret", "--explain"] + forNobody)
        #expect(denied.output.contains("read: permission denied"), "\(denied.output)")
        #expect(denied.output.contains("pid \(nobody.pid)"), "\(denied.output)")
        // A user by name: its login groups; no process, so process capabilities are undecided.
        #expect(try tree.capctl(["check", "root", "--for-user", "root"]).status == 0)
        #expect(try tree.capctl(["check", "root", "--for-user", "nobody"]).status == 1)
        #expect(try tree.capctl(["check", "secret", "--for-user", "nobody"]).status == 1)
        let bind = try tree.capctl(["check", "bind", "--for-user", "root"])
        #expect(bind.status == 1)
        #expect(bind.output.contains("bind: undecided"), "\(bind.output)")
    }

    @Test("run --as-user decides for the user and runs the command as the user, with a fresh environment")
    func runAsUser() throws {
        let tree = try PolicyTree()
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              is-nobody: { kind: user, user: nobody }
              is-root: { kind: user, user: root }
            gates:
              nobody: { require: is-nobody }
              root: { require: is-root }
            """)
        let script =
            #"id -u; id -g; id -G; echo "$HOME|$USER|${SECRET:-unset}|$PATH"; pwd; grep CapEff /proc/self/status"#
        let ran = try tree.run(
            [PolicyTree.capctl, "run", "--as-user", "nobody", "nobody", "--", "/bin/sh", "-c", script],
            extraEnvironment: ["SECRET": "from-root"])
        #expect(ran.status == 0, "\(ran.output)\(ran.error)")
        let nobody = try runProcess("/usr/bin/getent", ["passwd", "nobody"]).standardOutput.split(separator: ":")
        let lines = ran.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 6, "\(ran.output)")
        guard lines.count == 6 else { return }
        #expect(lines[0] == "65534")
        #expect(lines[1] == String(nobody[3]))
        #expect(!lines[2].split(separator: " ").contains("0"), "no group of root's: \(lines[2])")
        #expect(lines[3] == "\(nobody[5])|nobody|unset|/usr/local/bin:/usr/bin:/bin", "\(lines[3])")
        #expect(lines[5].hasSuffix("0000000000000000"), "no capabilities: \(lines[5])")
        // Decided for the user: a gate the user does not pass runs nothing.
        let marker = tree.root + "/ran"
        let refused = try tree.capctl(["run", "--as-user", "nobody", "root", "--", "/usr/bin/touch", marker])
        #expect(refused.status == 77)
        #expect(refused.error.contains("nobody(65534) does not run as root(0)"), "\(refused.error)")
        #expect(!FileManager.default.fileExists(atPath: marker))
        // Only root may run as someone else.
        let notRoot = try tree.capctl(["run", "--as-user", "nobody", "nobody", "--", "/bin/true"], as: .nobody)
        #expect(notRoot.status == 77, "\(notRoot.error)")
        #expect(
            try tree.capctl(["run", "--as-user", "nobody", "--capabilities", "CAP_CHOWN", "nobody", "--", "/bin/true"])
                .status == 64)
    }

    @Test("only root may decide for someone else; unknown processes and users are usage errors")
    func rootOnly() async throws {
        let tree = try tree(secret: "/etc/shadow")
        let refused = try tree.capctl(["check", "root", "--for-user", "root"], as: .nobody)
        #expect(refused.status == 77, "\(refused.output)\(refused.error)")
        #expect(refused.error.contains("only root may ask"), "\(refused.error)")
        #expect(try tree.capctl(["check", "root", "--for-user", "no-such-user-xyz"]).status == 64)
        #expect(try tree.capctl(["check", "root", "--for-process", "999999999,1,0"]).status == 64)
        #expect(try tree.capctl(["check", "root", "--for-process", "1,1,0", "--for-user", "root"]).status == 64)
    }

    /// pkcheck's CVE-2013-4288: a client hands over its pid, then execs a setuid program; it keeps
    /// its pid and start time and was decided as root (`check root --for-process PID` exited 0).
    /// A process is named by pid, start time and uid, and refused on any mismatch.
    @Test("a process that exec'd a setuid program is never decided as root; a bare pid is refused")
    func setuidExec() async throws {
        let tree = try tree(secret: "/etc/shadow")
        let work = try TemporaryDirectory(prefix: "setuid-exec")
        chmod(work.path, 0o777)
        let fifo = work.path(of: "stdin")
        #expect(mkfifo(fifo, 0o666) == 0)
        chmod(fifo, 0o666)
        // As uid 65534: say who it is, then become su (setuid root), which waits for a password.
        let client = try DaemonProcess(
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/bin/sh", "-c",
                #"echo "ready $$,$(cut -d' ' -f22 /proc/$$/stat),$(id -u)"; exec /bin/su -c true root <> "$0""#, fifo,
            ], environment: ["PATH": "/usr/bin:/bin"])
        defer { client.stop() }
        let announced = try #require(await client.nextLine())
        let seen = String(announced.dropFirst("ready ".count))
        #expect(seen.hasSuffix(",65534"), "\(announced)")
        #expect(await client.waitForOutput(containing: "Password:"), "su did not start")
        #expect(DaemonProcess.processReference(client.pid)?.hasSuffix(",0") == true, "su runs as root now")
        // What the caller saw: refused, the uid no longer matches.
        let pinned = try tree.capctl(["check", "root", "--for-process", seen])
        #expect(pinned.status == 64, "\(pinned.output)\(pinned.error)")
        #expect(pinned.error.contains("it runs as uid 0, not 65534"), "\(pinned.error)")
        // A bare pid: refused as a form, never read at check time.
        let bare = try tree.capctl(["check", "root", "--for-process", String(client.pid)])
        #expect(bare.status == 64, "\(bare.output)\(bare.error)")
        #expect(bare.error.contains("PID,START-TIME,UID"), "\(bare.error)")
        // Another start time: another process, refused.
        let parts = seen.split(separator: ",")
        let older = "\(parts[0]),\(UInt64(parts[1])! - 1),\(parts[2])"
        let other = try tree.capctl(["check", "root", "--for-process", older])
        #expect(other.status == 64 && other.error.contains("is not the one named"), "\(other.error)")
    }

    /// After `unshare --user --map-root-user`, any user is "root" with a full CapEff inside its
    /// namespace; that grants nothing on the host, and was decided as holding every capability.
    @Test("a process in a user namespace of its own holds no capability here, whatever its CapEff says")
    func userNamespace() async throws {
        let tree = try tree(secret: "/etc/shadow")
        let client = try DaemonProcess(
            [
                "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/unshare", "--user",
                "--map-root-user", "/bin/sh", "-c", #"grep CapEff /proc/self/status; echo ready; exec sleep 60"#,
            ], environment: ["PATH": "/usr/bin:/bin"])
        defer { client.stop() }
        let capabilities = try #require(await client.nextLine())
        #expect(capabilities.hasSuffix("ffffffffff"), "inside its namespace it holds every capability: \(capabilities)")
        #expect(await client.nextLine() == "ready")
        let reference = try #require(DaemonProcess.processReference(client.pid))
        #expect(reference.hasSuffix(",65534"), "the host sees uid 65534: \(reference)")
        let bind = try tree.capctl(["check", "bind", "--explain", "--for-process", reference])
        #expect(bind.status == 1, "\(bind.output)\(bind.error)")
        #expect(bind.output.contains("user namespace of its own"), "\(bind.output)")
        #expect(try tree.capctl(["check", "root", "--for-process", reference]).status == 1)
    }

    @Test(
        "check --for-process agrees with pkcheck --process on every polkit rule, per user",
        .enabled(if: PolkitFixture.isAvailable, "needs polkitd and dbus-daemon"))
    func agreesWithPkcheck() async throws {
        let actions = [
            "org.example.subject.nobody-yes": "yes for nobody", "org.example.subject.root-yes": "yes for root",
            "org.example.subject.never": "never", "org.example.subject.ask": "ask",
        ]
        let fixture = try await PolkitFixture(
            actions: actions,
            rules: """
                polkit.addRule(function(action, subject) {
                  if (action.id == "org.example.subject.nobody-yes") return subject.user == "nobody" ? polkit.Result.YES : polkit.Result.NO;
                  if (action.id == "org.example.subject.root-yes") return subject.user == "root" ? polkit.Result.YES : polkit.Result.NO;
                  if (action.id == "org.example.subject.never") return polkit.Result.NO;
                  if (action.id == "org.example.subject.ask") return polkit.Result.AUTH_ADMIN;
                });

                """)
        let tree = try PolicyTree()
        var policy = "capabilities:\n"
        for (index, action) in actions.keys.sorted().enumerated() {
            policy += "  a\(index): { kind: polkit, action: \(action) }\n"
        }
        policy += "gates:\n"
        for index in actions.keys.indices.map({ $0 }).enumerated().map(\.offset) {
            policy += "  g\(index): { require: a\(index) }\n"
        }
        try tree.write("etc/policy.yaml", policy)
        let nobody = try await nobodyProcess()
        defer { nobody.stop() }
        let environment = ["DBUS_SYSTEM_BUS_ADDRESS": fixture.busAddress]
        for pid in [nobody.pid, getpid()] {
            for (index, action) in actions.keys.sorted().enumerated() {
                let reference = try #require(DaemonProcess.processReference(pid))
                let pkcheck = try tree.run(
                    ["/usr/bin/pkcheck", "--action-id", action, "--process", reference], extraEnvironment: environment)
                let check = try tree.run(
                    [PolicyTree.capctl, "check", "g\(index)", "--for-process", reference],
                    extraEnvironment: environment)
                #expect(
                    check.status == pkcheck.status,
                    "\(action) for \(pid): capctl \(check.output), pkcheck \(pkcheck.output)\(pkcheck.error)")
            }
        }
    }
}

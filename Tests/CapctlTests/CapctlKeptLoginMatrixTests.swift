import Foundation
import Glibc
import TestSupport
import Testing

/// `keep:` where polkit's kept authorizations break (its issues #613, #664, #697): a pty of
/// `script`, tmux windows, SSH to localhost, `su` with and without `-P`, no XDG_RUNTIME_DIR, a
/// strict umask. Each setting has the case that reuses a login and the case that must not: a
/// login is kept per user, session and terminal, never across them. The built capctl, real
/// terminals, a real sshd.
@Suite(
    "kept logins across terminals, sessions and users", .serialized,
    .enabled(if: PAMTestModules.matrix != nil && geteuid() == 0, "needs libpam-wrapper, and root"),
    .timeLimit(.minutes(2)))
struct CapctlKeptLoginMatrixTests {
    /// A tree whose `admin` (alice's password, `secret`) is kept for 5 minutes; its policy files
    /// and PAM service readable by anyone, for the cases run as uid 65534.
    private func tree() throws -> PolicyTree {
        let tree = try PolicyTree()
        try tree.matrixService("keep-test")
        try tree.write(
            "etc/policy.yaml",
            """
            capabilities:
              admin: { kind: pam, service: keep-test, user: alice, service-directory: \(tree.root)/pam, keep: 5m }
            gates:
              export: { require: admin }
            """)
        try tree.write("password", "secret\n")
        return tree
    }

    /// Shell words for capctl in `tree`, with `arguments`.
    private static func capctl(_ arguments: String, program: String = PolicyTree.capctl) -> String {
        "'\(program)' \(arguments)"
    }

    private static let authorize = "authorize admin --password-stdin"
    private static let check = "check export --non-interactive --explain"

    @Test("a pty of script: kept for the commands in it, never in another pty, and --explain says why")
    func scriptPty() throws {
        let tree = try tree()
        let first = try tree.run(
            [
                "/usr/bin/script", "-qec",
                Self.capctl(Self.authorize) + " < \(tree.root)/password && " + Self.capctl(Self.check), "/dev/null",
            ], extraEnvironment: [:])
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("kept from an earlier login in this terminal and session"), "\(first.output)")
        let other = try tree.run(
            ["/usr/bin/script", "-qec", Self.capctl(Self.check), "/dev/null"], extraEnvironment: [:])
        #expect(other.status == 2, "another pty: \(other.output)")
        #expect(other.output.contains("one is kept in another terminal or session"), "\(other.output)")
    }

    @Test("tmux windows: kept in the window that logged in, not the next; --forget, --forget-all and --extend")
    func tmuxWindows() throws {
        let tree = try tree()
        let tmux = try TmuxTerminals(tree: tree, windows: ["A", "B"])
        defer { tmux.stop() }
        let login = Self.capctl(Self.authorize) + " < \(tree.root)/password"
        #expect(try tmux.run("A", login).status == 0)
        #expect(try tmux.run("A", Self.capctl(Self.check)).status == 0, "the same window")
        #expect(try tmux.run("B", Self.capctl(Self.check)).status == 2, "another window is another terminal")
        #expect(try tmux.run("B", login).status == 0)
        // As sudo -k: this window's login ends, the other window's stays.
        let forgot = try tmux.run("A", Self.capctl("authorize --forget"))
        #expect(forgot.output.contains("forgot 1 kept login(s) for this terminal and session"), "\(forgot.output)")
        #expect(try tmux.run("A", Self.capctl(Self.check)).status == 2, "after --forget")
        #expect(try tmux.run("B", Self.capctl(Self.check)).status == 0, "--forget in A leaves B's")
        // As sudo -K: every terminal's.
        #expect(try tmux.run("A", login).status == 0)
        let forgotAll = try tmux.run("A", Self.capctl("authorize --forget-all"))
        #expect(forgotAll.output.contains("forgot 2 kept login(s)"), "\(forgotAll.output)")
        #expect(try tmux.run("B", Self.capctl(Self.check)).status == 2, "after --forget-all")
        // As sudo -v: a kept login made good for its whole keep again, without a password.
        #expect(try tmux.run("A", login).status == 0)
        let at = { (seconds: Int) in "CAPCTL_KEEP_CLOCK_OFFSET=\(seconds) " }
        let extended = try tmux.run("A", at(200) + Self.capctl("authorize admin --extend --password-stdin < /dev/null"))
        #expect(extended.status == 0, "\(extended.output)")
        #expect(extended.output.contains("kept login extended: good for 300 s from now"), "\(extended.output)")
        #expect(try tmux.run("A", at(450) + Self.capctl(Self.check)).status == 0, "kept until 500 s now")
        #expect(try tmux.run("A", at(501) + Self.capctl(Self.check)).status == 2, "ended at 500 s")
        // Nothing kept: --extend asks, as sudo -v does.
        let asked = try tmux.run(
            "A", at(501) + Self.capctl("authorize admin --extend --password-stdin") + " < \(tree.root)/password")
        #expect(asked.status == 0 && asked.output.contains("alice authenticated"), "\(asked.output)")
        #expect(try tmux.run("A", at(502) + Self.capctl(Self.check)).status == 0)
    }

    @Test(
        "ssh to localhost: kept within one connection, with a pty or without, never in the next connection",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/sbin/sshd"), "needs openssh-server"))
    func sshToLocalhost() async throws {
        let tree = try tree()
        let sshd = try await SSHServer(tree: tree)
        defer { sshd.stop() }
        let both = Self.capctl(Self.authorize) + " < \(tree.root)/password && " + Self.capctl(Self.check)
        for pty in [true, false] {
            let connected = try sshd.run(both, pty: pty)
            #expect(connected.status == 0, "pty \(pty): \(connected.output)\(connected.error)")
            #expect(connected.output.contains("kept from an earlier login"), "pty \(pty): \(connected.output)")
            let next = try sshd.run(Self.capctl(Self.check), pty: pty)
            #expect(next.status == 2, "pty \(pty), the next connection: \(next.output)\(next.error)")
        }
    }

    @Test("su as another user, with -P (a pty of its own) and without: kept within what su ran, never in the next su")
    func switchedUser() throws {
        let tree = try tree()
        try tree.write("nobody-keep/.keep", "")
        chown(tree.root + "/nobody-keep", 65534, 65534)
        chmod(tree.root + "/nobody-keep", 0o700)
        let environment = "CAPCTL_KEEP_DIRECTORY=\(tree.root)/nobody-keep CAPCTL_POLICY_ROOTS=\(tree.admin) "
        let program = PolicyTree.sharedCapctl
        let login =
            "env " + environment + Self.capctl(Self.authorize, program: program) + " < \(tree.root)/password && "
            + "env " + environment + Self.capctl(Self.check, program: program)
        for pty in [false, true] {
            let su = ["/usr/bin/su"] + (pty ? ["-P"] : []) + ["-s", "/bin/sh", "nobody", "-c"]
            let within = try tree.run(su + [login], extraEnvironment: [:])
            #expect(within.status == 0, "su \(pty ? "-P" : ""): \(within.output)\(within.error)")
            let next = try tree.run(
                su + ["env " + environment + Self.capctl(Self.check, program: program)], extraEnvironment: [:])
            #expect(next.status == 2, "the next su \(pty ? "-P" : ""): \(next.output)\(next.error)")
        }
    }

    @Test("without XDG_RUNTIME_DIR, or with another user's (su without -l): kept in the home; with no home, said why")
    func noRuntimeDirectory() throws {
        let tree = try tree()
        try tree.write("nobody-home/.profile", "")
        chown(tree.root + "/nobody-home", 65534, 65534)
        // The account database says where uid 65534's home is: a passwd of the test's, bound
        // over /etc/passwd in a mount namespace (with a /run of its own: no /run/user/65534).
        let passwd =
            try String(contentsOfFile: "/etc/passwd", encoding: .utf8)
            .split(separator: "\n").map { line in
                line.hasPrefix("nobody:")
                    ? "nobody:x:65534:65534:nobody:\(tree.root)/nobody-home:/bin/sh" : String(line)
            }.joined(separator: "\n") + "\n"
        let passwdFile = try tree.write("passwd", passwd)
        func asNobody(_ command: String, runtime: String?, passwd: String = passwdFile) throws -> CapctlRun {
            let setup = "mount -t tmpfs tmpfs /run && mount --bind '\(passwd)' /etc/passwd && exec "
            let drop = "/usr/bin/setpriv --reuid=65534 --regid=65534 --clear-groups "
            let variables =
                "env -u CAPCTL_KEEP_DIRECTORY -u XDG_RUNTIME_DIR "
                + (runtime.map { "XDG_RUNTIME_DIR=\($0) " } ?? "") + "CAPCTL_POLICY_ROOTS=\(tree.admin) "
            return try tree.run(
                [
                    "/usr/bin/unshare", "--mount", "/bin/sh", "-c", setup + drop + variables + "/bin/sh -c \"$0\"",
                    command,
                ],
                extraEnvironment: [:])
        }
        let program = PolicyTree.sharedCapctl
        let both =
            Self.capctl(Self.authorize, program: program) + " < \(tree.root)/password && "
            + Self.capctl(Self.check, program: program)
        for runtime in [nil, "/root"] {
            let kept = try asNobody(both, runtime: runtime)
            #expect(kept.status == 0, "XDG_RUNTIME_DIR \(runtime ?? "unset"): \(kept.output)\(kept.error)")
            #expect(kept.output.contains("kept from an earlier login"), "\(kept.output)")
        }
        let records = try FileManager.default.contentsOfDirectory(atPath: tree.root + "/nobody-home/.cache/capctl/keep")
        #expect(!records.isEmpty, "the records are in the home")
        // No home of its own either: the login counts once, and authorize says why it is not kept.
        let homeless = try tree.write(
            "passwd-homeless", passwd.replacingOccurrences(of: tree.root + "/nobody-home", with: "/nonexistent"))
        let told = try asNobody(
            Self.capctl(Self.authorize, program: program) + " < \(tree.root)/password", runtime: nil,
            passwd: homeless)
        #expect(told.status == 0, "\(told.output)\(told.error)")
        #expect(
            told.output.contains(
                "not kept across processes: no directory of uid 65534's own to keep it in (XDG_RUNTIME_DIR is not set; "
                    + "the runtime directory /run/user/65534 does not exist; the home directory /nonexistent does not exist)"
            ),
            "\(told.output)")
    }

    @Test("under umask 077 (UMask=0077): the records' directories get the modes they need, and the login is kept")
    func strictUmask() throws {
        let tree = try tree()
        // /run is there; /run/capctl is made by whichever of capctl and capctld comes first.
        try tree.write("run-capctl/.keep", "")
        let records = tree.root + "/run-capctl/capctl/keep"
        let both =
            "umask 077 && " + Self.capctl(Self.authorize) + " < \(tree.root)/password && " + Self.capctl(Self.check)
        let kept = try tree.run(["/bin/sh", "-c", both], extraEnvironment: ["CAPCTL_KEEP_DIRECTORY": records])
        #expect(kept.status == 0, "\(kept.output)\(kept.error)")
        func mode(_ path: String) -> mode_t {
            var info = stat()
            return stat(path, &info) == 0 ? info.st_mode & 0o7777 : 0
        }
        // The parent holds capctld's socket beside the records: others must reach it.
        #expect(mode(tree.root + "/run-capctl/capctl") == 0o755)
        #expect(mode(records) == 0o700)
    }
}

/// Terminals that outlive one command: the windows of a tmux server of the test's own, each
/// running a shell; a command's end is told by tmux's wait-for channel, not by sleeping.
private final class TmuxTerminals {
    private let tree: PolicyTree
    private let socket: String
    private var step = 0

    init(tree: PolicyTree, windows: [String]) throws {
        self.tree = tree
        socket = tree.root + "/tmux.sock"
        for (index, window) in windows.enumerated() {
            let arguments =
                index > 0
                ? ["new-window", "-t", "keep", "-n", window, "/bin/sh"]
                : ["new-session", "-d", "-s", "keep", "-n", window, "/bin/sh"]
            // The server new-session starts inherits every descriptor its client has: a child
            // given only its standard three (DaemonProcess), so no pipe of ours stays open in it.
            let client = try DaemonProcess(
                ["/usr/bin/tmux", "-S", socket, "-f", "/dev/null"] + arguments, environment: tree.environment)
            guard client.waitUntilExit() == 0 else { throw FixtureError("tmux \(arguments[0]) failed") }
        }
    }

    private func tmux(_ arguments: [String]) throws -> ProcessOutput {
        try runProcess(
            "/usr/bin/timeout", ["60", "/usr/bin/tmux", "-S", socket, "-f", "/dev/null"] + arguments,
            environment: tree.environment)
    }

    /// Runs `line` in `window`'s shell and returns its exit status and output.
    func run(_ window: String, _ line: String) throws -> CapctlRun {
        step += 1
        let base = tree.root + "/step-\(step)"
        try tree.write("step-\(step).sh", line + "\n")
        let typed =
            "sh \(base).sh > \(base).out 2>&1; echo $? > \(base).status; tmux -S \(socket) wait-for -S step-\(step)"
        #expect(try tmux(["send-keys", "-t", "keep:\(window)", typed, "Enter"]).status == 0)
        let waited = try tmux(["wait-for", "step-\(step)"])
        guard waited.status == 0 else {
            throw FixtureError("step \(step) in tmux did not end: \(waited.standardError)")
        }
        let status = Int32(try String(contentsOfFile: base + ".status", encoding: .utf8).filter(\.isNumber)) ?? -1
        return CapctlRun(status: status, output: try String(contentsOfFile: base + ".out", encoding: .utf8), error: "")
    }

    func stop() { _ = try? tmux(["kill-server"]) }
}

/// sshd on 127.0.0.1, in a mount namespace with a /run of its own (its privilege separation
/// directory), letting root in with a key of the test's; the tree's policy and records in the
/// sessions' environment.
private final class SSHServer {
    private let tree: PolicyTree
    private let daemon: DaemonProcess
    private let port: Int

    init(tree: PolicyTree) async throws {
        self.tree = tree
        for key in ["host", "client"] {
            let made = try runProcess(
                "/usr/bin/ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-f", tree.root + "/ssh-\(key)"])
            guard made.status == 0 else { throw FixtureError("ssh-keygen: \(made.standardError)") }
        }
        try tree.write("ssh-authorized", try String(contentsOfFile: tree.root + "/ssh-client.pub", encoding: .utf8))
        guard let port = LoopbackListener.freePort() else { throw FixtureError("no free port") }
        self.port = port
        let configuration = try tree.write(
            "sshd_config",
            """
            ListenAddress 127.0.0.1
            Port \(port)
            HostKey \(tree.root)/ssh-host
            AuthorizedKeysFile \(tree.root)/ssh-authorized
            PasswordAuthentication no
            KbdInteractiveAuthentication no
            UsePAM no
            StrictModes no
            PermitRootLogin prohibit-password
            PidFile none
            SetEnv CAPCTL_POLICY_ROOTS=\(tree.admin) CAPCTL_KEEP_DIRECTORY=\(tree.root)/keep NO_COLOR=1

            """)
        daemon = try DaemonProcess(
            [
                "/usr/bin/unshare", "--mount", "/bin/sh", "-c",
                "mount -t tmpfs tmpfs /run && mkdir -m 0755 /run/sshd && exec /usr/sbin/sshd -D -e -f \"$0\"",
                configuration,
            ], environment: ["PATH": "/usr/sbin:/usr/bin:/bin"])
        guard await daemon.waitForOutput(containing: "Server listening on 127.0.0.1 port \(port)") else {
            daemon.stop()
            throw FixtureError("sshd did not start")
        }
    }

    /// `command` run by root's shell over one new connection, with a pty (`-tt`) or without.
    func run(_ command: String, pty: Bool) throws -> CapctlRun {
        let result = try runProcess(
            "/usr/bin/ssh",
            [
                "-F", "/dev/null", "-i", tree.root + "/ssh-client", "-o", "StrictHostKeyChecking=no", "-o",
                "UserKnownHostsFile=/dev/null", "-o", "BatchMode=yes", "-o", "LogLevel=ERROR", "-p", String(port),
            ] + (pty ? ["-tt"] : ["-T"]) + ["root@127.0.0.1", command], environment: ["PATH": "/usr/bin:/bin"])
        return CapctlRun(status: result.status, output: result.standardOutput, error: result.standardError)
    }

    func stop() { daemon.stop() }
}

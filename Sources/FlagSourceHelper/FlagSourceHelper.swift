import CLinuxSupport
import ConfigurationFiles
import FeatureFlags
import FlagSourceClient
import Glibc
import Locking
import RemoteFlags

/// `capctl-flag-source SETTINGS`: follows one flag service for capctl or capctld
/// (`FlagSourceProcess`, beside it in FlagSourceClient), which start it only when a
/// policy names a service: the network is talked to by a process of its own that leaves root
/// before the first byte, and libcurl is loaded only there. The package installs it as a name of
/// capctl's own binary (Docs/Performance.md, "One binary"); `capctl-flag-source` is the same for
/// development.
///
/// The settings are JSON (`RemoteFlagSourceMessage`). Standard input takes one command a line
/// (`FlagSourceCommand`); its end stops the source and the helper.
/// Standard output gets one line of JSON per event, each with the whole status and the last good
/// document: `started` first, then `loaded`, `confirmed`, `failed` and `expired` as they happen,
/// and `refreshed` when a refresh asked for has ended.
package enum FlagSourceHelper {
    /// Runs the helper with the process's arguments, and exits. On the main thread, as an `@main`
    /// program's would: no_new_privs is a thread's, and /proc/PID/status shows the main thread's.
    @MainActor
    package static func main() async -> Never {
        // What it may never gain, before anything else: no exec can give it privileges.
        let forbidden = clinux_forbid_new_privileges()
        guard forbidden == 0 else {
            Output.error("capctl-flag-source: cannot set no_new_privs: \(String(cString: strerror(forbidden)))")
            exit(71)
        }
        let arguments = CommandLine.arguments
        guard arguments.count == 2, let settings = try? RemoteFlagSourceMessage.settings(from: arguments[1]) else {
            Output.error("capctl-flag-source: started by capctl, with the flag source's settings as its one argument")
            exit(64)
        }
        // What needs root is read now (the last good copy, the CA file, the token); then, before a
        // byte comes from the network, root is left for nobody's uid with no groups, as OpenSSH's
        // privilege separation does. capctl writes the copy from what this process reports.
        let source = HTTPFlagSource(settings, keepsCopy: false, readsAuthorizationNow: geteuid() == 0)
        if geteuid() == 0 || getuid() == 0 {
            let dropped = clinux_drop_privileges(Unprivileged.uid, Unprivileged.gid)
            guard dropped == 0 else {
                Output.error("capctl-flag-source: cannot leave root: \(String(cString: strerror(dropped)))")
                exit(71)
            }
        }
        Output.send(.started, source)
        while let line = Self.nextCommand() {
            guard let command = FlagSourceCommand(line: line) else {
                Output.error("capctl-flag-source: unknown command")
                exit(64)
            }
            switch command {
            case .start(let follow):
                source.start(follow: follow) { event in
                    switch event {
                    case .loaded: Output.send(.loaded, source)
                    case .confirmed: Output.send(.confirmed, source)
                    case .failed(let error): Output.send(.failed, source, error: error)
                    case .expired(let reason): Output.send(.expired, source, reason: reason)
                    }
                }
            case .refresh(let onlyIfDue):
                await source.refresh(onlyIfDue: onlyIfDue)
                Output.send(.refreshed, source)
            }
        }
        source.stop()
        exit(0)
    }
}

extension FlagSourceHelper {
    /// The next line of standard input; nil at its end. The standard library's `readLine()` reads
    /// again while errno is EINTR, and getline(3) leaves errno alone at the end of input: with an
    /// EINTR left on the thread by an earlier call, the helper spun at 100 % once capctl closed its
    /// input, and capctl waited for it for ever.
    static func nextCommand() -> String? {
        errno = 0
        return readLine()
    }
}

/// Whom the helper runs as when capctl is root: the user `nobody` where the user database has
/// one, else uid and gid 65534 (the kernel's overflow ids, nobody's on Debian).
enum Unprivileged {
    static let (uid, gid): (UInt32, UInt32) = {
        guard let entry = getpwnam("nobody"), entry.pointee.pw_uid != 0, entry.pointee.pw_gid != 0 else {
            return (65534, 65534)
        }
        return (entry.pointee.pw_uid, entry.pointee.pw_gid)
    }()
}

/// Whole lines on standard output, one writer at a time (events come from the source's tasks).
enum Output {
    private static let lock = Lock(())

    static func send(
        _ event: RemoteFlagSourceMessage.Event, _ source: HTTPFlagSource, error: ConfigurationError? = nil,
        reason: String? = nil
    ) {
        let line = RemoteFlagSourceMessage.encode(
            RemoteFlagSourceMessage.Update(
                event: event, status: source.status, document: source.document, error: error, reason: reason))
        lock.withLock { _ in write(STDOUT_FILENO, line + "\n") }
    }

    static func error(_ text: String) {
        write(STDERR_FILENO, text + "\n")
    }

    private static func write(_ descriptor: Int32, _ text: String) {
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0, errno == EINTR { continue }
            // capctl is gone: nothing is left to report to.
            guard written > 0 else { exit(0) }
            bytes = bytes.dropFirst(written)
        }
    }
}

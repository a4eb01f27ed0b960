import CLinuxSupport
import Foundation
import Glibc

/// A real systemd journal of the test's own: Debian's systemd-journald, started in a private
/// mount namespace where /run and the journal's directories are fresh tmpfs mounts, so its
/// socket is `/run/systemd/journal/socket` there (where `sd_journal_sendv` sends) and nothing on
/// the machine changes. Commands run inside with ``inside(_:)``; ``records(identifier:)`` reads
/// the entries back with journalctl. Stopping journald ends the namespace and its files.
public final class JournalReceiver: Sendable {
    public static let journald = "/usr/lib/systemd/systemd-journald"

    public static var isAvailable: Bool {
        [journald, "/usr/bin/journalctl", "/usr/bin/unshare", "/usr/bin/nsenter"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }

    private let directory: TemporaryDirectory
    private let daemon: DaemonProcess

    /// Starts journald and waits until it says it is ready (`READY=1` on a notify socket of the test's).
    /// - Parameter configuration: journald.conf settings of the `[Journal]` section, one per line
    ///   (`RateLimitBurst=20`), given as a drop-in in the namespace's /run.
    public init(configuration: [String] = []) throws {
        directory = try TemporaryDirectory(prefix: "journal")
        let notify = try NotifySocket(path: directory.path + "/notify")
        let dropIn = try directory.write(
            (["[Journal]"] + configuration).joined(separator: "\n") + "\n", to: "test.conf")
        let setup = """
            set -e
            mount -t tmpfs tmpfs /run
            mkdir -p /run/systemd/journal /run/log/journal /run/systemd/journald.conf.d
            cp \(dropIn) /run/systemd/journald.conf.d/test.conf
            if [ -d /var/log/journal ]; then mount -t tmpfs tmpfs /var/log/journal; fi
            exec \(Self.journald)
            """
        daemon = try DaemonProcess(
            ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", setup],
            environment: ["NOTIFY_SOCKET": notify.path, "PATH": "/usr/sbin:/usr/bin:/sbin:/bin"])
        do {
            try notify.waitForReady("systemd-journald")
        } catch {
            daemon.stop()
            throw error
        }
    }

    deinit { daemon.stop() }

    /// `command` run in the journal's namespace, where this journal is the system's.
    public func inside(_ command: [String]) -> [String] {
        ["/usr/bin/nsenter", "--target", String(daemon.pid), "--mount", "--"] + command
    }

    /// Every entry `identifier` (`SYSLOG_IDENTIFIER`) logged, oldest first, as fields, once
    /// journald has written all it had received (`journalctl --sync`).
    public func records(identifier: String) throws -> [[String: String]] {
        let syncCommand = inside(["/usr/bin/journalctl", "--sync"])
        let sync = try runProcess(syncCommand[0], Array(syncCommand.dropFirst()))
        guard sync.status == 0 else { throw ReceiverError("journalctl --sync: \(sync.standardError)") }
        let query = inside([
            "/usr/bin/journalctl", "--directory=/run/log/journal", "--output=json", "--no-pager",
            "SYSLOG_IDENTIFIER=\(identifier)",
        ])
        let result = try runProcess(query[0], Array(query.dropFirst()))
        guard result.status == 0 else { throw ReceiverError("journalctl: \(result.standardError)") }
        return try result.standardOutput.split(separator: "\n").map { line in
            guard let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw ReceiverError("journalctl wrote something that is not an entry")
            }
            // Strings stay strings; binary values (arrays of bytes) are decoded as UTF-8.
            return object.compactMapValues { value in
                if let text = value as? String { return text }
                if let bytes = value as? [Int] { return String(decoding: bytes.map(UInt8.init), as: UTF8.self) }
                return nil
            }
        }
    }

    public struct ReceiverError: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}

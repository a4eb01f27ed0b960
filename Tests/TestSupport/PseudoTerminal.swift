import CLinuxSupport
public import Foundation
import Glibc

/// A pseudo-terminal: the test plays the person at the master side; the code under test opens
/// the slave device as its terminal, or a child process gets it as standard output and error.
public final class PseudoTerminal: @unchecked Sendable {
    /// The master side, which the test reads and writes.
    public let master: Int32
    /// The slave device's path (`/dev/pts/N`).
    public let deviceName: String

    public init() throws {
        var name = [CChar](repeating: 0, count: 128)
        master = clinux_open_pseudo_terminal(&name, name.count)
        guard master >= 0 else { throw POSIXError(.ENOTTY) }
        deviceName = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { close(master) }

    /// Opens the slave side, for a child process's standard streams; close it once the child
    /// started, so that reading ends when the child exits.
    public func openDevice() throws -> FileHandle {
        let device = open(deviceName, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard device >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        return FileHandle(fileDescriptor: device, closeOnDealloc: true)
    }

    /// What the terminal shows, read until it ends with `suffix`. Blocks a dispatch thread.
    public func read(until suffix: String) async -> String {
        await read { $0.hasSuffix(suffix) }
    }

    /// What the terminal shows, read until `done` holds for it or nothing more can come (every
    /// slave side closed, or ``TestDeadline/wait`` passed). Blocks a dispatch thread.
    public func read(until done: @escaping @Sendable (String) -> Bool) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let deadline = ContinuousClock.now + TestDeadline.wait
                var shown = ""
                var byte: UInt8 = 0
                while !done(shown),
                    withUnsafeMutableBytes(of: &byte, { TestDeadline.read(self.master, into: $0, by: deadline) }) == 1
                {
                    shown.unicodeScalars.append(UnicodeScalar(byte))
                }
                continuation.resume(returning: shown)
            }
        }
    }

    /// Everything the terminal shows until every slave side is closed.
    public func readToEnd() async -> String { await read { _ in false } }

    /// What the terminal shows now, without waiting.
    public func readAvailable() -> String {
        var shown = ""
        var waiting = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        var byte: UInt8 = 0
        while poll(&waiting, 1, 0) > 0, waiting.revents & Int16(POLLIN) != 0, Glibc.read(master, &byte, 1) == 1 {
            shown.unicodeScalars.append(UnicodeScalar(byte))
        }
        return shown
    }

    /// Types `text` as a person would.
    public func type(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(master, $0.baseAddress, $0.count) }
    }
}

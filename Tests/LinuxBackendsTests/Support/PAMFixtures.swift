import CLinuxSupport
import Foundation
import Glibc
import LinuxBackends
import Locking
import TestSupport

/// A programmatic conversation that records what PAM asked and showed.
final class RecordingConversation: Sendable {
    private let log = Lock<[PAMMessage]>([])
    let password: String?

    init(password: String?) { self.password = password }

    var messages: [PAMMessage] { log.withLock { $0 } }
    var prompts: Int { messages.filter { $0.style == .secretPrompt || $0.style == .visiblePrompt }.count }

    var conversation: ProgrammaticPAMConversation {
        ProgrammaticPAMConversation(
            secret: { [self] in
                log.withLock { $0.append(PAMMessage(style: .secretPrompt, text: "")) }
                return password.map(PAMSecret.init)
            },
            onMessage: { [self] message in log.withLock { $0.append(message) } })
    }
}

/// A pseudo-terminal: the test plays the person at the master side; the code under test
/// opens the slave device as its terminal.
final class PseudoTerminal: @unchecked Sendable {
    let master: Int32
    let deviceName: String

    init() throws {
        var name = [CChar](repeating: 0, count: 128)
        master = clinux_open_pseudo_terminal(&name, name.count)
        guard master >= 0 else { throw POSIXError(.ENOTTY) }
        deviceName = String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    deinit { close(master) }

    /// What the terminal shows, read until it ends with `suffix`. Blocks a dispatch thread.
    func read(until suffix: String) async -> String {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                var shown = ""
                var byte: UInt8 = 0
                while !shown.hasSuffix(suffix), Glibc.read(self.master, &byte, 1) == 1 {
                    shown.unicodeScalars.append(UnicodeScalar(byte))
                }
                continuation.resume(returning: shown)
            }
        }
    }

    /// What the terminal shows now, without waiting.
    func readAvailable() -> String {
        var shown = ""
        var waiting = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        var byte: UInt8 = 0
        while poll(&waiting, 1, 0) > 0, waiting.revents & Int16(POLLIN) != 0, Glibc.read(master, &byte, 1) == 1 {
            shown.unicodeScalars.append(UnicodeScalar(byte))
        }
        return shown
    }

    /// Types `text` as a person would.
    func type(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { write(master, $0.baseAddress, $0.count) }
    }
}

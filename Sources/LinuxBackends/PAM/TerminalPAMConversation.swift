import CLinuxSupport
import Glibc
import Plumbing
import SystemPackage

/// Asks on the controlling terminal (/dev/tty), as `login` and `sudo` do: secret prompts
/// with echo off, visible prompts with echo on, information and errors printed. The answer is
/// read straight into a buffer that is zeroed after use; it never becomes a Swift `String`.
/// End of input (Ctrl-D) dismisses the login; so does having no terminal, with a reason that
/// says how to answer instead.
///
/// ```swift
/// let login = try PAMLogin(service: "myservice-admin", conversation: TerminalPAMConversation(device: "/dev/tty"))
/// _ = login
/// ```
public struct TerminalPAMConversation: PAMConversation {
    /// The terminal device.
    public let device: String
    /// What a password is asked for (a gate's name), added to capctl's prompt
    /// (``PAMMessage/naming(purpose:)``), or nil.
    public let purpose: String?

    /// Creates a conversation on `device` (by default the controlling terminal), asking for
    /// `purpose` (nil: no purpose named).
    public init(device: String = "/dev/tty", purpose: String? = nil) {
        self.device = device
        self.purpose = purpose
    }

    public func answer(_ prompt: PAMMessage) -> PAMAnswer {
        let terminal: FileDescriptor
        do {
            terminal = try FileDescriptor.open(device, .readWrite, options: [.noControllingTerminal, .closeOnExec])
        } catch {
            return .unanswerable(
                "no terminal to ask on (\(device): \(error)); give the password on"
                    + " standard input (capctl's --password-stdin) or use a ProgrammaticPAMConversation")
        }
        defer { try? terminal.close() }
        let fd = terminal.rawValue
        let hidden = prompt.style == .secretPrompt
        var saved = termios()
        let canHide = tcgetattr(fd, &saved) == 0
        if hidden, canHide {
            var quiet = saved
            quiet.c_lflag &= ~tcflag_t(ECHO)
            quiet.c_lflag |= tcflag_t(ECHONL)
            // Interrupted at the prompt, the terminal must not be left without echo.
            clinux_guard_terminal(fd, &saved)
            tcsetattr(fd, TCSAFLUSH, &quiet)
        }
        defer {
            if hidden, canHide {
                tcsetattr(fd, TCSAFLUSH, &saved)
                clinux_release_terminal()
            }
        }
        // Echo goes off before the prompt shows, so nothing typed ahead is echoed.
        _ = try? terminal.writeAll(prompt.naming(purpose: purpose).text.utf8)
        guard case .line(let line) = SecretLine.read(from: fd) else { return .cancel }
        if hidden { return .secret(PAMSecret(adopting: line)) }
        let text = String(decoding: UnsafeBufferPointer(rebasing: line[..<(line.count - 1)]), as: UTF8.self)
        explicit_bzero(line.baseAddress!, line.count)
        line.deallocate()
        return .text(text)
    }

    public func show(_ message: PAMMessage) {
        let line = message.text + (message.text.hasSuffix("\n") ? "" : "\n")
        // Without a terminal, standard error is where a message can still be seen.
        guard
            let terminal = try? FileDescriptor.open(
                device, .writeOnly, options: [.noControllingTerminal, .closeOnExec])
        else {
            _ = try? FileDescriptor.standardError.writeAll(line.utf8)
            return
        }
        _ = try? terminal.closeAfter { try terminal.writeAll(line.utf8) }
    }
}

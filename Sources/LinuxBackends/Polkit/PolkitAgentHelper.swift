import CLinuxSupport
import Glibc
import Plumbing
import SystemPackage

/// polkit's setuid helper, `polkit-agent-helper-1`, which runs the PAM service `polkit-1` for an
/// authentication agent and, on success, tells polkitd itself. The agent's side of its protocol:
/// the cookie on the first line of the helper's input; then, per line of its output, a prompt
/// (`PAM_PROMPT_ECHO_OFF text`, `PAM_PROMPT_ECHO_ON text`) answered with one line, a message
/// (`PAM_ERROR_MSG text`, `PAM_TEXT_INFO text`), and finally `SUCCESS` or `FAILURE`. Texts are
/// escaped as C strings (GLib's g_strescape).
struct PolkitAgentHelper {
    /// Where distributions install the helper.
    static let candidates = [
        "/usr/lib/polkit-1/polkit-agent-helper-1", "/usr/libexec/polkit-agent-helper-1",
        "/usr/lib/policykit-1/polkit-agent-helper-1", "/usr/libexec/polkit-1/polkit-agent-helper-1",
    ]

    /// The helper reads each answer with a 512-byte buffer (PAM_MAX_RESP_SIZE): a longer one
    /// would be split into two answers, so it is refused instead.
    static let longestAnswer = 510

    enum Outcome: Equatable {
        case authenticated
        /// PAM refused (wrong password, unknown user, expired account), with the helper's reason.
        case failed(String)
        /// The person declined to answer.
        case dismissed
    }

    let path: String

    /// The installed helper, or nil.
    static func installed() -> PolkitAgentHelper? {
        candidates.first { access($0, X_OK) == 0 }.map(PolkitAgentHelper.init(path:))
    }

    /// Authenticates `user` for the session `cookie` names, asking through `conversation`. A
    /// descriptor that becomes readable at `interrupt` (a cancellation) stops the helper between
    /// lines, as a dismissal.
    func authenticate(user: String, cookie: String, conversation: any PAMConversation, interrupt: FileDescriptor? = nil)
        -> Outcome
    {
        guard !cookie.contains("\n"), !user.hasPrefix("-") else {
            return .failed("polkit sent an unusable cookie or user")
        }
        // The helper's input is a socket, so writing after it exits fails with EPIPE instead of raising SIGPIPE.
        let input: (child: FileDescriptor, parent: FileDescriptor)
        let output: (parent: FileDescriptor, child: FileDescriptor)
        do throws(Errno) {
            input = try FileDescriptor.socketPair()
            do throws(Errno) {
                output = try FileDescriptor.socketPair()
            } catch {
                try? input.child.close()
                try? input.parent.close()
                throw error
            }
        } catch {
            return .failed("cannot create a socket pair: \(error)")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, input.child.rawValue, 0)
        posix_spawn_file_actions_adddup2(&actions, output.child.rawValue, 1)
        // Its diagnostics (why PAM failed) come on the same pipe and are kept as the reason.
        posix_spawn_file_actions_adddup2(&actions, output.child.rawValue, 2)
        // The setuid helper gets standard input, output and error only.
        clinux_spawn_close_from(&actions, 3)
        var pid: pid_t = 0
        let arguments: [UnsafeMutablePointer<CChar>?] = [strdup(path), strdup(user), nil]
        defer { for argument in arguments { free(argument) } }
        var environment: [UnsafeMutablePointer<CChar>?] = [nil]
        let spawned = posix_spawn(&pid, path, &actions, nil, arguments, &environment)
        try? input.child.close()
        try? output.child.close()
        guard spawned == 0 else {
            try? input.parent.close()
            try? output.parent.close()
            return .failed("cannot run \(path): \(Errno(rawValue: spawned))")
        }
        let writer = LineConnection(owning: input.parent)
        let reader = LineConnection(owning: output.parent)
        // Polled, not owned: the caller's.
        let interruption = interrupt
        defer {
            writer.close()
            reader.close()
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        guard writer.writeLine(cookie) else {
            return .failed("\(path) stopped before it read the cookie")
        }
        var diagnostics: [String] = []
        while true {
            let line: String
            switch reader.readLine(limit: Self.longestLine, interrupt: interruption) {
            case .line(let bytes): line = String(decoding: bytes, as: UTF8.self)
            case .interrupted:
                // The byte is left for the connection's loop, which asks polkitd to cancel the check.
                kill(pid, SIGTERM)
                return .dismissed
            case .tooLong:
                kill(pid, SIGTERM)
                return .failed("\(path) wrote a line longer than \(Self.longestLine) bytes")
            case .end, .timedOut:
                return .failed(Self.reason(diagnostics, path))
            }
            let (word, text) = Self.split(line)
            switch word {
            case "PAM_PROMPT_ECHO_OFF", "PAM_PROMPT_ECHO_ON":
                let style: PAMMessage.Style = word == "PAM_PROMPT_ECHO_OFF" ? .secretPrompt : .visiblePrompt
                switch conversation.answer(PAMMessage(style: style, text: Self.unescape(text))) {
                case .cancel, .unanswerable:
                    kill(pid, SIGTERM)
                    return .dismissed
                case .text(let answer):
                    guard let sent = Self.answer(Array(answer.utf8), to: writer) else {
                        kill(pid, SIGTERM)
                        return .failed("an answer for polkit must be one line of at most \(Self.longestAnswer) bytes")
                    }
                    if !sent { return .failed(Self.reason(diagnostics, path)) }
                case .secret(let secret):
                    guard let sent = Self.answer(secret, to: writer) else {
                        kill(pid, SIGTERM)
                        return .failed("a password for polkit must be one line of at most \(Self.longestAnswer) bytes")
                    }
                    if !sent { return .failed(Self.reason(diagnostics, path)) }
                }
            case "PAM_ERROR_MSG":
                conversation.show(PAMMessage(style: .error, text: Self.unescape(text)))
            case "PAM_TEXT_INFO":
                conversation.show(PAMMessage(style: .info, text: Self.unescape(text)))
            case "SUCCESS":
                return .authenticated
            case "FAILURE":
                return .failed(Self.reason(diagnostics, path))
            default:
                if diagnostics.count < 8 { diagnostics.append(line) }
            }
        }
    }

    /// The longest line the helper is expected to write (a prompt, a message, a diagnostic).
    static let longestLine = 65_536

    private static func reason(_ diagnostics: [String], _ path: String) -> String {
        let helper = path.split(separator: "/").last.map(String.init) ?? path
        let text = diagnostics.map { line in
            line.hasPrefix(helper + ": ") ? String(line.dropFirst(helper.count + 2)) : line
        }.joined(separator: "; ")
        return text.isEmpty ? "authentication failed" : text
    }

    /// The first word of a line and the rest after one space.
    static func split(_ line: String) -> (String, String) {
        guard let space = line.firstIndex(of: " ") else { return (line, "") }
        return (String(line[..<space]), String(line[line.index(after: space)...]))
    }

    /// Undoes g_strescape: `\n`, `\t`, `\\`, `\"` and the other C escapes, and octal `\NNN` bytes.
    static func unescape(_ text: String) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8)[...]
        while let byte = iterator.popFirst() {
            guard byte == UInt8(ascii: "\\"), let next = iterator.popFirst() else {
                bytes.append(byte)
                continue
            }
            switch next {
            case UInt8(ascii: "b"): bytes.append(8)
            case UInt8(ascii: "f"): bytes.append(12)
            case UInt8(ascii: "n"): bytes.append(10)
            case UInt8(ascii: "r"): bytes.append(13)
            case UInt8(ascii: "t"): bytes.append(9)
            case UInt8(ascii: "v"): bytes.append(11)
            case UInt8(ascii: "0")...UInt8(ascii: "7"):
                var value = Int(next - UInt8(ascii: "0"))
                for _ in 0..<2 {
                    guard let digit = iterator.first, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(digit) else {
                        break
                    }
                    value = value * 8 + Int(digit - UInt8(ascii: "0"))
                    iterator.removeFirst()
                }
                bytes.append(UInt8(truncatingIfNeeded: value))
            default: bytes.append(next)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes one answer line; nil when it cannot be one line the helper reads whole, false when the helper is gone.
    private static func answer(_ bytes: [UInt8], to writer: LineConnection) -> Bool? {
        guard bytes.count <= longestAnswer, !bytes.contains(10), !bytes.contains(0) else { return nil }
        var line = bytes + [10]
        defer { line.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
        return line.withUnsafeBytes { writer.write($0) }
    }

    /// Writes a secret's line straight from its buffer, zeroing the copy made for the newline.
    private static func answer(_ secret: PAMSecret, to writer: LineConnection) -> Bool? {
        guard secret.count <= longestAnswer, let copy = secret.makeCString() else { return nil }
        defer {
            explicit_bzero(copy, secret.count + 1)
            free(copy)
        }
        let bytes = UnsafeMutableRawBufferPointer(start: copy, count: secret.count + 1)
        guard !bytes[..<secret.count].contains(10) else { return nil }
        bytes[secret.count] = 10  // the NUL becomes the line's end
        return writer.write(UnsafeRawBufferPointer(bytes))
    }
}

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
    func authenticate(user: String, cookie: String, conversation: any PAMConversation, interrupt: Int32 = -1)
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
        let writer = input.parent.rawValue
        let reader = LineReader(descriptor: output.parent.rawValue, interrupt: interrupt)
        defer {
            try? input.parent.close()
            try? output.parent.close()
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
        guard Self.send(Array((cookie + "\n").utf8), to: writer) else {
            return .failed("\(path) stopped before it read the cookie")
        }
        var diagnostics: [String] = []
        while let line = reader.nextLine() {
            if reader.interrupted {
                kill(pid, SIGTERM)
                return .dismissed
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
        return .failed(Self.reason(diagnostics, path))
    }

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
    private static func answer(_ bytes: [UInt8], to fd: Int32) -> Bool? {
        guard bytes.count <= longestAnswer, !bytes.contains(10), !bytes.contains(0) else { return nil }
        var line = bytes + [10]
        defer { line.withUnsafeMutableBytes { explicit_bzero($0.baseAddress!, $0.count) } }
        return send(line, to: fd)
    }

    /// Writes a secret's line straight from its buffer, zeroing the copy made for the newline.
    private static func answer(_ secret: PAMSecret, to fd: Int32) -> Bool? {
        guard secret.count <= longestAnswer, let copy = secret.makeCString() else { return nil }
        defer {
            explicit_bzero(copy, secret.count + 1)
            free(copy)
        }
        let bytes = UnsafeMutableRawBufferPointer(start: copy, count: secret.count + 1)
        guard !bytes[..<secret.count].contains(10) else { return nil }
        bytes[secret.count] = 10  // the NUL becomes the line's end
        var sent = 0
        while sent < bytes.count {
            let written = Glibc.send(fd, copy + sent, bytes.count - sent, Int32(MSG_NOSIGNAL))
            if written < 0, errno == EINTR { continue }
            if written <= 0 { return false }
            sent += written
        }
        return true
    }

    private static func send(_ bytes: [UInt8], to fd: Int32) -> Bool {
        bytes.withUnsafeBytes { buffer in
            var sent = 0
            while sent < buffer.count {
                let written = Glibc.send(fd, buffer.baseAddress! + sent, buffer.count - sent, Int32(MSG_NOSIGNAL))
                if written < 0, errno == EINTR { continue }
                if written <= 0 { return false }
                sent += written
            }
            return true
        }
    }
}

/// Lines from a descriptor, each at most 64 KiB (a longer one is cut there), until the end or
/// until `interrupt` becomes readable (then ``interrupted`` is set and an empty line returned).
private final class LineReader {
    private let descriptor: Int32
    private let interrupt: Int32
    private var buffer: [UInt8] = []
    private var ended = false
    private(set) var interrupted = false

    init(descriptor: Int32, interrupt: Int32) {
        self.descriptor = descriptor
        self.interrupt = interrupt
    }

    func nextLine() -> String? {
        while true {
            if interrupt >= 0 {
                // The byte is left for the connection's loop, which asks polkitd to cancel the check.
                var waiting = [
                    pollfd(fd: interrupt, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                ]
                if poll(&waiting, 2, buffer.contains(10) ? 0 : -1) > 0, waiting[0].revents != 0 {
                    interrupted = true
                    return ""
                }
            }
            if let newline = buffer.firstIndex(of: 10) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            if buffer.count >= 65_536 || (ended && !buffer.isEmpty) {
                let line = String(decoding: buffer, as: UTF8.self)
                buffer.removeAll()
                return line
            }
            if ended { return nil }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 {
                ended = true
            } else {
                buffer.append(contentsOf: chunk[..<count])
            }
        }
    }
}

import CCapctlFront
import CLinuxSupport

/// `capctl check GATE` in the form the front answers itself: one gate of plain ASCII, at most
/// `--non-interactive` (or `--no-prompt`) and `--exec-condition`, asked of capctld where capctl
/// itself would ask it (`DecisionRoute`). Anything else is capctl's, in the library.
struct FrontCheck {
    let gate: UnsafePointer<CChar>
    let nonInteractive: Bool
    let execCondition: Bool
    /// capctld's socket, chosen as capctl chooses it.
    let socketPath: UnsafePointer<CChar>

    /// `DecisionClient.systemSocketPath`.
    static let systemSocketPath: StaticString = "/run/capctl/capctld.sock"
    /// How long a call waits for its reply (`DecisionClient`'s timeout), in milliseconds.
    static let timeout: Int32 = 10_000

    init?(_ arguments: CommandArguments) {
        guard arguments.count >= 3, !arguments.namesAnotherProgram, CString.same(arguments[1], "check") else {
            return nil
        }
        var gate: UnsafePointer<CChar>?
        var (nonInteractive, noPrompt, execCondition) = (false, false, false)
        for index in 2..<arguments.count {
            let argument = arguments[index]
            guard argument[0] == 0x2D else {
                guard gate == nil, Self.isPlain(argument) else { return nil }
                gate = argument
                continue
            }
            // Each flag at most once, as capctl's own reader takes them (CheckRequest).
            if CString.same(argument, "--non-interactive"), !nonInteractive {
                nonInteractive = true
            } else if CString.same(argument, "--no-prompt"), !noPrompt {
                noPrompt = true
            } else if CString.same(argument, "--exec-condition"), !execCondition {
                execCondition = true
            } else {
                return nil
            }
        }
        guard let gate else { return nil }
        // capctld is asked only where capctl would ask it: not when CAPCTL_DAEMON_SOCKET is empty,
        // nor when CAPCTL_POLICY_ROOTS names the policy and no socket is named.
        let named = getenv("CAPCTL_DAEMON_SOCKET")
        if let named, named[0] == 0 { return nil }
        if named == nil, getenv("CAPCTL_POLICY_ROOTS") != nil { return nil }
        // A trace is sent with the call and written in capctl's errors: capctl's to read.
        if getenv("TRACEPARENT") != nil { return nil }
        self.gate = gate
        self.nonInteractive = nonInteractive || noPrompt
        self.execCondition = execCondition
        socketPath = named.map { UnsafePointer($0) } ?? CString.pointer(Self.systemSocketPath)
    }

    /// A name written into the call and printed as it is: printable ASCII without a space, `"` or
    /// `\` (capctl escapes nothing in it, for the terminal or in JSON).
    static func isPlain(_ name: UnsafePointer<CChar>) -> Bool {
        var index = 0
        while name[index] != 0 {
            let byte = UInt8(bitPattern: name[index])
            guard byte > 0x20, byte < 0x7F, byte != 0x22, byte != 0x5C else { return false }
            index += 1
        }
        return index > 0
    }

    /// Asks capctld and prints its answer, or hands the command to capctl.
    func run(_ arguments: CommandArguments) -> Never {
        let descriptor = clinux_unix_socket(socketPath, Int32(SOCK_STREAM.rawValue), CLINUX_UNIX_CONNECT)
        // Nothing listens there: capctl decides in-process, and says why where it is asked to.
        guard descriptor >= 0 else { CommandLibrary.runMain(arguments) }
        // Only root's or this user's word is a decision (DecisionClient): capctl, asked, does not
        // trust any other, and says so.
        var (pid, uid, gid): (Int32, UInt32, UInt32) = (0, 0, 0)
        guard clinux_socket_peer_credentials(descriptor, &pid, &uid, &gid) == 0, uid == 0 || uid == geteuid() else {
            close(descriptor)
            CommandLibrary.runMain(arguments)
        }
        var call: [UInt8] = []
        call.reserveCapacity(128)
        Output.append(#"{"method":"org.capctl.gates.Check","parameters":{"gate":""#, to: &call)
        Output.append(cString: gate, to: &call)
        Output.append(#""}}"#, to: &call)
        call.append(0)
        let sent = call.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        guard sent == call.count else { CommandLibrary.finishCheck(arguments, descriptor, .notSent) }

        var ready = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        let polled = poll(&ready, 1, Self.timeout)
        guard polled == 1 else { CommandLibrary.finishCheck(arguments, descriptor, polled == 0 ? .waited : .sent) }
        // The reply is looked at where it lies: capctl reads it itself when the front does not
        // answer it.
        var reply = [UInt8](repeating: 0, count: 16 * 1024)
        let peeked = reply.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, Int32(MSG_PEEK)) }
        guard peeked > 0, let end = reply[0..<peeked].firstIndex(of: 0),
            let (outcome, explained) = reply.withUnsafeBufferPointer({
                CheckReply.read(UnsafeBufferPointer(rebasing: $0[0..<end]))
            }),
            // Reasons are printed for a gate that does not hold, and asking is capctl's.
            outcome == .holds || !explained, outcome != .needsInteraction || nonInteractive
        else { CommandLibrary.finishCheck(arguments, descriptor, .sent) }
        // Read, so that capctld's end sees the reply taken, not a connection reset.
        _ = reply.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, end + 1, 0) }
        close(descriptor)
        exit(print(outcome))
    }

    /// Prints the verdict as capctl does (`CheckRequest.run(asking:route:)`) and returns capctl's
    /// exit status for it.
    private func print(_ outcome: CheckReply.Outcome) -> Int32 {
        var line: [UInt8] = []
        Output.append(cString: gate, to: &line)
        Output.append(": ", to: &line)
        Output.append(outcome.word, to: &line)
        Output.append("\n", to: &line)
        // capctld tells the reasons to root alone; a reply without them is told so.
        if outcome != .holds {
            Output.append("  why: capctld tells root only; the reasons are in its audit trail\n", to: &line)
        }
        Output.write(line, to: 1)
        let status = outcome.exitStatus
        guard execCondition else { return status }
        // systemd's ExecCondition=: 0 runs the unit, 1 skips it (CheckCommand.execConditionStatus).
        return status == 0 ? 0 : 1
    }

}

/// Output built as bytes, and written whole.
enum Output {
    static func append(_ literal: StaticString, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// A C string's bytes, without its NUL.
    static func append(cString text: UnsafePointer<CChar>, to bytes: inout [UInt8]) {
        var index = 0
        while text[index] != 0 {
            bytes.append(UInt8(bitPattern: text[index]))
            index += 1
        }
    }

    static func write(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = CCapctlFront.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0, capctl_front_errno() == EINTR { continue }
                guard written > 0 else { return }
                offset += written
            }
        }
    }
}

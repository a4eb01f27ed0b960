// gated-client: asks gated-daemon to restart a unit, and prints its reply.
//
//     gated-client --socket /run/gated.sock restart NAME
//
// When the gate needs a login, the daemon asks this client (`pam-secret: Password: `, read with
// `PAMMessage(relayLine:)`): the question is shown and the answer read from standard input,
// without echo on a terminal.
// Exits 0 for `ok`, 1 for `denied` or `error`, 2 for bad arguments or no daemon.
import Foundation
import Glibc
import LinuxBackends

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("gated-client: \(message)\n".utf8))
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3, arguments[0] == "--socket" else {
    fail("usage: gated-client --socket PATH restart NAME", status: 2)
}
// A daemon that refuses the connection (`error: busy: ...`) may close it before the request is
// written: the write fails with EPIPE rather than end the client, and the reply is still read.
signal(SIGPIPE, SIG_IGN)
let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
var address = sockaddr_un()
address.sun_family = sa_family_t(AF_UNIX)
guard arguments[1].utf8.count < 108 else { fail("the socket path is too long", status: 2) }
withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(arguments[1].utf8) + [0]) }
let connected = withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
    }
}
guard connected == 0 else { fail("cannot reach \(arguments[1]): \(String(cString: strerror(errno)))", status: 2) }
let request = Array((arguments.dropFirst(2).joined(separator: " ") + "\n").utf8)
_ = request.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
/// One line from the daemon, without its newline; nil once it closed.
func readLine(from descriptor: Int32) -> String? {
    var line: [UInt8] = []
    var byte: UInt8 = 0
    while true {
        guard read(descriptor, &byte, 1) == 1 else { return line.isEmpty ? nil : String(decoding: line, as: UTF8.self) }
        if byte == UInt8(ascii: "\n") { return String(decoding: line, as: UTF8.self) }
        line.append(byte)
    }
}

/// An answer from standard input; a secret one without echo when it is a terminal.
func answer(_ question: String, secret: Bool) -> String {
    FileHandle.standardError.write(Data(question.utf8))
    var saved = termios()
    let quiet = secret && isatty(0) == 1 && tcgetattr(0, &saved) == 0
    if quiet {
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(0, TCSAFLUSH, &silent)
    }
    defer {
        if quiet {
            tcsetattr(0, TCSAFLUSH, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
    }
    return Swift.readLine(strippingNewline: true) ?? ""
}

while let line = readLine(from: descriptor) {
    guard let message = PAMMessage(relayLine: line) else {
        // Not a relayed message: the daemon's reply.
        print(line)
        exit(line.hasPrefix("ok: ") ? 0 : 1)
    }
    switch message.style {
    case .secretPrompt, .visiblePrompt:
        let reply = Array((answer(message.text, secret: message.style == .secretPrompt) + "\n").utf8)
        _ = reply.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    case .error, .info:
        FileHandle.standardError.write(Data((message.text + "\n").utf8))
    }
}
fail("the daemon closed the connection without a reply", status: 1)

// gated-client: asks gated-daemon to restart a unit, and prints its reply.
//
//     gated-client --socket /run/gated.sock restart NAME
//
// Exits 0 for `ok`, 1 for `denied` or `error`, 2 for bad arguments or no daemon.
import Foundation
import Glibc

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("gated-client: \(message)\n".utf8))
    exit(status)
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3, arguments[0] == "--socket" else {
    fail("usage: gated-client --socket PATH restart NAME", status: 2)
}
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
var reply: [UInt8] = []
var byte: UInt8 = 0
while read(descriptor, &byte, 1) == 1, byte != UInt8(ascii: "\n") { reply.append(byte) }
let text = String(decoding: reply, as: UTF8.self)
print(text)
exit(text.hasPrefix("ok: ") ? 0 : 1)

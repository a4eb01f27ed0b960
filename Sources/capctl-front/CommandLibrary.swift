import CCapctlFront

/// capctl's commands, a library next to the front: `../lib/capctl/libcapctl.so` from the
/// directory of the running binary (the package's /usr/bin/capctl loads
/// /usr/lib/capctl/libcapctl.so). Its path comes from the kernel's name for this binary, never from
/// the environment: capctld, root's, loads it too.
enum CommandLibrary {
    /// How the call the front began stands, when it hands the connection to capctl
    /// (`capctl_check_sent`'s second argument).
    enum HandedCall: Int32 {
        /// The call could not be sent: the service went away.
        case notSent = 0
        /// Sent; its reply is capctl's to read.
        case sent = 1
        /// Sent, and no reply came within capctl's timeout.
        case waited = 2
    }

    /// capctl's own main, for any command line the front does not answer.
    static func runMain(_ arguments: CommandArguments) -> Never {
        typealias Main = @convention(c) (Int32, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> Int32
        let main = unsafeBitCast(symbol("capctl_main", arguments), to: Main.self)
        exit(main(Int32(arguments.count), arguments.vector))
    }

    /// capctl's `check`, finished on `descriptor`: the connection to capctld on which the front
    /// sent the call its command line asks for (or failed to).
    static func finishCheck(_ arguments: CommandArguments, _ descriptor: Int32, _ call: HandedCall) -> Never {
        typealias Finish = @convention(c) (Int32, Int32) -> Int32
        let finish = unsafeBitCast(symbol("capctl_check_sent", arguments), to: Finish.self)
        exit(finish(descriptor, call.rawValue))
    }

    private static func symbol(_ name: StaticString, _ arguments: CommandArguments) -> UnsafeMutableRawPointer {
        var reason = [CChar](repeating: 0, count: 4096 + 256)
        let path = libraryPath()
        let descriptor = path.withUnsafeBufferPointer { path in
            reason.withUnsafeMutableBufferPointer {
                capctl_front_open_trusted(path.baseAddress, $0.baseAddress, $0.count)
            }
        }
        guard descriptor >= 0 else { fail(reason, arguments) }
        // Loaded through the descriptor that was checked: nothing can be put in its place between.
        var loaded: [CChar] = []
        let prefix: StaticString = "/proc/self/fd/"
        for index in 0..<prefix.utf8CodeUnitCount { loaded.append(CChar(bitPattern: prefix.utf8Start[index])) }
        var digits: [CChar] = []
        var number = descriptor
        repeat {
            digits.append(CChar(0x30 + number % 10))
            number /= 10
        } while number > 0
        loaded.append(contentsOf: digits.reversed())
        loaded.append(0)
        let library = loaded.withUnsafeBufferPointer { dlopen($0.baseAddress, RTLD_LAZY | RTLD_LOCAL) }
        close(descriptor)
        guard let library, let symbol = dlsym(library, CString.pointer(name)) else {
            reason = []
            if let error = dlerror() {
                var index = 0
                while error[index] != 0 {
                    reason.append(error[index])
                    index += 1
                }
            }
            reason.append(0)
            fail(reason, arguments)
        }
        return symbol
    }

    /// Says why capctl's commands could not be loaded, and exits.
    private static func fail(_ reason: [CChar], _ arguments: CommandArguments) -> Never {
        var message: [UInt8] = []
        FrontCheck.append("capctl: cannot load capctl's commands: ", to: &message)
        for character in reason {
            if character == 0 { break }
            message.append(UInt8(bitPattern: character))
        }
        FrontCheck.append("\n", to: &message)
        Output.write(message, to: 2)
        // EX_SOFTWARE; under --exec-condition 255, "fail the unit", never "skip it".
        exit(arguments.asksExecCondition ? 255 : 70)
    }

    /// The library's path, NUL-ended.
    private static func libraryPath() -> [CChar] {
        var path = [CChar](repeating: 0, count: 4096 + 64)
        let length = path.withUnsafeMutableBufferPointer { readlink("/proc/self/exe", $0.baseAddress!, 4096) }
        var directoryEnd = 0
        if length > 0, length < 4096 {
            for index in 0..<length where path[index] == 0x2F { directoryEnd = index }
        }
        var result = Array(path[0..<directoryEnd])
        // Without /proc (a chroot not set up for it), the package's own place.
        let relative: StaticString = directoryEnd > 0 ? "/../lib/capctl/libcapctl.so" : "/usr/lib/capctl/libcapctl.so"
        let pointer = CString.pointer(relative)
        for index in 0..<relative.utf8CodeUnitCount { result.append(pointer[index]) }
        result.append(0)
        return result
    }
}

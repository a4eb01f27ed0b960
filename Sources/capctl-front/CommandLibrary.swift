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
        var message: [UInt8] = []
        guard let path = libraryPath() else {
            Output.append("/proc/self/exe cannot be read: capctl cannot find its library", to: &message)
            fail(message, arguments)
        }
        var reason = [CChar](repeating: 0, count: 4096 + 256)
        let library = path.withUnsafeBufferPointer { path in
            reason.withUnsafeMutableBufferPointer {
                capctl_front_load_trusted(path.baseAddress, $0.baseAddress, $0.count)
            }
        }
        guard let library else {
            reason.withUnsafeBufferPointer { Output.append(cString: $0.baseAddress!, to: &message) }
            fail(message, arguments)
        }
        guard let symbol = dlsym(library, CString.pointer(name)) else {
            if let error = dlerror() { Output.append(cString: error, to: &message) }
            fail(message, arguments)
        }
        return symbol
    }

    /// Says why capctl's commands could not be loaded, and exits.
    private static func fail(_ reason: [UInt8], _ arguments: CommandArguments) -> Never {
        var message: [UInt8] = []
        Output.append("capctl: cannot load capctl's commands: ", to: &message)
        message += reason
        Output.append("\n", to: &message)
        Output.write(message, to: 2)
        // EX_SOFTWARE; under --exec-condition 255, "fail the unit", never "skip it".
        exit(arguments.asksExecCondition ? 255 : 70)
    }

    /// The library's path, NUL-ended, from the binary's own; nil when the kernel does not name it.
    private static func libraryPath() -> [CChar]? {
        var path = [CChar](repeating: 0, count: 4096)
        let length = path.withUnsafeMutableBufferPointer { readlink("/proc/self/exe", $0.baseAddress!, $0.count) }
        guard length > 0, length < path.count, let slash = path[0..<length].lastIndex(of: 0x2F) else { return nil }
        var result = Array(path[0..<slash])
        let relative: StaticString = "/../lib/capctl/libcapctl.so\0"
        let pointer = CString.pointer(relative)
        for index in 0..<relative.utf8CodeUnitCount { result.append(pointer[index]) }
        return result
    }
}

import CCapctlFront

/// The process's arguments, as C strings: Embedded Swift has no `CommandLine`.
struct CommandArguments {
    let count: Int
    let vector: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    init() {
        count = Int(capctl_front_argument_count())
        vector = capctl_front_arguments()
    }

    /// The argument at `index` (below ``count``).
    subscript(index: Int) -> UnsafePointer<CChar> {
        UnsafePointer(vector[index]!)
    }

    /// Whether the process was started by another of capctl's names (`capctld`,
    /// `capctl-flag-source`, links to this binary), which only the library runs.
    var namesAnotherProgram: Bool {
        guard count > 0 else { return true }
        let path = self[0]
        let name = strrchr(path, 0x2F).map { UnsafePointer($0 + 1) } ?? path
        return CString.same(name, "capctld") || CString.same(name, "capctl-flag-source")
    }

    /// Whether `--exec-condition` is spelled before any `--` (capctl's own reading for a command
    /// line it never parses: systemd must read a failure as "fail the unit", not "skip it").
    var asksExecCondition: Bool {
        var index = 1
        while index < count {
            let argument = self[index]
            if CString.same(argument, "--") { return false }
            if CString.same(argument, "--exec-condition") || CString.hasPrefix(argument, "--exec-condition=") {
                return true
            }
            index += 1
        }
        return false
    }
}

/// C strings compared with the C library's functions: Embedded Swift compares `String`s only
/// with Unicode's tables, which the front does not carry.
enum CString {
    static func same(_ text: UnsafePointer<CChar>, _ literal: StaticString) -> Bool {
        strcmp(text, pointer(literal)) == 0
    }

    static func hasPrefix(_ text: UnsafePointer<CChar>, _ literal: StaticString) -> Bool {
        strncmp(text, pointer(literal), literal.utf8CodeUnitCount) == 0
    }

    static func pointer(_ literal: StaticString) -> UnsafePointer<CChar> {
        UnsafeRawPointer(literal.utf8Start).assumingMemoryBound(to: CChar.self)
    }
}

import ConfigurationFiles
import Glibc

/// Reads a PAM service file (pam.d(5)) the way Linux-PAM 1.5 builds its stacks from it, so that
/// a service libpam would run differently from what its file says, or could not run at all, is
/// unavailable before anyone is asked, instead of failing at the prompt or passing by accident.
///
/// What libpam does, and what is refused here:
/// - A management group (auth, account) with no lines in the service's stacks runs the `other`
///   service's stack for that group: refused unless the service is `other` itself, so a
///   permissive `other` never stands in for a service by accident.
/// - `@include FILE` and the `include` and `substack` controls read another file; a relative name
///   is looked up in /etc/pam.d (then /usr/lib/pam.d), whatever directory the service came from,
///   as this libpam does. An include loop makes libpam recurse until it crashes, and newer
///   libpam refuses includes past 16 levels: loops and deeper chains are refused.
/// - Lines are assembled as libpam does (``PAMLineAssembler``); lines it cannot assemble are refused.
/// - A module that failed to load, a line with an unknown type, no control or no module, and an
///   include that cannot be read all fail when run; that matters when the control lets the
///   failure count: `required`, `requisite`, or a bracketed control whose `module_unknown` (else
///   `default`) action is not `ignore`. `optional` and `sufficient` ones are ignored.
struct PAMServiceFile {
    /// One entry of a stack, where it was written.
    struct Handler {
        let file: String
        let line: Int
        let type: String
        let control: String
        /// The module, or nil for a line libpam installs as one that always fails.
        let module: String?
        /// Why the line always fails, when `module` is nil.
        let failure: String?
    }

    /// Why the stacks cannot be used as they are.
    struct Problem: Error {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// libpam's include limit (PAM_SUBSTACK_MAX_LEVEL in Linux-PAM 1.6).
    static let maximumIncludeDepth = 16
    /// Lines read across every file, against include trees that grow exponentially.
    static let maximumLines = 20_000
    /// Where a relative include is looked for.
    static let includeDirectories = ["/etc/pam.d", "/usr/lib/pam.d"]

    /// Where Linux-PAM looks for modules named without a path, by distribution.
    static let moduleDirectories = [
        "/usr/lib/x86_64-linux-gnu/security", "/lib/x86_64-linux-gnu/security", "/usr/lib/aarch64-linux-gnu/security",
        "/lib/aarch64-linux-gnu/security", "/usr/lib64/security", "/lib64/security", "/usr/lib/security",
        "/lib/security",
    ]

    static let managementGroups: Set<String> = ["auth", "account", "session", "password"]

    /// The first reason the stacks of `types` (`auth`, `account`) would not run as written, or
    /// nil when every module they count on is there.
    static func firstProblem(service: String, directory: String, types: Set<String>) -> String? {
        var reader = Reader()
        let handlers: [Handler]
        do throws(Problem) {
            handlers = try reader.handlers(of: directory + "/" + service, requested: nil)
        } catch {
            return error.description
        }
        for type in ["auth", "account", "password", "session"] where types.contains(type) {
            let stack = handlers.filter { $0.type == type }
            if stack.isEmpty, service != "other" {
                return "PAM service file \(directory)/\(service) has no \(type) lines, so Linux-PAM would run the"
                    + " \"other\" service's \(type) stack instead (add \(type) lines, or name the service \"other\")"
            }
            for handler in stack where failsWhenMissing(control: handler.control) {
                if let failure = handler.failure {
                    return "\(handler.file):\(handler.line): \(failure), so Linux-PAM fails every \(type) request"
                }
                if let module = handler.module, !exists(module: module) {
                    return "\(handler.file):\(handler.line): PAM module \(module) is not installed (Linux-PAM would"
                        + " fail with \"Module is unknown\" once asked)"
                }
            }
        }
        return nil
    }

    /// Follows includes as libpam does, keeping the chain for loops and depth.
    private struct Reader {
        var linesRead = 0
        var chain: [String] = []

        mutating func handlers(of file: String, requested: String?) throws(Problem) -> [Handler] {
            if let loop = chain.firstIndex(of: file) {
                throw Problem(
                    "PAM include loop: \((chain[loop...] + [file]).joined(separator: " -> ")) (libpam would recurse"
                        + " until the process crashes)")
            }
            guard chain.count < maximumIncludeDepth else {
                throw Problem(
                    "PAM includes nest deeper than \(maximumIncludeDepth) files at \(file) (\(chain.first ?? file)"
                        + " -> ...); Linux-PAM versions disagree on such stacks")
            }
            let bytes: [UInt8]
            do throws(TrustedFile.Refusal) {
                bytes = try TrustedFile.bytes(of: file)
            } catch {
                throw Problem("\(file): \(error.reason)")
            }
            let lines: [PAMLineAssembler.Line]
            do throws(PAMLineAssembler.Refusal) {
                lines = try PAMLineAssembler.lines(of: bytes)
            } catch {
                throw Problem("\(file):\(error.line): the line \(error.reason)")
            }
            linesRead += lines.count
            guard linesRead <= maximumLines else {
                throw Problem(
                    "the PAM stacks including \(file) have over \(maximumLines) lines in all; not read further")
            }
            chain.append(file)
            defer { chain.removeLast() }
            var result: [Handler] = []
            for line in lines {
                let fields = split(line.text)
                if fields[0] == "@include" {
                    result += try included(fields.count > 1 ? fields[1] : nil, requested, from: file, line: line.number)
                    continue
                }
                var typeField = fields[0].asciiLowercased
                if typeField.hasPrefix("-") { typeField.removeFirst() }
                let knownType = Self.managementGroupsByName[typeField]
                // An unknown type is installed as a failing line of the requested type, else auth.
                let type = knownType ?? requested ?? "auth"
                if let requested, type != requested { continue }
                guard fields.count > 1 else {
                    result.append(failing(file, line.number, type, "has no control", control: "required"))
                    continue
                }
                let control = fields[1].asciiLowercased
                if control == "include" || control == "substack" {
                    result += try included(fields.count > 2 ? fields[2] : nil, type, from: file, line: line.number)
                    continue
                }
                if knownType == nil {
                    result.append(
                        failing(file, line.number, type, "has the unknown type \(fields[0])", control: control))
                } else if fields.count < 3 {
                    result.append(failing(file, line.number, type, "names no module", control: control))
                } else {
                    result.append(
                        Handler(
                            file: file, line: line.number, type: type, control: control, module: fields[2],
                            failure: nil))
                }
            }
            return result
        }

        private static let managementGroupsByName = Dictionary(
            uniqueKeysWithValues: PAMServiceFile.managementGroups.map { ($0, $0) })

        private mutating func included(_ name: String?, _ requested: String?, from file: String, line: Int)
            throws(Problem) -> [Handler]
        {
            guard let name, let path = includePath(name) else {
                return [
                    failing(
                        file, line, requested ?? "auth", "includes \(name ?? "nothing"), which is not there",
                        control: "required")
                ]
            }
            return try handlers(of: path, requested: requested)
        }

        private func failing(_ file: String, _ line: Int, _ type: String, _ why: String, control: String) -> Handler {
            Handler(file: file, line: line, type: type, control: control, module: nil, failure: "the line \(why)")
        }
    }

    private static func includePath(_ name: String) -> String? {
        let candidates = name.hasPrefix("/") ? [name] : includeDirectories.map { $0 + "/" + name }
        return candidates.first { path in
            var info = stat()
            return stat(path, &info) == 0
        }
    }

    /// Whether a line that fails (its module missing, or broken) makes the stack fail under `control`.
    static func failsWhenMissing(control: String) -> Bool {
        switch control {
        case "required", "requisite": return true
        case "optional", "sufficient": return false
        default:
            guard control.hasPrefix("[") else { return true }
            var actions: [String: String] = [:]
            for pair in control.dropFirst().dropLast().split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { actions[parts[0].asciiLowercased] = parts[1].asciiLowercased }
            }
            // An unlisted outcome takes the default action; with no default, assume the worst.
            return (actions["module_unknown"] ?? actions["default"]) != "ignore"
        }
    }

    private static func exists(module: String) -> Bool {
        let candidates = module.hasPrefix("/") ? [module] : moduleDirectories.map { $0 + "/" + module }
        return candidates.contains { path in
            var info = stat()
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        }
    }

    /// Fields split on blanks, a bracketed control (`[success=1 default=ignore]`) kept whole.
    static func split(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var depth = 0
        for character in line {
            if character == "[" { depth += 1 }
            if character == "]" { depth = max(0, depth - 1) }
            if depth == 0, character == " " || character == "\t" || character == "\n" {
                if !current.isEmpty { fields.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { fields.append(current) }
        return fields
    }
}

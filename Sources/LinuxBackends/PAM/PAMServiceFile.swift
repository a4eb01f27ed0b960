import ConfigurationFiles
import Glibc

/// Reads a PAM service file (Linux-PAM's pam.d(5) syntax) far enough to find the modules it
/// would load, so that a module that is not there makes the capability unavailable before anyone
/// is asked, instead of failing at the prompt with "Module is unknown".
///
/// Lines are `type control module-path arguments`, with `#` comments and `\` continuations;
/// `control` may be a bracketed list with spaces; `@include FILE` and the `include` and
/// `substack` controls read another service file of the same directory. Linux-PAM runs a module
/// that failed to load as one that fails with PAM_MODULE_UNKNOWN (a type written `-auth` only
/// keeps that out of the log), so a missing module matters when its control lets that failure
/// count: `required`, `requisite`, or a bracketed control whose `module_unknown` (else `default`)
/// action is anything but `ignore`. Missing `optional` and `sufficient` modules are ignored.
struct PAMServiceFile {
    /// A module the stacks name that is not on this system.
    struct MissingModule: Equatable {
        let file: String
        let line: Int
        let module: String
    }

    /// Where Linux-PAM looks for modules named without a path, by distribution.
    static let moduleDirectories = [
        "/usr/lib/x86_64-linux-gnu/security", "/lib/x86_64-linux-gnu/security", "/usr/lib/aarch64-linux-gnu/security",
        "/lib/aarch64-linux-gnu/security", "/usr/lib64/security", "/lib64/security", "/usr/lib/security",
        "/lib/security",
    ]

    /// The first module of the given stacks (`auth`, `account`, ...) that does not exist, or the
    /// reason the files could not be read; nil when every module is there.
    static func firstProblem(service: String, directory: String, types: Set<String>) -> String? {
        var visited: Set<String> = []
        do throws(ConfigurationError) {
            if let missing = try firstMissing(
                file: directory + "/" + service, directory: directory, types: types, visited: &visited)
            {
                return
                    "\(missing.file):\(missing.line): PAM module \(missing.module) is not installed (Linux-PAM would"
                    + " fail with \"Module is unknown\" once asked)"
            }
            return nil
        } catch {
            return "\(error)"
        }
    }

    private static func firstMissing(
        file: String, directory: String, types: Set<String>, visited: inout Set<String>
    ) throws(ConfigurationError) -> MissingModule? {
        // Includes may repeat (common-auth from two places) but must not loop.
        guard visited.insert(file).inserted, visited.count <= 32 else { return nil }
        let text = try ConfigurationFile.text(file)
        for (number, line) in logicalLines(text) {
            let fields = split(line)
            guard let first = fields.first else { continue }
            if first == "@include" {
                guard fields.count >= 2 else { continue }
                if let missing = try firstMissing(
                    file: included(fields[1], directory), directory: directory, types: types, visited: &visited)
                {
                    return missing
                }
                continue
            }
            guard fields.count >= 3 else { continue }
            let type = first.hasPrefix("-") ? String(first.dropFirst()) : first
            guard types.contains(type.lowercased()) else { continue }
            let control = fields[1]
            if control == "include" || control == "substack" {
                if let missing = try firstMissing(
                    file: included(fields[2], directory), directory: directory, types: types, visited: &visited)
                {
                    return missing
                }
                continue
            }
            let module = fields[2]
            if failsWhenMissing(control: control) && !exists(module: module) {
                return MissingModule(file: file, line: number, module: module)
            }
        }
        return nil
    }

    /// Whether a module that could not be loaded makes the stack fail under `control`.
    static func failsWhenMissing(control: String) -> Bool {
        switch control {
        case "required", "requisite": return true
        case "optional", "sufficient": return false
        default:
            guard control.hasPrefix("[") else { return true }
            var actions: [String: String] = [:]
            for pair in control.dropFirst().dropLast().split(whereSeparator: { $0 == " " || $0 == "\t" }) {
                let parts = pair.split(separator: "=", maxSplits: 1)
                if parts.count == 2 { actions[parts[0].lowercased()] = parts[1].lowercased() }
            }
            // An unlisted outcome takes the default action; with no default, assume the worst.
            return (actions["module_unknown"] ?? actions["default"]) != "ignore"
        }
    }

    private static func included(_ name: String, _ directory: String) -> String {
        name.hasPrefix("/") ? name : directory + "/" + name
    }

    private static func exists(module: String) -> Bool {
        let candidates = module.hasPrefix("/") ? [module] : moduleDirectories.map { $0 + "/" + module }
        return candidates.contains { path in
            var info = stat()
            return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG
        }
    }

    /// Lines without comments, continuations joined, numbered by where they start.
    static func logicalLines(_ text: String) -> [(Int, String)] {
        var result: [(Int, String)] = []
        var pending = ""
        var start = 0
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = String(raw)
            if let hash = line.firstIndex(of: "#") { line = String(line[..<hash]) }
            if pending.isEmpty { start = index + 1 }
            if line.hasSuffix("\\") {
                pending += line.dropLast() + " "
                continue
            }
            pending += line
            if !pending.allSatisfy(\.isWhitespace) { result.append((start, pending)) }
            pending = ""
        }
        if !pending.allSatisfy(\.isWhitespace) { result.append((start, pending)) }
        return result
    }

    /// Fields split on blanks, a bracketed control (`[success=1 default=ignore]`) kept whole.
    static func split(_ line: String) -> [String] {
        var fields: [String] = []
        var current = ""
        var depth = 0
        for character in line {
            if character == "[" { depth += 1 }
            if character == "]" { depth = max(0, depth - 1) }
            if depth == 0, character == " " || character == "\t" {
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

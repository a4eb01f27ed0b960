import Capabilities
import ConfigurationFiles
import FeatureFlags

/// Reads one policy file (YAML, or JSON) into a policy fragment, strictly: unknown keys,
/// wrong types and bad values are errors with line and column. It goes on after an error in
/// one declaration, so a file's every problem is reported at once.
struct PolicyFileReader {
    let file: String
    /// Whose kinds the file may declare.
    let environment: PolicyEnvironment
    private(set) var errors: [ConfigurationError] = []

    private static let rootKeys = ["capabilities", "flags", "gates", "audit", "final"]

    init(file: String, environment: PolicyEnvironment) {
        self.file = file
        self.environment = environment
    }

    /// Parses `text`; YAML unless the file name ends in `.json`.
    mutating func read(_ text: String) -> Policy {
        let root: DocumentNode
        do throws(ConfigurationError) {
            root =
                file.asciiLowercased.hasSuffix(".json")
                ? try JSONDocumentReader.read(text, file: file, exactIntegers: true)
                : try YAMLDocumentReader.read(text, file: file, exactIntegers: true)
        } catch {
            errors.append(error)
            return Policy()
        }
        var policy = Policy()
        policy.files = [file]
        guard case .object(let members) = root.kind else {
            fail(
                "a policy file is a mapping with capabilities, flags and gates, found \(root.describedType)",
                root.location
            )
            return policy
        }
        // A document with none of a policy's keys is another kind of file (/etc/shadow through a
        // link, say): say so, quoting nothing of it.
        guard members.isEmpty || members.contains(where: { QuotedName.isNameLike($0.key) }) else {
            fail(
                "not a policy file: it has none of \"capabilities\", \"flags\" and \"gates\" at the top level",
                root.location)
            return policy
        }
        // An unknown key is reported and the known ones are still read, so one run finds every problem.
        _ = checkKeys(members, allowed: Self.rootKeys, in: "a policy file")
        if let capabilities = root.member("capabilities") {
            for member in entries(of: capabilities, "capabilities") {
                if let declaration = readCapability(member) {
                    policy.capabilities[member.key] = declaration
                } else {
                    policy.rejectedCapabilities.insert(member.key)
                }
            }
        }
        if let flags = root.member("flags") { readFlags(flags, into: &policy) }
        if let audit = root.member("audit") { policy.audit = readAudit(audit.value) }
        if let final = root.member("final") {
            if case .bool(let isFinal) = final.value.kind {
                if isFinal { policy.finalLocation = final.value.location }
            } else {
                fail("\"final\" must be true or false, found \(final.value.describedType)", final.value.location)
            }
        }
        if let gates = root.member("gates") {
            for member in entries(of: gates, "gates") {
                if let gate = readGate(member) {
                    policy.gates[member.key] = gate
                } else {
                    policy.rejectedGates.insert(member.key)
                }
            }
        }
        return policy
    }

    /// `audit: off | denials | all`.
    private mutating func readAudit(_ node: DocumentNode) -> AuditSetting? {
        let levels = AuditLevel.allCases.map(\.rawValue)
        let expected = levels.map { "\"\($0)\"" }.joined(separator: ", ")
        guard case .string(let value) = node.kind else {
            fail("\"audit\" must be one of \(expected), found \(node.describedType)", node.location)
            return nil
        }
        guard let level = AuditLevel(rawValue: value) else {
            let suggestion = NameSuggestion.closest(to: value, among: levels).map { "did you mean \"\($0)\"? " }
            fail(
                "unknown audit level \(QuotedName.key(value)) (\(suggestion ?? "")expected \(expected))", node.location)
            return nil
        }
        return AuditSetting(level: level, location: node.location)
    }

    // MARK: Helpers

    private mutating func fail(_ message: String, _ location: FileLocation) {
        errors.append(ConfigurationError(message, at: location))
    }

    /// Reports every key of `members` that is not `allowed`; false when there was one.
    private mutating func checkKeys(_ members: [DocumentNode.Member], allowed: [String], in what: String) -> Bool {
        var allKnown = true
        for member in members where !allowed.contains(member.key) {
            let expected = allowed.isEmpty ? "no settings" : allowed.map { "\"\($0)\"" }.joined(separator: ", ")
            let suggestion =
                QuotedName.isNameLike(member.key)
                ? NameSuggestion.closest(to: member.key, among: allowed).map { "did you mean \"\($0)\"? " } : nil
            fail(
                "unknown key \(QuotedName.key(member.key)) in \(what) (\(suggestion ?? "")expected \(expected))",
                member.keyLocation)
            allKnown = false
        }
        return allKnown
    }

    private mutating func entries(of member: DocumentNode.Member, _ what: String) -> [DocumentNode.Member] {
        switch member.value.kind {
        case .object(let entries): return entries
        case .null: return []
        default:
            fail(
                "\"\(what)\" must be a mapping of names to definitions, found \(member.value.describedType)",
                member.value.location)
            return []
        }
    }

    /// A non-empty string. Unless `text` (a description, which may run over lines), one line
    /// without a NUL: a path, a name, a URL or a PAM service that ended in the line
    /// break a `|` block keeps would name another file, user or service than the one shown.
    private mutating func string(_ node: DocumentNode?, _ key: String, in what: String, text: Bool = false)
        -> String?
    {
        guard let node else { return nil }
        guard case .string(let value) = node.kind, !value.isEmpty else {
            fail("\"\(key)\" in \(what) must be a non-empty string, found \(node.value)", node.location)
            return nil
        }
        // A line break, or a NUL (which ends the string a system call sees), anywhere in the value;
        // other control characters are kept, and escaped wherever they are shown.
        let breaks = "\n\r\u{0}\u{85}\u{2028}\u{2029}".unicodeScalars
        if !text, let found = value.unicodeScalars.first(where: { breaks.contains($0) }) {
            let which = found == "\u{0}" ? "a NUL character" : "a line break"
            fail(
                "\"\(key)\" in \(what) holds \(which)\(value.hasSuffix("\n") ? " at its end (a '|' or '>' block keeps one)" : ""): "
                    + "a path, a name, a URL or a service is one line; write it on the key's line", node.location)
            return nil
        }
        return value
    }

    private static func isValidName(_ name: String) -> Bool {
        // Bytes, not characters: every name of a policy passes here, and grapheme breaking was
        // most of its cost. Any byte outside ASCII refuses the name, as its character would.
        !name.isEmpty
            && name.utf8.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                    UInt8(ascii: ":"):
                    true
                default: false
                }
            }
    }

    /// The longest duration a policy may give: a year is beyond any timeout or kept login.
    static let maximumDurationMilliseconds: Int64 = 366 * 24 * 3_600_000

    /// "300ms", "2s", "5m", "1h", or a number of seconds, more than zero and at most a year.
    /// Every conversion is checked: `1e300`, `Infinity` or `9223372036854775807h` is an error.
    private mutating func duration(_ node: DocumentNode, _ key: String) -> Duration? {
        let limit = Self.maximumDurationMilliseconds
        var milliseconds: Int64?
        switch node.kind {
        case .number(let seconds) where seconds.isFinite && seconds > 0 && seconds * 1000 <= Double(limit):
            milliseconds = Int64(exactly: (seconds * 1000).rounded(.up))
        case .string(let text):
            let units: [(String, Int64)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
            for (suffix, unit) in units where text.hasSuffix(suffix) {
                let number = text.dropLast(suffix.count)
                guard !(suffix == "m" && number.hasSuffix("m")), number.allSatisfy(\.isASCII) else { continue }
                if let value = Int64(number), value > 0 {
                    let (product, overflow) = value.multipliedReportingOverflow(by: unit)
                    milliseconds = overflow ? Int64.max : product
                }
                break
            }
        default:
            break
        }
        if let milliseconds, milliseconds > 0, milliseconds <= limit { return .milliseconds(milliseconds) }
        if milliseconds != nil || node.value.numberValue.map({ $0 > 0 }) == true {
            fail("\"\(key)\" must be at most 366 days, found \(node.value)", node.location)
            return nil
        }
        fail("\"\(key)\" must be a duration such as 300ms, 30s, 5m or 1h, found \(node.value)", node.location)
        return nil
    }

    // MARK: Capabilities

    private mutating func readCapability(_ member: DocumentNode.Member) -> CapabilityDeclaration? {
        let name = member.key
        let what = "capability \"\(name)\""
        // Named only in an error: joining them at every capability costs a process's start a
        // lookup of the array's conformances.
        var kindNames: String { environment.kinds.map(\.name).joined(separator: ", ") }
        guard Self.isValidName(name) else {
            fail("\"\(name)\" is not a valid name (letters, digits, - _ . :)", member.keyLocation)
            return nil
        }
        guard case .object(let entries) = member.value.kind else {
            fail(
                "\(what) must be a mapping with a \"kind\", found \(member.value.describedType)", member.value.location)
            return nil
        }
        guard let kindNode = member.value.member("kind") else {
            fail("\(what) needs a \"kind\": one of \(kindNames)", member.keyLocation)
            return nil
        }
        guard case .string(let kindName) = kindNode.value.kind, let kind = environment.kind(named: kindName) else {
            let given: String? = if case .string(let text) = kindNode.value.kind { text } else { nil }
            let suggestion = given.flatMap { NameSuggestion.closest(to: $0, among: environment.kinds.map(\.name)) }
                .map { "did you mean \"\($0)\"? " }
            fail(
                "unknown kind \(kindNode.value.value) in \(what) (\(suggestion ?? "")kinds: \(kindNames))",
                kindNode.value.location)
            return nil
        }
        // Unknown keys are reported, and the known settings still checked; the capability is rejected.
        let keysKnown = checkKeys(entries, allowed: ["kind", "description"] + kind.settings.map(\.key), in: what)
        let node = member.value
        var summary: String?
        if let description = node.member("description")?.value {
            summary = string(description, "description", in: what, text: true)
        }

        var values: [String: CapabilitySettings.Value] = [:]
        var locations: [String: FileLocation] = [:]
        var settingsValid = keysKnown
        for setting in kind.settings {
            guard let valueNode = node.member(setting.key)?.value else {
                // A setting missing beside an unknown key is most likely that key misspelt: one
                // typo, one error.
                if setting.isRequired {
                    if keysKnown { fail("\(what) needs \"\(setting.key)\"", member.keyLocation) }
                    settingsValid = false
                }
                continue
            }
            locations[setting.key] = valueNode.location
            if let value = settingValue(valueNode, setting, in: what) {
                values[setting.key] = value
            } else {
                settingsValid = false
            }
        }
        guard settingsValid else { return nil }
        let settings = CapabilitySettings(values)
        // Checked once now: an unknown group, a relative path or a bad port is a load error.
        do throws(CapabilityConfigurationError) {
            try kind.validate(settings)
        } catch {
            fail("\(what): \(error.message)", member.value.location)
            return nil
        }
        return CapabilityDeclaration(
            name: name, kind: kindName, settings: settings, summary: summary, location: member.keyLocation,
            settingLocations: locations)
    }

    /// `node` read as `setting`'s type, or nil after reporting why it is not one.
    private mutating func settingValue(
        _ node: DocumentNode, _ setting: CapabilitySetting, in what: String
    ) -> CapabilitySettings.Value? {
        let key = setting.key
        switch setting.type {
        case .string, .absolutePath, .pattern:
            return string(node, key, in: what).map(CapabilitySettings.Value.string)
        case .duration:
            return duration(node, key).map(CapabilitySettings.Value.duration)
        case .boolean:
            guard case .bool(let flag) = node.kind else {
                fail("\"\(key)\" must be true or false", node.location)
                return nil
            }
            return .boolean(flag)
        case .integer(let range):
            guard let number = node.value.integerValue else {
                fail("\"\(key)\" must be a whole number, found \(node.value)", node.location)
                return nil
            }
            guard range.contains(number) else {
                fail("\"\(key)\" \(number) is out of range (\(range.lowerBound) to \(range.upperBound))", node.location)
                return nil
            }
            return .integer(number)
        case .choice(let allowed):
            guard case .string(let text) = node.kind, allowed.contains(text) else {
                let listed =
                    allowed.count > 1
                    ? allowed.dropLast().joined(separator: ", ") + " or " + allowed.last! : allowed.joined()
                fail("\"\(key)\" must be \(listed), found \(node.value)", node.location)
                return nil
            }
            return .string(text)
        case .choices(let allowed):
            guard case .array(let elements) = node.kind, !elements.isEmpty,
                elements.allSatisfy({ if case .string(let item) = $0.kind { allowed.contains(item) } else { false } })
            else {
                fail(
                    "\"\(key)\" must be a list of \(allowed.joined(separator: ", ")); found \(node.value)",
                    node.location)
                return nil
            }
            return .strings(elements.compactMap { $0.value.stringValue })
        case .stringMap:
            guard case .object(let members) = node.kind else {
                fail("\"\(key)\" must be a mapping of names to strings, found \(node.value)", node.location)
                return nil
            }
            var map: [String: String] = [:]
            for member in members {
                guard case .string(let text) = member.value.kind else {
                    fail(
                        "\"\(key)\": \"\(member.key)\" must be a string, found \(member.value.value)",
                        member.value.location)
                    return nil
                }
                if !text.isEmpty, string(member.value, "\(key).\(member.key)", in: what) == nil { return nil }
                map[member.key] = text
            }
            return .stringMap(map)
        case .anyValue:
            return .any(node.value)
        }
    }

    private mutating func missing(_ key: String, _ what: String, _ member: DocumentNode.Member) -> DocumentNode? {
        fail("\(what) needs \"\(key)\"", member.keyLocation)
        return nil
    }

    // MARK: Flags

    private mutating func readFlags(_ member: DocumentNode.Member, into policy: inout Policy) {
        guard case .object(let settings) = member.value.kind else {
            fail(
                "\"flags\" must be a mapping with \"files\", \"inline\" and/or \"http\", found \(member.value.describedType)",
                member.value.location)
            return
        }
        guard checkKeys(settings, allowed: ["files", "inline", "http"], in: "\"flags\"") else { return }
        if let files = member.value.member("files") {
            guard case .array(let elements) = files.value.kind else {
                fail("\"files\" must be a list of flag definition files", files.value.location)
                return
            }
            let directory = file.contains("/") ? String(file[..<file.lastIndex(of: "/")!]) : "."
            for element in elements {
                guard case .string = element.kind, let path = string(element, "files", in: "\"flags\"") else {
                    if case .string = element.kind {
                    } else {
                        fail("a flag file must be a path, found \(element.value)", element.location)
                    }
                    continue
                }
                policy.addFlagSource(.file(path.hasPrefix("/") ? path : directory + "/" + path), at: element.location)
            }
        }
        if let inline = member.value.member("inline") {
            do throws(ConfigurationError) {
                policy.addFlagSource(
                    .flags(try FlagSet.read(document: inline.value, file: file)), at: inline.keyLocation)
            } catch {
                errors.append(error)
            }
        }
        if let http = member.value.member("http") {
            guard case .array(let elements) = http.value.kind else {
                fail("\"http\" must be a list of flag services ({ url: ... })", http.value.location)
                return
            }
            for element in elements {
                if let settings = readHTTPSource(element) {
                    policy.addFlagSource(.http(settings), at: element.location)
                }
            }
        }
    }

    /// Where a remote source's last good copy goes unless the policy says: one file per URL.
    static let flagCopyDirectory = "/var/lib/capctl/flags"

    private static let httpKeys = [
        "url", "authorization-file", "ca-file", "interval", "jitter", "timeout", "max-staleness", "cache-file",
    ]

    /// `{ url, authorization-file, ca-file, interval, jitter, timeout, max-staleness, cache-file }`.
    private mutating func readHTTPSource(_ node: DocumentNode) -> HTTPFlagSourceSettings? {
        let what = "a flag service"
        guard case .object(let members) = node.kind else {
            fail("a flag service is a mapping with at least \"url\", found \(node.value)", node.location)
            return nil
        }
        guard checkKeys(members, allowed: Self.httpKeys, in: what) else { return nil }
        guard let urlNode = node.member("url")?.value else {
            fail("a flag service needs \"url\"", node.location)
            return nil
        }
        guard let url = string(urlNode, "url", in: what) else { return nil }
        if let problem = Self.urlProblem(url) {
            fail(problem, urlNode.location)
            return nil
        }
        var settings = HTTPFlagSourceSettings(url: url, location: node.location)
        var valid = true
        let directory = file.contains("/") ? String(file[..<file.lastIndex(of: "/")!]) : "."
        func path(_ key: String) -> String?? {
            guard let value = node.member(key)?.value else { return .some(nil) }
            guard let text = string(value, key, in: what) else { return nil }
            return .some(text.hasPrefix("/") ? text : directory + "/" + text)
        }
        if let authorization = path("authorization-file") {
            settings.authorizationFile = authorization
        } else {
            valid = false
        }
        if let authorities = path("ca-file") { settings.certificateAuthorityFile = authorities } else { valid = false }
        if let copy = path("cache-file") {
            settings.cacheFile = copy ?? Self.flagCopyDirectory + "/" + Self.copyName(for: url)
        } else {
            valid = false
        }
        for (key, keyPath) in [
            ("interval", \HTTPFlagSourceSettings.interval), ("timeout", \.timeout), ("max-staleness", \.maxStaleness),
        ] {
            guard let value = node.member(key)?.value else { continue }
            if let duration = duration(value, key) { settings[keyPath: keyPath] = duration } else { valid = false }
        }
        if let value = node.member("jitter")?.value {
            if case .number(let fraction) = value.kind, fraction >= 0, fraction <= 0.5 {
                settings.jitter = fraction
            } else {
                fail("\"jitter\" must be a fraction from 0 to 0.5, found \(value.value)", value.location)
                valid = false
            }
        }
        if valid, settings.interval < .seconds(1) {
            fail("\"interval\" must be at least 1s: a flag service is not to be asked faster", node.location)
            valid = false
        }
        if valid, settings.maxStaleness < settings.interval {
            fail(
                "\"max-staleness\" (\(settings.maxStaleness.components.seconds)s) must be at least \"interval\" (\(settings.interval.components.seconds)s), or the flags would expire between two requests",
                node.member("max-staleness")?.value.location ?? node.location)
            valid = false
        }
        return valid ? settings : nil
    }

    /// Why `url` cannot be a flag service's URL, or nil: `http://` or `https://`, a host, no
    /// credentials (they go in `authorization-file`), no spaces or control characters.
    static func urlProblem(_ url: String) -> String? {
        let lowered = url.asciiLowercased
        guard let scheme = ["https://", "http://"].first(where: { lowered.hasPrefix($0) }) else {
            return "a flag service's \"url\" must start with https:// or http://"
        }
        guard url.utf8.count <= 2048, url.utf8.allSatisfy({ (0x21...0x7E).contains($0) && $0 != 0x5C }) else {
            return
                "a flag service's \"url\" must be at most 2048 visible ASCII characters without spaces or backslashes"
        }
        let authority = url.dropFirst(scheme.count).prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        guard !authority.isEmpty else { return "a flag service's \"url\" has no host" }
        guard !authority.contains("@") else {
            return
                "a flag service's \"url\" must not hold credentials: put the Authorization header in \"authorization-file\""
        }
        return nil
    }

    /// A file name for `url`'s last good copy: its FNV-1a hash, so any URL gives a plain name.
    static func copyName(for url: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + ".json"
    }

    // MARK: Gates

    private mutating func readGate(_ member: DocumentNode.Member) -> GateDeclaration? {
        let what = "gate \"\(member.key)\""
        guard Self.isValidName(member.key) else {
            fail("\"\(member.key)\" is not a valid name (letters, digits, - _ . :)", member.keyLocation)
            return nil
        }
        guard case .object(let settings) = member.value.kind else {
            fail(
                "\(what) must be a mapping with \"require\", found \(member.value.describedType)", member.value.location
            )
            return nil
        }
        // An unknown key is reported and the requirement still read: its references are checked in
        // the same run (the policy does not load either way).
        _ = checkKeys(settings, allowed: ["require", "description"], in: what)
        guard let require = member.value.member("require") else {
            fail("\(what) needs \"require\"", member.keyLocation)
            return nil
        }
        var summary: String?
        if let description = member.value.member("description") {
            summary = string(description.value, "description", in: what, text: true)
        }
        guard let expression = readExpression(require.value) else { return nil }
        return GateDeclaration(name: member.key, expression: expression, summary: summary, location: member.keyLocation)
    }

    private static let operators = ["capability", "flag", "gate", "all-of", "any-of", "not", "silent"]

    private mutating func readExpression(_ node: DocumentNode) -> GateExpression? {
        switch node.kind {
        case .string(let name):
            return .capability(name, at: node.location)
        case .object(let members):
            guard members.count == 1, let member = members.first else {
                fail(
                    "a requirement is a capability name or one of \(Self.operators.joined(separator: ", ")) with its operand; found \(members.count) keys",
                    node.location)
                return nil
            }
            switch member.key {
            case "capability", "flag", "gate":
                guard case .string(let name) = member.value.kind, !name.isEmpty else {
                    fail("\"\(member.key)\" takes a name, found \(member.value.value)", member.value.location)
                    return nil
                }
                switch member.key {
                case "capability": return .capability(name, at: member.value.location)
                case "flag": return .flag(name, at: member.value.location)
                default: return .gate(name, at: member.value.location)
                }
            case "all-of", "any-of":
                guard case .array(let elements) = member.value.kind, !elements.isEmpty else {
                    fail("\"\(member.key)\" takes a non-empty list of requirements", member.value.location)
                    return nil
                }
                // Every element is read, so each broken one is reported.
                let parts = elements.compactMap { readExpression($0) }
                guard parts.count == elements.count else { return nil }
                return member.key == "all-of" ? .allOf(parts) : .anyOf(parts)
            case "not", "silent":
                guard let part = readExpression(member.value) else { return nil }
                return member.key == "not" ? .not(part) : .silent(part)
            default:
                let suggestion = NameSuggestion.closest(to: member.key, among: Self.operators)
                    .map { "did you mean \"\($0)\"? " }
                fail(
                    "unknown requirement \(QuotedName.key(member.key)) (\(suggestion ?? "")expected a capability name or one of \(Self.operators.joined(separator: ", ")))",
                    member.keyLocation)
                return nil
            }
        default:
            fail(
                "a requirement is a capability name or a mapping such as {all-of: [...]}, found \(node.describedType)",
                node.location)
            return nil
        }
    }
}

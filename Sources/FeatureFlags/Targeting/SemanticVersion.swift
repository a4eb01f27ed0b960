/// A semantic version as flagd's `sem_ver` reads it: an optional leading `v` or `V`,
/// `MAJOR[.MINOR[.PATCH]]` (missing parts are 0, and the short forms take no suffix), then an
/// optional `-prerelease` and `+build`. Build metadata is ignored when comparing; a prerelease
/// sorts before its release. A number in the context is read as JavaScript prints it (2 as
/// "2", 1.2 as "1.2").
struct SemanticVersion: Sendable, Comparable {
    var major: String
    var minor: String
    var patch: String
    var prerelease: [String]

    /// Reads a context or rule value: a string, or a number in its JavaScript spelling.
    init?(value: FlagValue) {
        switch value {
        case .string(let text): self.init(text)
        case .number(let number): self.init(FlagValue.format(number))
        default: return nil
        }
    }

    /// Parses `text` the way flagd does.
    init?(_ text: String) {
        var rest = Substring(text.hasPrefix("v") || text.hasPrefix("V") ? text.dropFirst() : Substring(text))
        func number(_ rest: inout Substring) -> String? {
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty, digits == "0" || digits.first != "0" else { return nil }
            rest = rest.dropFirst(digits.count)
            return String(digits)
        }
        guard let major = number(&rest) else { return nil }
        self.major = major
        minor = "0"
        patch = "0"
        prerelease = []
        if rest.isEmpty { return }
        guard rest.first == "." else { return nil }
        rest = rest.dropFirst()
        guard let minor = number(&rest) else { return nil }
        self.minor = minor
        if rest.isEmpty { return }
        guard rest.first == "." else { return nil }
        rest = rest.dropFirst()
        guard let patch = number(&rest) else { return nil }
        self.patch = patch
        if rest.first == "-" {
            rest = rest.dropFirst()
            let end = rest.firstIndex(of: "+") ?? rest.endIndex
            let identifiers = rest[..<end].split(separator: ".", omittingEmptySubsequences: false)
            for identifier in identifiers {
                guard !identifier.isEmpty, identifier.allSatisfy(Self.isIdentifierCharacter) else { return nil }
                if identifier.allSatisfy(\.isNumber), identifier.count > 1, identifier.first == "0" { return nil }
            }
            prerelease = identifiers.map(String.init)
            rest = rest[end...]
        }
        if rest.first == "+" {
            let identifiers = rest.dropFirst().split(separator: ".", omittingEmptySubsequences: false)
            for identifier in identifiers {
                guard !identifier.isEmpty, identifier.allSatisfy(Self.isIdentifierCharacter) else { return nil }
            }
            rest = rest[rest.endIndex...]
        }
        guard rest.isEmpty else { return nil }
    }

    private static func isIdentifierCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || character == "-")
    }

    /// Compares decimal strings of any length without leading zeros.
    private static func compareNumbers(_ a: String, _ b: String) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        return a == b ? 0 : (a < b ? -1 : 1)
    }

    private static func comparePrerelease(_ a: [String], _ b: [String]) -> Int {
        if a.isEmpty || b.isEmpty { return a.isEmpty == b.isEmpty ? 0 : (a.isEmpty ? 1 : -1) }
        for (x, y) in zip(a, b) where x != y {
            let xNumeric = x.allSatisfy(\.isNumber)
            let yNumeric = y.allSatisfy(\.isNumber)
            switch (xNumeric, yNumeric) {
            case (true, true): return compareNumbers(x, y)
            case (true, false): return -1
            case (false, true): return 1
            case (false, false): return x < y ? -1 : 1
            }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// -1, 0 or 1.
    func compare(to other: SemanticVersion) -> Int {
        for (x, y) in [(major, other.major), (minor, other.minor), (patch, other.patch)] {
            let order = Self.compareNumbers(x, y)
            if order != 0 { return order }
        }
        return Self.comparePrerelease(prerelease, other.prerelease)
    }

    static func < (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool { lhs.compare(to: rhs) < 0 }
    static func == (lhs: SemanticVersion, rhs: SemanticVersion) -> Bool { lhs.compare(to: rhs) == 0 }
}

/// The comparisons `sem_ver` offers.
enum SemanticVersionOperator: String, CaseIterable, Sendable {
    case equal = "="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    /// Same major version.
    case sameMajor = "^"
    /// Same major and minor version.
    case sameMinor = "~"

    func holds(_ a: SemanticVersion, _ b: SemanticVersion) -> Bool {
        switch self {
        case .equal: a.compare(to: b) == 0
        case .notEqual: a.compare(to: b) != 0
        case .less: a.compare(to: b) < 0
        case .lessOrEqual: a.compare(to: b) <= 0
        case .greater: a.compare(to: b) > 0
        case .greaterOrEqual: a.compare(to: b) >= 0
        case .sameMajor: a.major == b.major
        case .sameMinor: a.major == b.major && a.minor == b.minor
        }
    }
}

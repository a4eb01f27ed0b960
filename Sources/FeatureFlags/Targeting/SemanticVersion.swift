/// A semantic version as flagd's `sem_ver` reads it: an optional leading `v` or `V`,
/// `MAJOR[.MINOR[.PATCH]]` (missing parts are 0, and the short forms take no suffix), then an
/// optional `-prerelease` and `+build`. Build metadata is ignored when comparing; a prerelease
/// sorts before its release. A number in the context is read as JavaScript prints it (2 as
/// "2", 1.2 as "1.2").
struct SemanticVersion: Sendable, Comparable {
    /// A numeric part: exact at any length, without allocating for the usual small ones.
    enum Number: Sendable, Comparable {
        case small(UInt64)
        /// More than 18 digits, no leading zero: larger than every small number.
        case large(String)

        static func < (a: Number, b: Number) -> Bool {
            switch (a, b) {
            case (.small(let x), .small(let y)): x < y
            case (.small, .large): true
            case (.large, .small): false
            case (.large(let x), .large(let y)): x.utf8.count != y.utf8.count ? x.utf8.count < y.utf8.count : x < y
            }
        }
    }

    var major: Number
    var minor: Number
    var patch: Number
    var prerelease: [String]

    /// Reads a context or rule value: a string, or a number in its JavaScript spelling.
    init?(value: FlagValue) {
        switch value {
        case .string(let text): self.init(text)
        case .number(let number): self.init(FlagValue.format(number))
        default: return nil
        }
    }

    /// Parses `text` the way flagd does. Evaluation parses the context's version on every
    /// call, so this reads bytes and allocates only for prerelease identifiers.
    init?(_ text: String) {
        var text = text
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed
    }

    private init(major: Number, minor: Number, patch: Number, prerelease: [String]) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.prerelease = prerelease
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> SemanticVersion? {
        var index = 0
        let count = bytes.count
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        func isIdentifier(_ byte: UInt8) -> Bool {
            isDigit(byte) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x2D
        }
        func number() -> Number? {
            let start = index
            var value: UInt64 = 0
            while index < count, isDigit(bytes[index]) {
                if index - start < 18 { value = value * 10 + UInt64(bytes[index] - 0x30) }
                index += 1
            }
            let length = index - start
            guard length > 0, length == 1 || bytes[start] != 0x30 else { return nil }
            if length <= 18 { return .small(value) }
            return .large(String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
        }
        /// Dot-separated identifiers up to `stop` or the end; nil when one is empty or malformed.
        func identifiers(until stop: UInt8?, numericWithoutLeadingZero: Bool) -> [String]? {
            var result: [String] = []
            var start = index
            while true {
                let atEnd = index == count || bytes[index] == stop
                if atEnd || bytes[index] == 0x2E {
                    let part = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    guard !part.isEmpty else { return nil }
                    if numericWithoutLeadingZero, part.allSatisfy(isDigit), part.count > 1, part[0] == 0x30 {
                        return nil
                    }
                    result.append(String(decoding: part, as: UTF8.self))
                    if atEnd { return result }
                    index += 1
                    start = index
                } else {
                    guard isIdentifier(bytes[index]) else { return nil }
                    index += 1
                }
            }
        }

        if index < count, bytes[index] == 0x76 || bytes[index] == 0x56 { index += 1 }  // v, V
        guard let major = number() else { return nil }
        var minor = Number.small(0)
        var patch = Number.small(0)
        var prerelease: [String] = []
        if index < count {
            // The short forms 1 and 1.2 take no suffix.
            guard bytes[index] == 0x2E else { return nil }
            index += 1
            guard let parsedMinor = number() else { return nil }
            minor = parsedMinor
            if index < count {
                guard bytes[index] == 0x2E else { return nil }
                index += 1
                guard let parsedPatch = number() else { return nil }
                patch = parsedPatch
                if index < count, bytes[index] == 0x2D {  // -prerelease
                    index += 1
                    guard let parts = identifiers(until: 0x2B, numericWithoutLeadingZero: true) else { return nil }
                    prerelease = parts
                }
                if index < count, bytes[index] == 0x2B {  // +build, ignored
                    index += 1
                    guard identifiers(until: nil, numericWithoutLeadingZero: false) != nil else { return nil }
                }
                guard index == count else { return nil }
            }
        }
        return SemanticVersion(major: major, minor: minor, patch: patch, prerelease: prerelease)
    }

    private static func comparePrerelease(_ a: [String], _ b: [String]) -> Int {
        if a.isEmpty || b.isEmpty { return a.isEmpty == b.isEmpty ? 0 : (a.isEmpty ? 1 : -1) }
        for (x, y) in zip(a, b) where x != y {
            let xNumber = x.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } ? SemanticVersion("0.0." + x)?.patch : nil
            let yNumber = y.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } ? SemanticVersion("0.0." + y)?.patch : nil
            switch (xNumber, yNumber) {
            case (let m?, let n?): return m == n ? 0 : (m < n ? -1 : 1)
            case (_?, nil): return -1
            case (nil, _?): return 1
            case (nil, nil): return x < y ? -1 : 1
            }
        }
        return a.count == b.count ? 0 : (a.count < b.count ? -1 : 1)
    }

    /// -1, 0 or 1.
    func compare(to other: SemanticVersion) -> Int {
        if major != other.major { return major < other.major ? -1 : 1 }
        if minor != other.minor { return minor < other.minor ? -1 : 1 }
        if patch != other.patch { return patch < other.patch ? -1 : 1 }
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

import Capabilities
public import CapabilityPolicy
import ConfigurationFiles
import FeatureFlags

/// A gate decision read back from the audit trail, with what replaying it needs: the gate, the
/// outcome, the policy's revision and the statuses the decision read (``AuditRecord``).
///
/// It reads a record as each place shows one: the system log's line (`<85>capctl[42]:
/// CAPCTL_ACTION="check" ...`, as `--audit-socket` receives it and rsyslog files it), journalctl's
/// default and `-o cat` lines (the same `KEY="value"` fields), and `journalctl -o json`'s object.
///
/// ```swift
/// let line = #"capctl[42]: CAPCTL_ACTION="check" CAPCTL_GATE="export" CAPCTL_OUTCOME="fails" CAPCTL_UID="1000" CAPCTL_DECISION_ID="5d0c7f0a31b24e6f9a8d1c2b3e4f5061" CAPCTL_STATUSES="{\"backup\":\"denied\"}""#
/// let decision = try RecordedDecision(reading: line)
/// print(decision.gate, decision.outcome, decision.statuses.capabilities)
/// ```
public struct RecordedDecision: Sendable, Equatable {
    /// What asked: `check`, `run`, `serve`, `authorize`.
    public var action: String
    /// The gate decided (for an authorization, the capability).
    public var gate: String
    /// What was decided.
    public var outcome: Decision.Outcome
    /// The decision's id (`CAPCTL_DECISION_ID`).
    public var decisionID: String
    /// The revision of the policy that decided, when the record names one.
    public var policyRevision: String?
    /// The status each capability and the value each flag had as the decision read them.
    public var statuses: Assumptions
    /// The uid decided for.
    public var uid: UInt32?

    /// Why a record cannot be read back.
    public struct ReadingError: Error, CustomStringConvertible, Equatable {
        /// What is wrong, in a sentence.
        public let description: String

        init(_ description: String) { self.description = description }
    }

    /// Reads one record: a log line with `KEY="value"` fields, or a `journalctl -o json` object.
    /// - Throws: ``ReadingError`` for text that is no audit record of a decision, a record cut
    ///   short (a field too long for the log), or one written before records carried statuses.
    public init(reading text: String) throws(ReadingError) {
        let trimmed = text.drop { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" }
        let fields = try trimmed.hasPrefix("{") ? Self.jsonFields(String(trimmed)) : Self.lineFields(String(trimmed))
        try self.init(fields: fields)
    }

    /// Reads a record from its fields by name (`CAPCTL_GATE` and the rest), as the journal keeps them.
    /// - Throws: ``ReadingError`` when a field a decision needs is missing or unreadable.
    public init(fields: [String: String]) throws(ReadingError) {
        func required(_ name: String) throws(ReadingError) -> String {
            guard let value = fields[name] else {
                throw ReadingError("the record has no \(name): not a capctl decision")
            }
            return value
        }
        action = try required("CAPCTL_ACTION")
        gate = try required("CAPCTL_GATE")
        let word = try required("CAPCTL_OUTCOME")
        guard let outcome = Decision.Outcome(rawValue: word) else {
            throw ReadingError("CAPCTL_OUTCOME \"\(word)\" is no outcome word")
        }
        self.outcome = outcome
        guard let id = fields["CAPCTL_DECISION_ID"] else {
            throw ReadingError(
                "the record has no CAPCTL_DECISION_ID: it was written before records carried what replays them")
        }
        guard Self.isDecisionID(id) else {
            throw ReadingError("CAPCTL_DECISION_ID \"\(id)\" is not 32 hexadecimal digits")
        }
        decisionID = id
        policyRevision = fields["CAPCTL_POLICY_REVISION"]
        uid = fields["CAPCTL_UID"].flatMap { UInt32($0) }
        statuses = Assumptions()
        for (name, value) in try Self.object(fields["CAPCTL_STATUSES"], field: "CAPCTL_STATUSES") {
            guard case .string(let word) = value, let kind = CapabilityStatus.Kind(rawValue: word) else {
                throw ReadingError("CAPCTL_STATUSES: \"\(name)\" has \(value), not a status word")
            }
            statuses.capabilities[name] = kind
        }
        statuses.flags = try Self.object(fields["CAPCTL_FLAGS"], field: "CAPCTL_FLAGS")
    }

    /// Whether `text` is written as a decision id is (`CAPCTL_DECISION_ID`): 32 lower-case
    /// hexadecimal digits, and nothing else that could reach a journal query.
    public static func isDecisionID(_ text: String) -> Bool {
        text.utf8.count == 32
            && text.utf8.allSatisfy {
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
                    || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0)
            }
    }

    private static func object(_ text: String?, field: String) throws(ReadingError) -> [String: FlagValue] {
        guard let text else { return [:] }
        if text.hasSuffix(" [cut]") {
            throw ReadingError(
                "\(field) was cut short in the log (too long for one record): the statuses are incomplete")
        }
        guard let node = try? JSONDocumentReader.read(text, file: field), case .structure(let members) = node.value
        else { throw ReadingError("\(field) is not a JSON object") }
        return members
    }

    /// The fields of a `journalctl -o json` entry: its string values, and byte arrays as UTF-8.
    private static func jsonFields(_ text: String) throws(ReadingError) -> [String: String] {
        let node: DocumentNode
        do throws(ConfigurationError) {
            node = try JSONDocumentReader.read(text, file: "record")
        } catch {
            throw ReadingError("not a journal entry: \(error.message)")
        }
        guard case .structure(let members) = node.value else {
            throw ReadingError("not a journal entry: not an object")
        }
        var fields: [String: String] = [:]
        for (name, value) in members {
            switch value {
            case .string(let text): fields[name] = text
            case .list(let bytes):
                let values = bytes.compactMap { value -> UInt8? in
                    guard case .number(let number) = value else { return nil }
                    return UInt8(exactly: number)
                }
                if values.count == bytes.count { fields[name] = String(decoding: values, as: UTF8.self) }
            default: continue
            }
        }
        return fields
    }

    /// The `KEY="value"` fields of a log line, from the first `CAPCTL_` on: values unescaped as
    /// the trail escaped them (`\"`, `\\`, `\n`, `\t`, `\r`, `\xHH`, `\u{H}`). A field named twice
    /// is refused: the trail writes each once, so a second is forged or garbled.
    private static func lineFields(_ text: String) throws(ReadingError) -> [String: String] {
        // Bytes, not characters: every delimiter is ASCII, and a value's other bytes are copied as they are.
        let bytes = Array(text.utf8)
        let start = Array("CAPCTL_".utf8)
        var first: Int?
        var search = 0
        while search + start.count <= bytes.count {
            if bytes[search] == UInt8(ascii: "C"), bytes[search..<search + start.count].elementsEqual(start),
                search == 0 || bytes[search - 1] == UInt8(ascii: " ")
            {
                first = search
                break
            }
            search += 1
        }
        guard let first else { throw ReadingError("no CAPCTL_ field: not a capctl audit record") }
        func hexValue(_ digits: ArraySlice<UInt8>) -> UInt32? {
            guard !digits.isEmpty, digits.count <= 8 else { return nil }
            return UInt32(String(decoding: digits, as: UTF8.self), radix: 16)
        }
        var fields: [String: String] = [:]
        var index = first
        while index < bytes.count {
            let nameStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "=") {
                let byte = bytes[index]
                guard
                    (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                        || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
                else {
                    throw ReadingError(
                        "a field name may hold only A-Z, 0-9 and _ (found \"\(String(decoding: [byte], as: UTF8.self))\")"
                    )
                }
                index += 1
            }
            let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
            guard index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\""), !name.isEmpty else {
                throw ReadingError("field \(name.isEmpty ? "?" : name) has no quoted value")
            }
            index += 2
            var value: [UInt8] = []
            var closed = false
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") {
                    closed = true
                    break
                }
                guard byte == UInt8(ascii: "\\") else {
                    value.append(byte)
                    continue
                }
                guard index < bytes.count else { break }
                let escaped = bytes[index]
                index += 1
                switch escaped {
                case UInt8(ascii: "n"): value.append(UInt8(ascii: "\n"))
                case UInt8(ascii: "t"): value.append(UInt8(ascii: "\t"))
                case UInt8(ascii: "r"): value.append(UInt8(ascii: "\r"))
                case UInt8(ascii: "x"):
                    guard index + 2 <= bytes.count, let code = hexValue(bytes[index..<index + 2]), code < 0x80 else {
                        throw ReadingError("field \(name): a \\x escape needs two hexadecimal digits")
                    }
                    value.append(UInt8(code))
                    index += 2
                case UInt8(ascii: "u"):
                    guard index < bytes.count, bytes[index] == UInt8(ascii: "{"),
                        let end = bytes[index...].firstIndex(of: UInt8(ascii: "}")),
                        let code = hexValue(bytes[(index + 1)..<end]), let scalar = Unicode.Scalar(code)
                    else { throw ReadingError("field \(name): a \\u escape needs {hexadecimal digits}") }
                    value += Array(String(scalar).utf8)
                    index = end + 1
                default: value.append(escaped)
                }
            }
            guard closed else { throw ReadingError("field \(name): its value has no closing quote") }
            guard fields[name] == nil else { throw ReadingError("field \(name) appears twice") }
            fields[name] = String(decoding: value, as: UTF8.self)
            // One space between fields; the line may end with a line break.
            while index < bytes.count,
                bytes[index] == UInt8(ascii: " ") || bytes[index] == UInt8(ascii: "\n")
                    || bytes[index] == UInt8(ascii: "\r")
            {
                index += 1
            }
        }
        return fields
    }
}

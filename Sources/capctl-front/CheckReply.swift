/// A `Check` reply the front answers itself: exactly what capctld writes (`Decision.checkReply`),
/// every string in it printable ASCII without an escape, every word one capctl knows, as capctl's
/// own first reader of a reply takes it (`Decision.decodedCheckReply`), so that capctl would make
/// the same decision of it. An explanation (root is told one) is read but not kept: the front
/// answers only a gate that holds with one, for which capctl prints no reasons. Anything else (an
/// error, an unknown member or word, an escape) is capctl's to read.
enum CheckReply {
    /// `Decision.Outcome`, by capctld's words.
    enum Outcome: Equatable {
        case holds, fails, undecided, needsInteraction, dismissed

        var word: StaticString {
            switch self {
            case .holds: "holds"
            case .fails: "fails"
            case .undecided: "undecided"
            case .needsInteraction: "needsInteraction"
            case .dismissed: "dismissed"
            }
        }

        /// capctl's exit status (`Verdict.exitStatus`).
        var exitStatus: Int32 {
            switch self {
            case .holds: 0
            case .fails, .undecided: 1
            case .needsInteraction: 2
            case .dismissed: 3
            }
        }

        static let all: [Outcome] = [.holds, .fails, .undecided, .needsInteraction, .dismissed]
    }

    /// The words of `ConditionExplanation.Outcome`.
    static let explanationWords: [StaticString] = ["passed", "failed", "undecided", "notChecked"]

    /// The outcome of `reply` (without its NUL), and whether it holds an explanation; nil when
    /// the front does not read it.
    static func read(_ reply: UnsafeBufferPointer<UInt8>) -> (outcome: Outcome, explained: Bool)? {
        var reader = Reader(bytes: reply)
        guard reader.skip(#"{"parameters":{"decision":{"gate":"#), reader.string() != nil,
            reader.skip(#","outcome":"#), let word = reader.string(),
            reader.skip(#","description":"#), reader.skip("null") || reader.string() != nil,
            reader.skip(#","actions":["#), reader.strings(), reader.skip(#","explanation":"#)
        else { return nil }
        let explained = !reader.skip("null")
        guard !explained || reader.explanation(depth: 0), reader.skip("}}}"), reader.offset == reply.count else {
            return nil
        }
        for outcome in Outcome.all where Reader.same(UnsafeBufferPointer(rebasing: reply[word]), outcome.word) {
            return (outcome, explained)
        }
        return nil
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var offset = 0

        /// Skips `literal` when the bytes go on with it.
        mutating func skip(_ literal: StaticString) -> Bool {
            let count = literal.utf8CodeUnitCount
            guard bytes.count - offset >= count,
                Self.same(UnsafeBufferPointer(rebasing: bytes[offset..<(offset + count)]), literal)
            else { return false }
            offset += count
            return true
        }

        /// A string of printable ASCII without an escape: its contents' range.
        mutating func string() -> Range<Int>? {
            guard offset < bytes.count, bytes[offset] == 0x22 else { return nil }
            var end = offset + 1
            while end < bytes.count, bytes[end] != 0x22 {
                guard bytes[end] >= 0x20, bytes[end] < 0x7F, bytes[end] != 0x5C else { return nil }
                end += 1
            }
            guard end < bytes.count else { return nil }
            defer { offset = end + 1 }
            return (offset + 1)..<end
        }

        /// Strings separated by commas, and the `]` that ends them.
        mutating func strings() -> Bool {
            guard !skip("]") else { return true }
            repeat {
                guard string() != nil else { return false }
            } while skip(",")
            return skip("]")
        }

        /// An explanation as capctld writes it, at most as deep as capctl's reader takes one.
        mutating func explanation(depth: Int) -> Bool {
            guard depth < 64, skip(#"{"condition":"#), string() != nil, skip(#","outcome":"#), let word = string(),
                CheckReply.explanationWords.contains(where: {
                    Self.same(UnsafeBufferPointer(rebasing: bytes[word]), $0)
                }),
                skip(#","reason":"#), string() != nil, skip(#","children":["#)
            else { return false }
            if !skip("]") {
                repeat {
                    guard explanation(depth: depth + 1) else { return false }
                } while skip(",")
                guard skip("]") else { return false }
            }
            return skip("}")
        }

        static func same(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
            guard bytes.count == literal.utf8CodeUnitCount else { return false }
            for index in 0..<bytes.count where bytes[index] != literal.utf8Start[index] { return false }
            return true
        }
    }
}

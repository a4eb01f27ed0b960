import ConfigurationFiles
import TestSupport
import Testing

@testable import Varlink

/// The varlink message reader accepts and refuses what the file reader (`JSONDocumentReader`,
/// held to RFC 8259 by its own tests) does, value for value.
@Suite
struct VarlinkMessageReaderTests {
    /// The file reader's answer for `bytes`, as a varlink value; nil when it refuses them, with why.
    static func fileReaderValue(_ bytes: [UInt8]) -> Result<VarlinkValue, ConfigurationError>? {
        guard let text = String(validating: bytes, as: UTF8.self) else { return nil }
        do throws(ConfigurationError) {
            return .success(Self.value(try JSONDocumentReader.read(text, file: "message", exactIntegers: true)))
        } catch {
            return .failure(error)
        }
    }

    static func value(_ node: DocumentNode) -> VarlinkValue {
        switch node.kind {
        case .null: .null
        case .bool(let value): .bool(value)
        case .number(let value):
            value.rounded(.towardZero) == value
                ? Int64(exactly: value).map(VarlinkValue.int) ?? .float(value) : .float(value)
        case .string(let value): .string(value)
        case .array(let values): .array(values.map(Self.value))
        case .object(let members): .object(members.map { ($0.key, Self.value($0.value)) })
        }
    }

    /// Both readers agree on `bytes`: the same value, or both refuse.
    static func expectAgreement(_ bytes: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) {
        let read = try? VarlinkMessageReader.read(bytes)
        let shown = String(decoding: bytes, as: UTF8.self)
        switch fileReaderValue(bytes) {
        case .success(let value)?:
            #expect(read == value, "\(shown)", sourceLocation: sourceLocation)
        case .failure(let error)?:
            #expect(
                read == nil, "accepted what the file reader refuses (\(error)): \(shown)",
                sourceLocation: sourceLocation)
        case nil:
            #expect(read == nil, "accepted bytes that are not UTF-8: \(shown)", sourceLocation: sourceLocation)
        }
    }

    @Test("RFC 8259's cases: values, numbers, strings and escapes, and what it refuses")
    func cases() {
        let texts = [
            #"{"method":"org.capctl.gates.Check","parameters":{"gate":"operators"}}"#, "null", "true", "false", "0",
            "-0",
            "1.0", "1e3", "1E+2", "-1.5e-3", "1e400", "1e-400", "01", "-", "1.", ".5", "1e", "+1", "0x10", "NaN",
            "9007199254740993", "-9223372036854775808", "9223372036854775807", "9223372036854775808",
            "18446744073709551616", #""\u00e9\ud83d\ude00\n\t\"\\\/\b\f\r""#, #""\ud83d""#, #""\ude00""#,
            #""\x""#, #""\u12""#, "\"a\u{01}b\"", "\"caf\u{e9}\"", #"{"a":1,"a":2}"#, #"{"a" 1}"#, #"{"a":1,}"#,
            "[1,]", "[,1]", "[]", "{}", " [ 1 , { } ] ", "[1] x", "", " ", "tru", "nulll", #"{"a":[{"b":null}]}"#,
            "\u{FEFF}{}", "\"\u{7F}\"", #"{1:2}"#, #"["a" "b"]"#,
            "{" + (0..<20).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + #","k3":0}"#,
            "{" + (0..<20).map { #""k\#($0)":\#($0)"# }.joined(separator: ",") + "}",
            String(repeating: "[", count: 256) + String(repeating: "]", count: 256),
            String(repeating: "[", count: 257) + String(repeating: "]", count: 257),
        ]
        for text in texts { Self.expectAgreement(Array(text.utf8)) }
        Self.expectAgreement([0x22, 0xC3, 0x28, 0x22])
        Self.expectAgreement([0x22, 0xED, 0xA0, 0x80, 0x22])
    }

    @Test("integers are exact up to 2^53 and refused past it, as a double would round them")
    func exactIntegers() throws {
        #expect(try VarlinkMessageReader.read(Array("9007199254740992".utf8)) == .int(9_007_199_254_740_992))
        #expect(try VarlinkMessageReader.read(Array("-9007199254740992".utf8)) == .int(-9_007_199_254_740_992))
        for text in ["9007199254740993", "-9223372036854775808", "18446744073709551616"] {
            #expect(throws: VarlinkMessageReader.Failure.self, "\(text)") {
                try VarlinkMessageReader.read(Array(text.utf8))
            }
        }
    }

    @Test("20,000 messages cut, spliced and garbled at random (a fixed seed): both readers agree on every one")
    func mutations() {
        let seeds = [
            #"{"method":"org.capctl.gates.Check","parameters":{"gate":"operators","traceparent":"00-4bf9-01"},"more":true}"#,
            #"{"parameters":{"decision":{"gate":"maintenance","outcome":"holds","actions":[],"explanation":{"condition":"gate","children":[{"n":-1.25e2,"ok":false,"x":null}]}}}}"#,
            #"{"error":"org.varlink.service.InvalidParameter","parameters":{"parameter":"gate \u00e9\ud83d\ude00"}}"#,
        ].map { Array($0.utf8) }
        let alphabet = Array(#"{}[]:,"\ue0123456789.-+Eatrufsln "#.utf8) + [0x00, 0x01, 0x7F, 0xC3, 0xA9, 0xED, 0xFF]
        var generator = SplitMix(seed: 58)
        for _ in 0..<20_000 {
            var bytes = seeds[Int(generator.next() % UInt64(seeds.count))]
            for _ in 0...(generator.next() % 3) {
                let position = Int(generator.next() % UInt64(bytes.count + 1))
                switch generator.next() % 4 {
                case 0 where position < bytes.count: bytes.remove(at: position)
                case 1: bytes.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: position)
                case 2 where position < bytes.count:
                    bytes[position] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                default:
                    let end = min(bytes.count, position + Int(generator.next() % 8))
                    bytes.insert(contentsOf: bytes[position..<end], at: position)
                }
            }
            Self.expectAgreement(bytes)
        }
    }
}

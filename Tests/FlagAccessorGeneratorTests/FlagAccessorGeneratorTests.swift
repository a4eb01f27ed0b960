import Foundation
import Glibc
import TestSupport
import Testing

/// The generator behind the GenerateFlagAccessors plugin, run as the plugin runs it, its output
/// compiled by swiftc: every key becomes a name that compiles, or an error at the key's position.
@Suite("flag accessor generator", .timeLimit(.minutes(2)))
struct FlagAccessorGeneratorTests {
    static let generator = builtProduct("flag-accessor-generator")

    private func generate(_ files: [String: String]) throws -> (status: Int32, source: String, errors: String) {
        let directory = try TemporaryDirectory(prefix: "generator-test")
        let paths = try files.sorted(by: { $0.key < $1.key }).map { try directory.write($0.value, to: $0.key) }
        let output = directory.path + "/Generated.swift"
        let run = try runProcess(Self.generator, [output] + paths)
        let source = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return (run.status, source, run.standardError)
    }

    /// Type-checks `source` with swiftc, FeatureFlags' FlagKey stood in for by a stub.
    private func compiles(_ source: String) throws -> (Bool, String) {
        let directory = try TemporaryDirectory(prefix: "generator-compile")
        let stub = "struct FlagKey<Value> { init(_ key: String) {} }\n"
        let file = try directory.write(
            stub + source.replacingOccurrences(of: "import FeatureFlags\n", with: ""), to: "main.swift")
        let run = try runProcess("/usr/bin/env", ["swiftc", "-typecheck", file])
        return (run.status == 0, run.standardError)
    }

    @Test("keys that are keywords, start with digits or hold characters Swift names cannot have still compile")
    func awkwardKeysCompile() throws {
        let keys = [
            "precedencegroup", "class", "self", "Type", "1st-run", "new-export", "café", "a\u{2E2F}b", "x\u{301}y",
            "borrowing", "some",
        ]
        let flags = keys.map {
            "\"\($0)\": {\"state\": \"ENABLED\", \"variants\": {\"on\": true}, \"defaultVariant\": \"on\"}"
        }
        let generated = try generate(["app.flags.json": "{\"flags\": {\(flags.joined(separator: ", "))}}"])
        #expect(generated.status == 0, "\(generated.errors)")
        let (ok, diagnostics) = try compiles(generated.source)
        #expect(ok, "\(diagnostics)\n\(generated.source)")
        #expect(generated.source.contains("static let `precedencegroup`: FlagKey<Bool>"))
        #expect(generated.source.contains("static let _1stRun"))
        #expect(generated.source.contains("static let aB: FlagKey<Bool> = FlagKey(\"a\u{2E2F}b\")"))
    }

    @Test("a key with nothing to name it by is an error at its position, not Swift that does not compile")
    func unnameableKey() throws {
        let generated = try generate([
            "app.flags.json": """
            {"flags": {
              "___": {"state": "ENABLED", "variants": {"on": true}, "defaultVariant": "on"}
            }}
            """
        ])
        #expect(generated.status == 1)
        #expect(generated.errors.contains("app.flags.json:2:"), "\(generated.errors)")
        #expect(generated.errors.contains("\"___\" has no letters or digits to make a Swift name of"))
    }

    @Test("an unreadable or non-UTF-8 policy file is an error, never read as empty")
    func unreadablePolicy() throws {
        let latin1 = "gates:\n  caf\u{E9}: { require: x }\n".data(using: .isoLatin1)!
        let directory = try TemporaryDirectory(prefix: "generator-test")
        let path = directory.path + "/app.capctl.yaml"
        #expect(FileManager.default.createFile(atPath: path, contents: latin1))
        let output = directory.path + "/Generated.swift"
        let run = try runProcess(Self.generator, [output, path])
        #expect(run.status == 1)
        #expect(run.standardError.contains("app.capctl.yaml"), "\(run.standardError)")
        #expect(run.standardError.contains("not valid UTF-8"), "\(run.standardError)")
        let missing = try runProcess(Self.generator, [output, directory.path + "/missing.capctl.yaml"])
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("missing.capctl.yaml"), "\(missing.standardError)")
    }
}

import ArgumentParser
import CapabilityPolicy
import ConfigurationFiles
import Glibc
import Locking

/// `capctl test [PATH...]`: runs policy test files (`PolicyTestFile`), as `opa test` runs Rego
/// tests: every case decided with the statuses it assumes, nobody asked, nothing read from this host.
struct TestCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test",
        abstract: "Run policy test files: each case decides a gate with the statuses it assumes.",
        discussion: """
            PATH is a test file or a directory of them (*.test.yaml, recursively); none: the current directory. \
            A case's capabilities that it does not assume are denied. Exits 0 when every case passes (and the \
            coverage is at least --minimum-coverage), 1 otherwise, 78 when a test file or the policy does not load.
            """)

    @OptionGroup var options: CommonOptions

    @Argument(help: "Test files, or directories of *.test.yaml files.")
    var paths: [String] = []

    @Flag(name: .long, help: "Count which outcomes of which requirement nodes the cases reached, and list the rest.")
    var coverage = false

    @Option(
        name: .customLong("minimum-coverage"),
        help: "Fail when fewer than this percentage of node outcomes were reached (an integer, compared exactly).")
    var minimumCoverage: Int?

    @Option(name: .long, help: "Write the results as JUnit XML to this file, for CI.")
    var junit: String?

    func validate() throws {
        if let minimumCoverage, !(0...100).contains(minimumCoverage) {
            throw ValidationError("--minimum-coverage is a percentage from 0 to 100")
        }
    }

    func run() async throws {
        let files = try Self.testFiles(paths.isEmpty ? ["."] : paths)
        guard !files.isEmpty else {
            throw CommandFailure(message: "capctl: no *.test.yaml files found", status: ExitStatus.usage)
        }
        var read: [PolicyTestFile] = []
        var errors: [String] = []
        for file in files {
            do throws(PolicyErrors) {
                read.append(try PolicyTestFile.read(file))
            } catch {
                errors += error.errors.map(\.description)
            }
        }
        guard errors.isEmpty else { throw CommandFailure(lines: errors, status: ExitStatus.configuration) }
        var run = PolicyTestRun()
        var installed: LoadedPolicy?
        // Hermetic: what only the policy's own hosts can say (a group this runner lacks) is a
        // note, and the cases give the statuses.
        let notes = Lock<[String]>([])
        let environment = PolicyContext.environment.hermetic { note in
            notes.withLock { if !$0.contains(note) { $0.append(note) } }
        }
        let hermetic = PolicyOptions(watchesFlagFiles: false, pollsFlagServices: false)
        for file in read {
            let policy: LoadedPolicy
            if !file.policyFiles.isEmpty {
                policy = try await PolicyContext.load(
                    policyFiles: file.policyFiles, policyOptions: hermetic, environment: environment)
            } else if let installed {
                policy = installed
            } else {
                policy = try await PolicyContext.load(
                    policyFiles: options.policy, policyOptions: hermetic, environment: environment)
                installed = policy
            }
            await run.run(file, on: policy)
        }
        for note in notes.withLock({ $0 }) {
            print(TerminalText.escaped("note: not checked on this host: \(note); the cases give the statuses"))
        }
        for failure in run.failures {
            print(
                TerminalText.escaped(
                    "FAIL \(failure.testCase.location): \(failure.testCase.name): \(failure.message)"))
        }
        let total = run.passed + run.failures.count
        print("\(run.failures.isEmpty ? "ok" : "FAILED"): \(run.passed) of \(total) case(s) passed")
        let covered = run.coveredOutcomes
        let possible = run.possibleOutcomes
        if coverage || minimumCoverage != nil {
            print("coverage: \(covered) of \(possible) node outcomes")
            if coverage { for line in run.uncovered { print("  not reached: " + TerminalText.escaped(line)) } }
        }
        if let junit { try Self.writeJUnit(run, to: junit) }
        var failed = !run.failures.isEmpty
        // Integers: 99 % of 100 node outcomes is not 100 %.
        if let minimumCoverage, covered * 100 < minimumCoverage * possible {
            print("coverage below \(minimumCoverage) %: \(covered) of \(possible) node outcomes")
            failed = true
        }
        if failed { throw ExitStatus.denied }
    }

    /// The test files `paths` name: files as given, directories searched for *.test.yaml.
    static func testFiles(_ paths: [String]) throws -> [String] {
        var files: [String] = []
        func search(_ directory: String, depth: Int) throws {
            // Read as every policy directory is read: a directory others may write is refused.
            let names: [String]
            do throws(TrustedFile.Refusal) {
                names = try TrustedFile.entries(of: directory).sorted()
            } catch {
                throw CommandFailure(message: "capctl: \(error)", status: ExitStatus.configuration)
            }
            for name in names where !name.hasPrefix(".") {
                let path = directory + "/" + name
                if isDirectory(path), depth < 16 {
                    try search(path, depth: depth + 1)
                } else if name.hasSuffix(".test.yaml") {
                    files.append(path)
                }
            }
        }
        for given in paths.map(PolicyContext.absolute) {
            var path = given
            while path.hasSuffix("/.") || (path.count > 1 && path.hasSuffix("/")) {
                path = String(path.dropLast(path.hasSuffix("/.") ? 2 : 1))
            }
            var info = stat()
            guard stat(path, &info) == 0 else {
                throw CommandFailure(message: "capctl: \(path): no such file or directory", status: ExitStatus.usage)
            }
            if info.st_mode & S_IFMT == S_IFDIR { try search(path, depth: 0) } else { files.append(path) }
        }
        return files
    }

    private static func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    static func writeJUnit(_ run: PolicyTestRun, to path: String) throws {
        func escaped(_ text: String) -> String {
            var result = ""
            for character in text {
                switch character {
                case "&": result += "&amp;"
                case "<": result += "&lt;"
                case ">": result += "&gt;"
                case "\"": result += "&quot;"
                case "'": result += "&apos;"
                default:
                    // XML 1.0 has no place for most control characters.
                    if let scalar = character.unicodeScalars.first, scalar.value < 0x20, scalar != "\n", scalar != "\t"
                    {
                        result += "?"
                    } else {
                        result.append(character)
                    }
                }
            }
            return result
        }
        let byFile = Dictionary(grouping: run.cases, by: \.file)
        var lines = [
            #"<?xml version="1.0" encoding="UTF-8"?>"#,
            #"<testsuites name="capctl test" tests="\#(run.cases.count)" failures="\#(run.failures.count)">"#,
        ]
        for file in byFile.keys.sorted() {
            let cases = byFile[file]!
            let failures = cases.filter { $0.failure != nil }.count
            lines.append(
                #"  <testsuite name="\#(escaped(file))" tests="\#(cases.count)" failures="\#(failures)">"#)
            for entry in cases {
                let name = escaped(entry.testCase.name)
                let line = entry.testCase.location.line
                if let failure = entry.failure {
                    lines.append(
                        #"    <testcase classname="\#(escaped(file))" name="\#(name)" file="\#(escaped(file))" line="\#(line)">"#
                    )
                    lines.append(#"      <failure message="\#(escaped(failure))"/>"#)
                    lines.append("    </testcase>")
                } else {
                    lines.append(
                        #"    <testcase classname="\#(escaped(file))" name="\#(name)" file="\#(escaped(file))" line="\#(line)"/>"#
                    )
                }
            }
            lines.append("  </testsuite>")
        }
        lines.append("</testsuites>")
        let text = lines.joined(separator: "\n") + "\n"
        guard let file = fopen(path, "w") else {
            throw CommandFailure(
                message: "capctl: --junit \(path): \(String(cString: strerror(errno)))", status: ExitStatus.usage)
        }
        let written = text.utf8CString.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count - 1, file) }
        guard fclose(file) == 0, written == text.utf8.count else {
            throw CommandFailure(message: "capctl: --junit \(path): cannot write it", status: ExitStatus.usage)
        }
    }
}

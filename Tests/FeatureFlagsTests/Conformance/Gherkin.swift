import Foundation
import Testing

/// The part of Gherkin (cucumber.io/docs/gherkin/reference) flagd-testbed's feature files use:
/// tags, `Feature`, `Background`, `Scenario`, `Scenario Outline` with tagged `Examples` tables, and
/// data tables under a step. Outlines are expanded, one scenario per example row, with the
/// feature's, the scenario's and the examples' tags. Anything else in a file is an error, so a new
/// construct in a later testbed release is noticed rather than skipped.
struct GherkinScenario: Sendable, CustomTestStringConvertible {
    struct Step: Sendable {
        /// The step's text without its keyword, placeholders filled in.
        var text: String
        /// The data table under the step, header row first; empty when it has none.
        var table: [[String]]
        var line: Int
    }

    var file: String
    var line: Int
    var name: String
    var tags: Set<String>
    var steps: [Step]

    var testDescription: String { "\(file):\(line) \(name)" }

    struct ParseError: Error, CustomStringConvertible {
        var file: String
        var line: Int
        var message: String
        var description: String { "\(file):\(line): \(message)" }
    }

    /// The scenarios of the feature file `text` (named `file` in errors), outlines expanded.
    static func parse(_ text: String, file: String) throws -> [GherkinScenario] {
        var parser = Parser(file: file, lines: text.components(separatedBy: "\n"))
        return try parser.parse()
    }

    private struct Parser {
        let file: String
        let lines: [String]
        var index = 0
        var featureTags: Set<String> = []
        var background: [Step] = []
        var scenarios: [GherkinScenario] = []

        init(file: String, lines: [String]) {
            self.file = file
            self.lines = lines
        }

        mutating func parse() throws -> [GherkinScenario] {
            var pendingTags: Set<String> = []
            var sawFeature = false
            while let (line, number) = nextLine() {
                if line.hasPrefix("@") {
                    pendingTags.formUnion(Self.tags(line))
                } else if line.hasPrefix("Feature:") {
                    featureTags = pendingTags
                    pendingTags = []
                    sawFeature = true
                } else if !sawFeature {
                    throw ParseError(file: file, line: number, message: "expected Feature:, found \(line)")
                } else if line.hasPrefix("Background:") {
                    background = try steps()
                } else if line.hasPrefix("Scenario Outline:") || line.hasPrefix("Scenario Template:") {
                    try outline(name: Self.title(line), tags: featureTags.union(pendingTags), line: number)
                    pendingTags = []
                } else if line.hasPrefix("Scenario:") || line.hasPrefix("Example:") {
                    scenarios.append(
                        GherkinScenario(
                            file: file, line: number, name: Self.title(line), tags: featureTags.union(pendingTags),
                            steps: background + (try steps())))
                    pendingTags = []
                } else {
                    throw ParseError(file: file, line: number, message: "unexpected line: \(line)")
                }
            }
            return scenarios
        }

        /// The next line that is neither blank nor a comment, trimmed, with its 1-based number.
        mutating func nextLine() -> (String, Int)? {
            while index < lines.count {
                let line = lines[index].trimmingCharacters(in: .whitespaces)
                index += 1
                if line.isEmpty || line.hasPrefix("#") { continue }
                return (line, index)
            }
            return nil
        }

        /// Peeks at the next meaningful line without consuming it.
        mutating func peek() -> String? {
            let saved = index
            defer { index = saved }
            return nextLine()?.0
        }

        static let stepKeywords = ["Given ", "When ", "Then ", "And ", "But ", "* "]

        mutating func steps() throws -> [Step] {
            var steps: [Step] = []
            while let next = peek() {
                if let keyword = Self.stepKeywords.first(where: { next.hasPrefix($0) }) {
                    let (line, number) = nextLine()!
                    steps.append(Step(text: String(line.dropFirst(keyword.count)), table: [], line: number))
                } else if next.hasPrefix("|") {
                    let (line, number) = nextLine()!
                    guard !steps.isEmpty else {
                        throw ParseError(file: file, line: number, message: "a table with no step above it")
                    }
                    steps[steps.count - 1].table.append(Self.cells(line))
                } else {
                    break
                }
            }
            return steps
        }

        mutating func outline(name: String, tags: Set<String>, line: Int) throws {
            let template = try steps()
            var examplesTags: Set<String> = []
            var expanded = 0
            while let next = peek() {
                if next.hasPrefix("@") {
                    // Tags above an Examples block, or above the next scenario: only Examples takes them here.
                    let saved = index
                    let (tagLine, _) = nextLine()!
                    if let following = peek(),
                        following.hasPrefix("Examples:") || following.hasPrefix("Scenarios:")
                            || following.hasPrefix("@")
                    {
                        examplesTags.formUnion(Self.tags(tagLine))
                        continue
                    }
                    index = saved
                    break
                }
                guard next.hasPrefix("Examples:") || next.hasPrefix("Scenarios:") else { break }
                _ = nextLine()
                var rows: [[String]] = []
                var rowLines: [Int] = []
                while let row = peek(), row.hasPrefix("|") {
                    let (text, number) = nextLine()!
                    rows.append(Self.cells(text))
                    rowLines.append(number)
                }
                guard let header = rows.first else {
                    throw ParseError(file: file, line: line, message: "Examples without a table")
                }
                for (row, rowLine) in zip(rows.dropFirst(), rowLines.dropFirst()) {
                    guard row.count == header.count else {
                        throw ParseError(
                            file: file, line: rowLine, message: "a row of \(row.count) cells under \(header.count)")
                    }
                    let values = Dictionary(zip(header, row), uniquingKeysWith: { first, _ in first })
                    func fill(_ text: String) -> String {
                        var text = text
                        for (name, value) in values { text = text.replacingOccurrences(of: "<\(name)>", with: value) }
                        return text
                    }
                    let steps = template.map {
                        Step(text: fill($0.text), table: $0.table.map { $0.map(fill) }, line: $0.line)
                    }
                    scenarios.append(
                        GherkinScenario(
                            file: file, line: rowLine, name: "\(name) \(row)", tags: tags.union(examplesTags),
                            steps: background + steps))
                    expanded += 1
                }
                examplesTags = []
            }
            if expanded == 0 { throw ParseError(file: file, line: line, message: "an outline with no examples") }
        }

        static func title(_ line: String) -> String {
            guard let colon = line.firstIndex(of: ":") else { return line }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }

        static func tags(_ line: String) -> [String] {
            line.split(separator: " ").filter { $0.hasPrefix("@") }.map(String.init)
        }

        /// The cells of a table row, trimmed (a cell may be empty).
        static func cells(_ line: String) -> [String] {
            var parts = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            parts.removeFirst()
            if parts.last == "" { parts.removeLast() }
            return parts
        }
    }
}

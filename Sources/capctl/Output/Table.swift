import Glibc

/// Aligned columns for people; colour only on a terminal (and never with NO_COLOR set).
struct Table {
    var header: [String]
    var rows: [[String]] = []
    /// The column whose words are coloured by meaning (a status), if any.
    var statusColumn: Int?

    static var usesColour: Bool {
        isatty(STDOUT_FILENO) == 1 && getenv("NO_COLOR") == nil
            && getenv("TERM").map { String(cString: $0) } ?? "dumb" != "dumb"
    }

    func render() -> String {
        let all = [header] + rows.map { $0.map(TerminalText.escaped) }
        let widths = header.indices.map { column in
            all.map { $0.indices.contains(column) ? $0[column].count : 0 }.max() ?? 0
        }
        let colour = Self.usesColour
        return all.enumerated().map { index, row in
            row.enumerated().map { column, cell in
                let padded =
                    column == row.count - 1 ? cell : cell + String(repeating: " ", count: widths[column] - cell.count)
                guard colour, index > 0, column == statusColumn else { return padded }
                return Self.paint(cell) + String(padded.dropFirst(cell.count))
            }.joined(separator: "  ")
        }.joined(separator: "\n")
    }

    private static func paint(_ status: String) -> String {
        let code =
            switch status {
            case "authorized", "holds", "enabled", "passed", "satisfied": "32"
            case "notDetermined", "needsInteraction", "not checked": "33"
            default: "31"
            }
        return "\u{1B}[\(code)m\(status)\u{1B}[0m"
    }
}

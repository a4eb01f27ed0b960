/// Renders status entries as an aligned table or as JSON.
enum StatusRenderer {
    static func table(_ entries: [StatusEntry]) -> String {
        let header = StatusEntry(name: "NAME", kind: "KIND", status: "STATUS", reason: "REASON")
        let rows = [header] + entries
        let nameWidth = rows.map(\.name.count).max() ?? 0
        let kindWidth = rows.map(\.kind.count).max() ?? 0
        let statusWidth = rows.map(\.status.count).max() ?? 0
        return rows.map { row in
            pad(row.name, nameWidth) + "  " + pad(row.kind, kindWidth) + "  " + pad(row.status, statusWidth)
                + "  " + row.reason
        }.joined(separator: "\n")
    }

    static func json(capabilities: [StatusEntry]) -> String {
        let items = capabilities.map { entry in
            "{\"name\":\(quote(entry.name)),\"kind\":\(quote(entry.kind)),"
                + "\"status\":\(quote(entry.status)),\"reason\":\(quote(entry.reason))}"
        }
        return "{\"capabilities\":[" + items.joined(separator: ",") + "],\"flags\":[],\"gates\":[]}"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(0, width - text.count))
    }

    /// A JSON string literal.
    static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20: out += unicodeEscape(c.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    private static func unicodeEscape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
    }
}

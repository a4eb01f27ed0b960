/// Finds YAML anchors (`&a`), aliases (`*a`) and tags (`!t`) before the YAML library sees the
/// text. Composing a document with nested aliases costs time exponential in its size (a few
/// hundred bytes of "billion laughs" take minutes and gigabytes), so they must be refused
/// before composing, not after.
///
/// It reads just enough YAML to know where a node starts (line starts, after `- `, `? `, `: `,
/// and inside flow collections after `[`, `{` and `,`), skipping comments, quoted scalars and
/// block scalars, where these characters are content. It errs on the side of refusing: a plain
/// multi-line scalar whose continuation line starts with one of them is refused too.
enum YAMLExtensionScanner {
    struct Finding {
        var line: Int
        var column: Int
        var what: String
    }

    static func firstExtension(in text: String) -> Finding? {
        var scanner = State()
        for (index, line) in text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            .enumerated()
        {
            if let column = scanner.scan(Array(line)) {
                let byte = Array(line)[column]
                let what =
                    switch byte {
                    case UInt8(ascii: "&"): "YAML anchors are not allowed"
                    case UInt8(ascii: "*"): "YAML aliases are not allowed"
                    default: "YAML tags are not allowed: use plain values"
                    }
                return Finding(line: index + 1, column: column + 1, what: what)
            }
        }
        return nil
    }

    private struct State {
        enum Quote { case none, single, double }
        var quote = Quote.none
        var flowDepth = 0
        /// Inside a block scalar: lines indented deeper than this are its content.
        var blockParentIndent: Int?

        /// The column of the first anchor, alias or tag on this line, or nil.
        mutating func scan(_ line: [UInt8]) -> Int? {
            let space = UInt8(ascii: " ")
            let tab = UInt8(ascii: "\t")
            let indent = line.prefix { $0 == space }.count
            if let parent = blockParentIndent {
                let blank = line.allSatisfy { $0 == space || $0 == tab || $0 == UInt8(ascii: "\r") }
                if blank || indent > parent { return nil }
                blockParentIndent = nil
            }
            var index = quote == .none ? indent : 0
            var atNodeStart = quote == .none
            func isSpace(_ at: Int) -> Bool {
                at >= line.count || line[at] == space || line[at] == tab || line[at] == 13
            }
            while index < line.count {
                let byte = line[index]
                switch quote {
                case .single:
                    if byte == UInt8(ascii: "'") {
                        if index + 1 < line.count, line[index + 1] == UInt8(ascii: "'") {
                            index += 2
                            continue
                        }
                        quote = .none
                    }
                    index += 1
                    continue
                case .double:
                    if byte == UInt8(ascii: "\\") {
                        index += 2
                        continue
                    }
                    if byte == UInt8(ascii: "\"") { quote = .none }
                    index += 1
                    continue
                case .none:
                    break
                }
                if byte == space || byte == tab || byte == 13 {
                    index += 1
                    continue
                }
                if byte == UInt8(ascii: "#"), index == 0 || isSpace(index - 1) { return nil }
                if atNodeStart {
                    switch byte {
                    case UInt8(ascii: "&"), UInt8(ascii: "*"), UInt8(ascii: "!"):
                        return index
                    case UInt8(ascii: "'"):
                        quote = .single
                        atNodeStart = false
                    case UInt8(ascii: "\""):
                        quote = .double
                        atNodeStart = false
                    case UInt8(ascii: "|"), UInt8(ascii: ">"):
                        if flowDepth == 0 {
                            blockParentIndent = indent
                            return nil
                        }
                        atNodeStart = false
                    case UInt8(ascii: "["), UInt8(ascii: "{"):
                        flowDepth += 1
                    case UInt8(ascii: "-"), UInt8(ascii: "?"):
                        // A sequence entry or a complex key when followed by a space; else a plain scalar.
                        atNodeStart = isSpace(index + 1)
                    default:
                        atNodeStart = false
                    }
                    index += 1
                    continue
                }
                switch byte {
                case UInt8(ascii: ":") where isSpace(index + 1) || (flowDepth > 0 && index + 1 < line.count):
                    atNodeStart = true
                case UInt8(ascii: ",") where flowDepth > 0:
                    atNodeStart = true
                case UInt8(ascii: "["), UInt8(ascii: "{"):
                    // Inside a flow collection it opens another; in block context it is scalar text.
                    if flowDepth > 0 {
                        flowDepth += 1
                        atNodeStart = true
                    }
                case UInt8(ascii: "]"), UInt8(ascii: "}"):
                    if flowDepth > 0 { flowDepth -= 1 }
                default:
                    break
                }
                index += 1
            }
            return nil
        }
    }
}

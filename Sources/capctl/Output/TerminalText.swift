import ConfigurationFiles

/// Text from files, names, reasons and the environment, made safe to print for people
/// (``VisibleText``). JSON output escapes on its own and is not passed here.
enum TerminalText {
    /// `text` with every control character written visibly.
    static func escaped(_ text: String) -> String { VisibleText.escaped(text) }

    /// Lines of text, each escaped, then joined: the only newlines printed are capctl's own.
    static func lines(_ lines: [String]) -> String {
        lines.map(escaped).joined(separator: "\n")
    }
}

/// One place flags come from, for a ``FlagStore`` that layers several: a later source's
/// definition of a flag replaces an earlier one's, whatever form either takes.
public enum FlagSource: Sendable {
    /// Flags already read (written inline in a policy file, say).
    case flags(FlagSet)
    /// A flag definition file (`.json`, `.yaml` or `.yml`), read now and kept current.
    case file(String)

    /// The file's path, for a file.
    public var path: String? {
        if case .file(let path) = self { return path }
        return nil
    }
}

extension StringProtocol {
    /// The text without any of `characters` at either end (Foundation's `trimmingCharacters(in:)`,
    /// which the modules capctl links do without).
    package func trimming(_ characters: Set<Character>) -> SubSequence {
        var slice = self[...]
        while let first = slice.first, characters.contains(first) { slice = slice.dropFirst() }
        while let last = slice.last, characters.contains(last) { slice = slice.dropLast() }
        return slice
    }
}

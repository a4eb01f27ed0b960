/// "Did you mean": the known name closest to a misspelt one, for every error that names an
/// unknown key, kind, gate, capability, flag or operator.
package enum NameSuggestion {
    /// The candidate closest to `name`: the same letters in another case, or within a few edits
    /// (a third of the name's length, at most three; a swap of two neighbours counts as one). Nil
    /// when nothing is that close, so an unrelated name is never suggested.
    package static func closest(to name: String, among candidates: some Sequence<String>) -> String? {
        let wanted = Array(name.lowercased().unicodeScalars)
        let limit = min(3, max(1, wanted.count / 3))
        var best: (name: String, distance: Int)?
        for candidate in candidates where candidate != name {
            let distance = editDistance(wanted, Array(candidate.lowercased().unicodeScalars), limit: limit)
            guard distance <= limit else { continue }
            if let current = best, (current.distance, current.name) <= (distance, candidate) { continue }
            best = (candidate, distance)
        }
        return best?.name
    }

    /// `" (did you mean "X"?)"`, or an empty string when no candidate is close.
    package static func didYouMean(_ name: String, among candidates: some Sequence<String>) -> String {
        closest(to: name, among: candidates).map { " (did you mean \"\($0)\"?)" } ?? ""
    }

    /// Optimal string alignment distance, giving up (returning more than `limit`) early.
    private static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar], limit: Int) -> Int {
        if abs(a.count - b.count) > limit { return limit + 1 }
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var beforePrevious = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            var rowMinimum = current[0]
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var value = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    value = min(value, beforePrevious[j - 2] + 1)
                }
                current[j] = value
                rowMinimum = min(rowMinimum, value)
            }
            if rowMinimum > limit { return limit + 1 }
            (beforePrevious, previous, current) = (previous, current, beforePrevious)
        }
        return previous[b.count]
    }
}

/// flagd's `fractional`: deterministic, weighted bucketing of a value into variants.
///
/// The bucketing value is the first argument when it is a string; otherwise the flag key
/// followed by the targeting key. Its MurmurHash3 (x86, 32-bit, seed 0) picks a point in
/// `[0, total weight)`: `hash * total >> 32`. Each variant owns a range as wide as its weight,
/// in order. Weights default to 1. These are flagd's rules, so a user lands in the same
/// bucket here and in flagd.
enum Fractional {
    static func evaluate(_ arguments: [FlagValue], _ scope: TargetingScope) throws(TargetingFailure) -> FlagValue {
        var distributions = arguments[...]
        let bucketBy: String
        if case .string(let value) = distributions.first {
            bucketBy = value
            distributions = distributions.dropFirst()
        } else {
            if distributions.first == .null { distributions = distributions.dropFirst() }
            guard let key = scope.targetingKey else { throw .targetingKeyMissing }
            bucketBy = scope.flagKey + key
        }
        var variants: [(variant: FlagValue, weight: UInt64)] = []
        var total: UInt64 = 0
        for distribution in distributions {
            guard case .list(let entry) = distribution, let variant = entry.first else { return .null }
            switch variant {
            case .string, .bool, .number, .null: break
            default: return .null
            }
            var weight: UInt64 = 1
            if entry.count > 1, entry[1] != .null {
                guard case .number(let number) = entry[1], number >= 0, number.rounded(.towardZero) == number,
                    number <= Double(Int32.max)
                else { return .null }
                weight = UInt64(number)
            }
            total += weight
            variants.append((variant, weight))
        }
        guard total <= UInt64(Int32.max) else { return .null }
        guard total > 0 else { return .string("") }
        let hash = MurmurHash3.hash32(bucketBy.utf8)
        let bucket = (UInt64(hash) &* total) >> 32
        var end: UInt64 = 0
        for (variant, weight) in variants {
            end += weight
            if bucket < end { return variant }
        }
        return .string("")
    }
}

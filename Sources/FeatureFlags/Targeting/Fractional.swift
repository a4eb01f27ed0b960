/// flagd's `fractional`: deterministic, weighted bucketing of a value into variants.
///
/// The bucketing value is the first argument's value, which must be a non-empty string; in the
/// short form (the first argument is already a bucket) it is the flag key followed by the
/// targeting key (empty when the context has none). Its MurmurHash3 (x86, 32-bit, seed 0) picks a
/// point in `[0, total weight)`: `hash * total >> 32`. Each bucket owns a range as wide as its
/// weight, in order. These are flagd's rules, so a user lands in the same bucket here and in flagd.
///
/// A bucket is `[name]` (weight 1) or `[name, weight]`; the name is a string, Boolean, number or
/// null, and either part may be computed by a rule. Negative weights count as 0 and fractions are
/// dropped. Anything flagd cannot bucket (a bucketing value that is missing, empty or not a
/// string, a malformed bucket, weights summing to 0 or past 2^31 - 1) fails, and the whole rule
/// evaluates to null.
enum Fractional {
    static func evaluate(
        seed: TargetingExpression?, buckets: [TargetingExpression], _ scope: TargetingScope
    ) throws(TargetingFailure) -> FlagValue {
        let bucketBy: String
        if let seed {
            guard case .string(let value) = try seed.evaluate(scope), !value.isEmpty else { throw TargetingFailure() }
            bucketBy = value
        } else {
            bucketBy = scope.flagKey + (scope.targetingKey ?? "")
        }
        guard !buckets.isEmpty else { throw TargetingFailure() }
        var names: [FlagValue] = []
        var weights: [UInt64] = []
        names.reserveCapacity(buckets.count)
        weights.reserveCapacity(buckets.count)
        var total: UInt64 = 0
        for bucket in buckets {
            guard case .list(let entry) = try bucket.evaluate(scope), let name = entry.first, entry.count <= 2 else {
                throw TargetingFailure()
            }
            switch name {
            case .string, .bool, .number, .null, .date: break
            case .list, .structure: throw TargetingFailure()
            }
            var weight: UInt64 = 1
            if entry.count == 2 {
                guard case .number(let number) = entry[1], !number.isNaN else { throw TargetingFailure() }
                // Clamped before converting, so a huge weight cannot trap; the sum check refuses it.
                weight = number <= 0 ? 0 : UInt64(Swift.min(number, Double(Int32.max) + 1).rounded(.towardZero))
            }
            total += weight
            guard total <= UInt64(Int32.max) else { throw TargetingFailure() }
            names.append(name)
            weights.append(weight)
        }
        guard total > 0 else { throw TargetingFailure() }
        let point = (UInt64(MurmurHash3.hash32(bucketBy.utf8)) &* total) >> 32
        var end: UInt64 = 0
        for (name, weight) in zip(names, weights) {
            end += weight
            if point < end { return name }
        }
        throw TargetingFailure()  // unreachable: point < total
    }
}

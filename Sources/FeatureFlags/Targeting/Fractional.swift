/// flagd's `fractional`: deterministic, weighted bucketing of a value into variants, as flagd's
/// Go evaluator does it (core/pkg/evaluator/fractional.go).
///
/// The bucketing value is the first argument's value when that is a string (an empty one too). When
/// it is null (an attribute the context lacks), or the first argument is written as a bucket (the
/// short form), it is the flag key followed by the targeting key, and with no targeting key, or an empty
/// one, there is nothing to bucket. Its MurmurHash3 (x86, 32-bit, seed 0) picks a point in
/// `[0, total weight)`: `hash * total >> 32`. Each bucket owns a range as wide as its weight, in
/// order. So a user lands in the same bucket here and in flagd.
///
/// A bucket is `[name]` or `[name, null]` (weight 1) or `[name, weight]`; the name is a string,
/// Boolean, number or null, and either part may be computed by a rule; entries after the weight are
/// not read. Negative weights count as 0. What flagd cannot bucket (a bucketing value of another
/// type, a malformed bucket, a weight with a fraction, weights summing to 0 or past 2^31 - 1) makes
/// the operator null, as flagd's returns nil, and the rule goes on. One deliberate difference: a
/// bucketing value that is a list (an attribute that holds one) is null here, where flagd would take
/// it as a bucket the context wrote into the rule.
///
/// With ``FractionalBucketing/cbor`` the bucketing value may be any value but null, and its
/// canonical CBOR encoding is hashed instead (the short form: `[flag key, targeting key]`), as
/// flagd's Python evaluator 2.0.0 does and flagd-testbed's `@fractional-v3` scenarios publish; the
/// weights and the arithmetic are the same. See Docs/FeatureFlags.md.
enum Fractional {
    static func evaluate(
        seed: TargetingExpression?, buckets: [TargetingExpression], bucketing: FractionalBucketing,
        _ scope: TargetingScope
    ) throws(TargetingFailure) -> FlagValue {
        var entries: [FlagValue] = []
        entries.reserveCapacity(buckets.count)
        var bucketBy: String?
        var encoded: [UInt8]?
        if bucketing == .cbor {
            // Any value but null is bucketed by its canonical encoding; the short form by
            // [flag key, targeting key], which needs a targeting key.
            if let seed {
                let value = try seed.evaluate(scope)
                if value == .null { return .null }
                encoded = CanonicalCBOR.encode(value)
            } else {
                guard let targetingKey = scope.targetingKey, !targetingKey.isEmpty else { return .null }
                encoded = CanonicalCBOR.encode(.list([.string(scope.flagKey), .string(targetingKey)]))
            }
        } else if let seed {
            switch try seed.evaluate(scope) {
            case .string(let value): bucketBy = value
            case .null: break
            // flagd (Go and Python) would take a list here as the first bucket; that lets whoever
            // supplies the context add a bucket of their choosing to the rule. Null instead.
            case .list: return .null
            default: return .null
            }
        }
        if bucketBy == nil, encoded == nil {
            guard let targetingKey = scope.targetingKey, !targetingKey.isEmpty else { return .null }
            bucketBy = scope.flagKey + targetingKey
        }
        for bucket in buckets { entries.append(try bucket.evaluate(scope)) }
        var names: [FlagValue] = []
        var weights: [UInt64] = []
        names.reserveCapacity(entries.count)
        weights.reserveCapacity(entries.count)
        var total: UInt64 = 0
        for entry in entries {
            guard case .list(let parts) = entry, let name = parts.first else { return .null }
            switch name {
            case .string, .bool, .number, .null, .date: break
            case .list, .structure: return .null
            }
            var weight: UInt64 = 1
            if parts.count >= 2 {
                switch parts[1] {
                case .null: break
                case .number(let number):
                    guard number.isFinite, number == number.rounded(.towardZero) else { return .null }
                    guard number <= Double(Int32.max) else { return .null }
                    weight = number <= 0 ? 0 : UInt64(number)
                default: return .null
                }
            }
            total += weight
            guard total <= UInt64(Int32.max) else { return .null }
            names.append(name)
            weights.append(weight)
        }
        guard total > 0 else { return .null }
        let hash: UInt32
        if let encoded {
            hash = MurmurHash3.hash32(encoded)
        } else if let bucketBy {
            hash = MurmurHash3.hash32(bucketBy.utf8)
        } else {
            return .null
        }
        let point = (UInt64(hash) &* total) >> 32
        var end: UInt64 = 0
        for (name, weight) in zip(names, weights) {
            end += weight
            if point < end { return name }
        }
        return .null  // unreachable: point < total
    }
}

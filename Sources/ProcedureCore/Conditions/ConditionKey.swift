/// What a condition is, read where it is added: its type and, when it fits in three words, its
/// bits. Procedures given the same condition value share one list of conditions
/// (``SharedConditionLists``), found by this key.
///
/// It is read in `Procedure.addCondition`'s inlinable body, specialized for the condition's type
/// where it is called: read through the unspecialized generic body instead, the size, the copy of
/// the bits and every call after them went through the type's metadata and witness tables, about
/// half of what adding a condition cost (Docs/Performance.md, "Fifth session").
@usableFromInline
struct ConditionKey: Equatable {
    @usableFromInline let type: ObjectIdentifier
    /// Nil for a condition larger than three words: an existential boxes it, so its bits cannot
    /// be compared, and it is never shared.
    @usableFromInline let bits: (UInt, UInt, UInt)?

    @usableFromInline
    init(type: ObjectIdentifier, bits: (UInt, UInt, UInt)?) {
        (self.type, self.bits) = (type, bits)
    }

    /// The key of `condition`. A function rather than an initializer: its argument is borrowed,
    /// not handed over, so reading a condition's bits retains nothing it refers to.
    @inlinable
    static func of<Condition: ProcedureCondition>(_ condition: Condition) -> ConditionKey {
        guard MemoryLayout<Condition>.size <= 3 * MemoryLayout<UInt>.size else {
            return ConditionKey(type: ObjectIdentifier(Condition.self), bits: nil)
        }
        var bits: (UInt, UInt, UInt) = (0, 0, 0)
        withUnsafeMutableBytes(of: &bits) { target in
            withUnsafeBytes(of: condition) { target.copyMemory(from: $0) }
        }
        return ConditionKey(type: ObjectIdentifier(Condition.self), bits: bits)
    }

    @usableFromInline
    static func == (lhs: ConditionKey, rhs: ConditionKey) -> Bool {
        guard lhs.type == rhs.type, let left = lhs.bits, let right = rhs.bits else { return false }
        return left == right
    }
}

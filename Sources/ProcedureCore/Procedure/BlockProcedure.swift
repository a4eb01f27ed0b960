/// A procedure whose work is a synchronous closure. A thrown error fails it.
///
/// ```swift
/// let backup = BlockProcedure(name: "backup") { try runBackup() }
/// backup.addCondition(AuthorizedFor(admin))
/// queue.addProcedure(backup)
/// ```
public final class BlockProcedure: Procedure, @unchecked Sendable {
    // Guarded by the procedure's own lock (`storage`): no lock of its own, and a concrete type
    // rather than a generic lock's value, which would wrap the closure in an allocated thunk.
    private var block: (@Sendable () throws -> Void)?

    /// Creates a procedure that runs `block` once, when the queue executes it.
    public init(name: String? = nil, _ block: @escaping @Sendable () throws -> Void) {
        self.block = block
        super.init(name: name)
    }

    public override func execute() {
        // Taking the block makes a second call (or a direct call) do nothing.
        let block = storage.withLock { state -> (@Sendable () throws -> Void)? in
            guard state.state == .executing else { return nil }
            defer { self.block = nil }
            return self.block
        }
        guard let block else { return }
        do {
            try block()
            finish()
        } catch {
            finish(with: error)
        }
    }

    override func releaseWorkBody(executed: Bool) {
        // An executed body took the block already.
        if !executed { storage.withLock { _ in block = nil } }
    }
}

import Locking

/// A procedure whose work is a synchronous closure. A thrown error fails it.
public final class BlockProcedure: Procedure, @unchecked Sendable {
    private let block: Lock<(@Sendable () throws -> Void)?>

    /// Creates a procedure that runs `block` once, when the queue executes it.
    public init(name: String? = nil, _ block: @escaping @Sendable () throws -> Void) {
        self.block = Lock(block)
        super.init(name: name)
    }

    public override func execute() {
        // Taking the block makes a second call (or a direct call after finishing) do nothing.
        guard isExecuting, let block = block.withLock({ $0 }) else { return }
        do {
            try block()
            finish()
        } catch {
            finish(with: error)
        }
    }

    override func releaseWorkBody() {
        block.withLock { $0 = nil }
    }
}

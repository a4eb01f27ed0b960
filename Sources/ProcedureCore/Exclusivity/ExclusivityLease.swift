import Locking

/// All the exclusivity locks one procedure needs, taken scope by scope from the outermost in,
/// and released together on every way the procedure ends.
final class ExclusivityLease: Sendable {
    private struct State {
        /// Requests made so far, one per scope, in the order they were made.
        var requests: [(scope: ExclusivityScope, request: ExclusivityRequest)] = []
        var isReleased = false
    }

    /// Categories grouped by the scope that arbitrates them, outermost scope first.
    private let parts: [(scope: ExclusivityScope, categories: [String])]
    private let state = Lock(State())
    private let onGranted: @Sendable (ExclusivityLease) -> Void

    init(categories: [String], scope: ExclusivityScope, onGranted: @escaping @Sendable (ExclusivityLease) -> Void) {
        self.onGranted = onGranted
        var parts: [(scope: ExclusivityScope, categories: [String])] = []
        for category in categories {
            let arbiter = scope.arbiter(for: category)
            if let index = parts.firstIndex(where: { $0.scope === arbiter }) {
                parts[index].categories.append(category)
            } else {
                parts.append((arbiter, [category]))
            }
        }
        self.parts = parts.sorted { $0.scope.depth < $1.scope.depth }
    }

    /// Starts taking the locks; `onGranted` runs once all are held.
    func acquire() {
        requestPart(0)
    }

    /// Gives back every lock held or waited for. Safe to call more than once.
    func release() {
        let requests = state.withLock { state in
            state.isReleased = true
            defer { state.requests = [] }
            return state.requests
        }
        for (scope, request) in requests.reversed() { scope.remove(request) }
    }

    private func requestPart(_ index: Int) {
        var index = index
        while index < parts.count {
            let next = index + 1
            let request = ExclusivityRequest(categories: parts[index].categories) { [self] in
                requestPart(next)
            }
            let scope = parts[index].scope
            // Requesting under the lease's lock means release() sees every request it must withdraw.
            let grantedNow = state.withLock { state -> Bool? in
                guard !state.isReleased else { return nil }
                state.requests.append((scope, request))
                return scope.enqueue(request)
            }
            guard let grantedNow else { return }
            guard grantedNow else { return }
            index = next
        }
        let released = state.withLock { $0.isReleased }
        if !released { onGranted(self) }
    }
}

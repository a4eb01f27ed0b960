import DequeModule
import Locking

/// Arbitrates exclusivity categories: a request is granted when it is first in line for every
/// category it names, so all of a procedure's categories are taken at once, in FIFO order.
///
/// The root scope is shared by every queue in the process. A group (or retry) that holds
/// categories gives its inner queue a nested scope that arbitrates those categories among its
/// children, so a child asking for its parent's category waits for its siblings, not for the
/// parent that contains it.
final class ExclusivityScope: Sendable {
    /// The process-wide scope. It holds no state while no procedure asks for a category.
    static let root = ExclusivityScope(parent: nil, heldCategories: [])

    let parent: ExclusivityScope?
    /// The categories this scope arbitrates; the root arbitrates every other one.
    let heldCategories: Set<String>
    /// Distance from the root: leases take outer scopes first, which keeps scopes deadlock-free.
    let depth: Int

    fileprivate struct Table {
        var lines: [String: Deque<ExclusivityRequest>] = [:]
        var granted: Set<ObjectIdentifier> = []
    }

    private let table = Lock(Table())

    private init(parent: ExclusivityScope?, heldCategories: Set<String>) {
        self.parent = parent
        self.heldCategories = heldCategories
        depth = (parent?.depth ?? -1) + 1
    }

    /// A scope for the inner queue of a procedure that holds `categories`.
    func nested(holding categories: [String]) -> ExclusivityScope {
        categories.isEmpty ? self : ExclusivityScope(parent: self, heldCategories: Set(categories))
    }

    /// The scope that arbitrates `category` for procedures in this scope.
    func arbiter(for category: String) -> ExclusivityScope {
        var scope = self
        while !scope.heldCategories.contains(category), let parent = scope.parent { scope = parent }
        return scope
    }

    /// Queues a request. Returns true if it is granted at once; otherwise its `onGranted` runs later.
    func enqueue(_ request: ExclusivityRequest) -> Bool {
        table.withLock { table in
            for category in request.categories { table.lines[category, default: []].append(request) }
            guard table.isFirstInEveryLine(request) else { return false }
            table.granted.insert(ObjectIdentifier(request))
            return true
        }
    }

    /// Takes a request out of line, granted or waiting, and grants whoever is now first everywhere.
    func remove(_ request: ExclusivityRequest) {
        let granted = table.withLock { table -> [ExclusivityRequest] in
            table.granted.remove(ObjectIdentifier(request))
            var candidates: [ExclusivityRequest] = []
            for category in request.categories {
                guard var line = table.lines[category],
                    let index = line.firstIndex(where: { $0 === request })
                else { continue }
                line.remove(at: index)
                if let first = line.first { candidates.append(first) }
                table.lines[category] = line.isEmpty ? nil : line
            }
            var granted: [ExclusivityRequest] = []
            for candidate in candidates
            where !table.granted.contains(ObjectIdentifier(candidate)) && table.isFirstInEveryLine(candidate) {
                table.granted.insert(ObjectIdentifier(candidate))
                granted.append(candidate)
            }
            return granted
        }
        for request in granted { request.onGranted() }
    }
}

extension ExclusivityScope.Table {
    fileprivate func isFirstInEveryLine(_ request: ExclusivityRequest) -> Bool {
        request.categories.allSatisfy { lines[$0]?.first === request }
    }
}

/// One scope's part of a lease.
final class ExclusivityRequest: Sendable {
    let categories: [String]
    let onGranted: @Sendable () -> Void

    init(categories: [String], onGranted: @escaping @Sendable () -> Void) {
        self.categories = categories
        self.onGranted = onGranted
    }
}

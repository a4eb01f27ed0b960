/// A list of procedures that holds a single one without allocating: most procedures have at
/// most one dependency and one dependent, and chains of them are the common shape.
struct ProcedureList: RandomAccessCollection {
    private enum Contents {
        case empty
        case one(Procedure)
        case many([Procedure])
    }

    private var contents = Contents.empty

    init() {}

    var startIndex: Int { 0 }

    var endIndex: Int {
        switch contents {
        case .empty: 0
        case .one: 1
        case .many(let all): all.count
        }
    }

    subscript(position: Int) -> Procedure {
        switch contents {
        case .empty: preconditionFailure("index out of range")
        case .one(let only): only
        case .many(let all): all[position]
        }
    }

    /// The procedures as an array (allocates for more than none).
    var array: [Procedure] {
        switch contents {
        case .empty: []
        case .one(let only): [only]
        case .many(let all): all
        }
    }

    /// Whether `procedure` itself (by identity) is in the list.
    func contains(_ procedure: Procedure) -> Bool {
        contains { $0 === procedure }
    }

    mutating func append(_ procedure: Procedure) {
        switch contents {
        case .empty:
            contents = .one(procedure)
        case .one(let only):
            contents = .many([only, procedure])
        case .many(var all):
            contents = .empty
            all.append(procedure)
            contents = .many(all)
        }
    }

    /// Removes the first occurrence of `procedure`. Returns whether it was there.
    mutating func remove(_ procedure: Procedure) -> Bool {
        guard let index = firstIndex(where: { $0 === procedure }) else { return false }
        var all = array
        contents = .empty
        all.remove(at: index)
        switch all.count {
        case 0: contents = .empty
        case 1: contents = .one(all[0])
        default: contents = .many(all)
        }
        return true
    }
}

/// How far a procedure's work has come: units completed of a total, and what it is doing.
///
/// A procedure reports its own (``Procedure/reportProgress(completed:of:detail:)``); a group's is
/// its children's added up, and a retry's is its current attempt's. Units are whatever the work
/// counts (bytes, rows, files); a total of `nil` means it is not known yet.
///
/// ```swift
/// let progress = ProcedureProgress(completed: 512, of: 2048, detail: "downloading catalog.gz")
/// print(progress.fractionCompleted ?? 0)   // 0.25
/// print(progress)                          // 512 of 2048 (25%): downloading catalog.gz
/// ```
public struct ProcedureProgress: Sendable, Hashable {
    /// The units done, never more than ``totalUnitCount`` when that is known.
    public let completedUnitCount: Int64
    /// The units in all, or `nil` while unknown (the fraction is then unknown too).
    public let totalUnitCount: Int64?
    /// What the work is doing, for people ("downloading catalog.gz"), or `nil`.
    public var detail: String?
    /// The share done, from 0 to 1, or `nil` when the total is unknown. For a group, partly done
    /// children count with their own fraction, so this moves between two children finishing.
    public let fractionCompleted: Double?

    /// Progress of `completed` units out of `total`.
    ///
    /// Out-of-range counts are brought into range rather than refused, since they come from
    /// arithmetic on sizes a server or a file announced: a negative count is 0, a negative total
    /// is unknown, and a count above the total is the total. A total of 0 is complete.
    /// - Parameters:
    ///   - completed: The units done.
    ///   - total: The units in all, or `nil` while unknown.
    ///   - detail: What the work is doing, for people.
    public init(completed: Int64, of total: Int64?, detail: String? = nil) {
        let total = total.flatMap { $0 >= 0 ? $0 : nil }
        let completed = min(max(0, completed), total ?? .max)
        self.init(
            completed: completed, total: total, detail: detail,
            fraction: total.map { $0 == 0 ? 1 : Double(completed) / Double($0) })
    }

    /// A group's progress: the fraction counts partly done children, which units alone cannot.
    init(completed: Int64, total: Int64?, detail: String?, fraction: Double?) {
        completedUnitCount = completed
        totalUnitCount = total
        self.detail = detail
        fractionCompleted = fraction.map { min(1, max(0, $0)) }
    }

    /// Nothing reported yet: no units done of an unknown total.
    public static let notStarted = ProcedureProgress(completed: 0, of: nil)

    /// Whether the work is known to be done (the fraction is 1).
    public var isComplete: Bool { fractionCompleted == 1 }

    /// The same progress, complete: the count reaches the total (1 of 1 when none was known).
    var completing: ProcedureProgress {
        if isComplete { return self }
        let total = totalUnitCount ?? max(1, completedUnitCount)
        return ProcedureProgress(completed: total, total: total, detail: detail, fraction: 1)
    }
}

extension ProcedureProgress: CustomStringConvertible {
    /// For logs: "512 of 2048 (25%): downloading catalog.gz", "3 of unknown".
    public var description: String {
        let total = totalUnitCount.map(String.init) ?? "unknown"
        let percent = fractionCompleted.map { " (\(Int(($0 * 100).rounded(.down)))%)" } ?? ""
        return "\(completedUnitCount) of \(total)\(percent)" + (detail.map { ": \($0)" } ?? "")
    }
}

public import ProcedureCore

/// Draws a procedure's progress as one line on a terminal, redrawn in place:
/// `[##########----------]  50%  64.0 KiB of 128.0 KiB  downloading db.sqlite.gz`.
///
/// ```swift
/// var bar = TerminalProgressBar()
/// for await progress in download.progressUpdates {
///     if let line = bar.line(for: progress) { FileHandle.standardError.write(Data(line.utf8)) }
/// }
/// ```
public struct TerminalProgressBar: Sendable {
    private let width: Int
    private var last: String?

    /// A bar of `width` cells (at least 1).
    public init(width: Int = 20) { self.width = max(1, width) }

    /// The text that redraws the line for `progress` (a carriage return, the line, an erase to
    /// the end of the line), or nil when nothing was reported yet or it would look the same as
    /// the last line: a bar moves a percent at a time, not a chunk at a time.
    public mutating func line(for progress: ProcedureProgress) -> String? {
        guard progress.totalUnitCount != nil || progress.completedUnitCount > 0 else { return nil }
        // What must change for a redraw: the percent (or, with no total, the byte count) and the detail.
        let key =
            (progress.fractionCompleted.map { "\(Int($0 * 100))%" } ?? "\(progress.completedUnitCount)")
            + (progress.detail ?? "")
        guard key != last else { return nil }
        last = key
        return "\r" + Self.render(progress, width: width) + "\u{1B}[K"
    }

    static func render(_ progress: ProcedureProgress, width: Int) -> String {
        let detail = progress.detail.map { "  " + $0 } ?? ""
        guard let fraction = progress.fractionCompleted, let total = progress.totalUnitCount else {
            return Self.bytes(progress.completedUnitCount) + detail
        }
        let filled = min(width, Int(fraction * Double(width)))
        let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
        let percent = String(Int(fraction * 100))
        let padded = String(repeating: " ", count: max(0, 3 - percent.count)) + percent
        return "[\(bar)] \(padded)%  \(Self.bytes(progress.completedUnitCount)) of \(Self.bytes(total))\(detail)"
    }

    /// A byte count for people, with one decimal above a KiB: "512 B", "64.0 KiB", "1.5 MiB".
    public static func bytes(_ count: Int64) -> String {
        let units = ["KiB", "MiB", "GiB", "TiB", "PiB", "EiB"]
        guard count >= 1024 else { return "\(count) B" }
        var value = Double(count) / 1024
        var unit = 0
        while value >= 1024, unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        let tenths = Int((value * 10).rounded(.down))
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }
}

/// A group's progress, its children's added up, as Foundation's `Progress` adds up child
/// progress: every child counts one unit, done when it finishes (whatever its outcome, since
/// no work is left), and a running child that reported adds its own fraction of its unit.
struct GroupProgress {
    /// The fraction each running child reported last.
    private var running: [ObjectIdentifier: Double] = [:]
    /// The sum of `running`'s values, kept so a report costs the same for any number of children.
    private var runningSum = 0.0
    private var finished: Int64 = 0
    private var detail: String?

    /// The progress of a group with `children` children.
    func value(children: Int) -> ProcedureProgress {
        let total = Int64(children)
        let fraction = total == 0 ? 1 : (Double(finished) + runningSum) / Double(total)
        return ProcedureProgress(completed: finished, total: total, detail: detail, fraction: fraction)
    }

    /// A running child reported; its detail becomes the group's.
    mutating func child(_ child: ObjectIdentifier, reported progress: ProcedureProgress) {
        let fraction = progress.fractionCompleted ?? 0
        runningSum += fraction - (running.updateValue(fraction, forKey: child) ?? 0)
        if let detail = progress.detail { self.detail = detail }
    }

    /// A child finished: its whole unit is done.
    mutating func childFinished(_ child: ObjectIdentifier) {
        runningSum -= running.removeValue(forKey: child) ?? 0
        // Recomputed when nothing runs, so rounding never leaves a finished group short of 1.
        if running.isEmpty { runningSum = 0 }
        finished += 1
    }
}

import Locking
import TestSupport
import Testing

@testable import ProcedureCore

/// Progress: a procedure's own reports, a group's children added up, a retry's current attempt,
/// a batch's finished elements, and the observers and `AsyncSequence` that see them.
@Suite(.timeLimit(.minutes(2)))
struct ProcedureProgressTests {
    /// Every progress a procedure reported to an observer, in order.
    final class Reports: Sendable {
        private let list = Lock<[ProcedureProgress]>([])
        var all: [ProcedureProgress] { list.withLock { $0 } }
        func observe(_ procedure: Procedure) {
            procedure.addProgressBlockObserver { _, progress in self.list.withLock { $0.append(progress) } }
        }
    }

    static func close(_ fraction: Double?, _ expected: Double) -> Bool {
        guard let fraction else { return false }
        return abs(fraction - expected) < 1e-9
    }

    @Test("counts out of range are brought into range, and a total of 0 is complete")
    func valueRanges() {
        let over = ProcedureProgress(completed: 12, of: 10)
        #expect(over.completedUnitCount == 10 && over.isComplete)
        let negative = ProcedureProgress(completed: -5, of: 10)
        #expect(negative.completedUnitCount == 0 && negative.fractionCompleted == 0)
        let unknown = ProcedureProgress(completed: 7, of: -1)
        #expect(unknown.totalUnitCount == nil && unknown.fractionCompleted == nil && unknown.completedUnitCount == 7)
        #expect(ProcedureProgress(completed: 0, of: 0).isComplete)
        let huge = ProcedureProgress(completed: .max, of: .max)
        #expect(huge.isComplete)
        #expect(
            "\(ProcedureProgress(completed: 512, of: 2048, detail: "downloading"))" == "512 of 2048 (25%): downloading")
        #expect("\(ProcedureProgress(completed: 3, of: nil))" == "3 of unknown")
    }

    @Test("a procedure's reports reach its observers in order; finishing well makes it complete")
    func ownReports() async {
        let procedure = ManualProcedure(name: "copy")
        let reports = Reports()
        reports.observe(procedure)
        #expect(procedure.progress == .notStarted)
        ProcedureQueue().addProcedure(procedure)
        await procedure.started.wait()
        procedure.reportProgress(completed: 1, of: 4, detail: "first")
        procedure.reportProgress(completed: 3, of: 4, detail: "third")
        #expect(procedure.progress == ProcedureProgress(completed: 3, of: 4, detail: "third"))
        procedure.finish()
        await procedure.waitUntilFinished()
        #expect(reports.all.map(\.completedUnitCount) == [1, 3])
        #expect(procedure.progress == ProcedureProgress(completed: 4, of: 4, detail: "third"))
        // A report after finishing is dropped: nobody hears it and the value stays.
        procedure.reportProgress(completed: 1, of: 4)
        #expect(reports.all.count == 2)
        #expect(procedure.progress.isComplete)
    }

    @Test("a failed or cancelled procedure's progress stays where the work stopped")
    func stoppedWork() async {
        let failed = ManualProcedure(name: "failed")
        ProcedureQueue().addProcedure(failed)
        await failed.started.wait()
        failed.reportProgress(completed: 2, of: 8)
        failed.finish(with: TestError("disk full"))
        await failed.waitUntilFinished()
        #expect(failed.progress == ProcedureProgress(completed: 2, of: 8))

        let cancelled = ManualProcedure(name: "cancelled")
        ProcedureQueue().addProcedure(cancelled)
        await cancelled.started.wait()
        cancelled.reportProgress(completed: 5, of: 8)
        cancelled.cancel()
        cancelled.finish()
        await cancelled.waitUntilFinished()
        #expect(cancelled.progress == ProcedureProgress(completed: 5, of: 8))

        let silent = BlockProcedure {}
        await run(silent)
        #expect(silent.progress == ProcedureProgress(completed: 1, of: 1), "done, though it never reported")
    }

    @Test("a group of three children adds their progress up, and its observers see each step")
    func groupAddsUp() async {
        let started = StartedProcedures<Int>()
        let children = (1...3).map { ManualResultProcedure<Int>(name: "child \($0)", started: started) }
        let group = GroupProcedure(name: "three", children: children)
        let reports = Reports()
        reports.observe(group)
        ProcedureQueue().addProcedure(group)
        _ = await started.waitFor(3)
        #expect(group.progress == ProcedureProgress(completed: 0, of: 3))

        children[0].reportProgress(completed: 1, of: 2, detail: "one half")
        #expect(Self.close(group.progress.fractionCompleted, 0.5 / 3))
        #expect(group.progress.detail == "one half")
        children[1].reportProgress(completed: 1, of: 4)
        #expect(Self.close(group.progress.fractionCompleted, 0.75 / 3))
        #expect(group.progress.detail == "one half", "a child without a detail keeps the last one")
        children[0].finish(returning: 1)
        #expect(group.progress.completedUnitCount == 1)
        #expect(Self.close(group.progress.fractionCompleted, 1.25 / 3))
        children[1].reportProgress(completed: 3, of: 4, detail: "two")
        #expect(Self.close(group.progress.fractionCompleted, 1.75 / 3))
        // A child with an unknown total adds nothing until it finishes.
        children[2].reportProgress(completed: 40, of: nil)
        #expect(Self.close(group.progress.fractionCompleted, 1.75 / 3))
        children[1].finish(returning: 2)
        children[2].finish(returning: 3)
        await group.waitUntilFinished()

        #expect(group.progress.isComplete)
        #expect(group.progress.completedUnitCount == 3 && group.progress.totalUnitCount == 3)
        let fractions = reports.all.compactMap(\.fractionCompleted)
        #expect(fractions.count == reports.all.count)
        #expect(fractions == fractions.sorted(), "each step moved forward: \(fractions)")
        #expect(reports.all.last == ProcedureProgress(completed: 3, of: 3, detail: "two"))
    }

    @Test("a nested group passes its children's progress up, and a late child grows the total")
    func nestedAndLateChildren() async {
        let started = StartedProcedures<Int>()
        let inner = GroupProcedure(
            name: "inner",
            children: [
                ManualResultProcedure<Int>(name: "a", started: started),
                ManualResultProcedure<Int>(name: "b", started: started),
            ])
        let outer = GroupProcedure(name: "outer", children: [inner])
        ProcedureQueue().addProcedure(outer)
        let running = await started.waitFor(2)
        running[0].reportProgress(completed: 1, of: 2)
        // Inner: (0.5 + 0) / 2 = 0.25; outer, its one child at 0.25.
        #expect(Self.close(inner.progress.fractionCompleted, 0.25))
        #expect(Self.close(outer.progress.fractionCompleted, 0.25))
        inner.addChild(ManualResultProcedure<Int>(name: "c", started: started))
        #expect(inner.progress.totalUnitCount == 3)
        #expect(Self.close(outer.progress.fractionCompleted, 0.5 / 3))
        let all = await started.waitFor(3)
        for procedure in all { procedure.finish(returning: 0) }
        await outer.waitUntilFinished()
        #expect(outer.progress.isComplete && inner.progress.isComplete)
    }

    @Test("a retry shows its current attempt's progress, starting again with each attempt")
    func retryFollowsAttempt() async throws {
        let reports = Reports()
        let retry = RetryProcedure<Int>(name: "fetch", maxAttempts: 2) { attempt in
            AsyncProcedure(name: "attempt \(attempt)") { progress in
                progress.report(completed: attempt == 1 ? 3 : 1, of: 4, detail: "attempt \(attempt)")
                if attempt == 1 { throw TestError("dropped") }
                return attempt
            }
        }
        reports.observe(retry)
        ProcedureQueue().addProcedure(retry)
        #expect(try await retry.value() == 2)
        #expect(reports.all.map(\.detail) == ["attempt 1", "attempt 2"])
        #expect(reports.all.map(\.completedUnitCount) == [3, 1], "the second attempt starts again from its own start")
        #expect(retry.progress == ProcedureProgress(completed: 4, of: 4, detail: "attempt 2"))
    }

    @Test("a batch counts its elements finished, of all of them")
    func batchCountsElements() async throws {
        let reports = Reports()
        let batch = BatchProcedure(name: "squares", elements: Array(1...6), width: 2) { element in
            TransformProcedure(input: element) { $0 * $0 }
        }
        reports.observe(batch)
        ProcedureQueue().addProcedure(batch)
        #expect(try await batch.value() == [1, 4, 9, 16, 25, 36])
        #expect(reports.all.map(\.completedUnitCount).sorted() == [0, 1, 2, 3, 4, 5, 6])
        #expect(reports.all.allSatisfy { $0.totalUnitCount == 6 })
        #expect(batch.progress.isComplete)
    }

    @Test("progressUpdates starts with the current value, ends with the final one, then ends")
    func asyncSequence() async {
        let procedure = ManualProcedure(name: "stream")
        var updates = procedure.progressUpdates.makeAsyncIterator()
        #expect(await updates.next() == .notStarted)
        ProcedureQueue().addProcedure(procedure)
        await procedure.started.wait()
        for step in 1...5 { procedure.reportProgress(completed: Int64(step), of: 10) }
        procedure.finish()
        var seen: [ProcedureProgress] = []
        while let progress = await updates.next() { seen.append(progress) }
        #expect(seen.last == ProcedureProgress(completed: 10, of: 10))
        let counts = seen.map(\.completedUnitCount)
        #expect(counts == counts.sorted(), "newest only, never an older value after a newer: \(counts)")

        // Of a finished procedure: its final value, and the end.
        var after: [ProcedureProgress] = []
        for await progress in procedure.progressUpdates { after.append(progress) }
        #expect(after.last == ProcedureProgress(completed: 10, of: 10))
        #expect(!after.isEmpty && after.count <= 2)
    }
}

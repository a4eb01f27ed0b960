import Dispatch
import Foundation
import HeapUsage
import TestSupport
import Testing

@testable import ProcedureCore

/// The reliability suite's stress test: many procedures with random dependencies, conditions,
/// cancellations, timeouts and exclusivity categories, on several queues (one for blocking work).
///
/// `STRESS_PROCEDURES=1000000 swift test --filter StressTests` is the soak mode: one run of that
/// many procedures instead of three runs of 300,000 (Docs/Reliability.md).
// Serialized: the heap check needs the runs one after another.
@Suite(.serialized, .timeLimit(.minutes(20)))
struct StressTests {
    static let soakCount = ProcessInfo.processInfo.environment["STRESS_PROCEDURES"].flatMap { Int($0) }
    static let seeds: [UInt64] = soakCount == nil ? [0x5EED_0001, 0x5EED_0002, 0x5EED_0003] : [0x5EED_50A4]

    @Test(
        "300,000 procedures (or STRESS_PROCEDURES): each finishes once, categories never overlap, nothing deadlocks, all are released, the heap returns",
        arguments: seeds)
    func stress(seed: UInt64) async {
        let heapBefore = heap_usage_in_use_bytes()
        await run(seed: seed, total: Self.soakCount ?? 300_000)
        // Everything the run made is gone: a leak of even a small part of the procedures shows
        // (each holds at least 150 bytes); the slack covers allocator and runtime caches.
        // Alone (the soak mode), 8 MiB; beside the other suites, whose allocations come and go, 32 MiB.
        let slack = Self.soakCount == nil ? 32 << 20 : 8 << 20
        // The heap is the process's: the other suites' allocations come and go around the run, so
        // the lowest of a few readings counts (a leak of this run stays in every one of them).
        var heapAfter = heap_usage_in_use_bytes()
        for _ in 0..<200 where heapAfter >= heapBefore + slack {
            await Task.yield()
            heapAfter = min(heapAfter, heap_usage_in_use_bytes())
        }
        #expect(heapAfter < heapBefore + slack, "heap grew from \(heapBefore) to \(heapAfter) bytes")
    }

    private func run(seed: UInt64, total: Int) async {
        let categoryCount = 8
        let released = Counter()
        let finishCounts = (0..<total).map { _ in Counter() }
        let running = (0..<categoryCount).map { _ in Counter() }
        let overlaps = Counter()
        let executed = Counter()
        let releasedAll = Latch()
        let queues = [
            ProcedureQueue(), ProcedureQueue(maxConcurrentCount: 3), ProcedureQueue(maxConcurrentCount: 1),
            ProcedureQueue(maxConcurrentCount: 4, workload: .blocking),
        ]
        let failing = BlockCondition(name: "failing") { _ in false }
        let passing = BlockCondition(name: "passing") { _ in true }

        do {
            // Made and added on a Dispatch thread, not in the test's task: a loop of this size
            // would hold one of the cooperative pool's few threads for seconds (minutes under
            // Thread Sanitizer), and the other suites' tasks would starve meanwhile.
            let procedures = await offCooperativePool { () -> [StressProcedure] in
                var generator = SplitMix(seed: seed)
                var procedures: [StressProcedure] = []
                procedures.reserveCapacity(total)
                for index in 0..<total {
                    let category = Int.random(in: 0..<(categoryCount * 4), using: &generator)
                    let procedure = StressProcedure(
                        category: category < categoryCount ? category : nil, running: running, overlaps: overlaps,
                        executed: executed, released: released, allReleased: (total, releasedAll),
                        finishesLater: Int.random(in: 0..<50, using: &generator) == 0)
                    // Some race a timeout (zero or a few microseconds) against their own finish.
                    if Int.random(in: 0..<50, using: &generator) == 0 {
                        let limit = Duration.microseconds(Int.random(in: 0...50, using: &generator))
                        procedure.addObserver(TimeoutObserver(limit: limit))
                    }
                    if let category = procedure.category {
                        procedure.addExclusivityCategory("stress-\(seed)-\(category)")
                    }
                    for _ in 0..<Int.random(in: 0...2, using: &generator) where index > 0 {
                        let lower = max(0, index - 1_000)
                        procedure.addDependency(procedures[Int.random(in: lower..<index, using: &generator)])
                    }
                    switch Int.random(in: 0..<10, using: &generator) {
                    case 0: procedure.addCondition(failing)
                    case 1, 2: procedure.addCondition(passing)
                    default: break
                    }
                    procedure.addObserver(
                        BlockObserver(didFinish: { _, _ in
                            finishCounts[index].increment()
                        }))
                    procedures.append(procedure)
                }
                var cancelled: [StressProcedure] = []
                for (index, procedure) in procedures.enumerated() {
                    queues[index % queues.count].addProcedure(procedure)
                    if Int.random(in: 0..<20, using: &generator) == 0 { cancelled.append(procedure) }
                    if index % 997 == 0, let victim = cancelled.popLast() { victim.cancel() }
                }
                for procedure in cancelled { procedure.cancel() }
                return procedures
            }
            for queue in queues { await queue.waitUntilAllFinished() }
            #expect(procedures.allSatisfy { $0.isFinished })
        }
        #expect(finishCounts.allSatisfy { $0.count == 1 })
        #expect(overlaps.count == 0)
        #expect(executed.count > total / 2)
        // A worker may hold the last procedure it ran a moment after its queue reports it finished.
        await releasedAll.wait()
        #expect(released.count == total)
    }
}

final class StressProcedure: Procedure, @unchecked Sendable {
    let category: Int?
    private let running: [Counter]
    private let overlaps: Counter
    private let executed: Counter
    private let released: Counter
    private let allReleased: (count: Int, latch: Latch)
    private let finishesLater: Bool

    init(
        category: Int?, running: [Counter], overlaps: Counter, executed: Counter, released: Counter,
        allReleased: (count: Int, latch: Latch), finishesLater: Bool
    ) {
        self.finishesLater = finishesLater
        self.category = category
        self.running = running
        self.overlaps = overlaps
        self.executed = executed
        self.released = released
        self.allReleased = allReleased
        super.init()
    }

    override func execute() {
        executed.increment()
        if let category {
            if running[category].increment() > 1 { overlaps.increment() }
            running[category].decrement()
        }
        if finishesLater {
            DispatchQueue.global().async { self.finish() }
        } else {
            finish()
        }
    }

    deinit {
        if released.increment() == allReleased.count { allReleased.latch.open() }
    }
}

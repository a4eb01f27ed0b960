import TestSupport
import Testing

@testable import ProcedureCore

/// The reliability suite's stress test: many procedures with random dependencies, conditions,
/// cancellations and exclusivity categories, on several queues.
@Suite(.timeLimit(.minutes(5)))
struct StressTests {
    /// A small deterministic generator, so a failure can be replayed from its seed.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    @Test(
        "300,000 procedures: each finishes once, categories never overlap, nothing deadlocks, all are released",
        arguments: [UInt64(0x5EED_0001), 0x5EED_0002, 0x5EED_0003])
    func stress(seed: UInt64) async {
        let total = 300_000
        let categoryCount = 8
        var generator = SplitMix(state: seed)
        let released = Counter()
        let finishCounts = (0..<total).map { _ in Counter() }
        let running = (0..<categoryCount).map { _ in Counter() }
        let overlaps = Counter()
        let executed = Counter()
        let releasedAll = Latch()
        let queues = [ProcedureQueue(), ProcedureQueue(maxConcurrentCount: 3), ProcedureQueue(maxConcurrentCount: 1)]
        let failing = BlockCondition(name: "failing") { _ in false }
        let passing = BlockCondition(name: "passing") { _ in true }

        do {
            var procedures: [StressProcedure] = []
            procedures.reserveCapacity(total)
            for index in 0..<total {
                let category = Int.random(in: 0..<(categoryCount * 4), using: &generator)
                let procedure = StressProcedure(
                    category: category < categoryCount ? category : nil, running: running, overlaps: overlaps,
                    executed: executed, released: released, allReleased: (total, releasedAll))
                if let category = procedure.category { procedure.addExclusivityCategory("stress-\(seed)-\(category)") }
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

    init(
        category: Int?, running: [Counter], overlaps: Counter, executed: Counter, released: Counter,
        allReleased: (count: Int, latch: Latch)
    ) {
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
        finish()
    }

    deinit {
        if released.increment() == allReleased.count { allReleased.latch.open() }
    }
}

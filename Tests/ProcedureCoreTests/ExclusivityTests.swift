import TestSupport
import Testing

@testable import ProcedureCore

/// Semantics rules 26 and 27: mutual exclusivity.
@Suite(.timeLimit(.minutes(2)))
struct ExclusivityTests {
    @Test("26: procedures sharing a category never overlap across queues, and run in FIFO order")
    func neverOverlapAndFIFO() async {
        let category = "printer-\(#line)"
        let running = Counter()
        let overlaps = Counter()
        let order = EventLog()
        let queues = [ProcedureQueue(), ProcedureQueue()]
        var all: [Procedure] = []
        for index in 0..<200 {
            let procedure = BlockProcedure(name: "\(index)") {
                if running.increment() > 1 { overlaps.increment() }
                order.record("\(index)")
                running.decrement()
            }
            procedure.addExclusivityCategory(category)
            all.append(procedure)
        }
        for (index, procedure) in all.enumerated() { queues[index % 2].addProcedure(procedure) }
        for queue in queues { await queue.waitUntilAllFinished() }
        #expect(overlaps.count == 0)
        #expect(order.all == (0..<200).map(String.init))
    }

    @Test("26: a type as the category (MutuallyExclusive<Alert>): same type excludes, another type does not")
    func typedCategories() async {
        enum Alert {}
        enum Sound {}
        let running = Counter()
        let overlaps = Counter()
        let queue = ProcedureQueue()
        var alerts: [Procedure] = []
        for index in 0..<50 {
            let procedure = BlockProcedure(name: "alert \(index)") {
                if running.increment() > 1 { overlaps.increment() }
                running.decrement()
            }
            procedure.addExclusivityCategory(Alert.self)
            alerts.append(procedure)
        }
        #expect(alerts[0].exclusivityCategories == [Procedure.exclusivityCategory(for: Alert.self)])
        #expect(Procedure.exclusivityCategory(for: Alert.self) != Procedure.exclusivityCategory(for: Sound.self))
        #expect(Procedure.exclusivityCategory(for: Alert.self).hasPrefix("type:ProcedureCoreTests."))
        // A Sound procedure waits for no alert: it runs while the first alert is still running.
        let alertStarted = Latch()
        let soundRan = Latch()
        let first = AsyncProcedure(name: "first alert") {
            alertStarted.open()
            await soundRan.wait()
        }
        first.addExclusivityCategory(Alert.self)
        let sound = BlockProcedure(name: "sound") { soundRan.open() }
        sound.addExclusivityCategory(Sound.self)
        queue.addProcedure(first)
        await alertStarted.wait()
        queue.addProcedure(sound)
        queue.addProcedures(alerts)
        await queue.waitUntilAllFinished()
        #expect(overlaps.count == 0)
        #expect(first.error == nil && sound.error == nil)
    }

    @Test("26: all categories are taken at once, and released when a procedure fails or is cancelled")
    func releasedOnEveryEnding() async {
        let a = "a-\(#line)"
        let b = "b-\(#line)"
        let holder = ManualProcedure(name: "holder")
        holder.addExclusivityCategory(a)
        holder.addExclusivityCategory(b)
        let waitingForBoth = BlockProcedure(name: "both") {}
        waitingForBoth.addExclusivityCategory(b)
        waitingForBoth.addExclusivityCategory(a)
        let failing = BlockProcedure(name: "failing") { throw TestError() }
        failing.addExclusivityCategory(a)
        let last = BlockProcedure(name: "last") {}
        last.addExclusivityCategory(a)
        last.addExclusivityCategory(b)
        let queue = ProcedureQueue()
        queue.addProcedure(holder)
        await holder.started.wait()
        queue.addProcedures([waitingForBoth, failing, last])
        #expect(waitingForBoth.state == .waitingForExclusivity)
        waitingForBoth.cancel()
        await waitingForBoth.waitUntilFinished()
        holder.finish()
        await queue.waitUntilAllFinished()
        #expect(failing.error != nil)
        #expect(last.isFinished && last.error == nil)
    }

    @Test("27: a group holding a category does not deadlock with a child asking for it; siblings still exclude")
    func nestedExclusivity() async {
        let category = "database-\(#line)"
        let running = Counter()
        let overlaps = Counter()
        let children = (0..<20).map { index in
            let child = BlockProcedure(name: "child\(index)") {
                if running.increment() > 1 { overlaps.increment() }
                running.decrement()
            }
            child.addExclusivityCategory(category)
            return child
        }
        let inner = GroupProcedure(name: "inner", children: [children[0]])
        inner.addExclusivityCategory(category)
        let outer = GroupProcedure(name: "group", children: Array(children.dropFirst()) + [inner])
        outer.addExclusivityCategory(category)
        let outsider = BlockProcedure(name: "outsider") {}
        outsider.addExclusivityCategory(category)
        let queue = ProcedureQueue()
        queue.addProcedures([outer, outsider])
        await queue.waitUntilAllFinished()
        let outerError = outer.error
        #expect(outerError == nil)
        #expect(overlaps.count == 0)
        #expect(children.allSatisfy { $0.isFinished })
    }
}

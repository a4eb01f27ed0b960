import TestSupport
import Testing

@testable import ProcedureCore

/// Semantics rule 2: dependency cycles fail instead of hanging.
@Suite(.timeLimit(.minutes(2)))
struct DependencyCycleTests {
    func expectCycle(_ procedure: Procedure, _ names: Set<String>) {
        guard let error = procedure.error as? ProcedureError, error.code == .dependencyCycle else {
            Issue.record("\(procedure.name): expected a cycle error, got \(String(describing: procedure.error))")
            return
        }
        #expect(Set(error.procedures) == names)
    }

    @Test("a two-procedure cycle: both finish with a cycle error, neither executes")
    func twoCycle() async {
        let ran = Counter()
        let a = BlockProcedure(name: "a") { ran.increment() }
        let b = BlockProcedure(name: "b") { ran.increment() }
        a.addDependency(b)
        b.addDependency(a)
        let queue = ProcedureQueue()
        queue.addProcedures([a, b])
        await queue.waitUntilAllFinished()
        #expect(ran.count == 0)
        expectCycle(a, ["a", "b"])
        expectCycle(b, ["a", "b"])
    }

    @Test("a cycle through a group's child: the child depends on a procedure that depends on the group")
    func cycleThroughGroupChild() async {
        let ran = Counter()
        let child = BlockProcedure(name: "child") { ran.increment() }
        let sibling = BlockProcedure(name: "sibling") { ran.increment() }
        let outside = BlockProcedure(name: "outside") { ran.increment() }
        child.addDependency(outside)
        let group = GroupProcedure(name: "group", children: [child, sibling])
        outside.addDependency(group)
        let queue = ProcedureQueue()
        queue.addProcedures([group, outside])
        await queue.waitUntilAllFinished()
        expectCycle(child, ["outside", "group", "child"])
        expectCycle(outside, ["outside", "group", "child"])
        #expect(group.isFinished)
        #expect(group.error != nil)
        #expect(!outside.isExecuting && ran.count <= 1, "only the sibling, outside the cycle, may have run")
    }

    @Test("a cycle closed by a child added while the group runs")
    func cycleThroughChildAddedLater() async {
        let outside = BlockProcedure(name: "outside") {}
        let latch = Latch()
        let first = AsyncProcedure(name: "first") { await latch.wait() }
        let group = GroupProcedure(name: "group", children: [first])
        outside.addDependency(group)
        let queue = ProcedureQueue()
        queue.addProcedures([group, outside])
        let late = BlockProcedure(name: "late") {}
        late.addDependency(outside)
        group.addChild(late)
        latch.open()
        await queue.waitUntilAllFinished()
        expectCycle(late, ["outside", "group", "late"])
        expectCycle(outside, ["outside", "group", "late"])
        #expect(group.isFinished)
    }

    @Test("a procedure depending on itself, and a three-cycle across two queues")
    func selfAndLongerCycles() async {
        let alone = BlockProcedure(name: "alone") {}
        alone.addDependency(alone)
        await run(alone)
        expectCycle(alone, ["alone"])

        let x = BlockProcedure(name: "x") {}
        let y = BlockProcedure(name: "y") {}
        let z = BlockProcedure(name: "z") {}
        x.addDependency(z)
        y.addDependency(x)
        z.addDependency(y)
        let outside = BlockProcedure(name: "outside") {}
        outside.addDependency(x)
        let first = ProcedureQueue()
        let second = ProcedureQueue()
        first.addProcedures([x, outside])
        second.addProcedure(y)
        #expect(!x.isFinished)
        first.addProcedure(z)
        await first.waitUntilAllFinished()
        await second.waitUntilAllFinished()
        for member in [x, y, z] { expectCycle(member, ["x", "y", "z"]) }
        #expect(outside.error == nil)
    }

    @Test("diamonds and long chains are not cycles")
    func acyclicGraphs() async {
        let top = BlockProcedure(name: "top") {}
        let left = BlockProcedure(name: "left") {}
        let right = BlockProcedure(name: "right") {}
        let bottom = BlockProcedure(name: "bottom") {}
        left.addDependency(top)
        right.addDependency(top)
        bottom.addDependency(left)
        bottom.addDependency(right)
        var chain: [Procedure] = [bottom]
        for index in 0..<2_000 {
            let next = BlockProcedure(name: "c\(index)") {}
            next.addDependency(chain.last!)
            chain.append(next)
        }
        let queue = ProcedureQueue(isSuspended: true)
        queue.addProcedures(chain.reversed())
        queue.addProcedures([top, left, right])
        queue.isSuspended = false
        await queue.waitUntilAllFinished()
        #expect(chain.allSatisfy { $0.error == nil && $0.isFinished })
    }
}

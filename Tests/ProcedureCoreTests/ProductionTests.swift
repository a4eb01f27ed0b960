import TestSupport
import Testing

@testable import ProcedureCore

/// Semantics rule 43.
@Suite(.timeLimit(.minutes(2)))
struct ProductionTests {
    /// Produces `count` procedures from its body, each recording its name.
    final class Producer: Procedure, @unchecked Sendable {
        let count: Int
        let log: EventLog
        init(name: String, count: Int, log: EventLog) {
            self.count = count
            self.log = log
            super.init(name: name)
        }
        override func execute() {
            do {
                for index in 1...count {
                    try produce(BlockProcedure(name: "page \(index)") { [log] in log.record("ran page \(index)") })
                }
                finish()
            } catch {
                finish(with: error)
            }
        }
    }

    @Test("43: a running procedure produces procedures onto its queue; observers hear did-produce first")
    func produceOntoQueue() async {
        let log = EventLog()
        let queue = ProcedureQueue()
        let producer = Producer(name: "crawler", count: 3, log: log)
        producer.addObserver(
            BlockObserver(didProduce: { producer, produced in
                log.record("\(producer.name) produced \(produced.name) (\(produced.state))")
            }))
        queue.addProcedure(producer)
        await queue.waitUntilAllFinished()
        #expect(producer.error == nil)
        for index in 1...3 {
            #expect(log.all.contains("crawler produced page \(index) (initialized)"))
            #expect(log.all.contains("ran page \(index)"))
        }
    }

    @Test("43: in a group, a produced procedure is a child: the group finishes after it")
    func produceInsideGroup() async {
        let log = EventLog()
        let producer = Producer(name: "crawler", count: 2, log: log)
        let group = GroupProcedure(name: "crawl") { producer }
        group.addObserver(BlockObserver(didFinish: { _, _ in log.record("group finished") }))
        await run(group)
        #expect(group.children.map(\.name) == ["crawler", "page 1", "page 2"])
        #expect(group.children.allSatisfy { $0.isFinished })
        #expect(log.all.last == "group finished")
        #expect(group.error == nil)
    }

    @Test("43: producing while not on a queue, or after finishing, throws misuse and adds nothing")
    func produceOutsideQueue() async throws {
        let idle = BlockProcedure(name: "idle") {}
        #expect(throws: ProcedureError.self) { try idle.produce(BlockProcedure {}) }
        do {
            try idle.produce(BlockProcedure(name: "orphan") {})
        } catch {
            #expect(error.code == .misuse)
            #expect(error.description.contains("produce(orphan) called while initialized"))
        }
        let queue = ProcedureQueue()
        await run(idle, on: queue)
        let late = BlockProcedure(name: "late") {}
        #expect(throws: ProcedureError.self) { try idle.produce(late) }
        #expect(late.state == .initialized)
        #expect(queue.unfinishedCount == 0)
    }
}

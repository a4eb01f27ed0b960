import Locking
import TestSupport
import Testing

@testable import ProcedureCore

/// `BatchProcedure`: one procedure per element, at most `width` at once, outputs in element order.
@Suite(.timeLimit(.minutes(2)))
struct BatchProcedureTests {
    @Test("outputs come in the elements' order, whatever order the procedures finish in")
    func resultOrder() async throws {
        let started = StartedProcedures<Int>()
        let batch = BatchProcedure(name: "order", elements: Array(0..<12), width: 12) { element in
            ManualResultProcedure<Int>(name: "element \(element)", started: started)
        }
        ProcedureQueue().addProcedure(batch)
        let running = await started.waitFor(12)
        // Finished last to first: element i's output is i * 10.
        for procedure in running.reversed() {
            let element = Int(procedure.name.split(separator: " ").last!)!
            procedure.finish(returning: element * 10)
        }
        #expect(try await batch.value() == (0..<12).map { $0 * 10 })
    }

    @Test("never more than width procedures run at once, and every element runs", arguments: [1, 3, 8])
    func width(width: Int) async throws {
        let running = Counter()
        let overlaps = Counter()
        let batch = BatchProcedure(name: "width", elements: Array(0..<40), width: width, workload: .blocking) {
            TransformProcedure(input: $0) { element in
                if running.increment() > width { overlaps.increment() }
                defer { running.decrement() }
                return element + 1
            }
        }
        ProcedureQueue().addProcedure(batch)
        #expect(try await batch.value() == Array(1...40))
        #expect(overlaps.count == 0)
    }

    @Test("fail fast: the first failure cancels what has not run and fails the batch with its error")
    func failFast() async {
        let executed = Counter()
        let batch = BatchProcedure(name: "fail-fast", elements: Array(0..<10), width: 1) {
            TransformProcedure(input: $0) { element in
                executed.increment()
                if element == 3 { throw TestError("element 3") }
                return element
            }
        }
        await run(batch)
        #expect((batch.error as? TestError) == TestError("element 3"))
        #expect(!batch.isCancelled, "a failed batch is failed, not cancelled")
        #expect(executed.count == 4, "elements after the failure never ran")
        guard case .failure = batch.output else {
            Issue.record("a failed batch has an output")
            return
        }
    }

    @Test("collect errors: every element runs and the batch lists each failure in element order")
    func collectErrors() async throws {
        let executed = Counter()
        let batch = BatchProcedure(
            name: "collect", elements: Array(0..<10), width: 4, failurePolicy: .collectErrors
        ) {
            TransformProcedure(input: $0) { element in
                executed.increment()
                if element == 7 || element == 2 { throw TestError("element \(element)") }
                return element
            }
        }
        await run(batch)
        #expect(executed.count == 10)
        let error = try #require(batch.error as? ProcedureError)
        #expect(error.code == .childrenFailed)
        #expect(error.underlying.map { ($0 as? TestError)?.message } == ["element 2", "element 7"])
    }

    @Test("cancelling mid-batch cancels the running procedures, starts no more, and finishes the batch cancelled")
    func cancelMidBatch() async {
        let started = StartedProcedures<Int>()
        let made = Lock<[ManualResultProcedure<Int>]>([])
        let batch = BatchProcedure(name: "cancel", elements: Array(0..<10), width: 2) { element in
            let procedure = ManualResultProcedure<Int>(name: "element \(element)", started: started)
            made.withLock { $0.append(procedure) }
            return procedure
        }
        ProcedureQueue().addProcedure(batch)
        let running = await started.waitFor(2)
        batch.cancel(with: TestError("stop"))
        await batch.waitUntilFinished()
        #expect(batch.isCancelled)
        #expect((batch.error as? TestError) == TestError("stop"))
        #expect(running.allSatisfy { $0.isCancelled && $0.isFinished })
        let all = made.withLock { $0 }
        #expect(all.count == 10)
        #expect(all.filter { $0.executions.count > 0 }.count == 2, "no element started after the cancel")
        #expect(all.allSatisfy { $0.isFinished }, "every element procedure finished")
    }

    @Test("elements from a dependency; none gives an empty output; none at all is misuse")
    func inputs() async throws {
        let source = TransformProcedure(name: "source", input: 3) { count in Array(1...count) }
        let doubled = BatchProcedure(name: "doubled", inputFrom: source, width: 2) {
            TransformProcedure(input: $0) { $0 * 2 }
        }
        let queue = ProcedureQueue()
        queue.addProcedures([source, doubled])
        #expect(try await doubled.value() == [2, 4, 6])

        let empty = BatchProcedure(name: "empty", elements: [Int]()) { TransformProcedure(input: $0) { $0 } }
        await run(empty)
        #expect(try await empty.value() == [])

        let missing = BatchProcedure<Int, Int>(name: "missing") { TransformProcedure(input: $0) { $0 } }
        await run(missing)
        #expect((missing.error as? ProcedureError)?.code == .misuse)
    }

    @Test("a batch whose input failed never runs an element")
    func failedInput() async {
        let made = Counter()
        let source = TransformProcedure<Int, [Int]>(name: "source", input: 1) { _ in throw TestError("no list") }
        let batch = BatchProcedure(name: "batch", inputFrom: source) { (element: Int) -> ResultProcedure<Int> in
            made.increment()
            return TransformProcedure(input: element) { $0 }
        }
        let queue = ProcedureQueue()
        queue.addProcedures([source, batch])
        await batch.waitUntilFinished()
        #expect((batch.error as? ProcedureError)?.code == .inputUnavailable)
        #expect(made.count == 0)
    }
}

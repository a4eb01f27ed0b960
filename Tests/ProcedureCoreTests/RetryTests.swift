import TestSupport
import Testing

@testable import ProcedureCore

/// Semantics rules 32 and 33 (delays).
@Suite(.timeLimit(.minutes(2)))
struct RetryTests {
    @Test("32: retry runs a fresh procedure per attempt until one succeeds")
    func retryUntilSuccess() async throws {
        let attempts = EventLog()
        let retry = RetryProcedure<String>(maxAttempts: 5, wait: .constant(.milliseconds(1))) { attempt in
            AsyncProcedure(name: "attempt \(attempt)") {
                attempts.record("\(attempt)")
                if attempt < 3 { throw TestError("attempt \(attempt)") }
                return "ok on \(attempt)"
            }
        }
        ProcedureQueue().addProcedure(retry)
        #expect(try await retry.value() == "ok on 3")
        #expect(attempts.all == ["1", "2", "3"])
    }

    @Test("32: the final error is the last attempt's, after the maximum count")
    func retryGivesUp() async {
        let retry = RetryProcedure<Int>(maxAttempts: 3) { attempt in
            AsyncProcedure { throw TestError("failure \(attempt)") }
        }
        ProcedureQueue().addProcedure(retry)
        await #expect(throws: TestError("failure 3")) { try await retry.value() }
    }

    @Test("32: the handler may stop, or reconfigure the next attempt")
    func handlerStopsOrReconfigures() async {
        let names = EventLog()
        let retry = RetryProcedure<Int>(
            maxAttempts: 10,
            handler: { failed, next in
                next.name = "retry after \(failed.attempt)"
                return failed.attempt == 2 ? .stop : .proceed
            },
            makeAttempt: { _ in
                let attempt = AsyncProcedure<Int> { throw TestError() }
                attempt.addObserver(BlockObserver(willExecute: { names.record($0.name) }))
                return attempt
            })
        await run(retry)
        #expect(names.all == ["AsyncProcedure<Int>", "retry after 1"])
        #expect(retry.error as? TestError == TestError())
    }

    @Test("32: repeat runs until its count, the factory stops, or the handler stops")
    func repeatProcedure() async {
        let runs = Counter()
        let counted = RepeatProcedure(maxCount: 4) { _ in BlockProcedure { runs.increment() } }
        await run(counted)
        #expect(runs.count == 4)
        let byFactory = RepeatProcedure { iteration in iteration <= 2 ? BlockProcedure { runs.increment() } : nil }
        await run(byFactory)
        #expect(runs.count == 6)
    }

    @Test("32: cancelling a retry cancels the attempt in progress")
    func cancelRetry() async {
        let attempt = ManualProcedure(name: "attempt")
        let retry = RetryProcedure<Int>(maxAttempts: 3) { _ in
            let wrapper = AsyncProcedure<Int> { throw TestError() }
            wrapper.addDependency(attempt)
            return wrapper
        }
        let queue = ProcedureQueue()
        queue.addProcedures([retry, attempt])
        await attempt.started.wait()
        retry.cancel()
        await retry.waitUntilFinished()
        #expect(retry.isCancelled)
        attempt.finish()
        await queue.waitUntilAllFinished()
    }

    @Test("32: wait strategies give the documented delays")
    func waitStrategies() {
        #expect(WaitStrategy.immediate.delay(beforeRetry: 3) == .zero)
        #expect(WaitStrategy.constant(.seconds(2)).delay(beforeRetry: 5) == .seconds(2))
        let incrementing = WaitStrategy.incrementing(initial: .seconds(1), increment: .seconds(2))
        #expect((1...4).map(incrementing.delay(beforeRetry:)) == [.seconds(1), .seconds(3), .seconds(5), .seconds(7)])
        let exponential = WaitStrategy.exponential(initial: .milliseconds(100), maximum: .milliseconds(500))
        #expect(
            (1...5).map(exponential.delay(beforeRetry:)) == [
                .milliseconds(100), .milliseconds(200), .milliseconds(400), .milliseconds(500), .milliseconds(500),
            ])
        let fibonacci = WaitStrategy.fibonacci(unit: .seconds(1))
        #expect((1...7).map(fibonacci.delay(beforeRetry:)) == [1, 1, 2, 3, 5, 8, 13].map { Duration.seconds($0) })
        let random = WaitStrategy.random(.milliseconds(200)...(.milliseconds(800)))
        let draws = (1...200).map(random.delay(beforeRetry:))
        #expect(draws.allSatisfy { $0 >= .milliseconds(200) && $0 <= .milliseconds(800) })
        #expect(Set(draws).count > 1, "drawn afresh each time")
        #expect(WaitStrategy.random(.seconds(2)...(.seconds(2))).delay(beforeRetry: 3) == .seconds(2))
        let jittered = WaitStrategy.exponential(initial: .seconds(1), jitter: true)
        for retry in 1...20 {
            let delay = jittered.delay(beforeRetry: retry)
            #expect(delay >= .zero && delay <= .seconds(1) * (1 << min(retry - 1, 30)))
        }
    }

    @Test("33: a delay waits at least its duration, and cancelling it finishes it at once")
    func delays() async {
        let clock = ContinuousClock()
        let start = clock.now
        let short = DelayProcedure(.milliseconds(30))
        await run(short)
        #expect(clock.now - start >= .milliseconds(30))

        let long = DelayProcedure(.seconds(3600))
        let queue = ProcedureQueue()
        queue.addProcedure(long)
        long.addObserver(BlockObserver(willExecute: { $0.cancel() }))
        if long.isExecuting { long.cancel() }
        await long.waitUntilFinished()
        #expect(long.isCancelled)
    }

    @Test("33: delays do not hold threads: many long delays do not stop other work on a serial-width queue")
    func delaysDoNotBlock() async {
        let queue = ProcedureQueue()
        let delays = (0..<64).map { _ in DelayProcedure(.seconds(3600)) }
        queue.addProcedures(delays)
        let other = BlockProcedure {}
        await run(other, on: ProcedureQueue(maxConcurrentCount: 1))
        #expect(other.isFinished)
        queue.cancelAll()
        await queue.waitUntilAllFinished()
    }

    @Test("a finished retry is released: its driver's link to it, for the attempts' progress, ends with it")
    func releasedWhenFinished() async {
        weak var released: RetryProcedure<Int>?
        do {
            let retry = RetryProcedure<Int>(name: "released", maxAttempts: 2) { number in
                AsyncProcedure { progress in
                    progress.report(completed: 1, of: 1)
                    if number == 1 { throw TestError("first") }
                    return number
                }
            }
            released = retry
            await run(retry)
            #expect(retry.error == nil)
        }
        #expect(released == nil, "the retry was kept alive after it finished")
    }
}

/// Retry and repeat over any procedure factory, with typed handlers (rule 32).
@Suite(.timeLimit(.minutes(2)))
struct TypedRetryTests {
    /// An attempt with a setting of its own, which the handler adjusts for the next attempt.
    final class Fetch: ResultProcedure<String>, @unchecked Sendable {
        let mirror: String
        var timeoutSeconds = 1
        init(mirror: String) {
            self.mirror = mirror
            super.init(name: "fetch from \(mirror)")
        }
        override func execute() {
            if mirror == "b" {
                finish(returning: "data from b after \(timeoutSeconds) s")
            } else {
                finish(throwing: TestError("\(mirror) is down"))
            }
        }
    }

    @Test("32: the handler sees attempts as the factory's type and configures the next one")
    func typedHandler() async throws {
        let mirrors = ["a", "b"]
        let seen = EventLog()
        let retry = RetryProcedure<String>(
            maxAttempts: 3,
            handler: { failed, next in
                seen.record("\(failed.procedure.mirror) failed (attempt \(failed.attempt))")
                next.timeoutSeconds = failed.procedure.timeoutSeconds * 2
                return .proceed
            },
            makeAttempt: { attempt in Fetch(mirror: mirrors[attempt - 1]) })
        await run(retry)
        #expect(try await retry.value() == "data from b after 2 s")
        #expect(seen.all == ["a failed (attempt 1)"])
    }

    @Test("32: a Void retry runs any procedure, a BlockProcedure too, until one finishes without an error")
    func retryBlockProcedures() async throws {
        let runs = Counter()
        let retry = RetryProcedure<Void>(maxAttempts: 5) { attempt in
            BlockProcedure(name: "attempt \(attempt)") {
                runs.increment()
                if attempt < 2 { throw TestError("attempt \(attempt)") }
            }
        }
        await run(retry)
        try await retry.value()
        #expect(runs.count == 2)
        let failing = RetryProcedure<Void>(maxAttempts: 2) { attempt in
            BlockProcedure { throw TestError("attempt \(attempt)") }
        }
        await run(failing)
        await #expect(throws: TestError("attempt 2")) { try await failing.value() }
    }

    @Test("32: a repeat's handler sees iterations as the factory's type")
    func typedRepeat() async {
        let names = EventLog()
        let repeated = RepeatProcedure(
            maxCount: 3,
            handler: { finished, next in
                names.record(finished.procedure.mirror)
                return .proceed
            },
            makeIteration: { iteration in Fetch(mirror: "m\(iteration)") })
        await run(repeated)
        #expect(names.all == ["m1", "m2"])
    }

    @Test("a retry taking a step's output hands it to every attempt")
    func inputToEveryAttempt() async throws {
        let source = TransformProcedure(name: "mirror list", input: ["a", "b", "c"]) { $0 }
        let retry = RetryProcedure(name: "fetch", inputFrom: source, maxAttempts: 3) { mirrors, attempt in
            Fetch(mirror: mirrors[attempt - 1])
        }
        ProcedureQueue().addProcedures([source, retry])
        #expect(try await retry.value() == "data from b after 1 s")
    }

    @Test("a retry whose input step failed makes no attempt and names the step it waited for")
    func inputFailed() async {
        let source = TransformProcedure<Int, [String]>(name: "mirror list", input: 0) { _ in throw TestError("no list")
        }
        let attempts = Counter()
        let retry = RetryProcedure(name: "fetch", inputFrom: source, maxAttempts: 3) { mirrors, attempt in
            attempts.increment()
            return Fetch(mirror: mirrors[attempt - 1])
        }
        let queue = ProcedureQueue()
        queue.addProcedures([source, retry])
        await retry.waitUntilFinished()
        #expect(attempts.count == 0)
        let error = retry.error as? ProcedureError
        #expect(error?.code == .inputUnavailable)
        #expect(error?.procedures == ["mirror list"])
        #expect(retry.isCancelled)
    }
}

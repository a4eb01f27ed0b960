import CapabilityTesting
import Testing

/// The manual clock: sleepers wake exactly when the clock is moved past their deadline.
@Suite("Manual clock")
struct ManualClockTests {
    @Test("a sleeper wakes when the clock reaches its deadline, not before")
    func wakesAtDeadline() async throws {
        let clock = ManualClock()
        // allowed: the manual clock's sleep is the subject under test; no real time passes.
        let sleeper = Task { try await clock.sleep(for: .seconds(10)) }  // allowed: manual clock, no real time passes
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(9))
        #expect(clock.now.offset == .seconds(9))
        // Still asleep: a second sleeper joins it, which waitForSleepers(2) can only see if the first waits.
        let second = Task { try await clock.sleep(for: .seconds(1)) }  // allowed: manual clock
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        try await second.value
    }

    @Test("a deadline already past returns at once; cancelling a sleeper throws CancellationError")
    func pastAndCancelled() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(5))
        // allowed: the manual clock's sleep is the subject under test; no real time passes.
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))  // allowed: manual clock
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }  // allowed: manual clock
        await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}

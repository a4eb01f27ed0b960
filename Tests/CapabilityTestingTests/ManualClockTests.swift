import CapabilityTesting
import Testing

/// The manual clock: sleepers wake exactly when the clock is moved past their deadline.
@Suite("Manual clock")
struct ManualClockTests {
    @Test("a sleeper wakes when the clock reaches its deadline, not before")
    func wakesAtDeadline() async throws {
        let clock = ManualClock()
        let sleeper = Task { try await clock.sleep(for: .seconds(10)) }
        await clock.waitForSleepers(1)
        clock.advance(by: .seconds(9))
        #expect(clock.now.offset == .seconds(9))
        // Still asleep: a second sleeper joins it, which waitForSleepers(2) can only see if the first waits.
        let second = Task { try await clock.sleep(for: .seconds(1)) }
        await clock.waitForSleepers(2)
        clock.advance(by: .seconds(1))
        try await sleeper.value
        try await second.value
    }

    @Test("a deadline already past returns at once; cancelling a sleeper throws CancellationError")
    func pastAndCancelled() async throws {
        let clock = ManualClock()
        clock.advance(by: .seconds(5))
        try await clock.sleep(until: clock.now.advanced(by: .seconds(-1)))
        let sleeper = Task { try await clock.sleep(for: .seconds(60)) }
        await clock.waitForSleepers(1)
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
    }
}

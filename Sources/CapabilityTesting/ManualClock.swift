import Locking

/// A clock that moves only when a test advances it, so tests of expiry and timeouts are
/// deterministic and instant.
///
/// ```swift
/// import CapabilityTesting
///
/// let clock = ManualClock()
/// let kept = pamAdmin.keepingAuthorization(for: .seconds(300), clock: clock)
/// clock.advance(by: .seconds(301))  // the kept login has expired, at once
/// _ = kept
/// ```
public final class ManualClock: Clock, Sendable {
    /// A point on a ``ManualClock``: the time advanced since the clock was made.
    public struct Instant: InstantProtocol {
        /// Time since the clock's start.
        public var offset: Duration

        /// The instant `duration` later (earlier, if negative).
        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        /// The time from this instant to `other`, negative if `other` is earlier.
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        var waitingForSleepers: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Lock(State())

    /// Creates a clock at offset zero.
    public init() {}

    /// Where the clock stands: the sum of every ``advance(by:)`` so far.
    public var now: Instant { state.withLock { $0.now } }
    /// Zero: the clock moves by exactly what a test advances it.
    public var minimumResolution: Duration { .zero }

    /// Moves the clock forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let woken = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers.removeValue(forKey: id) }
            return due.values.map(\.continuation)
        }
        for continuation in woken { continuation.resume() }
    }

    /// Returns once at least `count` sleepers are waiting on the clock, so a test can advance
    /// it knowing the sleep it means to end has begun.
    public func waitForSleepers(_ count: Int = 1) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ready = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.waitingForSleepers.append((count, continuation))
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Suspends until a test advances the clock to `deadline` (at once if it is there already).
    /// Throws `CancellationError` if the task is cancelled first.
    /// - Parameters:
    ///   - deadline: The instant to wake at.
    ///   - tolerance: Ignored: the clock wakes sleepers exactly.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state -> Int in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                enum Outcome { case wait, due, cancelled }
                let (outcome, ready) = state.withLock { state -> (Outcome, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled { return (.cancelled, []) }
                    if deadline <= state.now { return (.due, []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    let count = state.sleepers.count
                    let ready = state.waitingForSleepers.filter { $0.count <= count }.map(\.continuation)
                    state.waitingForSleepers.removeAll { $0.count <= count }
                    return (.wait, ready)
                }
                for waiter in ready { waiter.resume() }
                switch outcome {
                case .wait: break
                case .due: continuation.resume()
                case .cancelled: continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }
}

/// How long to wait before the next attempt of a ``RetryProcedure`` or ``RepeatProcedure``.
public enum WaitStrategy: Sendable, Equatable {
    /// No wait.
    case immediate
    /// The same wait every time.
    case constant(Duration)
    /// A uniformly random wait within the range, drawn afresh each time.
    case random(ClosedRange<Duration>)
    /// `initial`, then `initial + increment`, `initial + 2 × increment`, ...
    case incrementing(initial: Duration, increment: Duration)
    /// `initial × multiplier^(n-1)` for the n-th wait, at most `maximum`. With `jitter`, a
    /// uniformly random wait between zero and that value ("full jitter"), so that many
    /// clients retrying at once spread out.
    case exponential(initial: Duration, multiplier: Double = 2, maximum: Duration? = nil, jitter: Bool = false)
    /// `unit × fib(n)` for the n-th wait: 1, 1, 2, 3, 5, 8, ... units, at most `maximum`.
    case fibonacci(unit: Duration, maximum: Duration? = nil)

    /// The wait before the `retry`-th repetition (1 is the wait after the first attempt).
    public func delay(beforeRetry retry: Int) -> Duration {
        var generator = SystemRandomNumberGenerator()
        return delay(beforeRetry: retry, using: &generator)
    }

    /// The wait before the `retry`-th repetition, drawing any jitter from `generator`.
    public func delay(beforeRetry retry: Int, using generator: inout some RandomNumberGenerator) -> Duration {
        let n = max(1, retry)
        switch self {
        case .immediate:
            return .zero
        case .constant(let wait):
            return wait
        case .random(let range):
            return range.lowerBound + (range.upperBound - range.lowerBound)
                * Double.random(in: 0...1, using: &generator)
        case .incrementing(let initial, let increment):
            return initial + increment * (n - 1)
        case .exponential(let initial, let multiplier, let maximum, let jitter):
            var wait = initial * Self.power(multiplier, n - 1)
            if let maximum, wait > maximum { wait = maximum }
            guard jitter, wait > .zero else { return wait }
            return wait * Double.random(in: 0...1, using: &generator)
        case .fibonacci(let unit, let maximum):
            var (previous, current) = (0, 1)
            for _ in 1..<n where current < Int.max / 2 { (previous, current) = (current, previous + current) }
            let wait = unit * current
            if let maximum, wait > maximum { return maximum }
            return wait
        }
    }

    private static func power(_ base: Double, _ exponent: Int) -> Double {
        let value = (0..<exponent).reduce(1.0) { result, _ in result * base }
        return value.isFinite ? min(value, 1e12) : 1e12
    }
}

import Dispatch
import Locking

/// The count behind ``ClientLimits``: who holds how many slots now.
final class ClientAdmission: Sendable {
    /// One admitted client's slot, given back when the connection that holds it is released.
    final class Slot: Sendable {
        private let admission: ClientAdmission
        private let uid: UInt32

        fileprivate init(_ admission: ClientAdmission, uid: UInt32) {
            (self.admission, self.uid) = (admission, uid)
        }

        deinit { admission.release(uid: uid) }
    }

    private struct Counts {
        var byUser: [UInt32: Int] = [:]
        var total = 0
        /// Whoever waits for the last client to go (a service shutting down).
        var idleWaiters: [DispatchSemaphore] = []
    }

    let limits: ClientLimits
    private let counts = Lock(Counts())

    init(_ limits: ClientLimits) {
        self.limits = limits
    }

    /// A slot for a client of `uid`, or why there is none.
    func admit(uid: UInt32) -> Result<Slot, ServiceError> {
        let refusal = counts.withLock { counts -> String? in
            if counts.total >= limits.total {
                return "the service has \(limits.total) clients already (at most \(limits.total) at once)"
            }
            let held = counts.byUser[uid, default: 0]
            if held >= limits.perUser {
                return "uid \(uid) has \(held) connections open (at most \(limits.perUser) at once)"
            }
            counts.byUser[uid] = held + 1
            counts.total += 1
            return nil
        }
        if let refusal { return .failure(ServiceError("busy: \(refusal); try again later")) }
        return .success(Slot(self, uid: uid))
    }

    private func release(uid: UInt32) {
        let waiters = counts.withLock { counts -> [DispatchSemaphore] in
            counts.total -= 1
            let left = counts.byUser[uid, default: 1] - 1
            counts.byUser[uid] = left == 0 ? nil : left
            guard counts.total == 0 else { return [] }
            defer { counts.idleWaiters = [] }
            return counts.idleWaiters
        }
        for waiter in waiters { waiter.signal() }
    }

    /// How many clients hold a slot now.
    var clientCount: Int { counts.withLock { $0.total } }

    /// Waits until no client holds a slot, or until `deadline`; whether none does.
    func waitUntilIdle(until deadline: ContinuousClock.Instant) -> Bool {
        let waiter = DispatchSemaphore(value: 0)
        let idle = counts.withLock { counts -> Bool in
            if counts.total == 0 { return true }
            counts.idleWaiters.append(waiter)
            return false
        }
        if idle { return true }
        let left = ContinuousClock.now.duration(to: deadline)
        let (seconds, attoseconds) = max(left, .zero).components
        let nanoseconds = Int(clamping: seconds) &* 1_000_000_000 &+ Int(attoseconds / 1_000_000_000)
        _ = waiter.wait(timeout: .now() + .nanoseconds(nanoseconds))
        return clientCount == 0
    }
}

import Capabilities
import CapabilityPolicy
import FeatureFlags
import LinuxBackends
import Locking

/// The host's users requests name, as subjects: the user and group databases' answer, with a
/// user the databases do not know told apart from databases that did not answer (a directory
/// down), which must leave a gate undecided rather than failed.
///
/// An answer is kept for `lifetime` (1 s by default): a service deciding every request of a user
/// asks the databases once a second, not once a request. A change of a user's groups counts
/// within that time, far within what sssd and nscd keep entries for (an hour and more by
/// default). Only found users are kept, at most ``capacity`` of them; a failed or unknown
/// lookup is asked again with the next request.
final class RequestUsers: Sendable {
    enum Lookup {
        case found(Subject, KeptUser)
        case unknown(String)
        case failed(String)
    }

    /// A user as found, with the flag context of its user and groups made at its first use.
    final class KeptUser: Sendable {
        let subject: Subject
        let found: ContinuousClock.Instant
        private let flagContext = Lock<FlagEvaluationContext?>(nil)

        init(_ subject: Subject, found: ContinuousClock.Instant) {
            self.subject = subject
            self.found = found
        }

        /// The subject's flag context in `policy`, made once.
        func flagContext(in policy: LoadedPolicy) -> FlagEvaluationContext {
            if let made = flagContext.withLock({ $0 }) { return made }
            let made = policy.subjectFlagContext(subject)
            flagContext.withLock { $0 = made }
            return made
        }
    }

    static let capacity = 4096
    let lifetime: Duration
    private let kept = Lock<[String: KeptUser]>([:])

    init(lifetime: Duration) { self.lifetime = lifetime }

    func subject(named name: String) -> Lookup {
        // A number would name a uid to `Subject.user(named:)`: a request's user is a name.
        guard !name.isEmpty, !name.utf8.contains(0), UInt32(name) == nil else {
            return .unknown("\"\(name)\" is not a user name")
        }
        let now = ContinuousClock.now
        if lifetime > .zero, let user = kept.withLock({ $0[name] }), now - user.found < lifetime {
            return .found(user.subject, user)
        }
        switch AccountDatabase.userEntry(named: name) {
        case .found(let entry):
            do {
                let user = KeptUser(try Subject.user(entry), found: now)
                if lifetime > .zero {
                    kept.withLock { users in
                        if users.count >= Self.capacity { users.removeAll(keepingCapacity: true) }
                        users[name] = user
                    }
                }
                return .found(user.subject, user)
            } catch {
                return .failed(error.description)
            }
        case .notFound: return .unknown("no user \"\(name)\" on this host")
        case .failed(let reason): return .failed(reason)
        }
    }
}

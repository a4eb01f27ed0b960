import Locking
import Plumbing
import Varlink

/// The logins capctld is asking of its clients (`Authorize` with interaction), each named by a
/// token only its own client was sent, so that `Answer`, which arrives on another connection,
/// reaches the login it answers and no other. An answer counts only from the process that asked
/// (the same uid and peer pid), only while a question waits for one, and only once.
final class PendingLogins: Sendable {
    private let logins = Lock<[String: PendingLogin]>([:])

    /// A login being asked of the process `pid` of user `uid`, until ``end(_:)``.
    func begin(uid: UInt32, pid: Int32) throws(VarlinkError) -> PendingLogin {
        let signal: EventSignal
        do { signal = try EventSignal() } catch {
            throw VarlinkError("org.capctl.gates.Busy", [("reason", .string("no descriptor left: \(error)"))])
        }
        var generator = SystemRandomNumberGenerator()
        // 128 random bits: a login's name cannot be guessed by another process of the same user.
        let token = (0..<2).map { _ in String(generator.next() as UInt64, radix: 16) }.joined(separator: "-")
        let login = PendingLogin(token: token, uid: uid, pid: pid, arrived: signal)
        logins.withLock { $0[token] = login }
        return login
    }

    /// The login is over: later answers to it are refused.
    func end(_ login: PendingLogin) {
        _ = logins.withLock { $0.removeValue(forKey: login.token) }
    }

    /// Whether a login asks process `pid` of user `uid`: its other connections wait for the answer.
    func asks(uid: UInt32, pid: Int32?) -> Bool {
        guard let pid else { return false }
        return logins.withLock { $0.values.contains { $0.uid == uid && $0.pid == pid } }
    }

    /// Hands `answer` (nil: the person declined) to the login named `token`, when process `pid`
    /// of user `uid` is the one it asks and a question waits; false otherwise.
    func answer(_ answer: String?, to token: String, uid: UInt32, pid: Int32?) -> Bool {
        guard let pid, let login = logins.withLock({ $0[token] }), login.uid == uid, login.pid == pid else {
            return false
        }
        return login.deliver(answer)
    }
}

/// One login being asked: its name, whom it asks, and the answer to the question waiting.
final class PendingLogin: Sendable {
    let token: String
    let uid: UInt32
    let pid: Int32
    /// Given when an answer arrives.
    let arrived: EventSignal
    private let state = Lock<(waiting: Bool, answer: String??)>((false, nil))

    init(token: String, uid: UInt32, pid: Int32, arrived: EventSignal) {
        (self.token, self.uid, self.pid, self.arrived) = (token, uid, pid, arrived)
    }

    /// A question was sent: the next answer is for it.
    func expectAnswer() {
        state.withLock { $0 = (true, nil) }
        arrived.take()
    }

    /// The answer to the question waiting, once it arrived.
    func takeAnswer() -> String?? {
        state.withLock { state in
            guard let answer = state.answer else { return nil }
            state = (false, nil)
            return answer
        }
    }

    fileprivate func deliver(_ answer: String?) -> Bool {
        let accepted = state.withLock { state -> Bool in
            guard state.waiting, state.answer == nil else { return false }
            state.answer = .some(answer)
            return true
        }
        if accepted { arrived.signal() }
        return accepted
    }
}

public import Capabilities
public import LinuxBackends
import Locking

/// A user's password checked by PAM, as the named user: what an HTTP Basic login of a web
/// service runs (HummingbirdGates' and VaporGates' authenticators), through a PAM service of
/// the service's own (`/etc/pam.d/capctl`, which the Debian package ships, by default).
///
/// One answer per check: a wrong password is refused at once (no "try again" loop on the same
/// answer), with the delay the PAM stack adds to failures (pam_unix's, pam_faildelay's), which is
/// what slows a guesser down.
///
/// ```swift
/// let check = try PAMPasswordCheck(service: "capctl")
/// switch await check.check(user: "alice", password: PAMSecret("secret")) {
/// case .valid: print("logged in")
/// case .invalid(let reason), .unavailable(let reason): print(reason)
/// }
/// ```
public struct PAMPasswordCheck: Sendable {
    /// How a check ended.
    public enum Result: Sendable, Equatable {
        /// The password is the user's, and the account may log in.
        case valid
        /// It is not (or the account may not log in): 401.
        case invalid(String)
        /// PAM could not decide (no service file, a module missing, a timeout): 503.
        case unavailable(String)
    }

    /// The PAM service.
    public let service: String
    private let serviceDirectory: String?
    private let timeout: Duration

    /// A check through `service`.
    /// - Parameters:
    ///   - service: The PAM service file's name (in /etc/pam.d, or `serviceDirectory`).
    ///   - serviceDirectory: An absolute directory of service files instead of /etc/pam.d.
    ///   - timeout: How long one check may take.
    public init(
        service: String = "capctl", serviceDirectory: String? = nil, timeout: Duration = .seconds(30)
    ) throws(CapabilityConfigurationError) {
        // Checks the name and directory as a login would.
        _ = try PAMLogin(service: service, user: "root", serviceDirectory: serviceDirectory, timeout: timeout)
        self.service = service
        self.serviceDirectory = serviceDirectory
        self.timeout = timeout
    }

    /// Checks `password` for `user`.
    public func check(user: String, password: PAMSecret) async -> Result {
        guard !user.isEmpty, !user.utf8.contains(0), !user.hasPrefix("-") else {
            return .invalid("\"\(user)\" is not a user name")
        }
        let status: CapabilityStatus
        do {
            let login = try PAMLogin(
                service: service, user: user, serviceDirectory: serviceDirectory,
                conversation: SingleAnswer(password), timeout: timeout, tries: 1)
            status = try await login.authorize()
        } catch {
            return .unavailable("\(error)")
        }
        switch status.kind {
        case .authorized: return .valid
        case .denied, .notDetermined: return .invalid(status.reason)
        case .unavailable: return .unavailable(status.reason)
        }
    }
}

/// Answers the first password prompt with the request's password, and nothing after.
final class SingleAnswer: PAMConversation {
    private let password: Lock<PAMSecret?>

    init(_ password: PAMSecret) { self.password = Lock(password) }

    func answer(_ prompt: PAMMessage) -> PAMAnswer {
        guard prompt.style == .secretPrompt, let secret = password.withLock({ $0.take() }) else {
            return .unanswerable("the request's password was given once")
        }
        return .secret(secret)
    }

    func show(_ message: PAMMessage) {}
}
